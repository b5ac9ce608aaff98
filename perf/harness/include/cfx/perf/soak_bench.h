// `cfx bench soak --minutes N`: sustained FIX load on the real exchange (SPEC §6, issue 11).
// Many sessions of two firms send a mix of resting and crossing orders, cancels and
// replaces at a steady rate with bursts past their throttle; each session logs out and back
// on at random (cancel-on-disconnect), while the journal grows and the core takes engine
// snapshots, and a trading day ends every `day_every_s` (close, the next date, pre-open,
// open). Every interval reports the order round-trip percentiles, the process's resident
// memory (heap and mapped files apart), the journal's size on disk and the snapshots written; at
// the end the exchange is stopped and started twice on its data dir, and every order the exchange
// acknowledged (ExecType 0) is looked up in the journal.
//
// The yardstick is the run's own first interval after warm-up: the report prints the last
// interval's p99 and memory beside it and the ratios (a soak is about drift, not speed).
//
//   SoakOptions options;
//   options.minutes = 10;
//   absl::StatusOr<SoakResult> r = RunSoak(options);
//   if (r.ok()) PrintSoak(*r, std::cout);   // r->ok: every acknowledgement was found
#ifndef CFX_PERF_SOAK_BENCH_H_
#define CFX_PERF_SOAK_BENCH_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace cfx::perf {

struct SoakOptions {
  double minutes = 1;
  int sessions = 8;                   // half each of two firms
  int orders_per_sec = 100;           // per session, steady
  int throttle_msgs_per_sec = 200;    // each session's throttle; a burst sends 2x for a second
  double burst_every_s = 30;          // per session, on average
  double reconnect_every_s = 20;      // per session, on average: Logout, then Logon again
  int64_t snapshot_interval = 20000;  // inputs between engine snapshots
  double day_every_s = 60;  // a trading day ends (close, next date, pre-open, open) every; 0: never
  int interval_s = 10;      // report every
  std::string dir;          // work folder; empty: a temp folder, removed afterwards
  std::ostream* log = nullptr;  // a line per interval while it runs
};

struct SoakInterval {
  double end_s = 0;       // since the load started
  int64_t sent = 0;       // messages sent in the interval (orders, cancels, replaces)
  int64_t acks = 0;       // ExecType 0 (new)
  int64_t fills = 0;      // ExecType F reports
  int64_t rejects = 0;    // ExecType 8 and OrderCancelRejects, throttle rejects included
  int64_t throttled = 0;  // rejects whose text is the throttle's
  int64_t logons = 0;     // session (re)connects
  double p50_us = 0, p99_us = 0, p999_us = 0;  // order -> first ExecutionReport
  double rss_mib = 0;                          // this process (exchange and clients)
  double heap_mib = 0;                         // of which anonymous memory (RssAnon)
  double mapped_mib = 0;                       // of which file pages: LMDB maps (RssFile)
  int64_t days = 0;                            // trading days ended so far
  double journal_mib = 0;                      // journal on disk (allocated blocks)
  uint64_t snapshots = 0;                      // engine snapshots written so far
  uint64_t inputs = 0;                         // journaled inputs so far
};

struct SoakResult {
  SoakOptions options;
  std::vector<SoakInterval> intervals;
  int64_t acked_orders = 0;   // distinct orders acknowledged over the run
  int64_t acked_missing = 0;  // of those, not found as a NewOrder in the journal
  uint64_t journal_records = 0;
  uint64_t next_seq_at_stop = 0;    // the core's next seq when the load ended
  uint64_t next_seq_recovered = 0;  // the same after the restart
  uint64_t state_hash_first = 0;    // after the first restart
  uint64_t state_hash_second = 0;   // after the second
  double restart_s = 0;             // the first restart's recovery
  bool ok = false;  // nothing missing, recovery reached the load's last seq, hashes agree
};

// Runs the soak. An error when the exchange cannot start or a session never logs on; what
// the exchange refuses during the run is counted, not returned.
absl::StatusOr<SoakResult> RunSoak(const SoakOptions& options);

// A line per interval, the checks, then one JSON object.
void PrintSoak(const SoakResult& result, std::ostream& out);

}  // namespace cfx::perf

#endif  // CFX_PERF_SOAK_BENCH_H_
