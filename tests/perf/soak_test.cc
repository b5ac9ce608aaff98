// A short soak (perf/harness soak_bench.h): reconnects, bursts past the throttle and two
// restarts, with every acknowledged order found in the journal afterwards.
#include <filesystem>
#include <string>

#include "cfx/perf/soak_bench.h"
#include "gtest/gtest.h"

namespace cfx::perf {
namespace {

TEST(SoakTest, ShortSoakFindsEveryAcknowledgementAfterRestarts) {
  const std::string dir = ::testing::TempDir() + "/soak_test";
  std::filesystem::remove_all(dir);
  // Fast churn: reconnects, bursts and day ends every few seconds.
  const SoakOptions o{.minutes = 0.15,
                      .sessions = 2,
                      .orders_per_sec = 50,
                      .throttle_msgs_per_sec = 60,
                      .burst_every_s = 2,
                      .reconnect_every_s = 2,
                      .snapshot_interval = 200,
                      .day_every_s = 3,
                      .interval_s = 3,
                      .dir = dir};
  absl::StatusOr<SoakResult> r = RunSoak(o);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok);
  EXPECT_GT(r->acked_orders, 100);
  EXPECT_EQ(r->acked_missing, 0);
  EXPECT_EQ(r->state_hash_first, r->state_hash_second);
  EXPECT_GE(r->next_seq_recovered, r->next_seq_at_stop);
  int64_t throttled = 0, logons = 0;
  for (const SoakInterval& iv : r->intervals) {
    throttled += iv.throttled;
    logons += iv.logons;
  }
  EXPECT_GT(throttled, 0) << "no burst reached the throttle";
  EXPECT_GT(logons, o.sessions) << "no session reconnected";
  ASSERT_FALSE(r->intervals.empty());
  EXPECT_GT(r->intervals.back().snapshots, 0u) << "no engine snapshot was taken";
  EXPECT_GE(r->intervals.back().days, 2) << "the trading day never ended";
}

TEST(SoakTest, BadOptionsAreRefused) {
  SoakOptions o;
  o.throttle_msgs_per_sec = o.orders_per_sec - 1;
  EXPECT_EQ(RunSoak(o).status().code(), absl::StatusCode::kInvalidArgument);
  o = SoakOptions();
  o.sessions = 0;
  EXPECT_EQ(RunSoak(o).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cfx::perf
