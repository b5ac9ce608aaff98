// CPU evaluator. Layout is structure-of-arrays: the U table row of a contract is contiguous
// over scenarios, so the inner loop `loss[s] -= qty * row[s]` is a unit-stride int64
// multiply-add that GCC vectorises (vpmullq on AVX-512, emulated on AVX2). The kernel is
// compiled three times (AVX-512, AVX2, baseline) and picked once by CPUID, so the binary
// still runs on any x86-64 CI machine. Accounts are shared out to all cores in chunks.
#include <algorithm>
#include <atomic>
#include <thread>

#include "cfx/gpu_valuation/evaluator.h"

namespace cfx::gpu_valuation {
namespace {

// Scenarios per register block of the general kernel.
constexpr int32_t kBlock = 32;
// Scenarios per block of the selection's pre-filter.
constexpr int32_t kSelectBlock = 16;

using EvaluateOneFn = RankedLoss (*)(const int64_t* u, int32_t num_scenarios,
                                     const int32_t* contracts, const int64_t* qtys, int64_t n,
                                     int64_t* loss, int32_t rank, std::vector<RankedLoss>* heap);

[[gnu::always_inline]] inline void AccumulateImpl(const int64_t* __restrict u,
                                                  int32_t num_scenarios,
                                                  const int32_t* __restrict contracts,
                                                  const int64_t* __restrict qtys, int64_t n,
                                                  int64_t* __restrict loss) {
  if (num_scenarios == 16) {  // span16: the whole loss vector lives in registers
    int64_t acc[16] = {};
    for (int64_t p = 0; p < n; ++p) {
      const int64_t* __restrict row = u + static_cast<size_t>(contracts[p]) * 16;
      const int64_t q = qtys[p];
      for (int s = 0; s < 16; ++s) acc[s] -= q * row[s];
    }
    for (int s = 0; s < 16; ++s) loss[s] = acc[s];
    return;
  }
  // Register blocking: 32 running losses (four 512-bit registers) per block of scenarios,
  // all positions applied before they are stored, so each U entry is loaded once and each
  // loss stored once.
  int32_t s0 = 0;
  for (; s0 + kBlock <= num_scenarios; s0 += kBlock) {
    int64_t acc[kBlock] = {};
    for (int64_t p = 0; p < n; ++p) {
      const int64_t* __restrict row =
          u + static_cast<size_t>(contracts[p]) * num_scenarios + s0;
      const int64_t q = qtys[p];
      for (int s = 0; s < kBlock; ++s) acc[s] -= q * row[s];
    }
    for (int s = 0; s < kBlock; ++s) loss[s0 + s] = acc[s];
  }
  const int32_t len = num_scenarios - s0;
  if (len == 0) return;
  int64_t* __restrict out = loss + s0;
  for (int32_t s = 0; s < len; ++s) out[s] = 0;
  for (int64_t p = 0; p < n; ++p) {
    const int64_t* __restrict row = u + static_cast<size_t>(contracts[p]) * num_scenarios + s0;
    const int64_t q = qtys[p];
    for (int32_t s = 0; s < len; ++s) out[s] -= q * row[s];
  }
}

// The rank-th element by (loss desc, index asc). rank 1 is a scan; otherwise a bounded heap
// of the best `rank` seen so far: scenarios come in index order, so a later scenario beats
// the heap's worst only with a strictly larger loss.
[[gnu::always_inline]] inline RankedLoss Select(const int64_t* loss, int32_t num_scenarios, int32_t rank,
                  std::vector<RankedLoss>* heap) {
  if (rank == 1) {
    RankedLoss best{loss[0], 0};
    for (int32_t s = 1; s < num_scenarios; ++s) {
      if (loss[s] > best.loss) best = {loss[s], s};
    }
    return best;
  }
  // std heap with "better" as less-than keeps the worst kept element on top.
  auto better = [](const RankedLoss& x, const RankedLoss& y) {
    return x.loss > y.loss || (x.loss == y.loss && x.scenario < y.scenario);
  };
  heap->clear();
  for (int32_t s = 0; s < rank; ++s) heap->push_back({loss[s], s});
  std::make_heap(heap->begin(), heap->end(), better);
  int64_t floor = heap->front().loss;
  auto offer = [&](int32_t s) {
    if (loss[s] > floor) {
      std::pop_heap(heap->begin(), heap->end(), better);
      heap->back() = {loss[s], s};
      std::push_heap(heap->begin(), heap->end(), better);
      floor = heap->front().loss;
    }
  };
  int32_t s = rank;
  // Once the heap is full most blocks hold nothing above its floor: a vectorisable block
  // maximum skips them.
  for (; s + kSelectBlock <= num_scenarios; s += kSelectBlock) {
    int64_t block_max = loss[s];
    for (int32_t i = 1; i < kSelectBlock; ++i) block_max = std::max(block_max, loss[s + i]);
    if (block_max <= floor) continue;
    for (int32_t i = 0; i < kSelectBlock; ++i) offer(s + i);
  }
  for (; s < num_scenarios; ++s) offer(s);
  return heap->front();
}

// One portfolio: losses, then selection. Compiled per instruction set (see the top).
#define CFX_EVALUATE_ONE_BODY                          \
  AccumulateImpl(u, ns, c, q, n, loss);                \
  return Select(loss, ns, rank, heap);

[[gnu::target("avx512f,avx512dq,avx512vl,avx512bw,avx2,prefer-vector-width=512")]] RankedLoss
EvaluateOneAvx512(const int64_t* u, int32_t ns, const int32_t* c, const int64_t* q, int64_t n,
                  int64_t* loss, int32_t rank, std::vector<RankedLoss>* heap) {
  CFX_EVALUATE_ONE_BODY
}

[[gnu::target("avx2")]] RankedLoss EvaluateOneAvx2(const int64_t* u, int32_t ns,
                                                   const int32_t* c, const int64_t* q,
                                                   int64_t n, int64_t* loss, int32_t rank,
                                                   std::vector<RankedLoss>* heap) {
  CFX_EVALUATE_ONE_BODY
}

RankedLoss EvaluateOneBaseline(const int64_t* u, int32_t ns, const int32_t* c, const int64_t* q,
                               int64_t n, int64_t* loss, int32_t rank,
                               std::vector<RankedLoss>* heap) {
  CFX_EVALUATE_ONE_BODY
}
#undef CFX_EVALUATE_ONE_BODY

EvaluateOneFn PickEvaluateOne() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    return EvaluateOneAvx512;
  }
  if (__builtin_cpu_supports("avx2")) return EvaluateOneAvx2;
  return EvaluateOneBaseline;
}

class CpuEvaluator final : public Evaluator {
 public:
  explicit CpuEvaluator(int threads)
      : threads_(threads > 0 ? threads
                             : std::max(1u, std::thread::hardware_concurrency())),
        evaluate_one_(PickEvaluateOne()) {}

  std::string Name() const override { return "cpu"; }

  absl::Status SetTable(const UTable& table) override {
    table_ = table;
    return absl::OkStatus();
  }

  absl::Status SetPortfolios(const PortfolioBatch& batch) override {
    batch_ = batch;
    return absl::OkStatus();
  }

  absl::Status Evaluate(int32_t rank, std::vector<RankedLoss>* out) override {
    const int32_t ns = table_.num_scenarios;
    if (rank < 1 || rank > ns) return absl::InvalidArgumentError("rank out of range");
    const size_t count = batch_.size();
    out->assign(count, RankedLoss{});
    std::atomic<size_t> next{0};
    // Small chunks balance uneven portfolios; the atomic is touched once per chunk.
    const size_t chunk = ns >= 1024 ? 4 : 256;
    auto work = [&] {
      std::vector<int64_t> loss(ns);
      std::vector<RankedLoss> heap;
      heap.reserve(rank);
      for (;;) {
        const size_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
        if (begin >= count) break;
        const size_t end = std::min(count, begin + chunk);
        for (size_t i = begin; i < end; ++i) {
          const int64_t b = batch_.offsets[i];
          const int64_t n = batch_.offsets[i + 1] - b;
          (*out)[i] = evaluate_one_(table_.values.data(), ns, batch_.contracts.data() + b,
                                    batch_.qtys.data() + b, n, loss.data(), rank, &heap);
        }
      }
    };
    const int workers =
        static_cast<int>(std::min<size_t>(threads_, std::max<size_t>(1, count / chunk)));
    std::vector<std::thread> pool;
    for (int t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    return absl::OkStatus();
  }

 private:
  const int threads_;
  const EvaluateOneFn evaluate_one_;
  UTable table_;
  PortfolioBatch batch_;
};

}  // namespace

std::unique_ptr<Evaluator> MakeCpuEvaluator(int threads) {
  return std::make_unique<CpuEvaluator>(threads);
}

}  // namespace cfx::gpu_valuation
