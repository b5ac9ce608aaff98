// FailureBackoff: the waits after failures, their reset, and the bound on what is held.
#include "cfx/common/failure_backoff.h"

#include <string>

#include "gtest/gtest.h"

namespace cfx::common {
namespace {

constexpr int64_t kMs = 1'000'000;  // ns

class FailureBackoffTest : public ::testing::Test {
 protected:
  FailureBackoff Make(BackoffOptions o = {}) {
    return FailureBackoff(o, [this] { return now_; });
  }
  int64_t now_ = 1'000'000 * kMs;
};

TEST_F(FailureBackoffTest, WaitDoublesFromOneSecondUpToTheCap) {
  FailureBackoff b = Make();
  EXPECT_EQ(b.RemainingMs("ALPHA_T1"), 0);
  const int64_t expected[] = {1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000};
  for (int64_t wait : expected) {
    EXPECT_EQ(b.Failed("ALPHA_T1"), wait);
    EXPECT_EQ(b.RemainingMs("ALPHA_T1"), wait);
  }
  now_ += 59'999 * kMs;
  EXPECT_EQ(b.RemainingMs("ALPHA_T1"), 1);
  now_ += kMs;
  EXPECT_EQ(b.RemainingMs("ALPHA_T1"), 0);
  EXPECT_EQ(b.RemainingMs("BETA_T1"), 0);  // keys are independent
}

TEST_F(FailureBackoffTest, FreeFailuresWaitNothingThenTheWaitsDouble) {
  BackoffOptions o;
  o.free_failures = 3;
  FailureBackoff b = Make(o);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(b.Failed("10.1.2.3"), 0);
    EXPECT_EQ(b.RemainingMs("10.1.2.3"), 0);
  }
  EXPECT_EQ(b.Failed("10.1.2.3"), 1000);
  EXPECT_EQ(b.RemainingMs("10.1.2.3"), 1000);
  EXPECT_EQ(b.Failed("10.1.2.3"), 2000);
  b.Succeeded("10.1.2.3");  // a success gives the allowance back
  EXPECT_EQ(b.Failed("10.1.2.3"), 0);
}

TEST_F(FailureBackoffTest, SuccessAndAQuietSpellReset) {
  FailureBackoff b = Make();
  b.Failed("k");
  b.Failed("k");
  b.Succeeded("k");
  EXPECT_EQ(b.RemainingMs("k"), 0);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.Failed("k"), 1000);
  EXPECT_EQ(b.Failed("k"), 2000);
  now_ += (2000 + 60000) * kMs;  // the wait, then a whole cap without failing
  EXPECT_EQ(b.Failed("k"), 1000);
}

TEST_F(FailureBackoffTest, TableIsBoundedAndDropsTheWaitEndingFirst) {
  BackoffOptions o;
  o.max_keys = 3;
  FailureBackoff b = Make(o);
  b.Failed("a");
  b.Failed("b");
  b.Failed("b");
  b.Failed("c");
  b.Failed("c");
  b.Failed("c");
  for (int i = 0; i < 1000; ++i) b.Failed("peer-" + std::to_string(i));
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.RemainingMs("c"), 4000);  // the longest wait survives the flood
}

TEST_F(FailureBackoffTest, ZeroInitialTurnsItOff) {
  BackoffOptions o;
  o.initial_ms = 0;
  FailureBackoff b = Make(o);
  EXPECT_EQ(b.Failed("k"), 0);
  EXPECT_EQ(b.RemainingMs("k"), 0);
  EXPECT_EQ(b.size(), 0u);
}

// The per-peer bounds (HTTP and FIX) count an IPv6 client by its /64: one host given a prefix
// cannot pass for thousands of peers (until 2026-12-07 each /128 was a peer of its own).
TEST(PeerKeyTest, IPv6ByItsSlash64AndIPv4AsItIs) {
  EXPECT_EQ(PeerKey("10.1.2.3"), "10.1.2.3");
  EXPECT_EQ(PeerKey("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
  EXPECT_EQ(PeerKey("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
  EXPECT_NE(PeerKey("2001:db8:1:3::1"), PeerKey("2001:db8:1:2::1"));
  EXPECT_EQ(PeerKey("::ffff:10.1.2.3"), "::ffff:10.1.2.3");  // IPv4 on a dual-stack listener
  EXPECT_EQ(PeerKey("?"), "?");
  EXPECT_EQ(PeerKey(""), "");
}

}  // namespace
}  // namespace cfx::common
