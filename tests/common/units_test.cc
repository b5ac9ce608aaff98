#include "cfx/common/units.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <type_traits>

#include "gtest/gtest.h"

namespace cfx {
namespace {

// What may and may not be written with the types, checked at compile time: a line here
// that flips means a unit mix-up now compiles.
template <typename A, typename B>
concept Addable = requires(A a, B b) { a + b; };
template <typename A, typename B>
concept Subtractable = requires(A a, B b) { a - b; };
template <typename A, typename B>
concept Multipliable = requires(A a, B b) { a * b; };
template <typename A, typename B>
concept Comparable = requires(A a, B b) { a < b; };
template <typename A, typename B>
concept EqualityComparable = requires(A a, B b) { a == b; };

template <typename T>
constexpr bool kIsPlainInt64 = sizeof(T) == sizeof(int64_t) && alignof(T) == alignof(int64_t) &&
                               std::is_trivially_copyable_v<T> &&
                               std::is_standard_layout_v<T>;
static_assert(kIsPlainInt64<PriceTicks> && kIsPlainInt64<Qty> && kIsPlainInt64<MicroUsd>);

// Explicit in, explicit out: no implicit conversion from or to int64_t, none from a double.
static_assert(std::is_constructible_v<PriceTicks, int64_t>);
static_assert(!std::is_convertible_v<int64_t, PriceTicks>);
static_assert(!std::is_convertible_v<int64_t, Qty>);
static_assert(!std::is_convertible_v<int64_t, MicroUsd>);
static_assert(!std::is_convertible_v<PriceTicks, int64_t>);
static_assert(!std::is_convertible_v<Qty, int64_t>);
static_assert(!std::is_convertible_v<MicroUsd, int64_t>);
static_assert(!std::is_constructible_v<PriceTicks, double>);
static_assert(!std::is_constructible_v<Qty, float>);
static_assert(!std::is_constructible_v<MicroUsd, double>);

// Units never turn into one another.
static_assert(!std::is_constructible_v<PriceTicks, Qty>);
static_assert(!std::is_constructible_v<Qty, PriceTicks>);
static_assert(!std::is_constructible_v<MicroUsd, PriceTicks>);
static_assert(!std::is_constructible_v<MicroUsd, Qty>);
static_assert(!std::is_convertible_v<Qty, PriceTicks>);

// Only the arithmetic that makes sense.
static_assert(Addable<Qty, Qty> && Subtractable<Qty, Qty>);
static_assert(Addable<MicroUsd, MicroUsd> && Subtractable<MicroUsd, MicroUsd>);
static_assert(Subtractable<PriceTicks, PriceTicks>);
static_assert(std::is_same_v<decltype(PriceTicks(2) - PriceTicks(1)), PriceTicks>);
static_assert(!Addable<Qty, PriceTicks> && !Addable<MicroUsd, Qty> && !Addable<Qty, int64_t>);
static_assert(!Subtractable<MicroUsd, PriceTicks> && !Subtractable<PriceTicks, int64_t>);
static_assert(!Multipliable<Qty, PriceTicks> && !Multipliable<PriceTicks, Qty>);
static_assert(!Multipliable<Qty, int64_t> && !Multipliable<MicroUsd, int64_t>);
static_assert(!Multipliable<Qty, Qty> && !Multipliable<MicroUsd, MicroUsd>);
static_assert(!Comparable<Qty, PriceTicks> && !Comparable<Qty, int64_t>);
static_assert(!EqualityComparable<MicroUsd, PriceTicks> && !EqualityComparable<MicroUsd, int64_t>);

// Qty × PriceTicks × tick value only through MicroUsdOf, and only in that order.
static_assert(std::is_invocable_v<decltype(&MicroUsdOf), Qty, PriceTicks, MicroUsd>);
static_assert(!std::is_invocable_v<decltype(&MicroUsdOf), PriceTicks, Qty, MicroUsd>);
static_assert(!std::is_invocable_v<decltype(&MicroUsdOf), Qty, MicroUsd, PriceTicks>);
static_assert(!std::is_invocable_v<decltype(&MicroUsdOf), int64_t, int64_t, int64_t>);

// Everything is constexpr.
static_assert(PriceTicks(5260) - PriceTicks(5250) == PriceTicks(10));
static_assert(-Qty(3) + Qty(5) == Qty(2));
static_assert(MicroUsdOf(Qty(10), PriceTicks(10), MicroUsd(1'000'000)) == MicroUsd(100'000'000));
static_assert(PriceTicks() == PriceTicks(0) && Qty() == Qty(0) && MicroUsd() == MicroUsd(0));

TEST(UnitsTest, ArithmeticStaysInTheUnit) {
  Qty q(5);
  q += Qty(3);
  q -= Qty(10);
  EXPECT_EQ(q, Qty(-2));
  EXPECT_EQ(-q, Qty(2));
  MicroUsd m(1'000'000);
  m -= MicroUsd(250'000);
  EXPECT_EQ(m + MicroUsd(1), MicroUsd(750'001));
  EXPECT_EQ(m.value(), 750'000);
  EXPECT_EQ(PriceTicks(5100) - PriceTicks(5105), PriceTicks(-5));
}

TEST(UnitsTest, ComparisonsOrderByValue) {
  EXPECT_LT(PriceTicks(-1), PriceTicks(0));
  EXPECT_GT(Qty(2), Qty(1));
  EXPECT_LE(MicroUsd(3), MicroUsd(3));
  EXPECT_NE(Qty(1), Qty(-1));
  EXPECT_EQ(std::max(Qty(4), Qty(-7)), Qty(4));
}

TEST(UnitsTest, MicroUsdOfMultipliesExactlyWithSigns) {
  const MicroUsd tick(1'000'000);
  EXPECT_EQ(MicroUsdOf(Qty(4), PriceTicks(5), tick), MicroUsd(20'000'000));
  EXPECT_EQ(MicroUsdOf(Qty(-4), PriceTicks(5), tick), MicroUsd(-20'000'000));
  EXPECT_EQ(MicroUsdOf(Qty(-4), PriceTicks(-5), tick), MicroUsd(20'000'000));
  EXPECT_EQ(MicroUsdOf(Qty(0), PriceTicks(INT64_MAX), tick), MicroUsd(0));
}

TEST(UnitsTest, MicroUsdOfReportsOverflow) {
  const MicroUsd tick(1'000'000);
  EXPECT_FALSE(MicroUsdOf(Qty(INT64_MAX), PriceTicks(2), MicroUsd(1)).has_value());
  EXPECT_FALSE(MicroUsdOf(Qty(INT64_MAX / 2), PriceTicks(1000), tick).has_value());
  // Exactly at the edges still fits; one more does not.
  EXPECT_EQ(MicroUsdOf(Qty(INT64_MAX), PriceTicks(1), MicroUsd(1)), MicroUsd(INT64_MAX));
  EXPECT_EQ(MicroUsdOf(Qty(INT64_MIN), PriceTicks(1), MicroUsd(1)), MicroUsd(INT64_MIN));
  EXPECT_FALSE(MicroUsdOf(Qty(INT64_MIN), PriceTicks(-1), MicroUsd(1)).has_value());
  // The intermediate qty × ticks may exceed int64_t when the result fits.
  EXPECT_EQ(MicroUsdOf(Qty(INT64_MAX), PriceTicks(INT64_MAX), MicroUsd(0)), MicroUsd(0));
}

TEST(UnitsTest, PrintsAsTheBareNumber) {
  std::ostringstream out;
  out << PriceTicks(5250) << " " << Qty(-3) << " " << MicroUsd(1'234'567);
  EXPECT_EQ(out.str(), "5250 -3 1234567");
}

}  // namespace
}  // namespace cfx
