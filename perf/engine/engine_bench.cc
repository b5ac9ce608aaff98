// Google Benchmark for the whole Engine path on the book benchmark's streams: gateway
// commands (client ids, 16 accounts, validation, STP) and a counting listener. Compare with
// book_bench.cc (the same streams on one book); see also `cfx bench book --engine`.
#include <benchmark/benchmark.h>

#include <vector>

#include "cfx/engine/workload.h"

namespace {

constexpr uint32_t kAccounts = 16;

// Times a fresh engine over `items` sent as gateway commands.
void RunEngineStream(benchmark::State& state, const std::vector<cfx::engine::WorkItem>& items) {
  auto commands = cfx::engine::EngineCommands(items, kAccounts);
  for (auto _ : state) benchmark::DoNotOptimize(cfx::engine::RunEngineOnce(commands).trades);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_EngineLiquibookStream(benchmark::State& state) {
  RunEngineStream(state, cfx::engine::LiquibookWorkload(static_cast<size_t>(state.range(0)), 3));
}
BENCHMARK(BM_EngineLiquibookStream)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_EngineMixedStream(benchmark::State& state) {
  RunEngineStream(state, cfx::engine::MixedWorkload(static_cast<size_t>(state.range(0)), 3));
}
BENCHMARK(BM_EngineMixedStream)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
