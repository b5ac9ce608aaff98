#include "cfx/audit/refusal_throttle.h"

#include <chrono>
#include <cstdint>

#include "gtest/gtest.h"

namespace cfx::audit {
namespace {

using std::chrono::milliseconds;

TEST(RefusalThrottleTest, ABurstIsWrittenThenTheRateAndTheDroppedAreCounted) {
  auto t = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  RefusalThrottle throttle(/*per_sec=*/10, /*burst=*/3, [&] { return t; });
  uint64_t suppressed = 99;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(throttle.Admit(&suppressed)) << i;
    EXPECT_EQ(suppressed, 0u);
  }
  EXPECT_FALSE(throttle.Admit(&suppressed));
  EXPECT_FALSE(throttle.Admit(&suppressed));
  t += milliseconds(99);  // not yet a whole token
  EXPECT_FALSE(throttle.Admit(&suppressed));
  t += milliseconds(2);
  ASSERT_TRUE(throttle.Admit(&suppressed));
  EXPECT_EQ(suppressed, 3u);  // the three dropped, said by the next one written
  t += milliseconds(100);
  ASSERT_TRUE(throttle.Admit(&suppressed));
  EXPECT_EQ(suppressed, 0u);
}

TEST(RefusalThrottleTest, AQuietSpellRefillsOnlyUpToTheBurst) {
  auto t = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  RefusalThrottle throttle(/*per_sec=*/10, /*burst=*/2, [&] { return t; });
  uint64_t suppressed = 0;
  t += std::chrono::hours(1);
  EXPECT_TRUE(throttle.Admit(&suppressed));
  EXPECT_TRUE(throttle.Admit(&suppressed));
  EXPECT_FALSE(throttle.Admit(&suppressed));
}

}  // namespace
}  // namespace cfx::audit
