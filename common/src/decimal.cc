#include "cfx/common/decimal.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace cfx::common {

absl::StatusOr<int64_t> ParseScaled(absl::string_view text, int scale, bool allow_negative) {
  absl::string_view s = text;
  bool negative = false;
  if (!s.empty() && s[0] == '-' && allow_negative) {
    negative = true;
    s.remove_prefix(1);
  }
  if (s.empty()) return absl::InvalidArgumentError(absl::StrCat("not a decimal: '", text, "'"));
  __int128 value = 0;
  int decimals = -1;  // -1: before the point
  bool any_digit = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (decimals >= 0 || !any_digit || i + 1 == s.size()) {
        return absl::InvalidArgumentError(absl::StrCat("not a decimal: '", text, "'"));
      }
      decimals = 0;
      continue;
    }
    if (c < '0' || c > '9') {
      return absl::InvalidArgumentError(absl::StrCat("not a decimal: '", text, "'"));
    }
    any_digit = true;
    if (decimals >= 0) {
      if (decimals >= scale) {
        if (c != '0') {
          return absl::InvalidArgumentError(
              absl::StrCat("more than ", scale, " decimals: '", text, "'"));
        }
        continue;
      }
      ++decimals;
    }
    value = value * 10 + (c - '0');
    if (value > static_cast<__int128>(INT64_MAX)) {
      return absl::InvalidArgumentError(absl::StrCat("out of range: '", text, "'"));
    }
  }
  if (!any_digit) return absl::InvalidArgumentError(absl::StrCat("not a decimal: '", text, "'"));
  for (int d = decimals < 0 ? 0 : decimals; d < scale; ++d) {
    value *= 10;
    if (value > static_cast<__int128>(INT64_MAX)) {
      return absl::InvalidArgumentError(absl::StrCat("out of range: '", text, "'"));
    }
  }
  return negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
}

std::string FormatScaled(int64_t value, int scale) {
  bool negative = value < 0;
  unsigned __int128 v = negative ? -static_cast<__int128>(value) : value;
  unsigned __int128 pow10 = 1;
  for (int i = 0; i < scale; ++i) pow10 *= 10;
  uint64_t whole = static_cast<uint64_t>(v / pow10);
  uint64_t frac = static_cast<uint64_t>(v % pow10);
  std::string out = negative ? "-" : "";
  absl::StrAppend(&out, whole);
  if (scale > 0) {
    std::string f = absl::StrCat(frac);
    out += '.';
    out.append(scale - f.size(), '0');
    out += f;
  }
  return out;
}

int64_t DivRoundHalfEven(__int128 num, __int128 den) {
  __int128 q = num / den;
  __int128 r = num % den;
  if (r != 0) {
    // Make the remainder's magnitude comparison sign-agnostic.
    __int128 twice = 2 * (r < 0 ? -r : r);
    bool negative = (num < 0) != (den < 0);
    if (twice > den || (twice == den && (q % 2 != 0))) q += negative ? -1 : 1;
  }
  return static_cast<int64_t>(q);
}

int64_t RoundHalfEven(double x) { return static_cast<int64_t>(std::nearbyint(x)); }

std::string FormatMeasure(double v) {
  std::string s = absl::StrFormat("%.7f", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

}  // namespace cfx::common
