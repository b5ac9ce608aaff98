// `cfx bench margin`: position-scenario evaluations per second of the margin evaluator on
// synthetic portfolios (docs/performance.md). Thin: flags -> perf::RunMarginBench
// (perf/harness/include/cfx/perf/margin_bench.h). The last line is one JSON object.
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "cfx/perf/margin_bench.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

namespace gv = cfx::gpu_valuation;

struct BenchFlags {
  perf::MarginBenchOptions options;
  std::string backend = "auto";
};

ExitCode RunBench(const BenchFlags& flags) {
  perf::MarginBenchOptions options = flags.options;
  options.backend = flags.backend == "cpu"    ? gv::BackendChoice::kCpu
                    : flags.backend == "cuda" ? gv::BackendChoice::kCuda
                                              : gv::BackendChoice::kAuto;
  absl::StatusOr<perf::MarginBenchResult> result = perf::RunMarginBench(options);
  if (!result.ok()) return Fail("bench margin", result.status());
  perf::PrintMarginBench(*result, std::cout);
  return result->verified.value_or(true) ? 0 : 1;
}

void SetupBenchMargin(CLI::App& parent, ExitCode* rc) {
  auto [cmd, f] = AddCommand<BenchFlags>(parent, rc, "margin",
                                         "Margin evaluator throughput (evals/s)", RunBench);
  cmd->add_option("--accounts", f->options.accounts, "portfolios per batch (default 100000)");
  cmd->add_option("--positions", f->options.positions, "positions per portfolio (default 10)");
  cmd->add_option("--scenarios", f->options.scenarios, "16 = span16, else mc with N scenarios");
  cmd->add_option("--iterations", f->options.iterations, "timed batches (median reported)");
  cmd->add_option("--seed", f->options.seed, "portfolio generator seed");
  cmd->add_option("--backend", f->backend, "auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_flag("--verify", f->options.verify, "check every answer against the CPU evaluator");
  cmd->add_flag("--floor", f->options.floor,
                "also time the plain-loop yardstick (int64 multiply-add + max, -O2) on the same "
                "batch and print the ratio");
  cmd->add_option("--stream-batch", f->options.stream_batch,
                  "large-book mode: margin the book through ComputeStream in batches of this "
                  "many accounts; reports the peak resident memory")
      ->check(CLI::Range(int64_t{1}, int64_t{100'000'000}));
}

CFX_REGISTER_COMMAND("bench", SetupBenchMargin);

}  // namespace
}  // namespace cfx::app
