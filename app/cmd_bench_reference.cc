// `cfx bench reference`: times one day's fixes over many observations (docs/performance.md).
// Thin: flags -> perf::RunReferenceBench (perf/harness/include/cfx/perf/reference_bench.h),
// which times parsing and computing apart. Last line: one JSON object.
#include <iostream>

#include "CLI/CLI.hpp"
#include "cfx/perf/reference_bench.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

ExitCode RunBench(const perf::ReferenceBenchOptions& options) {
  absl::StatusOr<perf::ReferenceBenchResult> result = perf::RunReferenceBench(options);
  if (!result.ok()) return Fail("bench reference", result.status());
  perf::PrintReferenceBench(*result, std::cout, std::cerr);
  return 0;
}

void SetupBenchReference(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<perf::ReferenceBenchOptions>(
      parent, rc, "reference",
      "One day's reference fixes over N observations (parse and compute timed apart)", RunBench);
  cmd->add_option("--observations", flags->observations,
                  "Observations in the day (default 1000000)");
  cmd->add_option("--grades", flags->grades, "Grades, a multiple of 12 (default 48)");
  cmd->add_option("--seed", flags->seed, "Generator seed (default 1)");
  cmd->add_option("--repeat", flags->repeat, "Compute runs; the best is reported (default 3)");
}

CFX_REGISTER_COMMAND("bench", SetupBenchReference);

}  // namespace
}  // namespace cfx::app
