// `cfx bench book --workload liquibook|mixed --orders N --seed S [--engine --accounts A]`:
// order-book throughput and per-order latency, or with --engine the same stream as gateway
// commands through Engine. Thin: flags -> perf::RunBookBench
// (perf/harness/include/cfx/perf/book_bench.h); the last line printed is one JSON object
// (docs/performance.md).
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "cfx/perf/book_bench.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

struct BookBenchFlags {
  std::string workload = "liquibook";
  perf::BookBenchOptions options;
};

ExitCode RunBookBenchCommand(const BookBenchFlags& flags) {
  perf::BookBenchOptions options = flags.options;
  if (flags.workload == "liquibook") {
    options.workload = perf::BookWorkload::kLiquibook;
  } else if (flags.workload == "mixed") {
    options.workload = perf::BookWorkload::kMixed;
  } else {
    return Fail("bench book", "--workload must be liquibook or mixed, got '" + flags.workload + "'",
                2);
  }
  if (options.accounts == 0) return Fail("bench book", "--accounts must be at least 1", 2);
  perf::PrintBookBench(perf::RunBookBench(options), std::cout);
  return 0;
}

void SetupBookBench(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<BookBenchFlags>(
      parent, rc, "book", "Order-book throughput and latency", RunBookBenchCommand);
  perf::BookBenchOptions* o = &flags->options;
  cmd->add_option("--workload", flags->workload, "liquibook (default) or mixed");
  cmd->add_option("--orders", o->orders, "Number of orders (default 3000000)");
  cmd->add_option("--seed", o->seed, "Random seed (default 3)");
  cmd->add_flag("--engine", o->engine,
                "Send the stream through Engine as gateway commands instead of one book");
  cmd->add_option("--accounts", o->accounts, "With --engine: accounts (default 16)");
}

CFX_REGISTER_COMMAND("bench", SetupBookBench);

}  // namespace
}  // namespace cfx::app
