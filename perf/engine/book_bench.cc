// Google Benchmark for the order book (see also `cfx bench book`, docs/performance.md).
#include <benchmark/benchmark.h>

#include <vector>

#include "cfx/engine/workload.h"

namespace {

// Times a fresh book over `items`.
void RunBookStream(benchmark::State& state, const std::vector<cfx::engine::WorkItem>& items) {
  for (auto _ : state) benchmark::DoNotOptimize(cfx::engine::RunBookOnce(items));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_LiquibookStream(benchmark::State& state) {
  RunBookStream(state, cfx::engine::LiquibookWorkload(static_cast<size_t>(state.range(0)), 3));
}
BENCHMARK(BM_LiquibookStream)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_MixedStream(benchmark::State& state) {
  RunBookStream(state, cfx::engine::MixedWorkload(static_cast<size_t>(state.range(0)), 3));
}
BENCHMARK(BM_MixedStream)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
