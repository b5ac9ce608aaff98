// Exact fixed-point decimals as int64 scaled integers.
//
//   absl::StatusOr<int64_t> ticks = ParseScaled("5.250", 3);   // *ticks == 5250
//   absl::StatusOr<int64_t> neg = ParseScaled("-1.05", 3, /*allow_negative=*/true);  // -1050
//   FormatScaled(5250, 3) == "5.250"
#ifndef CFX_COMMON_DECIMAL_H_
#define CFX_COMMON_DECIMAL_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cfx::common {

// Parses `digits[.digits]` (optional leading '-' when `allow_negative`) into an integer
// scaled by 10^scale. Returns InvalidArgument if the text is malformed, has more
// significant decimals than `scale` (non-zero digits past it), or overflows.
absl::StatusOr<int64_t> ParseScaled(absl::string_view text, int scale, bool allow_negative = false);

// Formats `value` / 10^scale with exactly `scale` decimals ("-1.050").
std::string FormatScaled(int64_t value, int scale);

// A measured quantity (throughput θ, a volume) as published: at most 7 decimals, trailing
// zeros and a trailing point dropped ("1234.5", "1000", "0.1234568"). The reference records,
// the HTTP API and `cfx margin` all show θ this way.
std::string FormatMeasure(double v);

// Integer division of num by den (den > 0) rounded half to even.
int64_t DivRoundHalfEven(__int128 num, __int128 den);

// Rounds a double to the nearest integer, exact halves to even (as IEEE rint in the
// default rounding mode).
int64_t RoundHalfEven(double x);

}  // namespace cfx::common

#endif  // CFX_COMMON_DECIMAL_H_
