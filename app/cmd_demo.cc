// `cfx demo [--out DIR] [--date D] [--days N] [--seed S] [--orders N] [--keep]`: a trading
// week on loopback with the embedded config and generated sample data (SPEC §11).
// `cfx demo --standby [--out DIR] [--orders N]`: a failover (demo.h, RunStandbyDemo).
// Thin: parses flags and calls cfx::demo::RunDemo (demo/include/cfx/demo/demo.h).
#include <iostream>
#include <memory>

#include "cfx/demo/demo.h"
#include "registry.h"
#include "run_status.h"

namespace {

void SetupDemo(CLI::App& parent, cfx::app::ExitCode* rc) {
  auto options = std::make_shared<cfx::demo::DemoOptions>();
  CLI::App* cmd = parent.add_subcommand(
      "demo", "A trading week on loopback: fixes, FIX trading, settlement, margin, an HTML report");
  cmd->add_option("--out", options->out_dir,
                  "Output folder, wiped first if an earlier demo wrote it")
      ->capture_default_str();
  cmd->add_option("--date", options->date, "First trading day (YYYY-MM-DD, a business day)")
      ->capture_default_str();
  cmd->add_option("--days", options->days, "Consecutive business days to trade and settle")
      ->capture_default_str();
  cmd->add_option("--seed", options->seed, "Seed of the sample data and the order flow")
      ->capture_default_str();
  cmd->add_option("--orders", options->orders_per_day,
                  "The takers' random orders per day (market-maker quotes come on top)")
      ->capture_default_str()
      ->check(CLI::Range(0, 10000000));
  cmd->add_flag("--keep", options->keep,
                "Keep <out>/data (journal, trades, ledger, fixes) for cfx settle/replay");
  auto standby = std::make_shared<bool>(false);
  cmd->add_flag("--standby", *standby,
                "Instead: a failover. A 3-server NATS cluster, cfx serve as primary and standby, "
                "a FIX client; kill -9 the primary mid-flow (--orders: the client's orders, "
                "default 200; --seed: the moment of the kill)");
  cmd->callback([options, rc, standby] {
    if (*standby) {
      cfx::demo::StandbyDemoOptions so;
      so.out_dir = options->out_dir;
      so.seed = options->seed;
      so.orders = options->orders_per_day == cfx::demo::DemoOptions{}.orders_per_day
                      ? so.orders
                      : options->orders_per_day;
      absl::StatusOr<cfx::demo::StandbyDemoSummary> s = cfx::demo::RunStandbyDemo(so, std::cout);
      if (!s.ok()) {
        std::cout << std::flush;
        *rc = cfx::app::Fail("demo --standby", s.status());
      }
      return;
    }
    absl::StatusOr<cfx::demo::DemoSummary> summary = cfx::demo::RunDemo(*options, std::cout);
    if (!summary.ok()) {
      std::cout << std::flush;
      *rc = cfx::app::Fail("demo", summary.status());
    }
  });
}

CFX_REGISTER_COMMAND("", SetupDemo);

}  // namespace
