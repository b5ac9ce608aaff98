// The daily settlement batch (SPEC §9): prices by tier, variation margin, expiry, margin
// calls, ledger and statements for one business date.
//
//   SettleConfig config{.calendar = exchange.Calendar()};
//   SettleInputs inputs{trades.get(), &fixes, &margin};
//   absl::StatusOr<SettleReport> r =
//       SettleDate(*ParseDate("2027-03-01"), config, inputs, {.data_dir = dir, .out_dir = out});
//
// All-or-nothing: every ledger write of the date is one transaction; statements are
// re-derived from the ledger and renamed into place after the commit. Idempotent: a settled
// date is reported as such (statements rewritten only if missing) and nothing changes.
#ifndef CFX_SETTLEMENT_BATCH_H_
#define CFX_SETTLEMENT_BATCH_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/common/units.h"
#include "cfx/settlement/ledger.h"
#include "cfx/settlement/sources.h"

namespace cfx::settlement {

// The listing comes from the security master (TradeSource::Contracts): every contract
// listed on the date and not past its last trading day settles, traded or not.
struct SettleConfig {
  common::BusinessCalendar calendar;
  // Only for a trade source without a security master (a data dir older than it): these
  // grades' 12 months are listed, each settled where it has a price source.
  std::vector<common::Grade> grades;
  std::map<std::string, common::MicroUsd, std::less<>> collateral;  // by account; others 0
  // Close surveillance (SPEC §9 item 7): a closing-window share above this (× 10^4,
  // exclusive) is an alert. Config `close_concentration_alert`, default 0.5.
  int64_t close_concentration_alert_e4 = 5000;
};

struct SettleInputs {
  TradeSource* trades = nullptr;   // required
  FixSource* fixes = nullptr;      // null: no fixes (recorded in the day record)
  MarginSource* margin = nullptr;  // null: zero initial margin (recorded in the day record)
};

struct SettleOptions {
  std::string data_dir;  // the ledger lives in <data_dir>/ledger
  std::string out_dir;   // statements; empty = write none
  // Called with a stage name and counts, for a progress bar; may be null.
  std::function<void(std::string_view stage, int64_t done, int64_t total)> progress;
  FailPoint fail;  // crash injection for tests (see Ledger::CommitDay, WriteStatements)
  // Called once the date is known not to be settled yet, before anything of it is computed
  // or posted; an error refuses the run with it, nothing written. May be null. `cfx settle`
  // refuses here a date the exchange running on the data dir has not closed yet; a rerun of
  // a settled date never gets this far (it changes nothing and succeeds).
  std::function<absl::Status()> ready;
};

struct SettleReport {
  DayRecord day;
  bool already_settled = false;     // nothing was changed
  bool statements_written = false;  // statements were (re)written by this run
};

// Settles `date`. Errors (nothing written in each case):
//   InvalidArgument    `date` is not a business day, or a trade/close record is bad;
//   FailedPrecondition the previous business day is not settled (except for the very first
//                      date), or a date before the first settled date; contracts left
//                      unsettled (named in the message);
//   Internal           a ledger invariant (zero sum, cash = Σ postings) does not hold.
absl::StatusOr<SettleReport> SettleDate(common::Date date, const SettleConfig& config,
                                        const SettleInputs& inputs, const SettleOptions& options);

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_BATCH_H_
