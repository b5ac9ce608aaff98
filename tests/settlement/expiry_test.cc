#include "cfx/settlement/expiry.h"

#include "gtest/gtest.h"

namespace cfx::settlement {
namespace {

TEST(FspTest, MeanOfFixesHalfEven) {
  // (51000 + 51010) / 2 = 51005 e4 = 5100.5 ticks -> 5100 (even).
  EXPECT_EQ(FinalSettlementPrice({51000, 51010}), PriceTicks(5100));
  EXPECT_EQ(FinalSettlementPrice({51010, 51020}), PriceTicks(5102));  // 5101.5 -> 5102
}

TEST(FspTest, MissingDaysAreSkipped) {
  // (51000 + 51030) / 2 = 5101.5 ticks -> 5102.
  EXPECT_EQ(FinalSettlementPrice({std::nullopt, 51000, std::nullopt, 51030}), PriceTicks(5102));
}

TEST(FspTest, NoFixNoFsp) {
  EXPECT_FALSE(FinalSettlementPrice({std::nullopt, std::nullopt}));
  EXPECT_FALSE(FinalSettlementPrice({}));
}

TEST(ExpiryTest, LastTradingDayIsLastBusinessDayOfMonth) {
  BusinessCalendar cal;
  auto sym = ParseSymbol("B200-GOLD-US-202707");  // 2027-07-31 is a Saturday
  EXPECT_EQ(FormatDate(LastTradingDay(*sym, cal)), "2027-07-30");
  BusinessCalendar holidays({*ParseDate("2027-07-30")});
  EXPECT_EQ(FormatDate(LastTradingDay(*sym, holidays)), "2027-07-29");
}

TEST(ExpiryTest, TwelveListedMonthsFromTheMonthOfTheDate) {
  auto grade = ParseGrade("B200-GOLD-US");
  auto listed = ListedContracts(*grade, *ParseDate("2027-03-15"));
  ASSERT_EQ(listed.size(), 12u);
  EXPECT_EQ(listed.front().Key(), "B200-GOLD-US-202703");
  EXPECT_EQ(listed.back().Key(), "B200-GOLD-US-202802");
}

}  // namespace
}  // namespace cfx::settlement
