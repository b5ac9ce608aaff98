// `cfx demo`: a trading week on loopback with the embedded config and bundled, generated
// sample data (SPEC §11). Steps: sample reference data and fixes; then each business day
// the exchange (in-process, ephemeral ports, manual clock) restarts on the same data dir,
// four simulated firms trade over FIX (market makers, a taker, a firm that hits its
// throttle and disconnects; plus a drop copy and a market data subscription) and the
// settlement batch runs after the close; then the risk desk over HTTP, a summary on the
// progress stream and <out>/report.html (charts), report.md and report.json.
//
//   cfx::demo::DemoOptions options;          // ./demo-out, 2027-03-01, seed 7
//   absl::StatusOr<cfx::demo::DemoSummary> s = cfx::demo::RunDemo(options, std::cout);
//   if (!s.ok()) { std::cerr << s.status().message() << "\n"; return 1; }
//
// Same options -> same orders, trades, prices and report (the clock is manual; wall time
// appears only as the run's duration).
#ifndef CFX_GATEWAY_DEMO_H_
#define CFX_GATEWAY_DEMO_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"

namespace cfx::demo {

struct DemoOptions {
  std::string out_dir = "./demo-out";
  std::string date = "2027-03-01";  // first trading day (a Monday in the listed months)
  int days = 5;                     // consecutive business days traded and settled
  uint64_t seed = 7;
  int orders_per_day = 2400;        // the takers' random orders per day (quotes come on top)
  bool keep = false;                // keep the exchange's data dir (journal, ledger) after
};

// What a successful run saw; the full detail is in <out>/report.json.
struct DemoSummary {
  int64_t orders = 0;
  int64_t trades = 0;
  int64_t volume = 0;   // contracts
  int64_t rejects = 0;
  int64_t settled_contracts = 0;
  double seconds = 0;   // wall time of the run
  std::string report_path;  // <out>/report.md
};

// Runs the demo. `out_dir` is wiped first when it holds an earlier demo (it has the marker
// file `.cfx-demo`); a non-empty directory without the marker is refused
// (FailedPrecondition) and left untouched. Any failed step stops the run with an error
// naming the step.
absl::StatusOr<DemoSummary> RunDemo(const DemoOptions& options, std::ostream& progress);

}  // namespace cfx::demo

#endif  // CFX_GATEWAY_DEMO_H_
