#include "cfx/perf/book_bench.h"

#include <vector>

#include "nlohmann/json.hpp"

namespace cfx::perf {

const char* WorkloadName(BookWorkload workload) {
  return workload == BookWorkload::kMixed ? "mixed" : "liquibook";
}

BookBenchResult RunBookBench(const BookBenchOptions& options) {
  const std::vector<engine::WorkItem> items =
      options.workload == BookWorkload::kMixed
          ? engine::MixedWorkload(options.orders, options.seed)
          : engine::LiquibookWorkload(options.orders, options.seed);
  BookBenchResult result;
  result.options = options;
  // The mixed stream's cancels and replaces need ids, which the bare book does not keep.
  if (options.workload == BookWorkload::kLiquibook) {
    result.has_yardstick = true;
    result.yardstick = engine::RunBareMapBook(items);
  }
  result.figures =
      options.engine
          ? engine::RunEngineBench(engine::EngineCommands(items, options.accounts), &result.counts)
          : engine::RunBookBench(items);
  return result;
}

void PrintBookBench(const BookBenchResult& r, std::ostream& out) {
  const BookBenchOptions& o = r.options;
  const engine::BenchFigures& f = r.figures;
  nlohmann::ordered_json j;
  j["bench"] = "book";
  j["engine"] = o.engine;
  j["workload"] = WorkloadName(o.workload);
  j["orders"] = o.orders;
  j["seed"] = o.seed;
  j["orders_per_sec"] = static_cast<int64_t>(f.orders_per_sec);
  j["ns_per_order"] = f.ns_per_order;
  j["p50_ns"] = f.p50_ns;
  j["p99_ns"] = f.p99_ns;
  j["p999_ns"] = f.p999_ns;
  j["trades"] = f.trades;
  j["resting_at_end"] = f.resting_at_end;
  if (r.has_yardstick) {
    j["yardstick"] = "bare std::map book, no ids or events (same stream, same run)";
    j["yardstick_orders_per_sec"] = static_cast<int64_t>(r.yardstick.orders_per_sec);
    j["yardstick_trades"] = r.yardstick.trades;
    j["ratio_to_yardstick"] = f.orders_per_sec / r.yardstick.orders_per_sec;
  }
  if (o.engine) {
    const engine::EventCounts& c = r.counts;
    j["accounts"] = o.accounts;
    j["accepted"] = c.accepted;
    j["rejected"] = c.rejected;
    j["canceled"] = c.canceled;
    j["stp_canceled"] = c.stp_canceled;
    j["replaced"] = c.replaced;
    j["cancel_rejected"] = c.cancel_rejected;
  }
  out << j.dump() << std::endl;
}

}  // namespace cfx::perf
