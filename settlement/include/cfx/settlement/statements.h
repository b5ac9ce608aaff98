// Statements of a settled date (SPEC §12), derived from the ledger alone so that a rerun
// can rewrite them exactly:
//   <out>/<D>/<account>.json, <out>/<D>/<account>.csv, <out>/<D>/settlement_prices.json,
//   <out>/<D>/_summary.json, <out>/<D>/_surveillance.json.
// The batch's own files start with `_`, which no account id can (SPEC §9), so no account's
// statement can collide with them; `settlement_prices.json` keeps its §12 name, and
// `settlement_prices` is therefore a reserved account id (common::IsValidAccountId).
// Money is USD with 2 decimals (micro-USD rounded half to even), prices 3 decimals.
#ifndef CFX_SETTLEMENT_STATEMENTS_H_
#define CFX_SETTLEMENT_STATEMENTS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "cfx/common/units.h"
#include "cfx/settlement/ledger.h"

namespace cfx::settlement {

std::string UsdCents(common::MicroUsd amount);    // MicroUsd(1234567) -> "1.23"
std::string PriceText(common::PriceTicks price);  // PriceTicks(5250) -> "5.250"

std::string AccountStatementJson(const DayRecord& day, const AccountDay& account);
std::string AccountStatementCsv(const DayRecord& day, const AccountDay& account);
std::string SettlementPricesJson(const DayRecord& day);
std::string DaySummaryJson(const DayRecord& day);
// `_surveillance.json` (SPEC §9 item 7): per contract settled at T1, the closing window's
// volume and the share of its largest account and firm, and whether each is an alert.
std::string SurveillanceJson(const DayRecord& day);
// One line per alert ("surveillance alert: ..."); empty when there is none.
std::string SurveillanceAlertsText(const DayRecord& day);
// A few human-readable lines: prices with tiers, expiries, VM and calls.
std::string DaySummaryText(const DayRecord& day);

// Writes every statement of `date` into `<out_dir>/.<D>.tmp` and renames it to
// `<out_dir>/<D>`, so a reader sees all files or none. A `<out_dir>/<D>` already there is
// never replaced (FailedPrecondition): it is not this ledger's (SettleDate writes only a
// missing one).
// `fail` (may be null) is consulted at "statements_written" (before the rename).
absl::Status WriteStatements(Ledger& ledger, common::Date date, const std::string& out_dir,
                             const FailPoint& fail,
                             const std::function<void(int64_t done, int64_t total)>& progress);

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_STATEMENTS_H_
