// RunDemo (demo.h): the output directory, then steps a to f in order.
#include "cfx/demo/demo.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cfx/demo/demo_config.h"
#include "demo_internal.h"

namespace cfx::demo {
namespace {

namespace fs = std::filesystem;
constexpr char kMarker[] = ".cfx-demo";

// Wipes an earlier demo's output; refuses anything else that is not empty.
absl::Status PrepareOut(const std::string& out) {
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) {
      return absl::FailedPreconditionError(out + " exists and is not a directory");
    }
    if (!fs::is_empty(out, ec) && !fs::exists(fs::path(out) / kMarker, ec)) {
      return absl::FailedPreconditionError(out +
                                           " is not empty and was not written by cfx demo (no " +
                                           kMarker + "); choose another --out or remove it");
    }
    fs::remove_all(out, ec);
    if (ec) return absl::UnavailableError("cannot remove " + out + ": " + ec.message());
  }
  fs::create_directories(out, ec);
  if (ec) return absl::UnavailableError("cannot create " + out + ": " + ec.message());
  std::ofstream(fs::path(out) / kMarker) << "written by cfx demo; wiped by the next run\n";
  return absl::OkStatus();
}

absl::Status Step(absl::Status s, const char* step) {
  if (s.ok()) return s;
  return absl::Status(s.code(), std::string(step) + ": " + std::string(s.message()));
}

}  // namespace
}  // namespace cfx::demo

namespace cfx::demo {

absl::StatusOr<DemoSummary> RunDemo(const DemoOptions& options, std::ostream& log) {
  using namespace demo;
  const auto started = std::chrono::steady_clock::now();
  absl::StatusOr<common::ExchangeConfig> config =
      common::ParseConfig(DemoConfigText(), "embedded demo.toml");
  if (!config.ok()) return config.status();
  absl::StatusOr<common::Date> first = common::ParseDate(options.date);
  if (!first.ok())
    return absl::InvalidArgumentError("--date: " + std::string(first.status().message()));
  if (options.days < 1 || options.days > 20) return absl::InvalidArgumentError("--days: 1..20");
  const common::BusinessCalendar calendar = config->Calendar();
  if (!calendar.IsBusinessDay(*first)) {
    return absl::InvalidArgumentError("--date: " + options.date + " is not a business day");
  }
  DemoRun run;
  run.options = options;
  run.days.push_back(*first);
  while (static_cast<int>(run.days.size()) < options.days) {
    run.days.push_back(calendar.NextBusinessDay(run.days.back()));
  }

  const std::string out = fs::absolute(options.out_dir).lexically_normal().string();
  if (absl::Status s = PrepareOut(out); !s.ok()) return s;
  const DemoPaths paths{.out = out,
                        .inputs = out + "/inputs",
                        .data = out + "/data",
                        .statements = out + "/statements",
                        .clients = out + "/data/clients"};
  config->data_dir = paths.data;

  log << "[1/6] sample data and reference fixes\n";
  absl::StatusOr<DataResult> data = BuildData(*config, run.days, options.seed, paths, log);
  if (!data.ok()) return Step(data.status(), "reference data");
  run.data = std::move(*data);

  log << "[2/6] exchange on loopback (manual clock)\n";
  const common::TimestampUs start = common::AtHour(run.days.front(), 6);
  absl::StatusOr<std::unique_ptr<Venue>> venue = StartVenue(*config, paths, start);
  if (!venue.ok()) return Step(venue.status(), "starting the exchange");
  run.venue = (*venue)->Describe();
  log << "  FIX 127.0.0.1:" << (*venue)->fix_port() << ", HTTP 127.0.0.1:" << (*venue)->http_port()
      << "\n";

  log << "[3/6] trading over FIX\n";
  absl::StatusOr<TradingResult> trading = RunTradingDays(
      *config, **venue, run.data, run.days, options.seed, options.orders_per_day, paths, log);
  // Settlement reads the stores the exchange wrote: stop it first (journal synced).
  (*venue)->Stop();
  venue->reset();
  if (!trading.ok()) return Step(trading.status(), "trading");
  run.trading = std::move(*trading);

  log << "[4/6] settlement\n";
  for (const common::Date d : run.days) {
    absl::StatusOr<SettleDayResult> day = SettleDay(*config, d, paths, log);
    if (!day.ok()) return Step(day.status(), ("settlement of " + common::FormatDate(d)).c_str());
    run.settlement.push_back(std::move(*day));
  }

  log << "[5/6] risk desk over HTTP (exchange restarted on the settled data)\n";
  const common::TimestampUs next_morning =
      common::AtHour(calendar.NextBusinessDay(run.days.back()), 6);
  venue = StartVenue(*config, paths, next_morning);
  if (!venue.ok()) return Step(venue.status(), "restarting the exchange");
  if (absl::Status s = (*venue)->AfterSettlement(run.days.back()); !s.ok()) {
    return Step(s, "margin after settlement");
  }
  absl::StatusOr<RiskResult> risk = RunRiskDesk(*config, **venue, run.settlement.back(), log);
  (*venue)->Stop();
  venue->reset();
  if (!risk.ok()) return Step(risk.status(), "risk desk");
  run.risk = std::move(*risk);

  log << "[6/6] report\n";
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (absl::Status s = WriteReport(run, paths, log); !s.ok()) return s;
  if (!options.keep) {
    // The exchange's state (journal, trade store, ledger, FIX stores) is only needed to
    // dig further (`cfx settle --data-dir`, `cfx replay`); inputs, statements and the
    // report stay.
    std::error_code ec;
    fs::remove_all(paths.data, ec);
  }

  DemoSummary summary;
  summary.orders = run.trading.orders;
  summary.trades = run.trading.trades;
  summary.volume = run.trading.volume;
  for (const auto& [k, v] : run.trading.rejects) summary.rejects += v;
  for (const SettleDayResult& d : run.settlement) summary.settled_contracts += d.listed;
  summary.seconds = run.seconds;
  summary.report_path = out + "/report.md";
  log << "done in " << static_cast<int>(run.seconds * 10) / 10.0 << " s\n";
  return summary;
}

}  // namespace cfx::demo
