// Variation margin (SPEC §9.2), exact, in micro-USD. One tick (0.001 USD per GPU-hour) on
// one contract (1,000 GPU-hours) is 1 USD = 1,000,000 micro-USD.
#ifndef CFX_SETTLEMENT_VM_H_
#define CFX_SETTLEMENT_VM_H_

#include <cstdint>

namespace cfx::settlement {

inline constexpr int64_t kMicroUsdPerTickContract = 1'000'000;

// One account's day in one contract: the position carried in, and the day's trades
// aggregated as Σ signed_qty and Σ signed_qty × px (ticks).
struct DayActivity {
  int64_t prior_qty = 0;      // pos(D-1); 0 when the contract had no prior settlement
  int64_t traded_qty = 0;     // Σ signed qty (buys +, sells -)
  int64_t traded_qty_px = 0;  // Σ signed qty × px_ticks
  int64_t EndQty() const { return prior_qty + traded_qty; }
};

// VM = 1e6 × [pos(D-1) × (S(D) − S(D-1)) + Σ q × (S(D) − px)]. `prior_settle` is ignored
// when prior_qty is 0. Aborts on int64 overflow (a broken invariant, not a business case).
int64_t VariationMarginMicroUsd(const DayActivity& a, int64_t settle, int64_t prior_settle);

// Final VM at expiry: pos × (FSP − S(last)) × 1e6.
int64_t FinalVmMicroUsd(int64_t qty, int64_t fsp, int64_t settle);

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_VM_H_
