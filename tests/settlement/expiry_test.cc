#include "cfx/settlement/expiry.h"

#include "gtest/gtest.h"

namespace cfx::settlement {
namespace {

TEST(FspTest, MeanOfFixesHalfEven) {
  // (51000 + 51010) / 2 = 51005 e4 = 5100.5 ticks -> 5100 (even).
  EXPECT_EQ(FinalSettlementPrice({51000, 51010}), common::PriceTicks(5100));
  EXPECT_EQ(FinalSettlementPrice({51010, 51020}), common::PriceTicks(5102));  // 5101.5 -> 5102
}

TEST(FspTest, TheMeanIsRoundedOnceToTheTick) {
  // 153044 / 3 = 51014.667 e4 = 5101.4667 ticks -> 5101; rounding the mean to e4 first
  // (51015) and then to the tick (5101.5, half to even) would give 5102.
  EXPECT_EQ(FinalSettlementPrice({51014, 51015, 51015}), common::PriceTicks(5101));
}

TEST(FspTest, MissingDaysAreSkipped) {
  // (51000 + 51030) / 2 = 5101.5 ticks -> 5102.
  EXPECT_EQ(FinalSettlementPrice({std::nullopt, 51000, std::nullopt, 51030}),
            common::PriceTicks(5102));
}

TEST(FspTest, NoFixNoFsp) {
  EXPECT_FALSE(FinalSettlementPrice({std::nullopt, std::nullopt}));
  EXPECT_FALSE(FinalSettlementPrice({}));
}

TEST(ExpiryTest, LastTradingDayIsLastBusinessDayOfMonth) {
  common::BusinessCalendar cal;
  auto sym = common::ParseSymbol("B200-GOLD-US-202707");  // 2027-07-31 is a Saturday
  EXPECT_EQ(common::FormatDate(LastTradingDay(*sym, cal)), "2027-07-30");
  common::BusinessCalendar holidays({*common::ParseDate("2027-07-30")});
  EXPECT_EQ(common::FormatDate(LastTradingDay(*sym, holidays)), "2027-07-29");
}

TEST(ExpiryTest, TwelveListedMonthsFromTheMonthOfTheDate) {
  auto grade = common::ParseGrade("B200-GOLD-US");
  auto listed = ListedContracts(*grade, *common::ParseDate("2027-03-15"));
  ASSERT_EQ(listed.size(), 12u);
  EXPECT_EQ(listed.front().Key(), "B200-GOLD-US-202703");
  EXPECT_EQ(listed.back().Key(), "B200-GOLD-US-202802");
}

}  // namespace
}  // namespace cfx::settlement
