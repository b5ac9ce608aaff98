#include "cfx/engine/price.h"

#include <cstdint>

namespace cfx::engine {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Parses exactly `n` digits at s[pos...] into *out.
bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!IsDigit(s[pos + i])) return false;
    v = v * 10 + (s[pos + i] - '0');
  }
  *out = v;
  return true;
}

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  // Howard Hinnant's days_from_civil.
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

ParsedPrice ParsePrice(std::string_view s) {
  ParsedPrice r;
  size_t i = 0;
  __int128 units = 0;  // thousandths
  constexpr __int128 kMax = static_cast<__int128>(INT64_MAX);
  if (s.empty() || !IsDigit(s[0])) return r;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    units = units * 10 + (s[i] - '0');
    if (units > kMax) return r;
  }
  units *= 1000;
  r.on_tick = true;
  if (i < s.size()) {
    if (s[i] != '.' || i + 1 == s.size()) return ParsedPrice{};
    ++i;
    int frac_digits = 0;
    for (; i < s.size(); ++i, ++frac_digits) {
      if (!IsDigit(s[i])) return ParsedPrice{};
      int d = s[i] - '0';
      if (frac_digits < kTickDecimals) {
        static constexpr int kScale[3] = {100, 10, 1};
        units += d * kScale[frac_digits];
      } else if (d != 0) {
        r.on_tick = false;
      }
    }
  }
  if (units > kMax) return ParsedPrice{};
  // A value > 0 below one tick (0.0004) is positive and off tick.
  bool positive = units > 0 || !r.on_tick;
  if (!positive) return ParsedPrice{};
  r.ok = true;
  r.ticks = PriceTicks(static_cast<int64_t>(units));
  return r;
}

std::string FormatPrice(PriceTicks price) {
  const int64_t ticks = price.value();
  bool neg = ticks < 0;
  uint64_t v = neg ? 0 - static_cast<uint64_t>(ticks) : static_cast<uint64_t>(ticks);
  std::string frac = std::to_string(v % 1000);
  while (frac.size() < 3) frac.insert(frac.begin(), '0');
  return (neg ? "-" : "") + std::to_string(v / 1000) + "." + frac;
}

bool ParseTimestamp(std::string_view s, Timestamp* out) {
  int y, mo, d, h, mi, se;
  if (s.size() < 20 || !Digits(s, 0, 4, &y) || s[4] != '-' || !Digits(s, 5, 2, &mo) ||
      s[7] != '-' || !Digits(s, 8, 2, &d) || s[10] != 'T' || !Digits(s, 11, 2, &h) ||
      s[13] != ':' || !Digits(s, 14, 2, &mi) || s[16] != ':' || !Digits(s, 17, 2, &se)) {
    return false;
  }
  static constexpr int kDaysIn[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 60) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d > kDaysIn[mo - 1] + (mo == 2 && leap ? 1 : 0)) return false;  // 2027-02-31: no date
  size_t i = 19;
  int64_t nanos = 0;
  if (s[i] == '.') {
    ++i;
    int64_t scale = 100000000;
    size_t start = i;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      nanos += (s[i] - '0') * scale;
      scale /= 10;
    }
    if (i == start) return false;
  }
  if (i + 1 != s.size() || s[i] != 'Z') return false;
  int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  // Nanoseconds since 1970 fit int64 for 1677-09-21 .. 2262-04-11. Beyond, a time is held at
  // the end of the range ("9999-12-31T23:59:59Z", a gtd that never expires, stays after
  // every time input; it used to wrap to a date before 1970), never at kNoTime.
  const __int128 ns = ((static_cast<__int128>(days) * 24 + h) * 60 + mi) * 60 * 1000000000 +
                      static_cast<__int128>(se) * 1000000000 + nanos;
  if (ns > INT64_MAX) {
    *out = INT64_MAX;
  } else if (ns <= kNoTime) {
    *out = kNoTime + 1;
  } else {
    *out = static_cast<int64_t>(ns);
  }
  return true;
}

}  // namespace cfx::engine
