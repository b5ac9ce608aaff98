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

// `cfx demo --standby` (docs/demo.md, "Failover"): a 3-server NATS JetStream cluster, a
// primary and a standby (`cfx serve` processes) and a FIX client on loopback; the primary is
// killed with SIGKILL mid-flow, the standby takes over, the client continues its session
// there, every acknowledged order is asked for, and the old primary comes back as a standby.
struct StandbyDemoOptions {
  std::string out_dir = "./demo-out";  // wiped first, like RunDemo's
  int orders = 200;                    // half before the kill, a burst in flight, the rest after
  int lease_ttl_ms = 3000;             // short, for the demo (the default config's is 10 s)
  uint64_t seed = 7;                   // draws the moment of the kill within the burst
  std::string cfx_binary;              // the `cfx` to run as `cfx serve`; empty: this process's
};

struct StandbyDemoSummary {
  int acked_before_kill = 0;      // acknowledged to the client before the kill
  int in_flight_at_kill = 0;      // sent, not acknowledged
  int64_t takeover_ms = 0;        // kill -> the standby leads
  int64_t takeover_bound_ms = 0;  // TTL + TTL/3 + 2 s for the promotion
  bool sequence_continued = false;  // the client logged on without a reset
  int64_t last_seq_before = 0;    // highest MsgSeqNum the client got from the old primary
  int64_t first_seq_after = 0;    // first one from the new primary
  int resent_and_acked = 0;       // in-flight orders the client resent, acknowledged by the new
  int processed_twice = 0;        // must be 0
  // Reports of node-a's inputs after its last reports mark, sent by the new primary marked
  // PossResend (97=Y) with their ExecIDs: some the client had, some node-a never sent
  // (docs/replication.md, "Reports after a failover"). Not processed twice.
  int reported_again = 0;
  int acked_after = 0;            // new orders acknowledged after the failover
  int acked_known_after = 0;      // of acked_before_kill: must be all
  int in_flight_known_after = 0;  // of in_flight_at_kill: sequenced by the old primary
  bool caught_up = false;         // the old primary, restarted as a standby, followed
  int64_t state_checks = 0;       // its state hash checks against the new primary
};

// Errors: a step failed (named), or DataLoss when an acknowledged order is missing after the
// failover, Internal when one was processed twice. Writes <out>/standby.json.
absl::StatusOr<StandbyDemoSummary> RunStandbyDemo(const StandbyDemoOptions& options,
                                                  std::ostream& progress);

}  // namespace cfx::demo

#endif  // CFX_GATEWAY_DEMO_H_
