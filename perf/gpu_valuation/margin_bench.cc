// Google Benchmark of the margin evaluators: position-scenario evaluations per second on
// random portfolios (10 positions from 144 contracts), span16 and mc-sized scenario sets.
//   build/perf/gpu_valuation/cfx_gpu_valuation_bench --benchmark_filter=Cpu
#include <random>

#include "benchmark/benchmark.h"
#include "cfx/gpu_valuation/evaluator.h"

namespace cfx::gpu_valuation {
namespace {

constexpr int32_t kContracts = 144;
constexpr int kPositions = 10;

void Prepare(int32_t scenarios, int portfolios, UTable* u, PortfolioBatch* b) {
  std::mt19937_64 rng(7);
  u->num_contracts = kContracts;
  u->num_scenarios = scenarios;
  u->values.resize(static_cast<size_t>(kContracts) * scenarios);
  for (int64_t& v : u->values) v = static_cast<int64_t>(rng() % 2'000'000'001) - 1'000'000'000;
  for (int i = 0; i < portfolios; ++i) {
    for (int p = 0; p < kPositions; ++p) {
      b->AddEntry(static_cast<int32_t>(rng() % kContracts), static_cast<int64_t>(rng() % 201) - 100);
    }
    b->EndPortfolio();
  }
}

void Run(benchmark::State& state, Evaluator* ev) {
  const auto scenarios = static_cast<int32_t>(state.range(0));
  const auto portfolios = static_cast<int>(state.range(1));
  UTable u;
  PortfolioBatch b;
  Prepare(scenarios, portfolios, &u, &b);
  if (!ev->SetTable(u).ok() || !ev->SetPortfolios(b).ok()) {
    state.SkipWithError("load failed");
    return;
  }
  const int32_t rank = scenarios >= 100 ? scenarios / 100 : 1;
  std::vector<RankedLoss> out;
  for (auto _ : state) {
    if (!ev->Evaluate(rank, &out).ok()) {
      state.SkipWithError("evaluate failed");
      return;
    }
    benchmark::DoNotOptimize(out.data());
  }
  const double evals = static_cast<double>(portfolios) * kPositions * scenarios;
  state.counters["evals_per_sec"] =
      benchmark::Counter(evals, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_CpuEvaluate(benchmark::State& state) {
  auto ev = MakeCpuEvaluator();
  Run(state, ev.get());
}
BENCHMARK(BM_CpuEvaluate)->Args({16, 100000})->Args({10000, 2000})->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_CudaEvaluate(benchmark::State& state) {
  auto ev = MakeCudaEvaluator();
  if (!ev.ok()) {
    state.SkipWithError(std::string(ev.status().message()).c_str());
    return;
  }
  Run(state, ev->get());
}
BENCHMARK(BM_CudaEvaluate)->Args({16, 100000})->Args({10000, 100000})->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cfx::gpu_valuation

BENCHMARK_MAIN();
