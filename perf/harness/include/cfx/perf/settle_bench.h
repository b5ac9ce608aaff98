// `cfx bench settle`: the whole settlement batch, ledger writes included, on synthetic
// trades, fixes and margin in a work folder (docs/performance.md).
//
// Day 1 (2027-03-01, "setup") opens the book: accounts are paired and each pair trades
// `positions` contracts, so every account holds that many positions. Day 2 (2027-03-02, the
// figure) is the steady-state run: all positions are loaded from the ledger and marked, a
// tenth of the pairs trade again, margin is computed and the day is committed.
//
//   SettleBenchOptions options;  // 1,000,000 accounts x 10 positions
//   options.log = &std::cerr;    // a line per settled day
//   absl::StatusOr<SettleBenchResult> result = RunSettleBench(options);
//   if (result.ok()) PrintSettleBench(*result, std::cout);  // one JSON line
#ifndef CFX_PERF_SETTLE_BENCH_H_
#define CFX_PERF_SETTLE_BENCH_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"

namespace cfx::perf {

struct SettleBenchOptions {
  int64_t accounts = 1'000'000;  // >= 2, paired
  int64_t positions = 10;        // per account, 1..48 (the contracts listed)
  bool statements = false;       // also write the JSON/CSV statements
  // The work folder, emptied first and removed afterwards; empty: a folder named after
  // the process under the system temp folder.
  std::string dir;
  std::ostream* log = nullptr;  // when set, a progress line per settled day
};

struct SettleBenchResult {
  int64_t accounts = 0;      // in day 2's record
  int64_t positions = 0;     // accounts x positions asked for
  int64_t contracts = 0;     // settled on day 2
  int64_t calls = 0;         // margin calls on day 2
  double seconds = 0;        // day 2
  double setup_seconds = 0;  // day 1
  bool statements = false;
  uintmax_t ledger_bytes = 0;  // the data folder after day 2
};

// Runs both days. InvalidArgument for counts out of range; Unavailable when the work folder
// cannot be emptied; a settlement error is returned as "day N: <message>" (the work folder
// is then left for inspection).
absl::StatusOr<SettleBenchResult> RunSettleBench(const SettleBenchOptions& options);

// Writes the result as one JSON object on one line.
void PrintSettleBench(const SettleBenchResult& result, std::ostream& out);

}  // namespace cfx::perf

#endif  // CFX_PERF_SETTLE_BENCH_H_
