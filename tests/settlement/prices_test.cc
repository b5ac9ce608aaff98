#include "cfx/settlement/prices.h"

#include "gtest/gtest.h"

namespace cfx::settlement {
namespace {

PriceInputs Vwap(__int128 num, int64_t den, std::optional<int64_t> prior = std::nullopt) {
  PriceInputs in;
  in.vwap_num = num;
  in.vwap_den = common::Qty(den);
  if (prior) in.prior_ticks = common::PriceTicks(*prior);
  return in;
}

// The tests read better with plain numbers; the production code passes PriceTicks.
common::PriceTicks Round(__int128 num, __int128 den, std::optional<int64_t> prior) {
  return RoundTowardPrior(
      num, den,
      prior ? std::optional<common::PriceTicks>(common::PriceTicks(*prior)) : std::nullopt);
}

TEST(RoundTowardPriorTest, NonHalvesRoundToNearest) {
  EXPECT_EQ(Round(50014, 10, std::nullopt), common::PriceTicks(5001));
  EXPECT_EQ(Round(50016, 10, 4000), common::PriceTicks(5002));
  EXPECT_EQ(Round(-50016, 10, std::nullopt), common::PriceTicks(-5002));
}

TEST(RoundTowardPriorTest, ExactHalfGoesTowardPrior) {
  EXPECT_EQ(Round(10001, 2, 5003), common::PriceTicks(5001));  // 5000.5, prior above -> up
  EXPECT_EQ(Round(10001, 2, 4990), common::PriceTicks(5000));  // prior below -> down
  EXPECT_EQ(Round(10001, 2, 5000), common::PriceTicks(5000));  // prior at the lower neighbour
  EXPECT_EQ(Round(10001, 2, 5001), common::PriceTicks(5001));  // prior at the upper neighbour
}

TEST(RoundTowardPriorTest, ExactHalfWithoutPriorGoesToEven) {
  EXPECT_EQ(Round(10001, 2, std::nullopt), common::PriceTicks(5000));  // 5000.5 -> 5000
  EXPECT_EQ(Round(10003, 2, std::nullopt), common::PriceTicks(5002));  // 5001.5 -> 5002
}

TEST(SettlementPriceTest, T1VwapOfClosingWindow) {
  // 3 @ 5.250 and 1 @ 5.260: (15750 + 5260) / 4 = 5252.5, prior 5.300 -> 5.253.
  auto p = ComputeSettlementPrice(Vwap(3 * 5250 + 5260, 4, 5300));
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (SettlePrice{common::PriceTicks(5253), PriceTier::kT1}));
  p = ComputeSettlementPrice(Vwap(3 * 5250 + 5260, 4, 5100));
  EXPECT_EQ(*p, (SettlePrice{common::PriceTicks(5252), PriceTier::kT1}));
  p = ComputeSettlementPrice(Vwap(3 * 5250 + 5260, 4));
  EXPECT_EQ(*p, (SettlePrice{common::PriceTicks(5252), PriceTier::kT1}));  // half to even
}

TEST(SettlementPriceTest, T1WinsOverEverythingElse) {
  PriceInputs in = Vwap(5000, 1, 4000);
  in.bid_ticks = common::PriceTicks(4000);
  in.ask_ticks = common::PriceTicks(4002);
  in.fix_e4 = 40000;
  EXPECT_EQ(ComputeSettlementPrice(in)->tier, PriceTier::kT1);
}

TEST(SettlementPriceTest, T2MidpointWithinTenTicks) {
  PriceInputs in;
  in.bid_ticks = common::PriceTicks(5240);
  in.ask_ticks = common::PriceTicks(5250);  // spread exactly 10: allowed
  EXPECT_EQ(*ComputeSettlementPrice(in), (SettlePrice{common::PriceTicks(5245), PriceTier::kT2}));
  in.ask_ticks = common::PriceTicks(5249);  // 5244.5: no prior -> even
  EXPECT_EQ(*ComputeSettlementPrice(in), (SettlePrice{common::PriceTicks(5244), PriceTier::kT2}));
  in.prior_ticks = common::PriceTicks(5300);  // toward the prior
  EXPECT_EQ(*ComputeSettlementPrice(in), (SettlePrice{common::PriceTicks(5245), PriceTier::kT2}));
}

TEST(SettlementPriceTest, T2NeedsBothSidesAndTightSpread) {
  PriceInputs in;
  in.prior_ticks = common::PriceTicks(5000);
  in.bid_ticks = common::PriceTicks(5240);
  in.ask_ticks = common::PriceTicks(5251);  // 11 ticks: too wide
  EXPECT_EQ(ComputeSettlementPrice(in)->tier, PriceTier::kT3);
  in.ask_ticks.reset();
  EXPECT_EQ(ComputeSettlementPrice(in)->tier, PriceTier::kT3);
}

TEST(SettlementPriceTest, T3PriorPlusFixChangeRoundedHalfEven) {
  PriceInputs in;
  in.prior_ticks = common::PriceTicks(5000);
  in.fix_e4 = 51234;
  in.prev_fix_e4 = 51000;  // +23.4 ticks -> 5023.4 -> 5023
  EXPECT_EQ(*ComputeSettlementPrice(in), (SettlePrice{common::PriceTicks(5023), PriceTier::kT3}));
  in.fix_e4 = 51235;  // 5023.5 -> 5024 (even)
  EXPECT_EQ(ComputeSettlementPrice(in)->ticks, common::PriceTicks(5024));
  in.fix_e4 = 51225;  // 5022.5 -> 5022 (even)
  EXPECT_EQ(ComputeSettlementPrice(in)->ticks, common::PriceTicks(5022));
  in.fix_e4 = 50875;  // -12.5 -> 4987.5 -> 4988
  EXPECT_EQ(ComputeSettlementPrice(in)->ticks, common::PriceTicks(4988));
}

TEST(SettlementPriceTest, T3UnchangedWhenEitherFixMissing) {
  PriceInputs in;
  in.prior_ticks = common::PriceTicks(5000);
  in.fix_e4 = 51234;
  EXPECT_EQ(*ComputeSettlementPrice(in), (SettlePrice{common::PriceTicks(5000), PriceTier::kT3}));
  in.fix_e4.reset();
  in.prev_fix_e4 = 51234;
  EXPECT_EQ(*ComputeSettlementPrice(in), (SettlePrice{common::PriceTicks(5000), PriceTier::kT3}));
}

TEST(SettlementPriceTest, T4FixRoundedHalfEven) {
  PriceInputs in;
  in.fix_e4 = 52345;  // 5234.5 -> 5234
  EXPECT_EQ(*ComputeSettlementPrice(in), (SettlePrice{common::PriceTicks(5234), PriceTier::kT4}));
  in.fix_e4 = 52355;  // 5235.5 -> 5236
  EXPECT_EQ(ComputeSettlementPrice(in)->ticks, common::PriceTicks(5236));
  in.fix_e4 = 52356;
  EXPECT_EQ(ComputeSettlementPrice(in)->ticks, common::PriceTicks(5236));
}

// A price from the fixes alone is held at one tick: T3 after a fix that fell by more than
// the prior, T4 from a fix under half a tick. Until 2026-12-07 they came out at 0 or below,
// the margin engine refused the day, and no later day could settle.
TEST(SettlementPriceTest, PricesFromTheFixesAreAtLeastOneTick) {
  PriceInputs in;
  in.prior_ticks = common::PriceTicks(1000);  // 1.000
  in.fix_e4 = 39000;                          // 3.9000
  in.prev_fix_e4 = 50000;                     // 5.0000: -1.100 -> -0.100
  EXPECT_EQ(*ComputeSettlementPrice(in), (SettlePrice{common::PriceTicks(1), PriceTier::kT3}));
  in.fix_e4 = 40000;  // exactly 0.000
  EXPECT_EQ(ComputeSettlementPrice(in)->ticks, common::PriceTicks(1));
  in.fix_e4 = 40020;  // 0.002: above the floor, kept
  EXPECT_EQ(ComputeSettlementPrice(in)->ticks, common::PriceTicks(2));
  PriceInputs t4;
  t4.fix_e4 = 4;  // 0.0004 -> 0.000
  EXPECT_EQ(*ComputeSettlementPrice(t4), (SettlePrice{common::PriceTicks(1), PriceTier::kT4}));
}

TEST(SettlementPriceTest, NothingMeansUnsettled) {
  PriceInputs in;
  in.prev_fix_e4 = 50000;                   // yesterday's fix alone is no price
  in.bid_ticks = common::PriceTicks(5000);  // one-sided book
  EXPECT_FALSE(ComputeSettlementPrice(in).has_value());
}

TEST(PriceTierTest, NamesRoundTrip) {
  for (PriceTier t : {PriceTier::kT1, PriceTier::kT2, PriceTier::kT3, PriceTier::kT4}) {
    EXPECT_EQ(ParsePriceTier(PriceTierName(t)), t);
  }
  EXPECT_FALSE(ParsePriceTier("T5"));
}

}  // namespace
}  // namespace cfx::settlement
