// Google Benchmark for the order book (see also `cfx bench book`, docs/performance.md).
#include <benchmark/benchmark.h>

#include "cfx/engine/workload.h"

namespace {

void BM_LiquibookStream(benchmark::State& state) {
  auto items = cfx::engine::LiquibookWorkload(static_cast<size_t>(state.range(0)), 3);
  for (auto _ : state) benchmark::DoNotOptimize(cfx::engine::RunBookOnce(items));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_LiquibookStream)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_MixedStream(benchmark::State& state) {
  auto items = cfx::engine::MixedWorkload(static_cast<size_t>(state.range(0)), 3);
  for (auto _ : state) benchmark::DoNotOptimize(cfx::engine::RunBookOnce(items));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MixedStream)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
