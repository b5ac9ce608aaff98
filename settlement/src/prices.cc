#include "cfx/settlement/prices.h"

#include <algorithm>

#include "cfx/common/decimal.h"

namespace cfx::settlement {

const char* PriceTierName(PriceTier tier) {
  switch (tier) {
    case PriceTier::kT1:
      return "T1";
    case PriceTier::kT2:
      return "T2";
    case PriceTier::kT3:
      return "T3";
    case PriceTier::kT4:
      return "T4";
  }
  return "T?";
}

std::optional<PriceTier> ParsePriceTier(std::string_view name) {
  if (name == "T1") return PriceTier::kT1;
  if (name == "T2") return PriceTier::kT2;
  if (name == "T3") return PriceTier::kT3;
  if (name == "T4") return PriceTier::kT4;
  return std::nullopt;
}

common::PriceTicks RoundTowardPrior(__int128 num, __int128 den,
                                    std::optional<common::PriceTicks> prior) {
  // Floor division, so that the remainder is in [0, den) for negative numerators too.
  __int128 q = num / den;
  __int128 r = num % den;
  if (r < 0) {
    q -= 1;
    r += den;
  }
  if (2 * r < den) return common::PriceTicks(static_cast<int64_t>(q));
  if (2 * r > den) return common::PriceTicks(static_cast<int64_t>(q + 1));
  // Exact half between q and q + 1.
  if (!prior.has_value()) return common::PriceTicks(common::DivRoundHalfEven(num, den));
  return common::PriceTicks(static_cast<int64_t>(prior->value() <= q ? q : q + 1));
}

// A price from the fixes alone (T3, T4) is held at one tick or above: a fix that fell by
// more than the prior settlement, or one under half a tick, would give 0 or less, which no
// contract trades at and the margin engine refuses, so that the day, and every day after
// it, could never settle (docs/settlement.md, "Settlement price").
static common::PriceTicks AtLeastOneTick(int64_t ticks) {
  return common::PriceTicks(std::max<int64_t>(ticks, 1));
}

std::optional<SettlePrice> ComputeSettlementPrice(const PriceInputs& in) {
  if (in.vwap_den > common::Qty(0)) {
    return SettlePrice{RoundTowardPrior(in.vwap_num, in.vwap_den.value(), in.prior_ticks),
                       PriceTier::kT1};
  }
  if (in.bid_ticks && in.ask_ticks && *in.ask_ticks - *in.bid_ticks <= kMaxMidSpreadTicks) {
    __int128 sum = static_cast<__int128>(in.bid_ticks->value()) + in.ask_ticks->value();
    return SettlePrice{RoundTowardPrior(sum, 2, in.prior_ticks), PriceTier::kT2};
  }
  if (in.prior_ticks) {
    if (!in.fix_e4 || !in.prev_fix_e4) return SettlePrice{*in.prior_ticks, PriceTier::kT3};
    // The whole price prior + Δfix is rounded (fixes are one decimal finer than the tick).
    __int128 e4 =
        static_cast<__int128>(in.prior_ticks->value()) * 10 + (*in.fix_e4 - *in.prev_fix_e4);
    return SettlePrice{AtLeastOneTick(common::DivRoundHalfEven(e4, 10)), PriceTier::kT3};
  }
  if (in.fix_e4) {
    return SettlePrice{AtLeastOneTick(common::DivRoundHalfEven(*in.fix_e4, 10)), PriceTier::kT4};
  }
  return std::nullopt;
}

}  // namespace cfx::settlement
