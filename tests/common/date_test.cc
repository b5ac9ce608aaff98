#include "cfx/common/date.h"

#include "gtest/gtest.h"

namespace cfx {
namespace {

TEST(DateTest, RoundTripsAndWeekdays) {
  Date d = *ParseDate("2027-03-01");
  EXPECT_EQ(FormatDate(d), "2027-03-01");
  EXPECT_EQ(Weekday(d), 0);  // a Monday
  EXPECT_EQ(Weekday(*ParseDate("1970-01-01")), 3);
  EXPECT_FALSE(ParseDate("2027-02-29").ok());
  EXPECT_TRUE(ParseDate("2028-02-29").ok());
  EXPECT_FALSE(ParseDate("2027-3-01").ok());
}

TEST(DateTest, ParsesUtcTimestamps) {
  auto ts = ParseTimestamp("2027-03-01T16:00:00Z");
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ(*ts, AtHour(*ParseDate("2027-03-01"), 16));
  EXPECT_EQ(FormatTimestamp(*ts), "2027-03-01T16:00:00Z");
  EXPECT_EQ(*ParseTimestamp("2027-03-01T16:00:00.5Z") - *ts, 500000);
  EXPECT_TRUE(ParseTimestamp("2027-03-01T16:00:00+00:00").ok());
  EXPECT_FALSE(ParseTimestamp("2027-03-01T16:00:00").ok());
  EXPECT_FALSE(ParseTimestamp("2027-03-01T24:00:00Z").ok());
  EXPECT_FALSE(ParseTimestamp("2027-03-01T16:00:00+01:00").ok());
}

TEST(BusinessCalendarTest, SkipsWeekendsAndHolidays) {
  BusinessCalendar cal({*ParseDate("2027-03-31")});
  EXPECT_EQ(FormatDate(cal.LastBusinessDayOfMonth(2027, 3)), "2027-03-30");
  EXPECT_EQ(FormatDate(cal.PreviousBusinessDay(*ParseDate("2027-03-01"))), "2027-02-26");
  EXPECT_EQ(FormatDate(cal.NextBusinessDay(*ParseDate("2027-03-05"))), "2027-03-08");
  EXPECT_EQ(cal.BusinessDays(*ParseDate("2027-03-01"), *ParseDate("2027-03-31")).size(), 22u);
}

}  // namespace
}  // namespace cfx
