// `cfx bench fix`: FIX round-trip latency and throughput over loopback (docs/performance.md).
// Thin: flags -> perf::RunFixServeBench (perf/harness/include/cfx/perf/fix_serve_bench.h).
#include <iostream>

#include "CLI/CLI.hpp"
#include "cfx/perf/fix_serve_bench.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

struct BenchFixFlags {
  int sessions = 4;
  int64_t orders = 20000;
  int window = 64;
  bool rest = false;
  bool echo = false;
  bool fake = false;
  bool no_sync = false;
  bool publisher_thread = false;
  bool matcher_thread_only = false;
  bool quickfix_file_store = false;
  bool commit_log = true;
  bool no_yardsticks = false;
  bool replicated = false;
};

ExitCode RunBenchFix(const BenchFixFlags& flags) {
  perf::FixServeBenchOptions options;
  options.bench.sessions = flags.sessions;
  options.bench.orders = flags.orders;
  options.bench.window = flags.window;
  options.bench.cross = !flags.rest;
  // Default: the real exchange behind the gateway, in this process. --fake keeps the old
  // in-memory stand-in for comparison.
  options.server = flags.echo   ? perf::FixBenchServer::kEcho
                   : flags.fake ? perf::FixBenchServer::kFake
                                : perf::FixBenchServer::kServe;
  options.no_sync = flags.no_sync;
  options.publisher_thread = flags.publisher_thread;
  options.matcher_thread_only = flags.matcher_thread_only;
  options.quickfix_file_store = flags.quickfix_file_store;
  options.commit_log = flags.commit_log;
  options.yardsticks = !flags.no_yardsticks;
  options.replicated = flags.replicated;
  options.log = &std::cerr;
  absl::StatusOr<perf::FixServeBenchResult> result = perf::RunFixServeBench(options);
  if (!result.ok()) return Fail("bench fix", result.status().ToString());
  perf::PrintFixServeBench(*result, std::cout);
  return 0;
}

void SetupBenchFix(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<BenchFixFlags>(
      parent, rc, "fix", "FIX NewOrderSingle -> ExecutionReport round trips over loopback",
      RunBenchFix);
  cmd->add_option("--sessions", flags->sessions, "FIX sessions (default 4)");
  cmd->add_option("--orders", flags->orders, "orders per phase, over all sessions (default 20000)");
  cmd->add_option("--window", flags->window, "orders in flight per session when pipelined (64)");
  cmd->add_flag("--rest", flags->rest,
                "orders rest (buys 4.900, sells 5.100): one ExecutionReport an order, as echo");
  cmd->add_flag("--echo", flags->echo,
                "run against a bare QuickFIX acceptor that only echoes an ExecutionReport");
  cmd->add_flag("--fake", flags->fake, "gateway on the in-memory fake exchange (no engine, no journal)");
  cmd->add_flag("--no-sync", flags->no_sync,
                "journal commits not fsynced (process-crash safe only)");
  cmd->add_flag("--publisher-thread", flags->publisher_thread,
                "outcomes delivered by a publisher thread instead of the matcher's (A/B)");
  cmd->add_flag("--matcher-thread-only", flags->matcher_thread_only,
                "only the matcher thread matches, never the sequencer for a lone order (A/B)");
  cmd->add_flag("--quickfix-file-store", flags->quickfix_file_store,
                "the gateway's sessions on QuickFIX's own FileStore instead of the batched one (A/B)");
  cmd->add_flag("--no-commit-log{false}", flags->commit_log,
                "the journal without its commit log: each group commit an LMDB commit (A/B)");
  cmd->add_flag("--replicated", flags->replicated,
                "also run the exchange as the primary of a JetStream stream (a 3-server NATS "
                "cluster on loopback), beside the unreplicated run and raw publish-acks");
  cmd->add_flag("--no-yardsticks", flags->no_yardsticks,
                "skip the same-run yardsticks (the echo acceptor's phases, raw synced commits)");
}

CFX_REGISTER_COMMAND("bench", SetupBenchFix);

}  // namespace
}  // namespace cfx::app
