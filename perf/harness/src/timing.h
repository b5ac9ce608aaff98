// Wall-clock timing and latency quantiles shared by the `cfx bench` harnesses. C++14-clean:
// the FIX bench's QuickFIX translation unit includes it.
#ifndef CFX_PERF_HARNESS_TIMING_H_
#define CFX_PERF_HARNESS_TIMING_H_

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cfx {
namespace perf {
namespace internal {

// Steady-clock seconds from `start` to now.
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The q-quantile (0 <= q <= 1, nearest rank) of `sorted_ns`, in microseconds; 0 when empty.
// REQUIRES: `sorted_ns` is sorted ascending.
inline double PercentileUs(const std::vector<int64_t>& sorted_ns, double q) {
  if (sorted_ns.empty()) return 0.0;
  const size_t i =
      std::min(sorted_ns.size() - 1, static_cast<size_t>(q * (sorted_ns.size() - 1) + 0.5));
  return sorted_ns[i] / 1000.0;
}

}  // namespace internal
}  // namespace perf
}  // namespace cfx

#endif  // CFX_PERF_HARNESS_TIMING_H_
