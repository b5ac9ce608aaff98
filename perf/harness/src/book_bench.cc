#include "cfx/perf/book_bench.h"

#include <vector>

#include "cfx/engine/memory_floor.h"
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
  if (!options.engine) {
    result.figures = engine::RunBookBench(items);
    return result;
  }
  const std::vector<engine::Command> commands = engine::EngineCommands(items, options.accounts);
  result.figures = engine::RunEngineBench(commands, &result.counts);
  result.has_floor = true;
  result.floor = engine::RunMemoryFloor(commands);
  result.floor_handles = engine::RunMemoryFloorWithHandles(commands);
  result.book_alone = engine::RunBookBench(items);
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
  if (r.has_floor) {
    auto floor = [&](const char* what, const engine::BenchFigures& x) {
      nlohmann::ordered_json k;
      k["what"] = what;
      k["orders_per_sec"] = static_cast<int64_t>(x.orders_per_sec);
      k["ns_per_order"] = x.ns_per_order;
      if (r.has_yardstick) k["ratio_to_yardstick"] = x.orders_per_sec / r.yardstick.orders_per_sec;
      k["engine_ratio_to_it"] = f.orders_per_sec / x.orders_per_sec;
      // Floor + cfx's book, per order: the best an engine on this book could do.
      const double with_book_ns = x.ns_per_order + r.book_alone.ns_per_order;
      k["with_book_ns_per_order"] = with_book_ns;
      if (r.has_yardstick) {
        k["with_book_ratio_to_yardstick"] = r.yardstick.ns_per_order / with_book_ns;
      }
      return k;
    };
    j["book_alone_orders_per_sec"] = static_cast<int64_t>(r.book_alone.orders_per_sec);
    j["memory_floor"] = floor(
        "a new order's memory work only: read the command, probe and insert its id, append "
        "the id's record, write the order slot (no book, no events)",
        r.floor);
    j["memory_floor_handles"] = floor(
        "the same with 64-byte commands, account and contract as handles", r.floor_handles);
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
