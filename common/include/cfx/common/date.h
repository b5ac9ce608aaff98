// Calendar dates, UTC timestamps and the exchange's business calendar.
//
//   absl::StatusOr<Date> d = ParseDate("2027-03-01");
//   BusinessCalendar cal({*ParseDate("2027-12-25")});
//   Date last = cal.LastBusinessDayOfMonth(2027, 3);
#ifndef CFX_COMMON_DATE_H_
#define CFX_COMMON_DATE_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cfx::common {

// A civil date, stored as days since 1970-01-01.
struct Date {
  int32_t days = 0;
  friend auto operator<=>(const Date&, const Date&) = default;
};

Date DateFromYmd(int year, int month, int day);
void YmdFromDate(Date d, int* year, int* month, int* day);
// Monday = 0 ... Sunday = 6.
int Weekday(Date d);
// Parses strict "YYYY-MM-DD". InvalidArgument otherwise (including 2027-02-30).
absl::StatusOr<Date> ParseDate(absl::string_view text);
std::string FormatDate(Date d);

// UTC timestamps are microseconds since the epoch.
using TimestampUs = int64_t;
constexpr int64_t kUsPerDay = 86'400'000'000;
constexpr int64_t kUsPerHour = 3'600'000'000;
constexpr int64_t kUsPerMinute = 60'000'000;
// Parses ISO 8601 UTC: "YYYY-MM-DDTHH:MM:SS[.ffffff]Z" (also "+00:00"). InvalidArgument
// otherwise.
absl::StatusOr<TimestampUs> ParseTimestamp(absl::string_view text);
std::string FormatTimestamp(TimestampUs ts);
// Midnight UTC of `d` plus `hour` hours.
TimestampUs AtHour(Date d, int hour);

// Business days are Monday to Friday minus a holiday list.
// Thread safety: immutable after construction.
class BusinessCalendar {
 public:
  BusinessCalendar() = default;
  explicit BusinessCalendar(std::vector<Date> holidays);

  bool IsBusinessDay(Date d) const;
  Date PreviousBusinessDay(Date d) const;  // strictly before d
  Date NextBusinessDay(Date d) const;      // strictly after d
  // The trading day `ts` falls in (SPEC §9: trading day D is [previous business day 16:00Z,
  // D 16:00Z)): its own date when that is a business day and `ts` is before its 16:00Z
  // close, else the next business day.
  Date TradingDayOf(TimestampUs ts) const;
  Date LastBusinessDayOfMonth(int year, int month) const;
  // Business days in [from, to], in order.
  std::vector<Date> BusinessDays(Date from, Date to) const;

 private:
  std::set<Date> holidays_;
};

}  // namespace cfx::common

#endif  // CFX_COMMON_DATE_H_
