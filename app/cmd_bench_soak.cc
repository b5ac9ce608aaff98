// `cfx bench soak --minutes N`: sustained FIX load with reconnects, bursts past the throttle
// and cancel-on-disconnect on the real exchange, then two restarts and a check of every
// acknowledgement against the journal (docs/performance.md, docs/reliability.md). Thin:
// flags -> perf::RunSoak (perf/harness/include/cfx/perf/soak_bench.h). A line per interval
// on standard error; exit status 1 when a check fails; the last line is JSON.
#include <iostream>

#include "CLI/CLI.hpp"
#include "cfx/perf/soak_bench.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

ExitCode RunBenchSoak(const perf::SoakOptions& flags) {
  perf::SoakOptions options = flags;
  options.log = &std::cerr;
  absl::StatusOr<perf::SoakResult> result = perf::RunSoak(options);
  if (!result.ok()) return Fail("bench soak", result.status());
  perf::PrintSoak(*result, std::cout);
  return result->ok ? 0 : 1;
}

void SetupBenchSoak(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<perf::SoakOptions>(
      parent, rc, "soak", "Sustained FIX load with reconnects on the real exchange", RunBenchSoak);
  cmd->add_option("--minutes", flags->minutes, "How long the load runs (default 1)");
  cmd->add_option("--sessions", flags->sessions, "FIX sessions, two firms (default 8)");
  cmd->add_option("--rate", flags->orders_per_sec, "Messages per second per session (100)");
  cmd->add_option("--throttle", flags->throttle_msgs_per_sec,
                  "Each session's throttle; bursts send twice this (200)");
  cmd->add_option("--reconnect-every", flags->reconnect_every_s,
                  "Mean seconds between a session's Logout and Logon again (20)");
  cmd->add_option("--burst-every", flags->burst_every_s, "Mean seconds between bursts (30)");
  cmd->add_option("--snapshot-interval", flags->snapshot_interval,
                  "Inputs between engine snapshots (20000)");
  cmd->add_option("--day-every", flags->day_every_s,
                  "Seconds per trading day: close, next date, pre-open, open (60; 0: never)");
  cmd->add_option("--interval", flags->interval_s, "Seconds per report line (10)");
  cmd->add_option("--dir", flags->dir, "Work folder (default: a temp folder, removed)");
}

CFX_REGISTER_COMMAND("bench", SetupBenchSoak);

}  // namespace
}  // namespace cfx::app
