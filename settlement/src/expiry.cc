#include "cfx/settlement/expiry.h"

#include "cfx/common/decimal.h"
#include "cfx/security_master/derive.h"

namespace cfx::settlement {

common::Date LastTradingDay(const common::ContractSymbol& contract,
                            const common::BusinessCalendar& calendar) {
  return security_master::LastTradingDay(contract, calendar);
}

std::optional<common::PriceTicks> FinalSettlementPrice(
    const std::vector<std::optional<int64_t>>& fixes_e4) {
  __int128 sum = 0;
  int64_t n = 0;
  for (const auto& f : fixes_e4) {
    if (!f) continue;
    sum += *f;
    ++n;
  }
  if (n == 0) return std::nullopt;
  // mean (× 10^4) / 10 -> ticks, one rounding only.
  return common::PriceTicks(common::DivRoundHalfEven(sum, static_cast<__int128>(n) * 10));
}

std::vector<common::ContractSymbol> ListedContracts(const common::Grade& grade, common::Date date,
                                                    int count) {
  return security_master::ListingWindow(grade, date, count);
}

}  // namespace cfx::settlement
