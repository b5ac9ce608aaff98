// `cfx bench fix`: FIX round-trip latency and throughput over loopback (docs/performance.md).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <iostream>

#include "cfx/common/config.h"
#include "cfx/common/date.h"
#include "cfx/gateway/exchange_server.h"
#include "cfx/perf/fix_bench.h"
#include "nlohmann/json.hpp"
#include "registry.h"

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
};

// The bench exchange: one account with ample collateral, sessions BENCH_0.. that reset
// their sequence numbers, no throttle, one grade listed from March 2027.
ExchangeConfig BenchConfig(const std::string& data_dir, int sessions) {
  ExchangeConfig c;
  c.source = "bench";
  c.data_dir = data_dir;
  c.fix_port = 0;
  c.http_port = 0;
  c.firms.push_back({"BENCH", "Bench"});
  c.accounts.push_back({"BENCH-1", "BENCH", int64_t{1'000'000'000} * 1'000'000});
  for (int i = 0; i < sessions; ++i) {
    SessionConfig s;
    s.sender_comp_id = "BENCH_" + std::to_string(i);
    s.firm = "BENCH";
    s.cancel_on_disconnect = false;
    s.throttle_msgs_per_sec = 1'000'000'000;
    s.reset_on_logon = true;
    c.sessions.push_back(s);
  }
  ProductConfig p;
  p.grade = Grade{"B200", Tier::kGold, "US"};
  p.ref_ticks = 5000;
  p.max_order_qty = 1000;
  c.products.push_back(p);
  return c;
}

nlohmann::json PhaseJson(const perf::FixBenchPhase& p) {
  return {{"orders", p.orders},   {"seconds", p.seconds}, {"orders_per_sec", p.orders_per_sec},
          {"p50_us", p.p50_us},   {"p99_us", p.p99_us},   {"p999_us", p.p999_us}};
}

ExitCode RunBenchFix(const BenchFixFlags& flags) {
  perf::FixBenchOptions options;
  options.sessions = flags.sessions;
  options.orders = flags.orders;
  options.window = flags.window;
  options.cross = !flags.rest;
  options.echo = flags.echo;
  // Default: the real exchange (core + engine + journal, synced group commits) behind the
  // gateway, in this process. --fake keeps the old in-memory stand-in for comparison.
  std::unique_ptr<gateway::ExchangeServer> server;
  std::string data_dir;
  if (!flags.echo && !flags.fake) {
    char tmpl[] = "/tmp/cfx_bench_fix_serve_XXXXXX";
    if (!mkdtemp(tmpl)) {
      std::cerr << "cfx bench fix: mkdtemp failed\n";
      return 1;
    }
    data_dir = tmpl;
    gateway::ExchangeServerOptions so;
    so.manual_clock = true;
    so.start_time = *ParseTimestamp("2027-03-01T14:00:00Z") * 1000;
    so.unsafe_no_sync = flags.no_sync;
    server = std::make_unique<gateway::ExchangeServer>(BenchConfig(data_dir, flags.sessions), so);
    if (absl::Status s = server->Start(); !s.ok()) {
      std::cerr << "cfx bench fix: " << s << "\n";
      return 1;
    }
    options.external = true;
    options.port = server->fix_port();
  }
  perf::FixBenchResult result;
  absl::Status status = perf::RunFixBench(options, &result);
  nlohmann::json core_stats;
  if (server) {
    exchange::ExchangeStats st = server->core().Stats();
    core_stats = {{"inputs", st.inputs}, {"batches", st.batches}, {"max_batch", st.max_batch}};
    if (absl::Status s = server->Stop(); !s.ok()) std::cerr << "cfx bench fix: stop: " << s << "\n";
    server.reset();
    if (std::system(("rm -rf " + data_dir).c_str()) != 0) {
      // A temp dir left behind is harmless.
    }
  }
  if (!status.ok()) {
    std::cerr << "cfx bench fix: " << status << "\n";
    return 1;
  }
  const char* mode = flags.echo   ? "echo (bare QuickFIX acceptor)"
                     : flags.fake ? "cfx gateway + fake exchange"
                                  : "cfx serve (gateway + core + journal)";
  for (const auto& [name, p] : {std::pair{"one-at-a-time", result.one_at_a_time},
                                std::pair{"pipelined", result.pipelined}}) {
    std::printf("%s, %s: %lld orders in %.3f s, %.0f orders/s, p50 %.1f us, p99 %.1f us, "
                "p99.9 %.1f us\n",
                mode, name, static_cast<long long>(p.orders), p.seconds, p.orders_per_sec,
                p.p50_us, p.p99_us, p.p999_us);
  }
  // Headline: throughput of the pipelined phase, latency of the one-at-a-time phase.
  nlohmann::json out = {{"bench", "fix"},
                        {"mode", flags.echo ? "echo" : flags.fake ? "fake" : "cfx"},
                        {"synced", !flags.echo && !flags.fake && !flags.no_sync},
                        {"load", flags.rest ? "rest" : "cross"},
                        {"core", core_stats},
                        {"sessions", flags.sessions},
                        {"orders_per_sec", result.pipelined.orders_per_sec},
                        {"p50_us", result.one_at_a_time.p50_us},
                        {"p99_us", result.one_at_a_time.p99_us},
                        {"p999_us", result.one_at_a_time.p999_us},
                        {"one_at_a_time", PhaseJson(result.one_at_a_time)},
                        {"pipelined", PhaseJson(result.pipelined)}};
  std::cout << out.dump() << std::endl;
  return 0;
}

void SetupBenchFix(CLI::App& parent, ExitCode* rc) {
  auto flags = std::make_shared<BenchFixFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "fix", "FIX NewOrderSingle -> ExecutionReport round trips over loopback");
  cmd->add_option("--sessions", flags->sessions, "FIX sessions (default 4)");
  cmd->add_option("--orders", flags->orders, "orders per phase, over all sessions (default 20000)");
  cmd->add_option("--window", flags->window, "orders in flight per session when pipelined (64)");
  cmd->add_flag("--rest", flags->rest,
                "orders rest (buys 4.900, sells 5.100): one ExecutionReport an order, as echo");
  cmd->add_flag("--echo", flags->echo,
                "run against a bare QuickFIX acceptor that only echoes an ExecutionReport");
  cmd->add_flag("--fake", flags->fake, "gateway on the in-memory fake exchange (no engine, no journal)");
  cmd->add_flag("--no-sync", flags->no_sync, "journal commits not fsynced (process-crash safe only)");
  cmd->callback([flags, rc] { *rc = RunBenchFix(*flags); });
}

CFX_REGISTER_COMMAND("bench", SetupBenchFix);

}  // namespace
}  // namespace cfx::app
