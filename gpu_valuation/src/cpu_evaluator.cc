// CPU evaluator. Layout is structure-of-arrays: the U table row of a contract is contiguous
// over scenarios, so `loss[s] -= qty * row[s]` is a unit-stride int64 multiply-add. Three
// kernels, compiled with `[[gnu::target]]` and picked once by CPUID, so the binary runs on
// any x86-64 machine:
//   - AVX-512 DQ: 8-lane vectors, one vpmullq per 8 scenarios;
//   - AVX2 (no 64-bit vector multiply): the table is stored split, U = hi × 2^32 + lo with
//     both halves signed 32-bit, and q × U is assembled from two vpmuldq (32 × 32 -> 64)
//     per 4 scenarios: exact, because every step is arithmetic modulo 2^64 and the true
//     loss fits in int64 (the Evaluator contract). A portfolio with a |qty| >= 2^31 takes
//     the generic path;
//   - baseline x86-64: the same code as AVX-512, lowered by GCC to what the machine has.
// Selection of the rank-th loss is shared (see Select). Accounts are shared out to all
// cores in chunks taken from an atomic counter.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>

#include "cfx/gpu_valuation/evaluator.h"

namespace cfx::gpu_valuation {
namespace {

// Scenarios per register block of the generic kernel.
constexpr int32_t kBlock = 32;
// Scenarios per register block of the AVX2 kernel (4 vectors x 2 accumulators).
constexpr int32_t kAvx2Block = 16;
// Scenarios per block of the selection's block maxima.
constexpr int32_t kSelectBlock = 16;
// Accounts per chunk taken by a worker.
constexpr size_t kSmallSetChunk = 256;  // span16 and other small sets
constexpr size_t kLargeSetChunk = 4;
constexpr int32_t kLargeSet = 1024;
// The split table is used only when every |U| is below this: then hi fits 31 bits.
constexpr int64_t kSplitLimit = int64_t{1} << 62;

// Per-thread scratch, reused across accounts.
struct Scratch {
  std::vector<int64_t> loss;        // num_scenarios
  std::vector<int64_t> block_max;   // one per kSelectBlock scenarios
  std::vector<RankedLoss> candidates;
};

// What one Evaluate call works on; shared read-only by the worker threads.
struct Work {
  const int64_t* u;      // the table as given
  const uint64_t* split; // the split table (AVX2 kernel), else nullptr
  int32_t num_scenarios;
  const int64_t* offsets;
  const int32_t* contracts;
  const int64_t* qtys;
  int32_t rank;
  RankedLoss* out;
};

using EvaluateRangeFn = void (*)(const Work& w, size_t begin, size_t end, Scratch* scratch);

// loss[s] for all s of one portfolio (n entries), generic vector code.
[[gnu::always_inline]] inline void Accumulate(const int64_t* __restrict u, int32_t num_scenarios,
                                              const int32_t* __restrict contracts,
                                              const int64_t* __restrict qtys, int64_t n,
                                              int64_t* __restrict loss) {
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
  int32_t s0 = 0;
  for (; s0 + kBlock <= num_scenarios; s0 += kBlock) {
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
  const int32_t len = num_scenarios - s0;
  if (len <= 0) return;
  int64_t* __restrict out = loss + s0;
  for (int32_t s = 0; s < len; ++s) out[s] = 0;
  for (int64_t p = 0; p < n; ++p) {
    const int64_t* __restrict row = u + static_cast<size_t>(contracts[p]) * num_scenarios + s0;
    const int64_t q = qtys[p];
    for (int32_t s = 0; s < len; ++s) out[s] -= q * row[s];
  }
}

// The entry of the split table for u (|u| < kSplitLimit): low half lo = the low 32 bits of
// u read as signed, high half hi = (u - lo) / 2^32, so u = hi × 2^32 + lo exactly.
uint64_t SplitEntry(int64_t u) {
  const int32_t lo = static_cast<int32_t>(static_cast<uint32_t>(u));
  const int64_t hi = (u - lo) >> 32;  // exact: u - lo is a multiple of 2^32
  return (static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32) | static_cast<uint32_t>(lo);
}

int64_t UnsplitEntry(uint64_t e) {
  const auto lo = static_cast<int32_t>(static_cast<uint32_t>(e));
  const auto hi = static_cast<int32_t>(static_cast<uint32_t>(e >> 32));
  return static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(hi)) << 32) + lo;
}

// loss[s] for all s of one portfolio from the split table. REQUIRES: every |qty| < 2^31.
[[gnu::target("avx2"), gnu::always_inline]] inline void AccumulateSplitAvx2(
    const uint64_t* __restrict split, int32_t num_scenarios, const int32_t* __restrict contracts,
    const int64_t* __restrict qtys, int64_t n, int64_t* __restrict loss) {
  // Per 4 scenarios and position: one load, one shift, two vpmuldq, two adds. aL sums
  // (-q) × lo and aH sums (-q) × hi; the loss is aH × 2^32 + aL, all modulo 2^64.
  int32_t s0 = 0;
  for (; s0 + kAvx2Block <= num_scenarios; s0 += kAvx2Block) {
    __m256i l0 = _mm256_setzero_si256(), l1 = l0, l2 = l0, l3 = l0;
    __m256i h0 = l0, h1 = l0, h2 = l0, h3 = l0;
    for (int64_t p = 0; p < n; ++p) {
      const auto* row = reinterpret_cast<const __m256i*>(
          split + static_cast<size_t>(contracts[p]) * num_scenarios + s0);
      const __m256i q = _mm256_set1_epi64x(-qtys[p]);
      const __m256i r0 = _mm256_loadu_si256(row);
      const __m256i r1 = _mm256_loadu_si256(row + 1);
      const __m256i r2 = _mm256_loadu_si256(row + 2);
      const __m256i r3 = _mm256_loadu_si256(row + 3);
      l0 = _mm256_add_epi64(l0, _mm256_mul_epi32(q, r0));
      l1 = _mm256_add_epi64(l1, _mm256_mul_epi32(q, r1));
      l2 = _mm256_add_epi64(l2, _mm256_mul_epi32(q, r2));
      l3 = _mm256_add_epi64(l3, _mm256_mul_epi32(q, r3));
      h0 = _mm256_add_epi64(h0, _mm256_mul_epi32(q, _mm256_srli_epi64(r0, 32)));
      h1 = _mm256_add_epi64(h1, _mm256_mul_epi32(q, _mm256_srli_epi64(r1, 32)));
      h2 = _mm256_add_epi64(h2, _mm256_mul_epi32(q, _mm256_srli_epi64(r2, 32)));
      h3 = _mm256_add_epi64(h3, _mm256_mul_epi32(q, _mm256_srli_epi64(r3, 32)));
    }
    auto* out = reinterpret_cast<__m256i*>(loss + s0);
    _mm256_storeu_si256(out, _mm256_add_epi64(_mm256_slli_epi64(h0, 32), l0));
    _mm256_storeu_si256(out + 1, _mm256_add_epi64(_mm256_slli_epi64(h1, 32), l1));
    _mm256_storeu_si256(out + 2, _mm256_add_epi64(_mm256_slli_epi64(h2, 32), l2));
    _mm256_storeu_si256(out + 3, _mm256_add_epi64(_mm256_slli_epi64(h3, 32), l3));
  }
  if (s0 == num_scenarios) return;
  for (int32_t s = s0; s < num_scenarios; ++s) loss[s] = 0;
  for (int64_t p = 0; p < n; ++p) {
    const uint64_t* row = split + static_cast<size_t>(contracts[p]) * num_scenarios;
    const int64_t q = qtys[p];
    for (int32_t s = s0; s < num_scenarios; ++s) loss[s] -= q * UnsplitEntry(row[s]);
  }
}

// (loss desc, index asc): the order whose rank-th element is the answer.
inline bool Better(const RankedLoss& x, const RankedLoss& y) {
  return x.loss > y.loss || (x.loss == y.loss && x.scenario < y.scenario);
}

// The rank-th largest loss of loss[0..num_scenarios), with the lowest index among the
// scenarios that have that loss.
//   rank 1: a scan with strict `>`, so the lowest index wins a tie.
//   otherwise: with B block maxima over blocks of kSelectBlock scenarios, T = the rank-th
//   largest block maximum is a loss value with at least `rank` losses >= T (one per block
//   of the top `rank` blocks), so the top `rank` elements of the order all have loss >= T.
//   Only blocks whose maximum is >= T can hold such losses; their losses >= T are the
//   candidates, and the rank-th candidate in the order is the answer. For random losses
//   the candidates are about 1-2 × rank, so the cost is one pass of block maxima plus two
//   selections over ~B and ~rank values, instead of a heap update per improvement.
//   Few blocks (B < 2 × rank): one selection over all scenarios.
[[gnu::always_inline]] inline RankedLoss Select(const int64_t* __restrict loss,
                                                int32_t num_scenarios, int32_t rank,
                                                Scratch* scratch) {
  if (rank == 1) {
    RankedLoss best{loss[0], 0};
    for (int32_t s = 1; s < num_scenarios; ++s) {
      if (loss[s] > best.loss) best = {loss[s], s};
    }
    return best;
  }
  std::vector<RankedLoss>& cand = scratch->candidates;
  cand.clear();
  const int32_t blocks = num_scenarios / kSelectBlock;
  if (blocks < 2 * rank) {
    for (int32_t s = 0; s < num_scenarios; ++s) cand.push_back({loss[s], s});
  } else {
    int64_t* __restrict bmax = scratch->block_max.data();
    for (int32_t b = 0; b < blocks; ++b) {
      const int64_t* block = loss + b * kSelectBlock;
      int64_t m = block[0];
      for (int32_t i = 1; i < kSelectBlock; ++i) m = block[i] > m ? block[i] : m;
      bmax[b] = m;
    }
    // The rank-th largest block maximum, selected in a copy (bmax is read again below).
    int64_t* __restrict order = bmax + blocks;
    std::copy(bmax, bmax + blocks, order);
    std::nth_element(order, order + (rank - 1), order + blocks, std::greater<int64_t>());
    const int64_t t = order[rank - 1];
    for (int32_t b = 0; b < blocks; ++b) {
      if (bmax[b] < t) continue;
      for (int32_t s = b * kSelectBlock; s < (b + 1) * kSelectBlock; ++s) {
        if (loss[s] >= t) cand.push_back({loss[s], s});
      }
    }
    for (int32_t s = blocks * kSelectBlock; s < num_scenarios; ++s) {
      if (loss[s] >= t) cand.push_back({loss[s], s});
    }
  }
  std::nth_element(cand.begin(), cand.begin() + (rank - 1), cand.end(), Better);
  // The rank-th largest loss value; of the scenarios with that loss, the lowest number
  // (SPEC §10: "ties between scenarios go to the lowest number (an empty account: ...,
  // scenario 1)"). Every loss equal to it is >= t, so every such scenario is a candidate.
  RankedLoss answer = cand[rank - 1];
  for (const RankedLoss& c : cand) {
    if (c.loss == answer.loss && c.scenario < answer.scenario) answer = c;
  }
  return answer;
}

bool FitsInt32(const int64_t* qtys, int64_t n) {
  bool fits = true;
  for (int64_t p = 0; p < n; ++p) {
    fits &= qtys[p] > -(int64_t{1} << 31) && qtys[p] < (int64_t{1} << 31);
  }
  return fits;
}

// Portfolios [begin, end): losses, then selection. Compiled per instruction set.
[[gnu::always_inline]] inline void EvaluateRangeImpl(const Work& w, size_t begin, size_t end,
                                                     Scratch* scratch) {
  int64_t* loss = scratch->loss.data();
  for (size_t i = begin; i < end; ++i) {
    const int64_t b = w.offsets[i];
    Accumulate(w.u, w.num_scenarios, w.contracts + b, w.qtys + b, w.offsets[i + 1] - b, loss);
    w.out[i] = Select(loss, w.num_scenarios, w.rank, scratch);
  }
}

[[gnu::target("avx512f,avx512dq,avx512vl,avx512bw,avx2,prefer-vector-width=512")]] void
EvaluateRangeAvx512(const Work& w, size_t begin, size_t end, Scratch* scratch) {
  EvaluateRangeImpl(w, begin, end, scratch);
}

[[gnu::target("avx2")]] void EvaluateRangeAvx2(const Work& w, size_t begin, size_t end,
                                               Scratch* scratch) {
  if (w.split == nullptr) {
    EvaluateRangeImpl(w, begin, end, scratch);
    return;
  }
  int64_t* loss = scratch->loss.data();
  for (size_t i = begin; i < end; ++i) {
    const int64_t b = w.offsets[i];
    const int64_t n = w.offsets[i + 1] - b;
    if (FitsInt32(w.qtys + b, n)) {
      AccumulateSplitAvx2(w.split, w.num_scenarios, w.contracts + b, w.qtys + b, n, loss);
    } else {
      Accumulate(w.u, w.num_scenarios, w.contracts + b, w.qtys + b, n, loss);
    }
    w.out[i] = Select(loss, w.num_scenarios, w.rank, scratch);
  }
}

void EvaluateRangeBaseline(const Work& w, size_t begin, size_t end, Scratch* scratch) {
  EvaluateRangeImpl(w, begin, end, scratch);
}

using internal::CpuKernel;
using Kernel = CpuKernel;

bool CpuRuns(Kernel k) {
  __builtin_cpu_init();
  switch (k) {
    case Kernel::kAvx512:
      return __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    case Kernel::kAvx2:
      return __builtin_cpu_supports("avx2");
    case Kernel::kBaseline:
      break;
  }
  return true;
}

Kernel PickKernel() {
  for (Kernel k : {Kernel::kAvx512, Kernel::kAvx2}) {
    if (CpuRuns(k)) return k;
  }
  return Kernel::kBaseline;
}

EvaluateRangeFn KernelFunction(Kernel k) {
  switch (k) {
    case Kernel::kAvx512:
      return EvaluateRangeAvx512;
    case Kernel::kAvx2:
      return EvaluateRangeAvx2;
    case Kernel::kBaseline:
      break;
  }
  return EvaluateRangeBaseline;
}

class CpuEvaluator final : public Evaluator {
 public:
  CpuEvaluator(int threads, Kernel kernel)
      : threads_(threads > 0 ? threads
                             : std::max(1u, std::thread::hardware_concurrency())),
        kernel_(kernel),
        evaluate_range_(KernelFunction(kernel_)) {}

  std::string Name() const override { return "cpu"; }

  absl::Status SetTable(const UTable& table) override {
    // A copy the process cannot hold is an error, not an abort (until 2026-12-07 bad_alloc
    // ended the process; the table's own bound does not count this copy).
    split_.clear();
    try {
      table_ = table;
    } catch (const std::bad_alloc&) {
      table_ = UTable();
      return absl::ResourceExhaustedError(
          absl::StrCat("the CPU evaluator cannot hold the scenario table (",
                       table.values.size() * 8 >> 20, " MiB)"));
    }
    if (kernel_ == Kernel::kAvx2) {
      const bool fits = std::all_of(table.values.begin(), table.values.end(), [](int64_t v) {
        return v > -kSplitLimit && v < kSplitLimit;
      });
      if (fits) {
        try {
          split_.resize(table.values.size());
          std::transform(table.values.begin(), table.values.end(), split_.begin(), SplitEntry);
        } catch (const std::bad_alloc&) {
          split_.clear();  // the AVX2 kernel's faster copy: without it the plain one runs
          split_.shrink_to_fit();
        }
      }
    }
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
    const size_t chunk = ns >= kLargeSet ? kLargeSetChunk : kSmallSetChunk;
    const Work w{table_.values.data(),
                 split_.empty() ? nullptr : split_.data(),
                 ns,
                 batch_.offsets.data(),
                 batch_.contracts.data(),
                 batch_.qtys.data(),
                 rank,
                 out->data()};
    auto work = [&] {
      Scratch scratch;
      scratch.loss.resize(ns);
      scratch.block_max.resize(2 * static_cast<size_t>(ns / kSelectBlock) + 1);
      scratch.candidates.reserve(std::min<size_t>(ns, 4 * static_cast<size_t>(rank) + 64));
      for (;;) {
        const size_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
        if (begin >= count) break;
        evaluate_range_(w, begin, std::min(count, begin + chunk), &scratch);
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
  const Kernel kernel_;
  const EvaluateRangeFn evaluate_range_;
  UTable table_;
  std::vector<uint64_t> split_;  // the split table, only for the AVX2 kernel
  PortfolioBatch batch_;
};

}  // namespace

std::unique_ptr<Evaluator> MakeCpuEvaluator(int threads) {
  return std::make_unique<CpuEvaluator>(threads, PickKernel());
}

namespace internal {

std::unique_ptr<Evaluator> MakeCpuEvaluatorWithKernel(CpuKernel kernel, int threads) {
  if (!CpuRuns(kernel)) return nullptr;
  return std::make_unique<CpuEvaluator>(threads, kernel);
}

}  // namespace internal

}  // namespace cfx::gpu_valuation
