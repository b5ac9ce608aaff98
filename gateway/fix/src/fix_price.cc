#include "fix_price.h"

#include <cstdio>

namespace cfx {
namespace gateway {
namespace internal {
namespace {

constexpr int64_t kMaxWhole = 1000000000000LL;  // keeps ticks * 1000 far from overflow

}  // namespace

PriceParse ParsePriceTicks(const std::string& text, int64_t* ticks) {
  size_t i = 0;
  int64_t whole = 0;
  size_t digits = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    whole = whole * 10 + (text[i] - '0');
    if (whole > kMaxWhole) return PriceParse::kMalformed;
    ++i;
    ++digits;
  }
  if (digits == 0) return PriceParse::kMalformed;
  int64_t frac = 0;
  bool off_tick = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    size_t places = 0;
    size_t frac_digits = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      int d = text[i] - '0';
      if (places < 3) {
        frac = frac * 10 + d;
        ++places;
      } else if (d != 0) {
        off_tick = true;
      }
      ++i;
      ++frac_digits;
    }
    if (frac_digits == 0) return PriceParse::kMalformed;
    while (places < 3) {
      frac *= 10;
      ++places;
    }
  }
  if (i != text.size()) return PriceParse::kMalformed;
  int64_t value = whole * 1000 + frac;
  if (value <= 0 && !off_tick) return PriceParse::kNotPositive;
  if (off_tick) return PriceParse::kOffTick;
  *ticks = value;
  return PriceParse::kOk;
}

bool ParseQty(const std::string& text, int64_t* qty) {
  int64_t ticks = 0;
  if (ParsePriceTicks(text, &ticks) != PriceParse::kOk) return false;
  if (ticks % 1000 != 0) return false;
  *qty = ticks / 1000;
  return *qty > 0;
}

bool ParseWholeQty(const std::string& text, int64_t* qty) {
  const bool negative = !text.empty() && text[0] == '-';
  const std::string digits = negative ? text.substr(1) : text;
  int64_t ticks = 0;
  const PriceParse p = ParsePriceTicks(digits, &ticks);
  if (p == PriceParse::kNotPositive) {
    *qty = 0;
    return true;
  }
  if (p != PriceParse::kOk || ticks % 1000 != 0) return false;
  *qty = negative ? -(ticks / 1000) : ticks / 1000;
  return true;
}

std::string FormatTicks(int64_t ticks) {
  char buf[32];
  const char* sign = ticks < 0 ? "-" : "";
  int64_t a = ticks < 0 ? -ticks : ticks;
  std::snprintf(buf, sizeof(buf), "%s%lld.%03lld", sign, static_cast<long long>(a / 1000),
                static_cast<long long>(a % 1000));
  return buf;
}

std::string FormatAvgPx(int64_t notional_ticks, int64_t cum_qty) {
  if (cum_qty <= 0) return "0";
  // micro-USD per contract-unit: ticks are 0.001, so * 1000 gives 1e-6 resolution.
  int64_t micros = notional_ticks * 1000 / cum_qty;
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%lld.%06lld", static_cast<long long>(micros / 1000000),
                static_cast<long long>(micros % 1000000));
  return buf;
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
