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
concept Addable = requires(A a, B b) {
  a + b;
};
template <typename A, typename B>
concept Subtractable = requires(A a, B b) {
  a - b;
};
template <typename A, typename B>
concept Multipliable = requires(A a, B b) {
  a* b;
};
template <typename A, typename B>
concept Comparable = requires(A a, B b) {
  a < b;
};
template <typename A, typename B>
concept EqualityComparable = requires(A a, B b) {
  a == b;
};

template <typename T>
constexpr bool kIsPlainInt64 = sizeof(T) == sizeof(int64_t) && alignof(T) == alignof(int64_t) &&
                               std::is_trivially_copyable_v<T>&& std::is_standard_layout_v<T>;
static_assert(kIsPlainInt64<common::PriceTicks> && kIsPlainInt64<common::Qty> &&
              kIsPlainInt64<common::MicroUsd>);

// Explicit in, explicit out: no implicit conversion from or to int64_t, none from a double.
static_assert(std::is_constructible_v<common::PriceTicks, int64_t>);
static_assert(!std::is_convertible_v<int64_t, common::PriceTicks>);
static_assert(!std::is_convertible_v<int64_t, common::Qty>);
static_assert(!std::is_convertible_v<int64_t, common::MicroUsd>);
static_assert(!std::is_convertible_v<common::PriceTicks, int64_t>);
static_assert(!std::is_convertible_v<common::Qty, int64_t>);
static_assert(!std::is_convertible_v<common::MicroUsd, int64_t>);
static_assert(!std::is_constructible_v<common::PriceTicks, double>);
static_assert(!std::is_constructible_v<common::Qty, float>);
static_assert(!std::is_constructible_v<common::MicroUsd, double>);

// Units never turn into one another.
static_assert(!std::is_constructible_v<common::PriceTicks, common::Qty>);
static_assert(!std::is_constructible_v<common::Qty, common::PriceTicks>);
static_assert(!std::is_constructible_v<common::MicroUsd, common::PriceTicks>);
static_assert(!std::is_constructible_v<common::MicroUsd, common::Qty>);
static_assert(!std::is_convertible_v<common::Qty, common::PriceTicks>);

// Only the arithmetic that makes sense.
static_assert(Addable<common::Qty, common::Qty> && Subtractable<common::Qty, common::Qty>);
static_assert(Addable<common::MicroUsd, common::MicroUsd> &&
              Subtractable<common::MicroUsd, common::MicroUsd>);
static_assert(Subtractable<common::PriceTicks, common::PriceTicks>);
static_assert(
    std::is_same_v<decltype(common::PriceTicks(2) - common::PriceTicks(1)), common::PriceTicks>);
static_assert(!Addable<common::Qty, common::PriceTicks> &&
              !Addable<common::MicroUsd, common::Qty> && !Addable<common::Qty, int64_t>);
static_assert(!Subtractable<common::MicroUsd, common::PriceTicks> &&
              !Subtractable<common::PriceTicks, int64_t>);
static_assert(!Multipliable<common::Qty, common::PriceTicks> &&
              !Multipliable<common::PriceTicks, common::Qty>);
static_assert(!Multipliable<common::Qty, int64_t> && !Multipliable<common::MicroUsd, int64_t>);
static_assert(!Multipliable<common::Qty, common::Qty> &&
              !Multipliable<common::MicroUsd, common::MicroUsd>);
static_assert(!Comparable<common::Qty, common::PriceTicks> && !Comparable<common::Qty, int64_t>);
static_assert(!EqualityComparable<common::MicroUsd, common::PriceTicks> &&
              !EqualityComparable<common::MicroUsd, int64_t>);

// Qty × PriceTicks × tick value only through MicroUsdOf, and only in that order.
static_assert(std::is_invocable_v<decltype(&common::MicroUsdOf), common::Qty, common::PriceTicks,
                                  common::MicroUsd>);
static_assert(!std::is_invocable_v<decltype(&common::MicroUsdOf), common::PriceTicks, common::Qty,
                                   common::MicroUsd>);
static_assert(!std::is_invocable_v<decltype(&common::MicroUsdOf), common::Qty, common::MicroUsd,
                                   common::PriceTicks>);
static_assert(!std::is_invocable_v<decltype(&common::MicroUsdOf), int64_t, int64_t, int64_t>);

// Everything is constexpr.
static_assert(common::PriceTicks(5260) - common::PriceTicks(5250) == common::PriceTicks(10));
static_assert(-common::Qty(3) + common::Qty(5) == common::Qty(2));
static_assert(common::MicroUsdOf(common::Qty(10), common::PriceTicks(10),
                                 common::MicroUsd(1'000'000)) == common::MicroUsd(100'000'000));
static_assert(common::PriceTicks() == common::PriceTicks(0) && common::Qty() == common::Qty(0) &&
              common::MicroUsd() == common::MicroUsd(0));

TEST(UnitsTest, ArithmeticStaysInTheUnit) {
  common::Qty q(5);
  q += common::Qty(3);
  q -= common::Qty(10);
  EXPECT_EQ(q, common::Qty(-2));
  EXPECT_EQ(-q, common::Qty(2));
  common::MicroUsd m(1'000'000);
  m -= common::MicroUsd(250'000);
  EXPECT_EQ(m + common::MicroUsd(1), common::MicroUsd(750'001));
  EXPECT_EQ(m.value(), 750'000);
  EXPECT_EQ(common::PriceTicks(5100) - common::PriceTicks(5105), common::PriceTicks(-5));
}

TEST(UnitsTest, ComparisonsOrderByValue) {
  EXPECT_LT(common::PriceTicks(-1), common::PriceTicks(0));
  EXPECT_GT(common::Qty(2), common::Qty(1));
  EXPECT_LE(common::MicroUsd(3), common::MicroUsd(3));
  EXPECT_NE(common::Qty(1), common::Qty(-1));
  EXPECT_EQ(std::max(common::Qty(4), common::Qty(-7)), common::Qty(4));
}

TEST(UnitsTest, MicroUsdOfMultipliesExactlyWithSigns) {
  const common::MicroUsd tick(1'000'000);
  EXPECT_EQ(common::MicroUsdOf(common::Qty(4), common::PriceTicks(5), tick),
            common::MicroUsd(20'000'000));
  EXPECT_EQ(common::MicroUsdOf(common::Qty(-4), common::PriceTicks(5), tick),
            common::MicroUsd(-20'000'000));
  EXPECT_EQ(common::MicroUsdOf(common::Qty(-4), common::PriceTicks(-5), tick),
            common::MicroUsd(20'000'000));
  EXPECT_EQ(common::MicroUsdOf(common::Qty(0), common::PriceTicks(INT64_MAX), tick),
            common::MicroUsd(0));
}

TEST(UnitsTest, MicroUsdOfReportsOverflow) {
  const common::MicroUsd tick(1'000'000);
  EXPECT_FALSE(
      common::MicroUsdOf(common::Qty(INT64_MAX), common::PriceTicks(2), common::MicroUsd(1))
          .has_value());
  EXPECT_FALSE(
      common::MicroUsdOf(common::Qty(INT64_MAX / 2), common::PriceTicks(1000), tick).has_value());
  // Exactly at the edges still fits; one more does not.
  EXPECT_EQ(common::MicroUsdOf(common::Qty(INT64_MAX), common::PriceTicks(1), common::MicroUsd(1)),
            common::MicroUsd(INT64_MAX));
  EXPECT_EQ(common::MicroUsdOf(common::Qty(INT64_MIN), common::PriceTicks(1), common::MicroUsd(1)),
            common::MicroUsd(INT64_MIN));
  EXPECT_FALSE(
      common::MicroUsdOf(common::Qty(INT64_MIN), common::PriceTicks(-1), common::MicroUsd(1))
          .has_value());
  // The intermediate qty × ticks may exceed int64_t when the result fits.
  EXPECT_EQ(common::MicroUsdOf(common::Qty(INT64_MAX), common::PriceTicks(INT64_MAX),
                               common::MicroUsd(0)),
            common::MicroUsd(0));
}

TEST(UnitsTest, PrintsAsTheBareNumber) {
  std::ostringstream out;
  out << common::PriceTicks(5250) << " " << common::Qty(-3) << " " << common::MicroUsd(1'234'567);
  EXPECT_EQ(out.str(), "5250 -3 1234567");
}

}  // namespace
}  // namespace cfx
