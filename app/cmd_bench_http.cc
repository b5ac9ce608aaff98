// `cfx bench http`: N concurrent keep-alive clients on loopback against an HttpServer with
// in-memory providers, on the embedded demo config. Thin: flags -> perf::RunHttpBench
// (perf/harness/include/cfx/perf/http_bench.h); prints requests/s and latency percentiles,
// the last line one JSON object.
#include <iostream>

#include "CLI/CLI.hpp"
#include "cfx/common/config.h"
#include "cfx/demo/demo_config.h"
#include "cfx/perf/http_bench.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

ExitCode RunBenchHttp(const perf::HttpBenchOptions& flags) {
  absl::StatusOr<common::ExchangeConfig> config =
      common::ParseConfig(demo::DemoConfigText(), "demo");
  if (!config.ok()) {
    std::cerr << config.status() << "\n";
    return 2;
  }
  absl::StatusOr<perf::HttpBenchResult> result = perf::RunHttpBench(*std::move(config), flags);
  if (!result.ok()) return Fail("bench http", result.status().ToString());
  perf::PrintHttpBench(*result, std::cout);
  return result->errors == 0 ? 0 : 1;
}

void SetupBenchHttp(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<perf::HttpBenchOptions>(
      parent, rc, "http",
      "HTTP API throughput and latency: keep-alive clients on loopback, fake providers",
      RunBenchHttp);
  cmd->add_option("--clients", flags->clients, "Concurrent keep-alive connections")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--requests", flags->requests, "Requests per client")
      ->check(CLI::Range(1, 10'000'000));
  cmd->add_option("--threads", flags->threads, "Server I/O threads")->check(CLI::Range(1, 64));
  cmd->add_option("--endpoint", flags->endpoint, "mixed|book|margin|positions|healthz")
      ->check(CLI::IsMember({"mixed", "book", "margin", "positions", "healthz"}));
}

CFX_REGISTER_COMMAND("bench", SetupBenchHttp);

}  // namespace
}  // namespace cfx::app
