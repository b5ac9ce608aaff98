// `cfx bench book --workload liquibook|mixed --orders N --seed S`: order-book throughput and
// per-order latency; the last line printed is one JSON object (docs/performance.md).
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
  cfx::engine::BenchFigures f = cfx::engine::RunBookBench(items);
  nlohmann::ordered_json j;
  j["bench"] = "book";
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
  std::cout << j.dump() << std::endl;
  return 0;
}

void SetupBookBench(CLI::App& parent, cfx::app::ExitCode* rc) {
  auto flags = std::make_shared<BookBenchFlags>();
  CLI::App* cmd = parent.add_subcommand("book", "Order-book throughput and latency");
  cmd->add_option("--workload", flags->workload, "liquibook (default) or mixed");
  cmd->add_option("--orders", flags->orders, "Number of orders (default 3000000)");
  cmd->add_option("--seed", flags->seed, "Random seed (default 3)");
  cmd->callback([flags, rc] { *rc = RunBookBenchCommand(*flags); });
}

CFX_REGISTER_COMMAND("bench", SetupBookBench);

}  // namespace
