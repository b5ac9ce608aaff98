// `cfx settle --date D --data-dir DIR [--out DIR2] [--config FILE]`: the daily settlement
// batch (SPEC §9, §12). Thin: parses flags, wires the stores, prints the day summary and the
// surveillance alerts. The listing is the data dir's security master; the config only adds
// holidays, collateral, the price scan range and the surveillance threshold (without
// --config: the terms `cfx serve` kept in the data dir).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/audit/audit_log.h"
#include "cfx/common/config.h"
#include "cfx/common/date.h"
#include "cfx/journal/journal.h"
#include "cfx/security_master/format.h"
#include "cfx/settlement/batch.h"
#include "cfx/settlement/ledger.h"
#include "cfx/settlement/reference_fixes.h"
#include "cfx/settlement/statements.h"
#include "cfx/settlement/trade_store.h"
#include "cfx/settlement/valuation_margin.h"
#include "cfx/storage/private_files.h"
#include "holiday_list.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

struct SettleFlags {
  std::string date;
  std::string data_dir;
  std::string out_dir;
  std::string config;
  bool verify = false;
};

// Redraws one status line on a terminal; silent otherwise.
class ProgressLine {
 public:
  ProgressLine() : enabled_(isatty(STDERR_FILENO) == 1) {}
  ~ProgressLine() {
    if (drawn_) std::cerr << "\r\033[K" << std::flush;
  }
  void Update(std::string_view stage, int64_t done, int64_t total) {
    if (!enabled_) return;
    drawn_ = true;
    std::cerr << "\r\033[K" << stage << " ";
    if (total > 0) {
      const int width = 30;  // held in [0, width]: a count past the total draws a full bar
      const int filled = static_cast<int>(std::clamp<int64_t>(width * done / total, 0, width));
      std::cerr << "[" << std::string(filled, '#') << std::string(width - filled, ' ') << "] "
                << done << "/" << total;
    } else {
      std::cerr << done;
    }
    std::cerr << std::flush;
  }

 private:
  bool enabled_;
  bool drawn_ = false;
};

// Whether a `cfx serve` (or an in-process exchange) runs on `data_dir` now: it holds an
// exclusive lock on <data_dir>/serve.lock for as long as it runs. Probed with a shared lock
// taken and let go at once; nothing is created.
bool AnExchangeRunsOn(const std::string& data_dir) {
  const std::string path = data_dir + "/serve.lock";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

// The exchange writes its trade store after its journal, on its own thread: a crash (kill
// -9, power loss) can leave acknowledged trades in the journal only, until the exchange's
// next start stores them (ExchangeCore::Start, RecordJournalTail). Settling then would
// leave them out for good: their day's window has passed when they are stored (a review,
// 2026-12-07). A data dir without a journal (a replay's) has nothing to catch up.
absl::Status CheckTradeStoreCaughtUp(const std::string& data_dir,
                                     cfx::settlement::TradeSource& trades) {
  std::error_code ec;
  if (!std::filesystem::is_directory(data_dir + "/journal", ec)) return absl::OkStatus();
  auto recorded = trades.RecordedThrough();
  if (!recorded.ok()) return recorded.status();
  auto journal = cfx::journal::Journal::Open({.data_dir = data_dir, .read_only = true});
  if (!journal.ok()) {
    return absl::Status(journal.status().code(),
                        absl::StrCat("the exchange's journal, which the trade store must have "
                                     "caught up with before a settlement: ",
                                     journal.status().message()));
  }
  const uint64_t through = recorded->value_or(0), last = (*journal)->LastSeq();
  if (through >= last) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      data_dir, "/trades holds the exchange's inputs through ", through,
      " and its journal through ", last,
      ": the exchange stopped before storing the rest (a crash), and a settlement now would "
      "leave their trades out for good. Start the exchange (`cfx serve`), which stores them "
      "from the journal, then settle"));
}

// One `cfx settle` at a time on a data dir: an exclusive lock on <data_dir>/settle.lock (0600)
// held for the run. Two runs at once could interleave their statements folders (one clears
// the other's `.D.tmp` and the rename publishes a folder missing accounts, which no rerun
// repairs, since the folder then exists). -1 with errno EWOULDBLOCK: another run holds it.
int LockSettleRun(const std::string& data_dir) {
  const std::string path = data_dir + "/settle.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;  // released when the process exits
}

ExitCode RunSettle(const SettleFlags& flags) {
  using namespace cfx::settlement;
  auto date = cfx::common::ParseDate(flags.date);
  if (!date.ok()) return Fail("settle", absl::StrCat("--date: ", date.status().message()), 2);
  // The data dir must be there already (it holds the trades) and be this user's alone.
  if (absl::Status s = storage::PrepareDataDir(flags.data_dir, /*create=*/false); !s.ok()) {
    return Fail("settle", s);
  }
  // A folder that holds no trades is refused below with nothing created in it.
  std::error_code no_trades;
  if (std::filesystem::exists(flags.data_dir + "/trades", no_trades) &&
      LockSettleRun(flags.data_dir) < 0) {
    const int err = errno;
    return Fail("settle", err == EWOULDBLOCK
                              ? absl::StrCat("another cfx settle is running on ", flags.data_dir,
                                             " (", flags.data_dir,
                                             "/settle.lock): run this one after it; nothing "
                                             "was written")
                              : absl::StrCat(flags.data_dir, "/settle.lock: ", std::strerror(err)));
  }
  SettleConfig config;
  double psr = 0.15;  // SPEC §10 default price scan range
  // SPEC §12's `cfx settle` takes no config: the exchange's settlement terms are the ones
  // `cfx serve` (or `replay --config --data-dir`) kept in the data dir; --config, when
  // given, replaces them. Read first: a bad config is a usage error (2) whatever the data dir.
  std::string config_path = flags.config;
  // Whether a file is there; a path that cannot be looked at (a folder this user may not
  // search, a link to itself) is an error naming it (exists() without an error_code threw,
  // and cfx aborted: until 2026-12-07).
  auto there = [](const std::string& path) -> absl::StatusOr<bool> {
    std::error_code ec;
    const bool found = std::filesystem::exists(path, ec);
    if (ec) return absl::UnavailableError(absl::StrCat(path, ": ", ec.message()));
    return found;
  };
  auto terms_kept = there(cfx::common::SettlementTermsPath(flags.data_dir));
  if (!terms_kept.ok()) return Fail("settle", terms_kept.status());
  if (config_path.empty() && *terms_kept) {
    config_path = cfx::common::SettlementTermsPath(flags.data_dir);
  }
  if (!config_path.empty()) {
    auto exchange = flags.config.empty() ? cfx::common::LoadKeptSettlementTerms(config_path)
                                         : cfx::common::LoadConfigFile(config_path);
    if (!exchange.ok()) return Fail("settle", exchange.status(), 2);
    // --config may give other collateral or thresholds, but not other holidays than the
    // exchange's (the terms kept in the data dir): the security master's last trading days
    // and the fixes count that calendar, and a run by another one settles a contract as if
    // not expiring that a later run finds past its last trading day: no later date could
    // be settled. Refused as `cfx reference build` refuses it.
    const std::string terms = cfx::common::SettlementTermsPath(flags.data_dir);
    if (!flags.config.empty() && *terms_kept) {
      auto kept = cfx::common::LoadKeptSettlementTerms(terms);
      if (!kept.ok()) return Fail("settle", kept.status(), 2);
      const std::vector<cfx::common::Date> given = Normalized(exchange->holidays);
      const std::vector<cfx::common::Date> theirs = Normalized(kept->holidays);
      if (given != theirs) {
        return Fail("settle",
                    absl::StrCat("--config: its holidays (", HolidayText(given),
                                 ") are not those of the exchange whose data dir --data-dir is (",
                                 HolidayText(theirs), ", in ", terms,
                                 "); its contracts' last trading days and fixes count that "
                                 "calendar: drop --config to use the exchange's terms, or "
                                 "correct the exchange's config"),
                    2);
      }
    }
    config.calendar = exchange->Calendar();
    config.close_concentration_alert_e4 = std::llround(exchange->close_concentration_alert * 1e4);
    psr = exchange->psr;
    for (const cfx::common::ProductConfig& p : exchange->products) config.grades.push_back(p.grade);
    for (const cfx::common::AccountConfig& a : exchange->accounts) {
      config.collateral[a.id] = a.collateral;
    }
  }
  // A folder that holds no trades is not an exchange's data dir: refused with nothing
  // created in it (no stores, and no audit log where there was none).
  auto trades = OpenLmdbTradeSource(flags.data_dir);
  if (!trades.ok()) {
    auto audited = there(flags.data_dir + "/audit.log");
    if (!audited.ok()) return Fail("settle", audited.status());
    if (!*audited) return Fail("settle", trades.status());
  }
  auto audit_log = audit::AuditLog::Open(flags.data_dir + "/audit.log");
  if (!audit_log.ok()) return Fail("settle", audit_log.status());
  audit::AuditLog& audit = **audit_log;
  const std::string out_dir =
      flags.out_dir.empty() ? flags.data_dir + "/statements" : flags.out_dir;
  auto audit_run = [&](const char* result, const std::string& error) {
    audit.Record(
        "settlement_run",
        {{"date", flags.date}, {"result", result}, {"error", error}, {"statements", out_dir}});
  };
  if (!config_path.empty()) {
    audit.Record("config_load", {{"command", "settle"}, {"path", config_path}});
  }
  if (!trades.ok()) {
    audit_run("failed", std::string(trades.status().message()));
    return Fail("settle", trades.status());
  }
  // SPEC §9: the trading day D ends at D 16:00Z, and its book at the close is the book
  // after the last input before then. An exchange running on the data dir (its clock the
  // wall clock) is still taking D's inputs before that: settling D then would take a closing
  // window and a book that are not final, for good. Refused, nothing written (an audit
  // settled tomorrow's date on a running exchange, 2026-12-06). A stopped exchange's data
  // dir (a replay's, a kept demo's) settles any date, as docs/settlement.md says.
  // Just after the close, the running exchange may not have recorded it yet: its clock
  // passes 16:00Z within a second and then writes each contract's closing book, after every
  // trade before it. Until a listed contract has its close, the trade store may still lack
  // the last of the day's trades: refused too (retry in a moment).
  // Checked by the batch once it knows the date is not settled yet: a rerun of a settled
  // date changes nothing and succeeds whatever the running exchange's clock says (SPEC §9).
  auto ready = [&]() -> absl::Status {
    if (!AnExchangeRunsOn(flags.data_dir)) return CheckTradeStoreCaughtUp(flags.data_dir, **trades);
    const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    if (now_us < cfx::common::AtHour(*date, 16)) {
      return absl::UnavailableError(absl::StrCat(
          "the close of ", flags.date, " (16:00Z) has not come, and the exchange running on ",
          flags.data_dir,
          " is still taking that day's inputs: its closing window and its book at the close "
          "are not final; settle it after the close"));
    }
    auto contracts = (*trades)->Contracts();
    if (!contracts.ok()) return absl::OkStatus();  // the batch reads them and says why
    for (const security_master::Contract& c : *contracts) {
      if (!c.SettlesOn(*date)) continue;
      auto close = (*trades)->Close(c.sym, *date);
      if (close.ok() && !close->has_value()) {
        return absl::UnavailableError(absl::StrCat(
            "the exchange running on ", flags.data_dir, " has not recorded the close of ",
            flags.date, " yet (no closing book of ", c.sym,
            "): the day's last trades may not be stored yet; retry in a few seconds"));
      }
    }
    return absl::OkStatus();
  };
  // No reference store at all (a data dir where `cfx reference build` never ran) settles on
  // without fixes and margin, saying so; a store that is there but cannot be read (damaged,
  // cut short) is refused: settling on would commit a day of prices and calls for good
  // without the inputs that decide them.
  auto refuse_store = [&](const absl::Status& status) {
    const std::string why =
        absl::StrCat("the reference store cannot be read (", status.message(),
                     "): fixes and margin would be missing from the day for good");
    audit_run("failed", why);
    std::cerr << "cfx settle: " << flags.date << ": " << why
              << "\ncfx settle: nothing was written\n";
    return 1;
  };
  SettleInputs inputs{trades->get(), nullptr, nullptr};
  auto fixes = OpenReferenceFixSource(flags.data_dir);
  if (fixes.ok()) {
    inputs.fixes = fixes->get();
  } else if (!absl::IsNotFound(fixes.status())) {
    return refuse_store(fixes.status());
  } else {
    std::cerr << "cfx settle: warning: no fixes (" << fixes.status().message()
              << "); T3 keeps prior prices, no T4, no FSP\n";
  }
  // Margin calls use span16 initial margin (SPEC §9 step 4) with the throughput stored by
  // `cfx reference build` in the same data dir; one margin engine serves the whole run.
  auto margin = OpenValuationMarginSource(flags.data_dir, *date, psr);
  if (margin.ok()) {
    inputs.margin = margin->get();
  } else if (!absl::IsNotFound(margin.status())) {
    return refuse_store(margin.status());
  } else {
    // No throughput measured: span16 still (SPEC §9 step 4), every tier at the conservative
    // throughput move. Until 2026-12-07 the margin was taken as 0 (a review).
    std::cerr << "cfx settle: warning: no throughput (" << margin.status().message()
              << "); span16 margin with every tier at the conservative throughput move\n";
    margin = ValuationMarginWithoutThroughput(*date, psr);
    inputs.margin = margin->get();
  }
  ProgressLine progress;
  SettleOptions options;
  options.data_dir = flags.data_dir;
  options.out_dir = out_dir;
  options.progress = [&](std::string_view stage, int64_t done, int64_t total) {
    progress.Update(stage, done, total);
  };
  options.ready = ready;
  auto report = SettleDate(*date, config, inputs, options);
  if (!report.ok()) {
    audit_run("failed", std::string(report.status().message()));
  } else {
    audit_run(report->already_settled ? "already_settled" : "settled", "");
  }
  if (!report.ok()) {
    std::cerr << "\ncfx settle: " << flags.date << ": " << report.status().message() << "\n";
    // The ledger commits the day before the statements are written (they derive from it):
    // say which of the two this failure left.
    bool committed = false;
    if (auto ledger = Ledger::Open(flags.data_dir, /*create=*/false); ledger.ok()) {
      auto day = (*ledger)->ReadDay(*date);
      committed = day.ok() && day->has_value();
    }
    if (committed && absl::IsFailedPrecondition(report.status())) {
      // A folder made at <out>/<D> during the run, which is never replaced.
      std::cerr << "cfx settle: " << flags.date
                << " is settled (the ledger committed it) but its statements were not written; "
                   "move the folder named above away, then `cfx settle --date "
                << flags.date << "` again writes them\n";
    } else if (committed) {
      std::cerr << "cfx settle: " << flags.date
                << " is settled (the ledger committed it) but its statements were not written; "
                   "`cfx settle --date "
                << flags.date << "` again writes them\n";
    } else {
      std::cerr << "cfx settle: nothing was written\n";
    }
    return 1;
  }
  if (report->already_settled) {
    std::cout << flags.date << " is already settled; nothing changed"
              << (report->statements_written ? " (missing statements were rewritten)" : "") << "\n";
  } else {
    std::cout << DaySummaryText(report->day) << SurveillanceAlertsText(report->day)
              << "statements: " << options.out_dir << "/" << flags.date << "/\n";
  }
  if (flags.verify) {
    auto ledger = Ledger::Open(flags.data_dir, /*create=*/false);
    absl::Status s = ledger.ok() ? (*ledger)->Verify() : ledger.status();
    if (!s.ok()) return Fail("settle", absl::StrCat("ledger audit failed: ", s.message()));
    std::cout << "ledger audit: OK\n";
  }
  return 0;
}

void SetupSettle(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<SettleFlags>(
      parent, rc, "settle",
      "Daily settlement: prices, variation margin, expiry, margin calls, statements", RunSettle);
  cmd->add_option("--date", flags->date, "Business date to settle (YYYY-MM-DD)")->required();
  cmd->add_option("--data-dir", flags->data_dir, "Data dir (trades, reference, ledger)")
      ->required();
  cmd->add_option("--out", flags->out_dir, "Statements folder (default: DIR/statements)");
  cmd->add_option("--config", flags->config,
                  "Exchange TOML config (holidays, collateral, psr, close_concentration_alert); "
                  "default: DIR/settlement_terms.toml, kept there by cfx serve");
  cmd->add_flag("--verify", flags->verify, "Audit the whole ledger after the run");
}

CFX_REGISTER_COMMAND("", SetupSettle);

}  // namespace
}  // namespace cfx::app
