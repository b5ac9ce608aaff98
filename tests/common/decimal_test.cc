#include "cfx/common/decimal.h"

#include "gtest/gtest.h"

namespace cfx {
namespace {

TEST(DecimalTest, ParsesAtScale) {
  EXPECT_EQ(*common::ParseScaled("5.25", 3), 5250);
  EXPECT_EQ(*common::ParseScaled("5", 3), 5000);
  EXPECT_EQ(*common::ParseScaled("0.001", 3), 1);
  EXPECT_EQ(*common::ParseScaled("5.2500", 3), 5250);  // trailing zeros past the scale are exact
  EXPECT_EQ(*common::ParseScaled("-1.5", 2, true), -150);
}

TEST(DecimalTest, RejectsMalformedOrInexact) {
  for (const char* bad : {"", ".", "5.", ".5", "5..1", "a", "5.2a", "-1", "1e3", " 5", "5.0001"}) {
    EXPECT_FALSE(common::ParseScaled(bad, 3).ok()) << bad;
  }
  EXPECT_FALSE(common::ParseScaled("99999999999999999999", 0).ok());
}

// θ as every output shows it (reference records, HTTP, margin): 7 decimals at most, no
// trailing zeros. absl::StrCat(double) kept 6 significant digits ("12345.7").
TEST(DecimalTest, MeasuresKeepSevenDecimalsWithoutTrailingZeros) {
  EXPECT_EQ(common::FormatMeasure(12345.67), "12345.67");
  EXPECT_EQ(common::FormatMeasure(1000.0), "1000");
  EXPECT_EQ(common::FormatMeasure(1234.5), "1234.5");
  EXPECT_EQ(common::FormatMeasure(0.123456789), "0.1234568");
  EXPECT_EQ(common::FormatMeasure(-0.0), "0");
  EXPECT_EQ(common::FormatMeasure(987654321.25), "987654321.25");
}

TEST(DecimalTest, FormatsWithExactDecimals) {
  EXPECT_EQ(common::FormatScaled(5250, 3), "5.250");
  EXPECT_EQ(common::FormatScaled(-5, 2), "-0.05");
  EXPECT_EQ(common::FormatScaled(0, 4), "0.0000");
  EXPECT_EQ(common::FormatScaled(12, 0), "12");
}

TEST(DecimalTest, DivRoundsHalfToEven) {
  EXPECT_EQ(common::DivRoundHalfEven(5, 2), 2);
  EXPECT_EQ(common::DivRoundHalfEven(7, 2), 4);
  EXPECT_EQ(common::DivRoundHalfEven(-5, 2), -2);
  EXPECT_EQ(common::DivRoundHalfEven(-7, 2), -4);
  EXPECT_EQ(common::DivRoundHalfEven(10, 3), 3);
  EXPECT_EQ(common::DivRoundHalfEven(-11, 3), -4);
  EXPECT_EQ(common::RoundHalfEven(2.5), 2);
  EXPECT_EQ(common::RoundHalfEven(-3.5), -4);
}

}  // namespace
}  // namespace cfx
