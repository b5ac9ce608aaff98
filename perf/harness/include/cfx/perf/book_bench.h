// `cfx bench book`: order-book throughput and per-order latency on a seeded stream, or with
// `engine` the same stream as gateway commands through Engine (client ids, accounts,
// validation, STP, a counting listener). The drivers are engine/testing's workload.h; this
// chooses the stream and reports (docs/performance.md).
//
//   BookBenchOptions options;  // 3,000,000 Liquibook orders, one book
//   PrintBookBench(RunBookBench(options), std::cout);  // one JSON line
#ifndef CFX_PERF_BOOK_BENCH_H_
#define CFX_PERF_BOOK_BENCH_H_

#include <cstddef>
#include <cstdint>
#include <ostream>

#include "cfx/engine/workload.h"

namespace cfx::perf {

enum class BookWorkload { kLiquibook, kMixed };
const char* WorkloadName(BookWorkload workload);  // "liquibook", "mixed"

struct BookBenchOptions {
  BookWorkload workload = BookWorkload::kLiquibook;
  size_t orders = 3000000;
  unsigned seed = 3;
  bool engine = false;     // through Engine as gateway commands instead of one book
  uint32_t accounts = 16;  // with `engine`: the accounts the orders come from
};

struct BookBenchResult {
  BookBenchOptions options;
  engine::BenchFigures figures;
  engine::EventCounts counts;  // with `engine`: the listener's events of the timed pass
  // The Liquibook stream only: the same items through a bare std::map book (no ids, no
  // events) in the same run, timed just before; the JSON line prints the ratio to it.
  bool has_yardstick = false;
  engine::BenchFigures yardstick;
  // With `engine`: the Engine's memory floor on the same commands, and with 64-byte
  // commands of handles (engine/testing's memory_floor.h), timed just after the Engine.
  // And cfx's book alone on the items (as without `engine`): floor + book is the least any
  // engine built on this book could take a command.
  bool has_floor = false;
  engine::BenchFigures floor;
  engine::BenchFigures floor_handles;
  engine::BenchFigures book_alone;
};

// Runs the bench. REQUIRES: options.accounts >= 1.
BookBenchResult RunBookBench(const BookBenchOptions& options);

// Writes the result as one JSON object on one line.
void PrintBookBench(const BookBenchResult& result, std::ostream& out);

}  // namespace cfx::perf

#endif  // CFX_PERF_BOOK_BENCH_H_
