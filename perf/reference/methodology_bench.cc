// Micro-benchmarks of the fix methodology steps (the end-to-end figure is
// `cfx bench reference`, docs/performance.md).
#include <vector>

#include "benchmark/benchmark.h"
#include "cfx/reference/methodology.h"

namespace cfx::reference {
namespace {

// n points from 30 providers of Zipf-like sizes around 5 USD, deterministic.
std::vector<PricePoint> Points(int n) {
  std::vector<PricePoint> out;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int provider = static_cast<int>((x % 1000) * (x % 1000) / 33'334);  // skewed to 0
    out.push_back({provider, 4'800'000 + static_cast<int64_t>(x % 400'000),
                   (1 + static_cast<int64_t>(x >> 40) % 500) * 1'000'000, (x & 3) != 0});
  }
  return out;
}

void BM_ComputeFix(benchmark::State& state) {
  std::vector<PricePoint> p = Points(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ComputeFix(p));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ComputeFix)->Arg(100)->Arg(20'000)->Arg(300'000);

void BM_DropOutliers(benchmark::State& state) {
  std::vector<PricePoint> p = Points(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(DropOutliers(p));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_DropOutliers)->Arg(20'000);

void BM_ProviderCapAndMedian(benchmark::State& state) {
  std::vector<PricePoint> p = Points(static_cast<int>(state.range(0)));
  std::sort(p.begin(), p.end(),
            [](const PricePoint& a, const PricePoint& b) { return a.value_e6 < b.value_e6; });
  for (auto _ : state) {
    ProviderCap cap(p);
    benchmark::DoNotOptimize(WeightedPercentile(p, cap, 1, 2));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ProviderCapAndMedian)->Arg(20'000);

}  // namespace
}  // namespace cfx::reference
