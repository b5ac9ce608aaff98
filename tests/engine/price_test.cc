#include "cfx/engine/price.h"

#include "gtest/gtest.h"

namespace cfx::engine {
namespace {

TEST(PriceTest, ParsesDecimalStringsToTicks) {
  EXPECT_EQ(ParsePrice("5.25").ticks, PriceTicks(5250));
  EXPECT_EQ(ParsePrice("5").ticks, PriceTicks(5000));
  EXPECT_EQ(ParsePrice("0.001").ticks, PriceTicks(1));
  EXPECT_TRUE(ParsePrice("5.2500000").on_tick);
  EXPECT_FALSE(ParsePrice("5.2501").on_tick);
  EXPECT_TRUE(ParsePrice("0.0001").ok);
  EXPECT_FALSE(ParsePrice("0.0001").on_tick);
}

TEST(PriceTest, RejectsMalformedOrNonPositive) {
  for (const char* s : {"", "0", "0.000", "-1", "+1", "1e3", "1.", ".5", "1.2.3", "abc",
                        "99999999999999999999999"}) {
    EXPECT_FALSE(ParsePrice(s).ok) << s;
  }
}

TEST(PriceTest, FormatsThreeDecimals) {
  EXPECT_EQ(FormatPrice(PriceTicks(5250)), "5.250");
  EXPECT_EQ(FormatPrice(PriceTicks(1)), "0.001");
  EXPECT_EQ(FormatPrice(PriceTicks(12000)), "12.000");
}

TEST(PriceTest, ParsesTimestamps) {
  Timestamp t = 0;
  ASSERT_TRUE(ParseTimestamp("1970-01-01T00:00:01Z", &t));
  EXPECT_EQ(t, 1000000000);
  ASSERT_TRUE(ParseTimestamp("2027-03-01T16:00:00.5Z", &t));
  Timestamp u = 0;
  ASSERT_TRUE(ParseTimestamp("2027-03-01T16:00:00Z", &u));
  EXPECT_EQ(t - u, 500000000);
  EXPECT_FALSE(ParseTimestamp("2027-03-01 16:00:00Z", &t));
  EXPECT_FALSE(ParseTimestamp("2027-03-01T16:00:00", &t));
}

}  // namespace
}  // namespace cfx::engine
