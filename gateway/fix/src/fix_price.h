// Decimal price text <-> int64 ticks of 0.001 USD, exactly (no double on the order path).
// C++14: used by the QuickFIX translation units.
#ifndef CFX_GATEWAY_FIX_PRICE_H_
#define CFX_GATEWAY_FIX_PRICE_H_

#include <cstdint>
#include <string>

namespace cfx {
namespace gateway {
namespace internal {

enum class PriceParse { kOk, kMalformed, kNotPositive, kOffTick };

// Parses "digits[.digits]" into ticks. Trailing zeros past the third decimal are on tick;
// any other digit there is kOffTick.
PriceParse ParsePriceTicks(const std::string& text, int64_t* ticks);

// Parses a positive integer quantity ("10", also "10.0" as QuickFIX QTY allows). False if
// malformed, fractional, not positive or absurdly large.
bool ParseQty(const std::string& text, int64_t* qty);
// Parses a whole quantity as sent, zero and negative ones included ("0", "-5"): the engine
// judges those (invalid_qty, or a replace's total of 0) in SPEC §4.2's order. False if
// malformed, fractional or absurdly large.
bool ParseWholeQty(const std::string& text, int64_t* qty);

// 5250 -> "5.250"
std::string FormatTicks(int64_t ticks);

// Average price of `cum_qty` contracts worth `notional_ticks`, 6 decimals, truncated.
std::string FormatAvgPx(int64_t notional_ticks, int64_t cum_qty);

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_PRICE_H_
