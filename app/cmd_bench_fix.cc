// `cfx bench fix`: FIX round-trip latency and throughput over loopback (docs/performance.md).
#include <cstdio>
#include <iostream>

#include "cfx/gateway/fix_bench.h"
#include "nlohmann/json.hpp"
#include "registry.h"

namespace cfx::app {
namespace {

struct BenchFixFlags {
  int sessions = 4;
  int64_t orders = 20000;
  int window = 64;
  bool echo = false;
};

nlohmann::json PhaseJson(const gateway::FixBenchPhase& p) {
  return {{"orders", p.orders},   {"seconds", p.seconds}, {"orders_per_sec", p.orders_per_sec},
          {"p50_us", p.p50_us},   {"p99_us", p.p99_us},   {"p999_us", p.p999_us}};
}

ExitCode RunBenchFix(const BenchFixFlags& flags) {
  gateway::FixBenchOptions options;
  options.sessions = flags.sessions;
  options.orders = flags.orders;
  options.window = flags.window;
  options.echo = flags.echo;
  gateway::FixBenchResult result;
  absl::Status status = gateway::RunFixBench(options, &result);
  if (!status.ok()) {
    std::cerr << "cfx bench fix: " << status << "\n";
    return 1;
  }
  const char* mode = flags.echo ? "echo (bare QuickFIX acceptor)" : "cfx gateway + fake exchange";
  for (const auto& [name, p] : {std::pair{"one-at-a-time", result.one_at_a_time},
                                std::pair{"pipelined", result.pipelined}}) {
    std::printf("%s, %s: %lld orders in %.3f s, %.0f orders/s, p50 %.1f us, p99 %.1f us, "
                "p99.9 %.1f us\n",
                mode, name, static_cast<long long>(p.orders), p.seconds, p.orders_per_sec,
                p.p50_us, p.p99_us, p.p999_us);
  }
  // Headline: throughput of the pipelined phase, latency of the one-at-a-time phase.
  nlohmann::json out = {{"bench", "fix"},
                        {"mode", flags.echo ? "echo" : "cfx"},
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
  cmd->add_flag("--echo", flags->echo,
                "run against a bare QuickFIX acceptor that only echoes an ExecutionReport");
  cmd->callback([flags, rc] { *rc = RunBenchFix(*flags); });
}

CFX_REGISTER_COMMAND("bench", SetupBenchFix);

}  // namespace
}  // namespace cfx::app
