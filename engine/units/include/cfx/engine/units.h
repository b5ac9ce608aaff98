// Strong types for prices, quantities and money (STYLE.md: never a bare int64_t or a double
// where one of these is meant), shared by every module. They belong to the engine's
// module (SPEC §2: the engine depends on no other cfx module) as a header-only target of their
// own, cfx_engine_units, which the post-trade modules link too (common/units.h names them
// common::PriceTicks & co.): a price is the same type in the book and in the ledger.
// Each wraps one int64_t with no overhead; making one from a number and reading it back with
// value() are explicit at the call, and two different units never mix:
//
//   PriceTicks settle(5260), prior(5250);  // 5.260 and 5.250 USD per GPU-hour
//   Qty lots(10);
//   PriceTicks move = settle - prior;      // a difference of prices: 10 ticks
//   std::optional<MicroUsd> vm = MicroUsdOf(lots, move, MicroUsd(1'000'000));
//   // *vm == MicroUsd(100'000'000): 10 contracts × 10 ticks × 1 USD per tick and contract
//
//   MicroUsdOf(move, lots, MicroUsd(1'000'000));  // does not compile: arguments swapped
//   lots + settle;  lots * settle;  lots < move;  // do not compile: different units
//   PriceTicks p = 5260;  PriceTicks(5.26);       // do not compile: implicit / from double
//
// Arithmetic within each type: x + y, x − y, −x, +=, −=, and comparisons (a price minus a
// price is a PriceTicks too, a price move). Nothing multiplies except MicroUsdOf. Overflow of
// ± is the caller's invariant, as for int64_t; MicroUsdOf checks its product.
#ifndef CFX_ENGINE_UNITS_H_
#define CFX_ENGINE_UNITS_H_

#include <compare>
#include <concepts>
#include <cstdint>
#include <optional>
#include <ostream>

namespace cfx::engine {

namespace internal {

// The body shared by the unit types. `Derived` is the unit itself (CRTP), so the operators
// take and return that unit and two units never meet.
template <typename Derived>
class Int64Unit {
 public:
  constexpr Int64Unit() = default;
  constexpr explicit Int64Unit(int64_t value) : value_(value) {}
  // A floating-point price, quantity or amount is a bug, not a conversion.
  template <std::floating_point F>
  Int64Unit(F) = delete;

  constexpr int64_t value() const { return value_; }

  friend constexpr bool operator==(Derived a, Derived b) { return a.value_ == b.value_; }
  friend constexpr std::strong_ordering operator<=>(Derived a, Derived b) {
    return a.value_ <=> b.value_;
  }
  friend constexpr Derived operator+(Derived a, Derived b) { return Derived(a.value_ + b.value_); }
  friend constexpr Derived operator-(Derived a, Derived b) { return Derived(a.value_ - b.value_); }
  friend constexpr Derived operator-(Derived a) { return Derived(-a.value_); }
  constexpr Derived& operator+=(Derived b) {
    value_ += b.value_;
    return static_cast<Derived&>(*this);
  }
  constexpr Derived& operator-=(Derived b) {
    value_ -= b.value_;
    return static_cast<Derived&>(*this);
  }
  // The bare number, as int64_t prints it (test failure messages, logs).
  friend std::ostream& operator<<(std::ostream& os, Derived x) { return os << x.value_; }

 private:
  int64_t value_ = 0;
};

}  // namespace internal

// A price in ticks of 0.001 USD per GPU-hour, or a difference of two prices.
class PriceTicks : public internal::Int64Unit<PriceTicks> {
 public:
  using Int64Unit::Int64Unit;
};

// A number of contracts (1,000 GPU-hours each), signed: long +, short −.
class Qty : public internal::Int64Unit<Qty> {
 public:
  using Int64Unit::Int64Unit;
};

// An amount of money in micro-USD (10^-6 USD), signed.
class MicroUsd : public internal::Int64Unit<MicroUsd> {
 public:
  using Int64Unit::Int64Unit;
};

// qty × ticks × tick_value, exact: the money of `qty` contracts over `ticks` (a price or a
// price move) when one tick on one contract is worth `tick_value`. nullopt when the result
// does not fit int64_t; whether that is a bug or a reject is the caller's to say.
constexpr std::optional<MicroUsd> MicroUsdOf(Qty qty, PriceTicks ticks, MicroUsd tick_value) {
  // |qty × ticks| < 2^126: exact in __int128; the second product is checked exactly.
  const __int128 qty_ticks = static_cast<__int128>(qty.value()) * ticks.value();
  int64_t out = 0;
  if (__builtin_mul_overflow(qty_ticks, tick_value.value(), &out)) return std::nullopt;
  return MicroUsd(out);
}

}  // namespace cfx::engine

#endif  // CFX_ENGINE_UNITS_H_
