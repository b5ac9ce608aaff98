#include "cfx/common/date.h"

#include "gtest/gtest.h"

namespace cfx {
namespace {

TEST(DateTest, RoundTripsAndWeekdays) {
  common::Date d = *common::ParseDate("2027-03-01");
  EXPECT_EQ(common::FormatDate(d), "2027-03-01");
  EXPECT_EQ(common::Weekday(d), 0);  // a Monday
  EXPECT_EQ(common::Weekday(*common::ParseDate("1970-01-01")), 3);
  EXPECT_FALSE(common::ParseDate("2027-02-29").ok());
  EXPECT_TRUE(common::ParseDate("2028-02-29").ok());
  EXPECT_FALSE(common::ParseDate("2027-3-01").ok());
}

TEST(DateTest, ParsesUtcTimestamps) {
  auto ts = common::ParseTimestamp("2027-03-01T16:00:00Z");
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ(*ts, common::AtHour(*common::ParseDate("2027-03-01"), 16));
  EXPECT_EQ(common::FormatTimestamp(*ts), "2027-03-01T16:00:00Z");
  EXPECT_EQ(*common::ParseTimestamp("2027-03-01T16:00:00.5Z") - *ts, 500000);
  // Finer than the microsecond: rounded up, so a time after a whole-microsecond bound (the
  // 16:00Z end of a fix window) stays after it; zeros past the sixth digit change nothing.
  EXPECT_EQ(*common::ParseTimestamp("2027-03-01T16:00:00.0000001Z") - *ts, 1);
  EXPECT_EQ(*common::ParseTimestamp("2027-03-01T16:00:00.000000000Z") - *ts, 0);
  EXPECT_EQ(*common::ParseTimestamp("2027-03-01T16:00:00.123456001Z") - *ts, 123457);
  EXPECT_EQ(*common::ParseTimestamp("2027-03-01T15:59:59.9999999Z"), *ts);
  EXPECT_TRUE(common::ParseTimestamp("2027-03-01T16:00:00+00:00").ok());
  EXPECT_FALSE(common::ParseTimestamp("2027-03-01T16:00:00").ok());
  EXPECT_FALSE(common::ParseTimestamp("2027-03-01T24:00:00Z").ok());
  EXPECT_FALSE(common::ParseTimestamp("2027-03-01T16:00:00+01:00").ok());
}

TEST(BusinessCalendarTest, SkipsWeekendsAndHolidays) {
  common::BusinessCalendar cal({*common::ParseDate("2027-03-31")});
  EXPECT_EQ(common::FormatDate(cal.LastBusinessDayOfMonth(2027, 3)), "2027-03-30");
  EXPECT_EQ(common::FormatDate(cal.PreviousBusinessDay(*common::ParseDate("2027-03-01"))),
            "2027-02-26");
  EXPECT_EQ(common::FormatDate(cal.NextBusinessDay(*common::ParseDate("2027-03-05"))),
            "2027-03-08");
  EXPECT_EQ(
      cal.BusinessDays(*common::ParseDate("2027-03-01"), *common::ParseDate("2027-03-31")).size(),
      22u);
}

// SPEC §9: trading day D is [previous business day 16:00Z, D 16:00Z).
TEST(BusinessCalendarTest, ATimeBelongsToTheTradingDayWhoseCloseComesNext) {
  common::BusinessCalendar cal({*common::ParseDate("2027-04-02")});  // a Friday off
  auto day = [&](const char* ts) {
    return common::FormatDate(cal.TradingDayOf(*common::ParseTimestamp(ts)));
  };
  EXPECT_EQ(day("2027-03-31T00:00:00Z"), "2027-03-31");
  EXPECT_EQ(day("2027-03-31T15:59:59.999999Z"), "2027-03-31");
  EXPECT_EQ(day("2027-03-31T16:00:00Z"), "2027-04-01");  // at the close: the next day's
  EXPECT_EQ(day("2027-04-01T16:00:01Z"), "2027-04-05");  // past Friday off and the weekend
  EXPECT_EQ(day("2027-04-02T10:00:00Z"), "2027-04-05");  // on a holiday
  EXPECT_EQ(day("2027-04-03T12:00:00Z"), "2027-04-05");  // on a Saturday
  EXPECT_EQ(day("1969-12-31T12:00:00Z"), "1969-12-31");  // before the epoch: floored
}

}  // namespace
}  // namespace cfx
