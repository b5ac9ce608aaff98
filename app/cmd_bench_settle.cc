// `cfx bench settle --accounts N --positions P`: the whole settlement batch, ledger writes
// included, on synthetic in-memory trades, fixes and margin with a temp data dir. Thin:
// flags -> perf::RunSettleBench (perf/harness/include/cfx/perf/settle_bench.h), which says
// what the two days do. A line per day on standard error; the last line is JSON.
#include <iostream>

#include "CLI/CLI.hpp"
#include "cfx/perf/settle_bench.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

ExitCode RunBench(const perf::SettleBenchOptions& flags) {
  if (flags.accounts < 2 || flags.positions < 1 || flags.positions > 48) {
    return Fail("bench settle", "need --accounts >= 2 and 1 <= --positions <= 48", 2);
  }
  perf::SettleBenchOptions options = flags;
  options.log = &std::cerr;
  absl::StatusOr<perf::SettleBenchResult> result = perf::RunSettleBench(options);
  if (!result.ok()) return Fail("bench settle", result.status());
  perf::PrintSettleBench(*result, std::cout);
  return 0;
}

void SetupBenchSettle(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<perf::SettleBenchOptions>(
      parent, rc, "settle", "Settlement batch on synthetic positions", RunBench);
  cmd->add_option("--accounts", flags->accounts, "Accounts (paired)");
  cmd->add_option("--positions", flags->positions, "Positions per account (1..48)");
  cmd->add_flag("--statements", flags->statements, "Also write JSON/CSV statements");
  cmd->add_option("--dir", flags->dir, "Work folder (default: a temp folder, removed)");
}

CFX_REGISTER_COMMAND("bench", SetupBenchSettle);

}  // namespace
}  // namespace cfx::app
