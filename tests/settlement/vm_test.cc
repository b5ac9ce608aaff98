#include "cfx/settlement/vm.h"

#include <type_traits>

#include "gtest/gtest.h"

namespace cfx::settlement {
namespace {

// FinalVmMicroUsd(qty, fsp, settle) used to take three int64_t and compiled with any two
// swapped; now only the right order of units compiles.
static_assert(std::is_invocable_v<decltype(&FinalVmMicroUsd), common::Qty, common::PriceTicks,
                                  common::PriceTicks>);
static_assert(!std::is_invocable_v<decltype(&FinalVmMicroUsd), common::PriceTicks, common::Qty,
                                   common::PriceTicks>);
static_assert(!std::is_invocable_v<decltype(&FinalVmMicroUsd), common::PriceTicks,
                                   common::PriceTicks, common::Qty>);
static_assert(!std::is_invocable_v<decltype(&FinalVmMicroUsd), int64_t, int64_t, int64_t>);
static_assert(std::is_same_v<decltype(FinalVmMicroUsd(common::Qty(), common::PriceTicks(),
                                                      common::PriceTicks())),
                             common::MicroUsd>);
static_assert(!std::is_invocable_v<decltype(&VariationMarginMicroUsd), const DayActivity&,
                                   common::Qty, common::PriceTicks>);
static_assert(
    !std::is_invocable_v<decltype(&VariationMarginMicroUsd), const DayActivity&, int64_t, int64_t>);

DayActivity Prior(int64_t qty) { return DayActivity{common::Qty(qty), common::Qty(0), 0}; }

TEST(VmTest, PriorPositionEarnsTheSettlementChange) {
  // Long 10 from 5.000 to 5.020: 10 × 20 ticks × 1 USD = 200 USD.
  EXPECT_EQ(VariationMarginMicroUsd(Prior(10), common::PriceTicks(5020), common::PriceTicks(5000)),
            common::MicroUsd(200'000'000));
  EXPECT_EQ(VariationMarginMicroUsd(Prior(-10), common::PriceTicks(5020), common::PriceTicks(5000)),
            common::MicroUsd(-200'000'000));
}

TEST(VmTest, TradesAreMarkedFromTheirPrice) {
  // Bought 3 @ 5.250 and sold 1 @ 5.270, settle 5.260: 3×10 − 1×(−10) = 40 USD.
  DayActivity a{common::Qty(0), common::Qty(3 - 1), 3 * 5250 - 5270};
  EXPECT_EQ(VariationMarginMicroUsd(a, common::PriceTicks(5260), common::PriceTicks(0)),
            common::MicroUsd(40'000'000));
  EXPECT_EQ(a.EndQty(), common::Qty(2));
}

TEST(VmTest, PriorAndTradesTogether) {
  // Long 5 from 5.000; sells 5 @ 5.010; settle 5.020: 5×20 + (−5)×(10) = 50 USD.
  DayActivity a{common::Qty(5), common::Qty(-5), -5 * 5010};
  EXPECT_EQ(VariationMarginMicroUsd(a, common::PriceTicks(5020), common::PriceTicks(5000)),
            common::MicroUsd(50'000'000));
  EXPECT_EQ(a.EndQty(), common::Qty(0));
}

TEST(VmTest, PriorSettleIgnoredWithoutPriorPosition) {
  DayActivity a{common::Qty(0), common::Qty(1), 5000};
  EXPECT_EQ(VariationMarginMicroUsd(a, common::PriceTicks(5000), common::PriceTicks(123456)),
            common::MicroUsd(0));
}

TEST(VmTest, FinalVmAtExpiry) {
  EXPECT_EQ(FinalVmMicroUsd(common::Qty(4), common::PriceTicks(5105), common::PriceTicks(5100)),
            common::MicroUsd(20'000'000));
  EXPECT_EQ(FinalVmMicroUsd(common::Qty(-4), common::PriceTicks(5105), common::PriceTicks(5100)),
            common::MicroUsd(-20'000'000));
}

// The batch's form: nullopt past int64 (also a price difference past it), the value at it.
TEST(VmTest, TheTriedFormsSayWhenTheResultDoesNotFit) {
  EXPECT_EQ(TryVariationMarginMicroUsd(Prior(INT64_MAX / 2), common::PriceTicks(6000),
                                       common::PriceTicks(5000)),
            std::nullopt);
  EXPECT_EQ(TryVariationMarginMicroUsd(Prior(1), common::PriceTicks(INT64_MAX),
                                       common::PriceTicks(INT64_MIN + 1)),
            std::nullopt);
  EXPECT_EQ(TryVariationMarginMicroUsd(Prior(9'223'372'036'854), common::PriceTicks(5001),
                                       common::PriceTicks(5000)),
            common::MicroUsd(9'223'372'036'854'000'000));
  EXPECT_EQ(TryVariationMarginMicroUsd(Prior(9'223'372'036'855), common::PriceTicks(5001),
                                       common::PriceTicks(5000)),
            std::nullopt);
  EXPECT_EQ(
      TryFinalVmMicroUsd(common::Qty(1), common::PriceTicks(INT64_MAX), common::PriceTicks(-1)),
      std::nullopt);
  EXPECT_EQ(TryFinalVmMicroUsd(common::Qty(-4), common::PriceTicks(5105), common::PriceTicks(5100)),
            common::MicroUsd(-20'000'000));
}

TEST(VmDeathTest, OverflowStops) {
  EXPECT_DEATH(VariationMarginMicroUsd(Prior(INT64_MAX / 2), common::PriceTicks(6000),
                                       common::PriceTicks(5000)),
               "overflow");
  EXPECT_DEATH(FinalVmMicroUsd(common::Qty(INT64_MAX / 2), common::PriceTicks(6000),
                               common::PriceTicks(5000)),
               "overflow");
}

}  // namespace
}  // namespace cfx::settlement
