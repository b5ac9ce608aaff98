// How the security master follows the exchange's sequenced inputs (docs/settlement.md,
// "Security master"). Pure functions of the input and the previous row, so the writer (the
// exchange's TradeRecorder, live, in recovery and in `cfx replay --data-dir`) gives the same
// master from the same journal.
//
//   std::optional<Contract> row = master.Find(sym);
//   if (auto event = ApplyListing(input, calendar, &row)) { store(*row); store(*event); }
#ifndef CFX_SECURITY_MASTER_DERIVE_H_
#define CFX_SECURITY_MASTER_DERIVE_H_

#include <optional>
#include <string>
#include <vector>

#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/common/units.h"
#include "cfx/security_master/format.h"

namespace cfx::security_master {

// A listing input (the engine's `product`) as the engine applied it: the book's terms
// after the input, and the input's sequence number and sequenced time.
struct ListingInput {
  uint64_t seq = 0;
  std::optional<common::TimestampUs> ts;  // nullopt: no time was sequenced yet
  std::string sym;
  std::optional<common::PriceTicks> band_ref;
  common::Qty max_order_qty{1000};
};

// Applies `in` to the master's row of its symbol (`*row` nullopt: not in the master yet).
// Returns the history event when the row changed: `listed` for a new row, else
// `reference_changed` (the band reference moved) or `terms_changed` (the maximum order
// quantity); nullopt when nothing changed (a margin refresh, say). An expired contract's
// row does not change.
std::optional<ContractEvent> ApplyListing(const ListingInput& in,
                                          const common::BusinessCalendar& calendar,
                                          std::optional<Contract>* row);

// Marks `*row` expired by input `seq` (sequenced time `ts`). nullopt when already expired.
std::optional<ContractEvent> ApplyExpiry(uint64_t seq, std::optional<common::TimestampUs> ts,
                                         Contract* row);

// The last trading day of `contract` (SPEC §3): the last business day of its month.
common::Date LastTradingDay(const common::ContractSymbol& contract,
                            const common::BusinessCalendar& calendar);

// The contracts of `grade` in the listing window of `date`: `months` consecutive months
// from the month of `date`.
std::vector<common::ContractSymbol> ListingWindow(const common::Grade& grade, common::Date date,
                                                  int months = kListedMonths);

}  // namespace cfx::security_master

#endif  // CFX_SECURITY_MASTER_DERIVE_H_
