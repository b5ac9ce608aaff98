// docs/reliability.md, "File descriptors": `cfx serve` raises its soft descriptor limit to
// what its connection bounds need, and refuses a config the hard limit cannot hold.
#include "file_limit.h"

#include <sys/resource.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace cfx::gateway::internal {
namespace {

common::ExchangeConfig TwoSessions() {
  common::ExchangeConfig c;
  c.sessions.resize(2);
  return c;  // http_max_connections 1024, fix_max_connections 256 (the defaults)
}

TEST(FileLimitTest, TheDefaultBoundsNeedMoreThanTheUsualSoftLimit) {
  const FileLimitPlan plan = PlanFileLimit(TwoSessions(), 1024, 524288);
  EXPECT_EQ(plan.needed, 1024u + 2 * 256u + 4 * 2u + kFileReserve);
  EXPECT_GT(plan.needed, 1024u);
  EXPECT_EQ(plan.soft, plan.needed) << "raised to what the bounds need, not past it";
  EXPECT_TRUE(plan.enough);
}

TEST(FileLimitTest, ASoftLimitAlreadyHighEnoughIsKept) {
  const FileLimitPlan plan = PlanFileLimit(TwoSessions(), 65536, 524288);
  EXPECT_EQ(plan.soft, 65536u);
  EXPECT_TRUE(plan.enough);
}

TEST(FileLimitTest, AHardLimitBelowTheBoundsIsNotEnough) {
  const FileLimitPlan plan = PlanFileLimit(TwoSessions(), 1024, 1024);
  EXPECT_EQ(plan.soft, 1024u);
  EXPECT_FALSE(plan.enough);
  common::ExchangeConfig small = TwoSessions();
  small.limits.http_max_connections = 300;
  small.limits.fix_max_connections = 100;
  EXPECT_TRUE(PlanFileLimit(small, 1024, 1024).enough);
}

TEST(FileLimitTest, TheProcessSoftLimitIsRaised) {
  rlimit was{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &was), 0);
  const FileLimitPlan plan = PlanFileLimit(TwoSessions(), 0, was.rlim_max);
  if (!plan.enough) GTEST_SKIP() << "this machine's hard limit " << was.rlim_max << " is short";
  rlimit low = was;
  low.rlim_cur = 512;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  const absl::Status s = RaiseFileLimit(TwoSessions(), "test.toml");
  rlimit now{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &now), 0);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &was), 0);  // as it was, for the other tests
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(now.rlim_cur, plan.needed);
}

// Run in a child process (a hard limit lowered cannot be raised again): 0 when the start is
// refused naming the config and both keys.
int RefusedUnderALowHardLimit() {
  rlimit low{};
  low.rlim_cur = low.rlim_max = 512;
  if (::setrlimit(RLIMIT_NOFILE, &low) != 0) return 2;
  const absl::Status s = RaiseFileLimit(TwoSessions(), "test.toml");
  const bool named = s.message().find("test.toml") != std::string::npos &&
                     s.message().find("fix_max_connections") != std::string::npos &&
                     s.message().find("http_max_connections") != std::string::npos;
  return absl::IsInvalidArgument(s) && named ? 0 : 1;
}

TEST(FileLimitDeathTest, AHardLimitTooLowIsRefusedNamingTheKeys) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(RefusedUnderALowHardLimit()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace cfx::gateway::internal
