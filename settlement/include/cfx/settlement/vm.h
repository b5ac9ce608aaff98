// Variation margin (SPEC §9.2), exact, in micro-USD. One tick (0.001 USD per GPU-hour) on
// one contract (1,000 GPU-hours) is 1 USD = 1,000,000 micro-USD.
//
//   DayActivity a{Qty(10), Qty(0), 0};  // long 10 carried in, no trades
//   MicroUsd vm = VariationMarginMicroUsd(a, PriceTicks(5020), PriceTicks(5000));  // 200 USD
#ifndef CFX_SETTLEMENT_VM_H_
#define CFX_SETTLEMENT_VM_H_

#include <cstdint>
#include <optional>

#include "cfx/common/units.h"

namespace cfx::settlement {

// The money of one tick on one contract.
inline constexpr common::MicroUsd kMicroUsdPerTickContract{1'000'000};

// One account's day in one contract: the position carried in, and the day's trades
// aggregated as Σ signed_qty and Σ signed_qty × px.
struct DayActivity {
  common::Qty prior_qty;      // pos(D-1); 0 when the contract had no prior settlement
  common::Qty traded_qty;     // Σ signed qty (buys +, sells -)
  int64_t traded_qty_px = 0;  // Σ signed qty × px_ticks (contract·ticks, a running sum)
  common::Qty EndQty() const { return prior_qty + traded_qty; }
};

// VM = 1e6 × [pos(D-1) × (S(D) − S(D-1)) + Σ q × (S(D) − px)]. `prior_settle` is ignored
// when prior_qty is 0. Aborts on int64 overflow (a broken invariant, not a business case).
common::MicroUsd VariationMarginMicroUsd(const DayActivity& a, common::PriceTicks settle,
                                         common::PriceTicks prior_settle);

// Final VM at expiry: pos × (FSP − S(last)) × 1e6. Aborts on int64 overflow, as above.
common::MicroUsd FinalVmMicroUsd(common::Qty qty, common::PriceTicks fsp,
                                 common::PriceTicks settle);

// The same, nullopt where the result does not fit in int64 micro-USD: the batch refuses
// such a day (trades at prices or sizes no market has) instead of stopping the process.
std::optional<common::MicroUsd> TryVariationMarginMicroUsd(const DayActivity& a,
                                                           common::PriceTicks settle,
                                                           common::PriceTicks prior_settle);
std::optional<common::MicroUsd> TryFinalVmMicroUsd(common::Qty qty, common::PriceTicks fsp,
                                                   common::PriceTicks settle);

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_VM_H_
