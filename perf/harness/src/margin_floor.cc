// Compiled with -O2 and no -m flags: see margin_floor.h.
#include "margin_floor.h"

#include <thread>
#include <vector>

namespace cfx::perf::internal {
namespace {

void MaxLossRange(const FloorBatch& b, size_t begin, size_t end, int64_t* out_max) {
  const int32_t ns = b.num_scenarios;
  std::vector<int64_t> loss(ns);
  for (size_t i = begin; i < end; ++i) {
    for (int32_t s = 0; s < ns; ++s) loss[s] = 0;
    for (int64_t p = b.offsets[i]; p < b.offsets[i + 1]; ++p) {
      const int64_t* row = b.u + static_cast<size_t>(b.contracts[p]) * ns;
      const int64_t q = b.qtys[p];
      for (int32_t s = 0; s < ns; ++s) loss[s] -= q * row[s];
    }
    int64_t m = loss[0];
    for (int32_t s = 1; s < ns; ++s) m = loss[s] > m ? loss[s] : m;
    out_max[i] = m;
  }
}

}  // namespace

void PlainLoopMaxLoss(const FloorBatch& batch, int threads, int64_t* out_max) {
  std::vector<std::thread> pool;
  const size_t n = batch.accounts;
  for (int t = 1; t < threads; ++t) {
    pool.emplace_back(MaxLossRange, std::cref(batch), n * t / threads, n * (t + 1) / threads,
                      out_max);
  }
  MaxLossRange(batch, 0, n / threads, out_max);
  for (std::thread& t : pool) t.join();
}

}  // namespace cfx::perf::internal
