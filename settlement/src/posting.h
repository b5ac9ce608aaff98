// Private to the settlement batch: what a day's run holds once it has loaded and priced
// (its contracts and the accounts' lines), and the posting step that turns it into the
// day's record and one entry per account (batch.cc loads and prices; posting.cc posts).
#ifndef CFX_SETTLEMENT_SRC_POSTING_H_
#define CFX_SETTLEMENT_SRC_POSTING_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/common/units.h"
#include "cfx/settlement/batch.h"
#include "cfx/settlement/ledger.h"
#include "cfx/settlement/prices.h"
#include "cfx/settlement/vm.h"

namespace cfx::settlement::internal {

struct Line {
  int32_t contract;  // index into the batch's contracts
  DayActivity act;
};

struct Account {
  std::string id;
  common::MicroUsd vm_cum;  // through the previous settled date
  std::vector<Line> lines;
};

struct Contract {
  std::string sym;
  common::ContractSymbol parsed;
  bool required = false;  // open interest, trades or a prior settlement: must settle
  std::optional<common::PriceTicks> prior;
  __int128 vwap_num = 0;  // Σ px × qty of the closing window (contract·ticks)
  common::Qty vwap_den;
  std::optional<common::Date> last_trading_day;  // the master's, else the calendar's
  // Close surveillance: Σ qty of the closing window's trades each party was a side of.
  std::map<std::string, int64_t, std::less<>> window_accounts;
  std::map<std::string, int64_t, std::less<>> window_firms;
  std::optional<SettlePrice> price;
  bool expiring = false;
  std::optional<common::PriceTicks> fsp;
};

// A loaded and priced day, as the posting step reads it.
struct PricedDay {
  common::Date date;
  const std::vector<Contract>* contracts = nullptr;
  const std::vector<Account>* accounts = nullptr;
  common::MicroUsd prev_clearing_vm_cum;  // the clearing account's balance before the date
};

// Posts the day: settled contracts in symbol order with the close's surveillance, each
// account's lines (end position, VM, final VM of an expiring contract), cash, initial margin
// (inputs.margin; none: 0) and call, in account order, into *out. REQUIRES: every line's
// contract has a price (the pricing step refused the date otherwise). OutOfRange naming the
// account and contract when a sum does not fit in 64 bits (nothing is wrapped); Internal when
// a contract's VM does not sum to zero; a margin source's error with the account named.
// `progress(done, total)` is called every 65,536 accounts; may be empty.
absl::StatusOr<DayRecord> PostDay(const PricedDay& priced, const SettleConfig& config,
                                  const SettleInputs& inputs,
                                  const std::function<void(int64_t, int64_t)>& progress,
                                  std::vector<AccountDay>* out);

}  // namespace cfx::settlement::internal

#endif  // CFX_SETTLEMENT_SRC_POSTING_H_
