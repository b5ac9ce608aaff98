#include "cfx/settlement/vm.h"

#include "gtest/gtest.h"

namespace cfx::settlement {
namespace {

TEST(VmTest, PriorPositionEarnsTheSettlementChange) {
  // Long 10 from 5.000 to 5.020: 10 × 20 ticks × 1 USD = 200 USD.
  EXPECT_EQ(VariationMarginMicroUsd(DayActivity{10, 0, 0}, 5020, 5000), 200'000'000);
  EXPECT_EQ(VariationMarginMicroUsd(DayActivity{-10, 0, 0}, 5020, 5000), -200'000'000);
}

TEST(VmTest, TradesAreMarkedFromTheirPrice) {
  // Bought 3 @ 5.250 and sold 1 @ 5.270, settle 5.260: 3×10 − 1×(−10) = 40 USD.
  DayActivity a{0, 3 - 1, 3 * 5250 - 5270};
  EXPECT_EQ(VariationMarginMicroUsd(a, 5260, 0), 40'000'000);
  EXPECT_EQ(a.EndQty(), 2);
}

TEST(VmTest, PriorAndTradesTogether) {
  // Long 5 from 5.000; sells 5 @ 5.010; settle 5.020: 5×20 + (−5)×(10) = 50 USD.
  DayActivity a{5, -5, -5 * 5010};
  EXPECT_EQ(VariationMarginMicroUsd(a, 5020, 5000), 50'000'000);
  EXPECT_EQ(a.EndQty(), 0);
}

TEST(VmTest, PriorSettleIgnoredWithoutPriorPosition) {
  EXPECT_EQ(VariationMarginMicroUsd(DayActivity{0, 1, 5000}, 5000, 123456), 0);
}

TEST(VmTest, FinalVmAtExpiry) {
  EXPECT_EQ(FinalVmMicroUsd(4, 5105, 5100), 20'000'000);
  EXPECT_EQ(FinalVmMicroUsd(-4, 5105, 5100), -20'000'000);
}

TEST(VmDeathTest, OverflowStops) {
  EXPECT_DEATH(VariationMarginMicroUsd(DayActivity{INT64_MAX / 2, 0, 0}, 6000, 5000), "overflow");
}

}  // namespace
}  // namespace cfx::settlement
