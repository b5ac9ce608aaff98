// Decimal price strings <-> ticks of 0.001, and ISO-8601 UTC timestamps. Exact integer math.
#ifndef CFX_ENGINE_PRICE_H_
#define CFX_ENGINE_PRICE_H_

#include <string>
#include <string_view>

#include "cfx/engine/types.h"

namespace cfx::engine {

inline constexpr int kTickDecimals = 3;  // tick = 0.001 USD

struct ParsedPrice {
  bool ok = false;        // false: not `digits[.digits]`, zero, or too large for int64 ticks
  bool on_tick = false;   // false: a non-zero digit beyond the third decimal
  PriceTicks ticks{0};    // the price truncated to whole ticks
};

// Parses `digits[.digits]` (no sign, no exponent). A value that is not > 0 is not ok.
ParsedPrice ParsePrice(std::string_view s);

// Formats ticks with exactly three decimals, e.g. 5250 -> "5.250".
std::string FormatPrice(PriceTicks ticks);

// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z`. Returns false on any other shape.
bool ParseTimestamp(std::string_view s, Timestamp* out);

}  // namespace cfx::engine

#endif  // CFX_ENGINE_PRICE_H_
