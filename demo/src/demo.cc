// RunDemo (demo.h): the output directory, then steps a to f in order.
#include "cfx/demo/demo.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "cfx/common/decimal.h"
#include "cfx/demo/demo_config.h"
#include "demo_internal.h"
#include "demo_out.h"

namespace cfx::demo {
namespace {

namespace fs = std::filesystem;

// The contracts traded on `d` (two months per product grade) with the band reference the
// exchange uses (the latest settlement price, else the previous business day's fix, else
// the configured reference) and the fair value the market makers quote around (the day's
// fix, the later month a little dearer), kept within 4% of the band reference.
std::vector<DayContract> PlanDay(const common::ExchangeConfig& config, const DemoRun& run,
                                 common::Date d) {
  std::map<std::string, int64_t> settled;
  for (const SettleDayResult& day : run.settlement) {
    for (const SettledContract& c : day.contracts) settled[c.sym] = c.settle.value();
  }
  std::vector<DayContract> out;
  for (const common::ProductConfig& p : config.products) {
    const std::string grade = p.grade.Key();
    auto prior = run.data.prior_fix_e4.find(grade + "/" + common::FormatDate(d));
    const int64_t ref = prior != run.data.prior_fix_e4.end()
                            ? common::DivRoundHalfEven(prior->second, 10)
                            : p.ref_ticks.value_or(5000);
    int64_t fix = ref;
    for (const FixUsed& f : run.data.fixes) {
      if (f.grade == grade && f.date == d && f.fix_e4) {
        fix = common::DivRoundHalfEven(*f.fix_e4, 10);
      }
    }
    int y, m, day;
    common::YmdFromDate(d, &y, &m, &day);
    for (int ahead = 0; ahead < 2; ++ahead) {
      const int month = (m - 1 + ahead) % 12 + 1;
      const std::string sym =
          common::ContractSymbol{p.grade, y + (m - 1 + ahead) / 12, month}.Key();
      auto it = settled.find(sym);
      const int64_t band = it != settled.end() ? it->second : ref + ref * ahead / 100;
      const int64_t fair = std::clamp(fix + fix * ahead / 100, band * 96 / 100, band * 104 / 100);
      out.push_back({.sym = sym, .band_ref = band, .fair = fair});
    }
  }
  return out;
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

  log << "[1/4] sample data and reference fixes\n";
  absl::StatusOr<DataResult> data = BuildData(*config, run.days, options.seed, paths, log);
  if (!data.ok()) return Step(data.status(), "reference data");
  run.data = std::move(*data);

  log << "[2/4] " << run.days.size()
      << " trading day(s): the exchange on loopback (manual clock), FIX trading, settlement after "
         "each close\n";
  absl::StatusOr<std::unique_ptr<TradingFloor>> floor =
      NewTradingFloor(*config, paths, options.seed, options.orders_per_day, log);
  if (!floor.ok()) return Step(floor.status(), "trading firms");
  for (size_t i = 0; i < run.days.size(); ++i) {
    const common::Date d = run.days[i];
    log << "[day " << i + 1 << "/" << run.days.size() << "] " << common::FormatDate(d) << "\n";
    // The exchange restarts every morning on the same data dir: it recovers from the
    // journal and reads the latest settlement prices as band references and margin basis.
    absl::StatusOr<std::unique_ptr<Venue>> venue = StartVenue(*config, paths, common::AtHour(d, 6));
    if (!venue.ok()) return Step(venue.status(), "starting the exchange");
    if (i == 0) {
      run.venue = (*venue)->Describe();
      log << "  FIX 127.0.0.1:" << (*venue)->fix_port()
          << ", HTTP 127.0.0.1:" << (*venue)->http_port() << "\n";
    }
    absl::Status traded =
        (*floor)->TradeDay(**venue, d, PlanDay(*config, run, d), i + 1 == run.days.size());
    // Settlement reads the stores the exchange wrote: stop it first (journal synced).
    (*venue)->Stop();
    venue->reset();
    if (!traded.ok()) return Step(traded, ("trading " + common::FormatDate(d)).c_str());
    absl::StatusOr<SettleDayResult> day = SettleDay(*config, d, paths, log);
    if (!day.ok()) return Step(day.status(), ("settlement of " + common::FormatDate(d)).c_str());
    run.settlement.push_back(std::move(*day));
  }
  run.trading = (*floor)->result();

  log << "[3/4] risk desk over HTTP (exchange restarted on the settled data)\n";
  const common::TimestampUs next_morning =
      common::AtHour(calendar.NextBusinessDay(run.days.back()), 6);
  absl::StatusOr<std::unique_ptr<Venue>> venue = StartVenue(*config, paths, next_morning);
  if (!venue.ok()) return Step(venue.status(), "restarting the exchange");
  if (absl::Status s = (*venue)->AfterSettlement(run.days.back()); !s.ok()) {
    return Step(s, "margin after settlement");
  }
  absl::StatusOr<RiskResult> risk =
      RunRiskDesk(*config, **venue, run.settlement.back(), run.days, log);
  (*venue)->Stop();
  venue->reset();
  if (!risk.ok()) return Step(risk.status(), "risk desk");
  run.risk = std::move(*risk);

  log << "[4/4] report\n";
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
