// The order path's stage clock (PipelineOptions::trace_stages, stage_latency.h): the
// histogram's buckets and percentiles, and that each stage measures what it names.
#include "cfx/journal/stage_latency.h"

#include <chrono>
#include <random>
#include <thread>

#include "cfx/journal/counter_machine.h"
#include "cfx/journal/pipeline.h"
#include "gtest/gtest.h"
#include "test_dir.h"

namespace cfx::journal {
namespace {

using namespace std::chrono_literals;

TEST(LatencyCountsTest, BucketsAreOrderedAndTheirMiddleIsWithinAFewPercent) {
  int previous = -1;
  for (int64_t ns = 0; ns < 5'000'000'000; ns = ns < 100 ? ns + 1 : ns + ns / 37) {
    const int b = LatencyCounts::BucketOf(ns);
    ASSERT_GE(b, previous) << ns;
    ASSERT_LT(b, LatencyCounts::kBuckets) << ns;
    previous = b;
    const double mid = LatencyCounts::MidNs(b);
    if (ns < 8) {
      EXPECT_EQ(mid, static_cast<double>(ns));
    } else {
      EXPECT_NEAR(mid, static_cast<double>(ns), 0.07 * static_cast<double>(ns)) << ns;
    }
  }
  EXPECT_EQ(LatencyCounts::BucketOf(-5), 0);  // a clock that stepped: counted as 0
}

TEST(LatencyCountsTest, PercentilesOfAKnownSpreadAndADifferenceOfTwoReadings) {
  StageHistograms h;
  for (int i = 1; i <= 1000; ++i) h.Add(Stage::kApply, i * 1000);  // 1 µs .. 1 ms
  const StageLatencies first = h.Get();
  const LatencyCounts& c = first.of(Stage::kApply);
  EXPECT_EQ(c.count(), 1000u);
  EXPECT_NEAR(c.PercentileNs(0.5), 500'000, 0.07 * 500'000);
  EXPECT_NEAR(c.PercentileNs(0.99), 990'000, 0.07 * 990'000);
  EXPECT_EQ(first.of(Stage::kJournal).count(), 0u);
  EXPECT_EQ(first.of(Stage::kJournal).PercentileNs(0.5), 0);
  for (int i = 0; i < 100; ++i) h.Add(Stage::kApply, 7'000'000);
  const StageLatencies phase = h.Get() - first;
  EXPECT_EQ(phase.of(Stage::kApply).count(), 100u);
  EXPECT_NEAR(phase.of(Stage::kApply).PercentileNs(0.5), 7e6, 0.07 * 7e6);
}

// Sleeps in its apply: the apply stage must show it, and nothing else must.
class SlowMachine : public CounterMachine {
 public:
  void ApplyAt(uint64_t seq, int64_t, const CounterCommand& command,
               OutcomeSink<CounterOutcome>& sink) override {
    std::this_thread::sleep_for(3ms);
    Apply(seq, command, sink);
  }
};

class NullListener : public PipelineListener<CounterOutcome> {
 public:
  void OnOutcome(uint64_t, uint64_t, const CounterOutcome&) override {}
  void OnAck(uint64_t, uint64_t, int64_t) override { acks.fetch_add(1); }
  std::atomic<uint64_t> acks{0};
};

class StageTraceTest : public ::testing::TestWithParam<bool> {};

TEST_P(StageTraceTest, EachInputIsCountedInEveryStageAndTheApplyStageShowsTheApply) {
  TestDir dir;
  auto journal = *Journal::Open({.data_dir = dir.path(), .defer_commit_sync = true});
  CounterCodec codec;
  SlowMachine machine;
  NullListener listener;
  Pipeline<CounterCommand, CounterOutcome> p(
      {.publish_on_matcher = GetParam(), .trace_stages = true}, journal.get(), &codec,
      &machine, &listener);
  ASSERT_TRUE(p.Start().ok());
  constexpr uint64_t kInputs = 40;
  for (uint64_t i = 1; i <= kInputs; ++i) {
    ASSERT_EQ(p.TryOffer(i, CounterCommand{i, i % 3, 1}), OfferResult::kAccepted);
    if (i % 4 == 0) std::this_thread::sleep_for(5ms);  // lone inputs and small groups
  }
  ASSERT_TRUE(p.Stop().ok());
  const PipelineStats stats = p.stats();
  for (Stage s : {Stage::kQueued, Stage::kJournal, Stage::kToMatcher, Stage::kApply,
                  Stage::kDeliver, Stage::kTotal}) {
    EXPECT_EQ(stats.stages.of(s).count(), kInputs) << StageName(s);
  }
  EXPECT_EQ(stats.stages.of(Stage::kCommitCall).count(), stats.batches);
  EXPECT_GT(stats.stages.of(Stage::kSyncCall).count(), 0u);  // pauses: held commits synced
  const double apply = stats.stages.of(Stage::kApply).PercentileNs(0.5);
  EXPECT_GE(apply, 2.7e6);
  EXPECT_LT(apply, 50e6);
  // The whole is at least its slowest parts: an input's total covers its apply and its
  // journal stage.
  EXPECT_GE(stats.stages.of(Stage::kTotal).PercentileNs(0.99),
            stats.stages.of(Stage::kApply).PercentileNs(0.5));
  EXPECT_GE(stats.stages.of(Stage::kTotal).PercentileNs(0.5) * 1.07,
            stats.stages.of(Stage::kJournal).PercentileNs(0.5));
}

TEST_P(StageTraceTest, OffReadsNoClockAndReportsNothing) {
  CounterCodec codec;
  CounterMachine machine;
  NullListener listener;
  Pipeline<CounterCommand, CounterOutcome> p({.publish_on_matcher = GetParam()}, nullptr,
                                             &codec, &machine, &listener);
  ASSERT_TRUE(p.Start().ok());
  for (uint64_t i = 1; i <= 100; ++i) {
    while (p.TryOffer(i, CounterCommand{i, 0, 1}) == OfferResult::kFull) {
      std::this_thread::yield();
    }
  }
  ASSERT_TRUE(p.Stop().ok());
  for (int s = 0; s < kStages; ++s) EXPECT_EQ(p.stats().stages.stage[s].count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Delivery, StageTraceTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "OnTheMatcher" : "OnAPublisherThread";
                         });

}  // namespace
}  // namespace cfx::journal
