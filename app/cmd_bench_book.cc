// `cfx bench book --workload liquibook|mixed --orders N --seed S [--engine --accounts A]`:
// order-book throughput and per-order latency, or with --engine the same stream as gateway
// commands through Engine (client ids, A accounts, validation, STP, a counting listener);
// the last line printed is one JSON object (docs/performance.md).
#include <iostream>
#include <memory>
#include <string>

#include "cfx/engine/workload.h"
#include "nlohmann/json.hpp"
#include "registry.h"

namespace {

struct BookBenchFlags {
  std::string workload = "liquibook";
  size_t orders = 3000000;
  unsigned seed = 3;
  bool engine = false;
  uint32_t accounts = 16;
};

cfx::app::ExitCode RunBookBenchCommand(const BookBenchFlags& flags) {
  std::vector<cfx::engine::WorkItem> items;
  if (flags.workload == "liquibook") {
    items = cfx::engine::LiquibookWorkload(flags.orders, flags.seed);
  } else if (flags.workload == "mixed") {
    items = cfx::engine::MixedWorkload(flags.orders, flags.seed);
  } else {
    std::cerr << "cfx bench book: --workload must be liquibook or mixed, got '"
              << flags.workload << "'\n";
    return 2;
  }
  if (flags.accounts == 0) {
    std::cerr << "cfx bench book: --accounts must be at least 1\n";
    return 2;
  }
  cfx::engine::BenchFigures f;
  cfx::engine::EventCounts counts;
  if (flags.engine) {
    f = cfx::engine::RunEngineBench(cfx::engine::EngineCommands(items, flags.accounts), &counts);
  } else {
    f = cfx::engine::RunBookBench(items);
  }
  nlohmann::ordered_json j;
  j["bench"] = "book";
  j["engine"] = flags.engine;
  j["workload"] = flags.workload;
  j["orders"] = flags.orders;
  j["seed"] = flags.seed;
  j["orders_per_sec"] = static_cast<int64_t>(f.orders_per_sec);
  j["ns_per_order"] = f.ns_per_order;
  j["p50_ns"] = f.p50_ns;
  j["p99_ns"] = f.p99_ns;
  j["p999_ns"] = f.p999_ns;
  j["trades"] = f.trades;
  j["resting_at_end"] = f.resting_at_end;
  if (flags.engine) {
    j["accounts"] = flags.accounts;
    j["accepted"] = counts.accepted;
    j["rejected"] = counts.rejected;
    j["canceled"] = counts.canceled;
    j["stp_canceled"] = counts.stp_canceled;
    j["replaced"] = counts.replaced;
    j["cancel_rejected"] = counts.cancel_rejected;
  }
  std::cout << j.dump() << std::endl;
  return 0;
}

void SetupBookBench(CLI::App& parent, cfx::app::ExitCode* rc) {
  auto flags = std::make_shared<BookBenchFlags>();
  CLI::App* cmd = parent.add_subcommand("book", "Order-book throughput and latency");
  cmd->add_option("--workload", flags->workload, "liquibook (default) or mixed");
  cmd->add_option("--orders", flags->orders, "Number of orders (default 3000000)");
  cmd->add_option("--seed", flags->seed, "Random seed (default 3)");
  cmd->add_flag("--engine", flags->engine,
                "Send the stream through Engine as gateway commands instead of one book");
  cmd->add_option("--accounts", flags->accounts, "With --engine: accounts (default 16)");
  cmd->callback([flags, rc] { *rc = RunBookBenchCommand(*flags); });
}

CFX_REGISTER_COMMAND("bench", SetupBookBench);

}  // namespace
