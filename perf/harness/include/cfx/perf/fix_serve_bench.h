// `cfx bench fix` end to end: RunFixBench (fix_bench.h) against the server chosen. By
// default the real exchange — ExchangeServer: core, engine and journal with synced group
// commits behind the FIX gateway — started in this process on a temp data dir that is
// removed afterwards; or the gateway on the in-memory fake exchange; or the bare QuickFIX
// echo acceptor (docs/performance.md).
//
//   FixServeBenchOptions options;  // 4 sessions, 20000 orders a phase, against cfx serve
//   absl::StatusOr<FixServeBenchResult> result = RunFixServeBench(options);
//   if (result.ok()) PrintFixServeBench(*result, std::cout);  // the last line is JSON
#ifndef CFX_PERF_FIX_SERVE_BENCH_H_
#define CFX_PERF_FIX_SERVE_BENCH_H_

#include <map>
#include <optional>
#include <ostream>

#include "absl/status/statusor.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/perf/fix_bench.h"
#include "nlohmann/json.hpp"

namespace cfx::perf {

enum class FixBenchServer {
  kServe,  // the real exchange, as `cfx serve` runs it
  kFake,   // the FIX gateway on the fake exchange (no engine, no journal)
  kEcho,   // a bare QuickFIX acceptor that answers each order with one ExecutionReport
};

struct FixServeBenchOptions {
  // Sessions, orders, window and load; `echo`, `external` and `port` follow `server`.
  FixBenchOptions bench;
  FixBenchServer server = FixBenchServer::kServe;
  bool no_sync = false;         // kServe: journal commits not fsynced
  bool commit_log = true;       // kServe: the journal's commit log (false: LMDB only, A/B)
  bool publisher_thread = false;  // kServe: ExchangeOptions::publisher_thread (A/B)
  bool matcher_thread_only = false;  // kServe: ExchangeOptions::matcher_thread_only (A/B)
  // kServe: the gateway on QuickFIX's own FileStore instead of its BatchedFileStore (A/B).
  bool quickfix_file_store = false;
  // kServe: also run the same phases against the echo acceptor (same QuickFIX settings)
  // and time raw synced commits on the same disk, and report the ratios.
  bool yardsticks = true;
  // kServe: run the phases unreplicated, then with the exchange as the primary of a JetStream
  // stream (R3 on a three-server cluster started on loopback), and time raw publish-acks on
  // the same servers (docs/replication.md).
  bool replicated = false;
  std::ostream* log = nullptr;  // when set, gets a line if the exchange does not stop cleanly
};

struct FixServeBenchResult {
  FixServeBenchOptions options;
  FixBenchResult phases;
  std::optional<exchange::ExchangeStats> core;  // kServe: the core's counters at the end
  // kServe: each phase's stages inside the core ("one_at_a_time", "pipelined"; the
  // replicated run's with `replicated`), from ExchangeOptions::trace_stages.
  std::map<std::string, journal::StageLatencies> stages;
  // The yardsticks of the same run (kServe with `yardsticks`): the echo acceptor's phases,
  // and one raw synced commit of 10 records (RawSyncedCommits) on the data dir's disk.
  std::optional<FixBenchResult> echo;
  std::optional<nlohmann::json> raw_commit;
  // And the disk's share of a one-at-a-time ack with `sessions` clients (GroupFlushClients,
  // each waiting the echo's one-at-a-time p50 between its acks), on the same disk.
  std::optional<nlohmann::json> group_flush;
  // And the durable echo: the echo acceptor making each order durable (one GroupFlusher
  // flush, on the same disk) before it answers, on the connection's thread. The least a
  // QuickFIX exchange that flushes before it acks can do here: no engine, no hand-offs
  // beyond the flusher's, one write an order.
  std::optional<FixBenchResult> durable_echo;
  // `replicated`: `phases` are the replicated run's; these, the unreplicated run's and one
  // raw JetStream publish-ack of an order's size on the same servers (p50_us, p99_us).
  std::optional<FixBenchResult> unreplicated;
  std::optional<nlohmann::json> raw_publish;
};

// Runs the bench. Returns the exchange's error when it cannot start, or RunFixBench's.
absl::StatusOr<FixServeBenchResult> RunFixServeBench(const FixServeBenchOptions& options);

// Writes the report: a line per phase, then one JSON object (the headline: throughput of
// the pipelined phase, latency of the one-at-a-time phase).
void PrintFixServeBench(const FixServeBenchResult& result, std::ostream& out);

}  // namespace cfx::perf

#endif  // CFX_PERF_FIX_SERVE_BENCH_H_
