// Small formatting helpers private to cfx_reference.
#ifndef CFX_REFERENCE_INTERNAL_TEXT_H_
#define CFX_REFERENCE_INTERNAL_TEXT_H_

#include <cstdint>
#include <string>

#include "cfx/common/decimal.h"

namespace cfx::reference::internal {

// FormatScaled without trailing zeros (and without a dangling '.'): 5250000 at 6 -> "5.25".
inline std::string FormatTrimmed(int64_t value, int scale) {
  std::string s = common::FormatScaled(value, scale);
  if (s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// An exact non-negative or negative 128-bit fixed-point value as decimal text, trailing zeros
// trimmed: (44478 × 125, 10) -> "0.55597500" trimmed to "0.555975".
inline std::string FormatTrimmed128(__int128 value, int scale) {
  const bool negative = value < 0;
  unsigned __int128 v = negative ? -static_cast<unsigned __int128>(value) : value;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  if (static_cast<int>(digits.size()) <= scale) {
    digits.insert(0, scale + 1 - digits.size(), '0');
  }
  std::string s = digits.substr(0, digits.size() - scale);
  if (scale > 0) s += "." + digits.substr(digits.size() - scale);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return negative ? "-" + s : s;
}

}  // namespace cfx::reference::internal

#endif  // CFX_REFERENCE_INTERNAL_TEXT_H_
