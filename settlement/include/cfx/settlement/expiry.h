// Contract expiry (SPEC §3, §9.3): last trading day and final settlement price.
#ifndef CFX_SETTLEMENT_EXPIRY_H_
#define CFX_SETTLEMENT_EXPIRY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/common/units.h"

namespace cfx::settlement {

// The last business day of the contract month (security_master::LastTradingDay).
common::Date LastTradingDay(const common::ContractSymbol& contract,
                            const common::BusinessCalendar& calendar);

// FSP from the grade's daily fixes (int64 × 10^4) over the business days of the contract
// month; days without a fix are nullopt and skipped. Mean rounded to the tick, half to
// even; nullopt when no day has a fix.
std::optional<common::PriceTicks> FinalSettlementPrice(
    const std::vector<std::optional<int64_t>>& fixes_e4);

// The `count` consecutive contract months starting with the month of `date`, for `grade`
// (security_master::ListingWindow).
std::vector<common::ContractSymbol> ListedContracts(const common::Grade& grade, common::Date date,
                                                    int count = 12);

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_EXPIRY_H_
