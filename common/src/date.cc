#include "cfx/common/date.h"

#include <cstdio>

#include "absl/strings/str_format.h"

namespace cfx::common {
namespace {

// Howard Hinnant's days_from_civil / civil_from_days.
int32_t DaysFromCivil(int y, int m, int d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int>(doe) - 719468;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

bool ReadInt(absl::string_view s, size_t pos, size_t len, int* out) {
  if (pos + len > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

Date DateFromYmd(int year, int month, int day) { return Date{DaysFromCivil(year, month, day)}; }

void YmdFromDate(Date date, int* year, int* month, int* day) {
  int z = date.days + 719468;
  const int era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int y = static_cast<int>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  *year = y + (m <= 2);
  *month = static_cast<int>(m);
  *day = static_cast<int>(d);
}

int Weekday(Date d) {
  // 1970-01-01 was a Thursday (3 with Monday = 0).
  int w = (d.days + 3) % 7;
  return w < 0 ? w + 7 : w;
}

absl::StatusOr<Date> ParseDate(absl::string_view s) {
  int y, m, d;
  if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !ReadInt(s, 0, 4, &y) ||
      !ReadInt(s, 5, 2, &m) || !ReadInt(s, 8, 2, &d) || m < 1 || m > 12 || d < 1 ||
      d > DaysInMonth(y, m)) {
    return absl::InvalidArgumentError(absl::StrFormat("not a date (YYYY-MM-DD): '%s'", s));
  }
  return DateFromYmd(y, m, d);
}

std::string FormatDate(Date d) {
  int y, m, day;
  YmdFromDate(d, &y, &m, &day);
  return absl::StrFormat("%04d-%02d-%02d", y, m, day);
}

absl::StatusOr<TimestampUs> ParseTimestamp(absl::string_view s) {
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrFormat("not an ISO 8601 UTC time (YYYY-MM-DDTHH:MM:SSZ): '%s'", s));
  };
  if (s.size() < 20) return bad();
  auto date = ParseDate(s.substr(0, 10));
  if (!date.ok()) return bad();
  int hh, mm, ss;
  if ((s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' || !ReadInt(s, 11, 2, &hh) ||
      !ReadInt(s, 14, 2, &mm) || !ReadInt(s, 17, 2, &ss) || hh > 23 || mm > 59 || ss > 59) {
    return bad();
  }
  size_t pos = 19;
  int64_t micros = 0;
  bool finer = false;  // a non-zero digit past the microsecond
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 6) micros = micros * 10 + (s[pos] - '0');
      else
        finer |= s[pos] != '0';
      ++digits;
      ++pos;
    }
    if (digits == 0) return bad();
    for (int i = digits; i < 6; ++i) micros *= 10;
  }
  absl::string_view zone = s.substr(pos);
  if (zone != "Z" && zone != "+00:00") return bad();
  // A time finer than the microsecond is rounded up, not cut. For a whole-microsecond bound
  // b, t > b holds exactly when it holds for the rounded-up t, so an observation keeps its
  // place in the fix windows (D-1 16:00Z, D 16:00Z] (SPEC §8): 16:00:00.0000001 stays after
  // a 16:00:00 close. A GTD's ExpireTime e is met by a whole-microsecond clock t >= e exactly
  // when t >= e rounded up. (A bound met by t < b, as a window [a, b) would be, is not kept
  // so: b - 0.5 µs rounds up to b. No input time is compared that way.)
  return date->days * kUsPerDay + (hh * 3600LL + mm * 60LL + ss) * 1'000'000LL + micros +
         (finer ? 1 : 0);
}

std::string FormatTimestamp(TimestampUs ts) {
  int64_t days = ts >= 0 ? ts / kUsPerDay : -((-ts + kUsPerDay - 1) / kUsPerDay);
  int64_t rem = ts - days * kUsPerDay;
  int64_t secs = rem / 1'000'000;
  int64_t micros = rem % 1'000'000;
  std::string out = FormatDate(Date{static_cast<int32_t>(days)});
  absl::StrAppendFormat(&out, "T%02d:%02d:%02d", secs / 3600, secs / 60 % 60, secs % 60);
  if (micros) absl::StrAppendFormat(&out, ".%06d", micros);
  out += 'Z';
  return out;
}

TimestampUs AtHour(Date d, int hour) { return d.days * kUsPerDay + hour * kUsPerHour; }

BusinessCalendar::BusinessCalendar(std::vector<Date> holidays)
    : holidays_(holidays.begin(), holidays.end()) {}

bool BusinessCalendar::IsBusinessDay(Date d) const {
  return Weekday(d) < 5 && !holidays_.contains(d);
}

Date BusinessCalendar::PreviousBusinessDay(Date d) const {
  do {
    --d.days;
  } while (!IsBusinessDay(d));
  return d;
}

Date BusinessCalendar::NextBusinessDay(Date d) const {
  do {
    ++d.days;
  } while (!IsBusinessDay(d));
  return d;
}

Date BusinessCalendar::TradingDayOf(TimestampUs ts) const {
  const int64_t days = ts >= 0 ? ts / kUsPerDay : -((-ts - 1) / kUsPerDay) - 1;  // floor
  const Date d{static_cast<int32_t>(days)};
  if (IsBusinessDay(d) && ts < AtHour(d, 16)) return d;
  return NextBusinessDay(d);
}

Date BusinessCalendar::LastBusinessDayOfMonth(int year, int month) const {
  Date d = DateFromYmd(year, month, DaysInMonth(year, month));
  while (!IsBusinessDay(d)) --d.days;
  return d;
}

std::vector<Date> BusinessCalendar::BusinessDays(Date from, Date to) const {
  std::vector<Date> out;
  for (Date d = from; d <= to; ++d.days) {
    if (IsBusinessDay(d)) out.push_back(d);
  }
  return out;
}

}  // namespace cfx::common
