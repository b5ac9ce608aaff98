// The security master (SPEC §3): the one persisted list of the exchange's contracts that
// every part of cfx reads — the FIX SecurityList, `GET /v1/contracts`, `cfx settle` and
// margin. It lives in the trade store's LMDB environment (`<data_dir>/trades`), written by
// the exchange's TradeRecorder in the same transaction as the trades, so it is derived from
// the journaled listing inputs exactly like the books: recovery and replay reproduce it.
// Tables (docs/formats.md, "Security master"):
//   `contracts`         key: symbol                  value: FormatContractJson(contract)
//   `contract_history`  key: `<symbol>/<16-digit seq>` value: FormatContractEventJson(event)
//
//   std::string row = FormatContractJson(contract);
//   absl::StatusOr<Contract> back = ParseContractJson(row);   // == contract
#ifndef CFX_SECURITY_MASTER_FORMAT_H_
#define CFX_SECURITY_MASTER_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/common/units.h"

namespace cfx::security_master {

inline constexpr char kContractsTable[] = "contracts";
inline constexpr char kHistoryTable[] = "contract_history";

// SPEC §3: 1,000 GPU-hours per contract, quoted in USD per GPU-hour with a 0.001 tick.
inline constexpr int64_t kMultiplier = 1000;
inline constexpr common::PriceTicks kTick{1};
// The listing window: the current month and the next 11.
inline constexpr int kListedMonths = 12;

// The contract's life in the master. Trading states (pre_open, open, halted, closed) are
// the book's, not the master's (`GET /v1/book/{sym}`).
enum class ContractState { kListed, kExpired };
const char* ContractStateName(ContractState s);  // "listed", "expired"

// One contract of the master.
struct Contract {
  std::string sym;
  // Grade and month parsed from the symbol; nullopt for a symbol outside the `<grade>-
  // <YYYYMM>` scheme (possible in a master written by hand: `cfx replay --data-dir` refuses
  // such a `product`, docs/settlement.md): it has no month, no last trading day and no fix.
  std::optional<common::ContractSymbol> contract;
  common::PriceTicks tick = kTick;
  int64_t multiplier = kMultiplier;
  common::Qty max_order_qty{1000};
  std::optional<common::PriceTicks> band_ref;  // the engine's band reference; none: no band
  // The trading day of the sequenced time of the listing input (SPEC §9: a listing at or
  // after a day's 16:00Z close, or on a day off, is of the next business day's); nullopt
  // when the exchange had no time yet (a `cfx replay` file whose `product` lines come before
  // any `time`): listed from the beginning. Until 2026-12-07 the UTC date, so the month
  // listed at a last trading day's close was settled that day, with no close of its own.
  std::optional<common::Date> listing_date;
  std::optional<common::Date> last_trading_day;  // with `contract`: the calendar's
  ContractState state = ContractState::kListed;
  uint64_t listed_seq = 0;   // the input that listed it
  uint64_t updated_seq = 0;  // the latest input that changed this row

  // Listed on `date` and not past its last trading day: the contracts `cfx settle` prices
  // on `date` (SPEC §9 item 6). The expiry state does not matter: a contract expires at the
  // close of its last trading day and is still settled (finally) for that day.
  bool SettlesOn(common::Date date) const;
  // Open for trading in the master (not expired).
  bool listed() const { return state == ContractState::kListed; }
};

// What happened to a contract, one row per input that changed it.
enum class EventKind { kListed, kReferenceChanged, kTermsChanged, kExpired };
const char* EventKindName(EventKind k);  // "listed", "reference_changed", "terms_changed", "expired"

struct ContractEvent {
  uint64_t seq = 0;  // the input
  std::optional<common::TimestampUs> ts;  // its sequenced time (nullopt: none yet)
  std::string sym;
  EventKind kind = EventKind::kListed;
  // The row's terms after the event.
  std::optional<common::PriceTicks> band_ref;
  common::Qty max_order_qty{1000};
  friend bool operator==(const ContractEvent&, const ContractEvent&) = default;
};

// A contract with its history, oldest first (`GET /v1/contracts/{sym}`).
struct ContractRecord {
  Contract contract;
  std::vector<ContractEvent> history;
};

std::string HistoryKey(std::string_view sym, uint64_t seq);  // "B200-GOLD-US-202703/0000000000000042"

// Parsers return InvalidArgument naming the field when the JSON is malformed.
std::string FormatContractJson(const Contract& c);
absl::StatusOr<Contract> ParseContractJson(std::string_view json);
std::string FormatContractEventJson(const ContractEvent& e);
absl::StatusOr<ContractEvent> ParseContractEventJson(std::string_view json);

}  // namespace cfx::security_master

#endif  // CFX_SECURITY_MASTER_FORMAT_H_
