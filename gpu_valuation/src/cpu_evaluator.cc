// CPU evaluator. Layout is structure-of-arrays: the U table row of a contract is contiguous
// over scenarios, so `loss[s] -= qty * row[s]` is a unit-stride int64 multiply-add over
// 8-lane vectors (vpmullq on AVX-512; GCC lowers the same code for AVX2 and SSE2). The
// kernel is compiled three times (AVX-512, AVX2, baseline) and picked once by CPUID, so the
// binary still runs on any x86-64 CI machine. Accounts are shared out to all cores in chunks.
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

// Large scenario sets are evaluated for a group of accounts at a time, one block of
// scenarios after another: the group's U rows for one block (kGroupAccounts x
// positions x kGroupBlock x 8 bytes, <= 80 KiB) stay in L2 while every account of the group
// uses them, instead of each account streaming whole rows from L3.
constexpr int32_t kGroupThreshold = 1024;
constexpr size_t kGroupAccounts = 4;
constexpr int32_t kGroupBlock = 256;

// What one Evaluate call works on; shared read-only by the worker threads.
struct Work {
  const int64_t* u;
  int32_t num_scenarios;
  const int64_t* offsets;
  const int32_t* contracts;
  const int64_t* qtys;
  int32_t rank;
  RankedLoss* out;
};

using EvaluateRangeFn = void (*)(const Work& w, size_t begin, size_t end, int64_t* loss,
                                 std::vector<RankedLoss>* heap);

// loss[s] for s in [s_begin, s_end) of one portfolio (n entries).
[[gnu::always_inline]] inline void AccumulateRange(const int64_t* __restrict u,
                                                   int32_t num_scenarios,
                                                   const int32_t* __restrict contracts,
                                                   const int64_t* __restrict qtys, int64_t n,
                                                   int64_t* __restrict loss, int32_t s_begin,
                                                   int32_t s_end) {
  // Register blocking: the running losses of a block of scenarios stay in vector registers
  // while all positions are applied, so each U entry is loaded once and each loss stored
  // once. GCC vector extensions make the blocking explicit (the auto-vectoriser spills such
  // accumulator arrays to the stack); with AVX-512 DQ each `acc -= q * row` is one vpmullq
  // and one vpsubq per 8 scenarios, elsewhere GCC lowers it to the available instructions.
  using V8 = int64_t __attribute__((vector_size(64)));
  if (num_scenarios == 16) {  // span16: the whole loss vector is two registers
    V8 a0 = {}, a1 = {};
    for (int64_t p = 0; p < n; ++p) {
      const int64_t* row = u + static_cast<size_t>(contracts[p]) * 16;
      const int64_t q = qtys[p];
      V8 r0, r1;
      __builtin_memcpy(&r0, row, sizeof(V8));
      __builtin_memcpy(&r1, row + 8, sizeof(V8));
      a0 -= q * r0;
      a1 -= q * r1;
    }
    __builtin_memcpy(loss, &a0, sizeof(V8));
    __builtin_memcpy(loss + 8, &a1, sizeof(V8));
    return;
  }
  int32_t s0 = s_begin;
  for (; s0 + kBlock <= s_end; s0 += kBlock) {
    V8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
    for (int64_t p = 0; p < n; ++p) {
      const int64_t* row = u + static_cast<size_t>(contracts[p]) * num_scenarios + s0;
      const int64_t q = qtys[p];
      V8 r0, r1, r2, r3;
      __builtin_memcpy(&r0, row, sizeof(V8));
      __builtin_memcpy(&r1, row + 8, sizeof(V8));
      __builtin_memcpy(&r2, row + 16, sizeof(V8));
      __builtin_memcpy(&r3, row + 24, sizeof(V8));
      a0 -= q * r0;
      a1 -= q * r1;
      a2 -= q * r2;
      a3 -= q * r3;
    }
    __builtin_memcpy(loss + s0, &a0, sizeof(V8));
    __builtin_memcpy(loss + s0 + 8, &a1, sizeof(V8));
    __builtin_memcpy(loss + s0 + 16, &a2, sizeof(V8));
    __builtin_memcpy(loss + s0 + 24, &a3, sizeof(V8));
  }
  const int32_t len = s_end - s0;
  if (len <= 0) return;
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

// Portfolios [begin, end): losses, then selection. `loss` holds (end - begin) x N values.
// Compiled per instruction set (see the top).
[[gnu::always_inline]] inline void EvaluateRangeImpl(const Work& w, size_t begin, size_t end,
                                                     int64_t* loss,
                                                     std::vector<RankedLoss>* heap) {
  const int32_t ns = w.num_scenarios;
  if (ns >= kGroupThreshold) {
    for (int32_t s0 = 0; s0 < ns; s0 += kGroupBlock) {
      const int32_t s1 = std::min(ns, s0 + kGroupBlock);
      for (size_t i = begin; i < end; ++i) {
        const int64_t b = w.offsets[i];
        AccumulateRange(w.u, ns, w.contracts + b, w.qtys + b, w.offsets[i + 1] - b,
                        loss + (i - begin) * ns, s0, s1);
      }
    }
    for (size_t i = begin; i < end; ++i) {
      w.out[i] = Select(loss + (i - begin) * ns, ns, w.rank, heap);
    }
    return;
  }
  for (size_t i = begin; i < end; ++i) {
    const int64_t b = w.offsets[i];
    AccumulateRange(w.u, ns, w.contracts + b, w.qtys + b, w.offsets[i + 1] - b, loss, 0, ns);
    w.out[i] = Select(loss, ns, w.rank, heap);
  }
}

[[gnu::target("avx512f,avx512dq,avx512vl,avx512bw,avx2,prefer-vector-width=512")]] void
EvaluateRangeAvx512(const Work& w, size_t begin, size_t end, int64_t* loss,
                    std::vector<RankedLoss>* heap) {
  EvaluateRangeImpl(w, begin, end, loss, heap);
}

[[gnu::target("avx2")]] void EvaluateRangeAvx2(const Work& w, size_t begin, size_t end,
                                               int64_t* loss, std::vector<RankedLoss>* heap) {
  EvaluateRangeImpl(w, begin, end, loss, heap);
}

void EvaluateRangeBaseline(const Work& w, size_t begin, size_t end, int64_t* loss,
                           std::vector<RankedLoss>* heap) {
  EvaluateRangeImpl(w, begin, end, loss, heap);
}

EvaluateRangeFn PickEvaluateRange() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    return EvaluateRangeAvx512;
  }
  if (__builtin_cpu_supports("avx2")) return EvaluateRangeAvx2;
  return EvaluateRangeBaseline;
}

class CpuEvaluator final : public Evaluator {
 public:
  explicit CpuEvaluator(int threads)
      : threads_(threads > 0 ? threads
                             : std::max(1u, std::thread::hardware_concurrency())),
        evaluate_range_(PickEvaluateRange()) {}

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
    // Span16 shares out 256 accounts at a time (the atomic is touched once per chunk); large
    // sets one group at a time, which also balances uneven portfolios.
    const size_t chunk = ns >= kGroupThreshold ? kGroupAccounts : 256;
    const Work w{table_.values.data(), ns,   batch_.offsets.data(), batch_.contracts.data(),
                 batch_.qtys.data(),   rank, out->data()};
    auto work = [&] {
      std::vector<int64_t> loss(static_cast<size_t>(ns) *
                                (ns >= kGroupThreshold ? kGroupAccounts : 1));
      std::vector<RankedLoss> heap;
      heap.reserve(rank);
      for (;;) {
        const size_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
        if (begin >= count) break;
        evaluate_range_(w, begin, std::min(count, begin + chunk), loss.data(), &heap);
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
  const EvaluateRangeFn evaluate_range_;
  UTable table_;
  PortfolioBatch batch_;
};

}  // namespace

std::unique_ptr<Evaluator> MakeCpuEvaluator(int threads) {
  return std::make_unique<CpuEvaluator>(threads);
}

}  // namespace cfx::gpu_valuation
