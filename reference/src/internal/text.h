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

}  // namespace cfx::reference::internal

#endif  // CFX_REFERENCE_INTERNAL_TEXT_H_
