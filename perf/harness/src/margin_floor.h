// The yardstick of `cfx bench margin --floor` (issue #16): the same multiply-accumulates as
// the margin evaluator, L(s) = -Σ qty × U[c][s] in int64, and a maximum per account, written
// as the plain loop anyone would write first. The file is compiled on its own with -O2 and
// no target flags (perf/harness/CMakeLists.txt), so it uses no instruction the baseline
// x86-64 build does not have and no intrinsics; it does no k-th-loss selection.
#ifndef CFX_PERF_HARNESS_SRC_MARGIN_FLOOR_H_
#define CFX_PERF_HARNESS_SRC_MARGIN_FLOOR_H_

#include <cstddef>
#include <cstdint>

namespace cfx::perf::internal {

// One batch as the evaluator holds it: U row-major [c * num_scenarios + s]; portfolio i is
// entries [offsets[i], offsets[i+1]) of (contracts, qtys).
struct FloorBatch {
  const int64_t* u = nullptr;
  int32_t num_scenarios = 0;
  const int64_t* offsets = nullptr;
  const int32_t* contracts = nullptr;
  const int64_t* qtys = nullptr;
  size_t accounts = 0;
};

// out_max[i] = max_s L_i(s). Accounts are split into `threads` equal contiguous ranges,
// one std::thread each. REQUIRES: threads >= 1, out_max holds batch.accounts values.
void PlainLoopMaxLoss(const FloorBatch& batch, int threads, int64_t* out_max);

}  // namespace cfx::perf::internal

#endif  // CFX_PERF_HARNESS_SRC_MARGIN_FLOOR_H_
