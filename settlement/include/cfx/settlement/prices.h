// Daily settlement prices by the tiers of SPEC §9.1, in exact integer arithmetic.
// Prices are PriceTicks (0.001 USD per GPU-hour); fixes are int64 × 10^4 (one digit finer).
//
//   PriceInputs in{.vwap_num = 10501, .vwap_den = Qty(2), .prior_ticks = PriceTicks(5300)};
//   std::optional<SettlePrice> p = ComputeSettlementPrice(in);   // {PriceTicks(5251), kT1}
#ifndef CFX_SETTLEMENT_PRICES_H_
#define CFX_SETTLEMENT_PRICES_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "cfx/common/units.h"

namespace cfx::settlement {

enum class PriceTier { kT1 = 1, kT2 = 2, kT3 = 3, kT4 = 4 };
const char* PriceTierName(PriceTier tier);  // "T1"..."T4"
std::optional<PriceTier> ParsePriceTier(std::string_view name);

struct SettlePrice {
  common::PriceTicks ticks;
  PriceTier tier = PriceTier::kT1;
  friend bool operator==(const SettlePrice&, const SettlePrice&) = default;
};

// num / den ticks (den > 0) rounded to an integer tick; an exact half goes toward `prior`
// when there is one (and to even when there is none, or when prior is the half itself,
// which cannot happen for integer priors).
common::PriceTicks RoundTowardPrior(__int128 num, __int128 den,
                                    std::optional<common::PriceTicks> prior);

// Largest allowed bid/ask spread for T2, in ticks (inclusive).
inline constexpr common::PriceTicks kMaxMidSpreadTicks{10};

// Everything the tiers look at for one contract on one date.
struct PriceInputs {
  // T1: Σ px×qty (contract·ticks) and Σ qty over trades in [15:30Z, 16:00Z) of D;
  // den 0 = no trades.
  __int128 vwap_num = 0;
  common::Qty vwap_den;
  std::optional<common::PriceTicks> bid_ticks;  // T2: the book at the close
  std::optional<common::PriceTicks> ask_ticks;
  std::optional<common::PriceTicks> prior_ticks;  // latest earlier settlement
  std::optional<int64_t> fix_e4;                  // fix of the grade on D
  std::optional<int64_t> prev_fix_e4;             // fix of the grade on the previous business day
};

// The settlement price by the first tier that applies; nullopt = unsettled.
std::optional<SettlePrice> ComputeSettlementPrice(const PriceInputs& in);

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_PRICES_H_
