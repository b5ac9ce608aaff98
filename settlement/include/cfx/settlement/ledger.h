// The settlement ledger: an LMDB environment `<data_dir>/ledger` (via storage::KvStore) that
// holds, per settled date, the settlement prices, every account's positions and
// variation-margin postings against the clearing account, and running cash. The layout is
// documented in docs/formats.md ("Ledger (LMDB)").
//
// Double entry: each account posting (VM of one contract) has its counter-posting on the
// clearing account `kClearingAccount`, kept per contract in the day record. Everything of
// a date is written by one CommitDay() transaction, so a date is either wholly settled or
// not at all.
//
//   auto ledger = Ledger::Open(data_dir);
//   std::optional<Date> last = *(*ledger)->LastSettledDate();
//
// The record structs below are the ledger's stored rows, read by the statements, the demo and
// the HTTP API. Prices, positions and money are PriceTicks, Qty and MicroUsd
// (cfx/common/units.h); they become bare integers only where they are encoded or printed.
#ifndef CFX_SETTLEMENT_LEDGER_H_
#define CFX_SETTLEMENT_LEDGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/common/units.h"
#include "cfx/settlement/prices.h"

namespace cfx::storage {
class KvStore;
}

namespace cfx::settlement {

inline constexpr char kLedgerFile[] = "ledger";
inline constexpr char kClearingAccount[] = "@CLEARING";

// One contract settled on a date.
struct ContractDay {
  std::string sym;
  common::PriceTicks settle;
  PriceTier tier = PriceTier::kT1;
  std::optional<common::PriceTicks> prior_settle;  // nullopt on the contract's first settlement
  bool expired = false;                            // D was its last trading day
  std::optional<common::PriceTicks> fsp;  // with `expired`; absent only without open interest
  common::MicroUsd clearing_vm;           // the clearing account's: −Σ account VM
};

// One account's line for one contract (a prior position or trades on the date).
struct AccountLine {
  int32_t contract = 0;       // index into DayRecord::contracts
  common::Qty qty;            // position at the end of the date, before expiry closes it
  common::MicroUsd vm;        // daily VM
  common::MicroUsd final_vm;  // expiry VM (0 unless the contract expired)
};

struct AccountDay {
  std::string account;
  std::vector<AccountLine> lines;  // ascending contract index (= ascending symbol)
  common::MicroUsd vm_cum;         // all VM posted to the account through this date
  common::MicroUsd cash;           // configured collateral + vm_cum
  common::MicroUsd margin;         // initial margin of the open positions after this date
  common::MicroUsd call;           // max(0, margin − cash)
  common::MicroUsd VmTotal() const;  // Σ vm + final_vm of the lines
};

// Close surveillance of one contract settled at T1 (SPEC §9 item 7): who took part in the
// closing window's volume. A party's quantity is the Σ qty of the window's trades it was a
// side of (a trade counts once for a party on both sides), so a share is in [0, 1].
struct CloseConcentration {
  std::string sym;
  common::Qty volume;           // Σ qty of the closing window's trades (> 0)
  std::string top_account;      // the largest account (the smallest id among equals)
  common::Qty top_account_qty;  // its quantity
  std::string top_firm;         // likewise by firm (the account when a trade names no firm)
  common::Qty top_firm_qty;
};

// Shares above the threshold (`threshold_e4` / 10^4, exclusive) are alerts.
bool IsAlert(common::Qty part, common::Qty volume, int64_t threshold_e4);

struct DayRecord {
  common::Date date;
  std::vector<ContractDay> contracts;  // ascending symbol
  std::vector<CloseConcentration> surveillance;  // the T1 contracts, ascending symbol
  int64_t concentration_alert_e4 = 5000;         // the alert threshold of the run, × 10^4
  int64_t accounts = 0;
  common::MicroUsd vm_paid;          // Σ positive account VM (= |Σ negative|)
  int64_t calls = 0;                 // accounts with call > 0
  common::MicroUsd call_total;       // Σ call
  common::MicroUsd clearing_vm_cum;  // clearing balance after the date (always 0)
  bool margin_available = true;      // false when run without a margin source
  bool fixes_available = true;       // false when run without a fix source
};

// Latest state of a contract that has ever settled.
struct ContractState {
  common::PriceTicks last_settle;
  common::Date last_date;
  bool expired = false;
  std::optional<common::PriceTicks> fsp;
};

// Named points inside CommitDay where a test can inject a failure (a crash stand-in).
using FailPoint = std::function<absl::Status(std::string_view point)>;

// Thread safety: one writer at a time (LMDB serialises writers across processes too).
class Ledger {
 public:
  // Opens or creates `<data_dir>/ledger`. Error names the path.
  // `create` false (settlement, a reader): a ledger not there yet reads as empty and is
  // created by the first CommitDay, so a run that fails before it leaves no store behind.
  // Such a ledger is for one thread (the lazy creation is not synchronised).
  static absl::StatusOr<std::unique_ptr<Ledger>> Open(const std::string& data_dir,
                                                      bool create = true);
  ~Ledger();

  absl::StatusOr<std::optional<common::Date>> FirstSettledDate();
  absl::StatusOr<std::optional<common::Date>> LastSettledDate();
  // nullopt when `date` is not settled. DataLoss on an undecodable record.
  absl::StatusOr<std::optional<DayRecord>> ReadDay(common::Date date);
  // Every account entry of a settled date, in account order; stops at fn's first error.
  absl::Status ForEachAccount(common::Date date,
                              const std::function<absl::Status(AccountDay&&)>& fn);
  absl::StatusOr<std::map<std::string, ContractState, std::less<>>> Contracts();

  // Writes the date atomically: its record, all `accounts` (sorted by account, lines
  // referring to record.contracts), contract state updates and the settled-date markers.
  // FailedPrecondition if the date is already settled. `fail` (may be null) is consulted
  // at "ledger_begin", "ledger_half", "ledger_before_commit"; a non-OK answer aborts.
  absl::Status CommitDay(const DayRecord& record, const std::vector<AccountDay>& accounts,
                         const FailPoint& fail);

  // Full audit of the history: every date's postings sum to zero (accounts + clearing),
  // every account's vm_cum equals the sum of its postings through that date, cash −
  // vm_cum is constant per account, and the clearing balance matches. Internal on failure,
  // naming the date and account.
  absl::Status Verify();

 private:
  Ledger(std::string data_dir, std::unique_ptr<storage::KvStore> store);
  std::string data_dir_;
  std::unique_ptr<storage::KvStore> store_;  // null: not created yet (reads as empty)
};

// Entry value encoding (exposed for tests and docs): see docs/formats.md.
std::string EncodeAccountDay(const AccountDay& day);
absl::StatusOr<AccountDay> DecodeAccountDay(std::string_view account, std::string_view value);

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_LEDGER_H_
