#include "cfx/gpu_valuation/throughput.h"

#include "gtest/gtest.h"

namespace cfx::gpu_valuation {
namespace {

ThroughputRow Row(const char* op, Tier tier, const char* date, double tps,
                  const char* gpu = "B200") {
  return {op, tier, gpu, *ParseDate(date), tps};
}

TEST(ThroughputTest, PercentileInterpolatesBetweenClosestRanks) {
  const std::vector<double> v = {500, 100, 300, 200, 400};  // unsorted on purpose
  EXPECT_DOUBLE_EQ(Percentile(v, 0.1), 140.0);  // h = 0.4
  EXPECT_DOUBLE_EQ(Percentile(v, 0.5), 300.0);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.9), 460.0);  // h = 3.6
  EXPECT_DOUBLE_EQ(Percentile({7.0}, 0.9), 7.0);
  EXPECT_DOUBLE_EQ(Percentile({1.0, 2.0}, 0.5), 1.5);  // even count: mean of the middle two
}

TEST(ThroughputTest, RawTsrIsHalfTheP10P90SpreadOverTheMedian) {
  // p10 = 1020, p90 = 1180, median 1100.
  EXPECT_NEAR(RawTsr({1000, 1100, 1200}), 160.0 / 2200.0, 1e-15);
}

TEST(ThroughputTest, TsrIsClampedToFivePercentAndFiftyPercent) {
  std::vector<ThroughputRow> rows = {
      Row("p1", Tier::kPlat, "2027-03-01", 1000),                                  // n = 1: 0
      Row("g1", Tier::kGold, "2027-03-01", 100), Row("g2", Tier::kGold, "2027-03-01", 200),
      Row("g3", Tier::kGold, "2027-03-01", 300), Row("g4", Tier::kGold, "2027-03-01", 400),
      Row("g5", Tier::kGold, "2027-03-01", 500),                                   // 0.533
      Row("s1", Tier::kSilv, "2027-03-01", 1000), Row("s2", Tier::kSilv, "2027-03-01", 1100),
      Row("s3", Tier::kSilv, "2027-03-01", 1200),                                  // 0.0727
  };
  TsrTable tsr = ComputeTsr(LatestPerOperator(rows, std::nullopt));
  EXPECT_DOUBLE_EQ(tsr.Get("B200", Tier::kPlat), kTsrMin);
  EXPECT_DOUBLE_EQ(tsr.Get("B200", Tier::kGold), kTsrMax);
  EXPECT_NEAR(tsr.Get("B200", Tier::kSilv), 160.0 / 2200.0, 1e-15);
  EXPECT_FALSE(tsr.Measured("B200", Tier::kBrnz));
  EXPECT_DOUBLE_EQ(tsr.Get("B200", Tier::kBrnz), kTsrUnmeasured);
  EXPECT_DOUBLE_EQ(tsr.Get("H100", Tier::kPlat), kTsrUnmeasured);
}

TEST(ThroughputTest, LatestPerOperatorByDateThenLaterRowAndOnlyUpToAsOf) {
  std::vector<ThroughputRow> rows = {
      Row("a", Tier::kGold, "2027-03-02", 10), Row("a", Tier::kGold, "2027-03-01", 20),
      Row("a", Tier::kGold, "2027-03-02", 30),  // same date, later row wins
      Row("a", Tier::kGold, "2027-03-05", 40),  // after as_of
      Row("a", Tier::kGold, "2027-03-01", 50, "H100"),  // another gpu is another series
  };
  auto latest = LatestPerOperator(rows, *ParseDate("2027-03-03"));
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest[0].gpu, "B200");
  EXPECT_DOUBLE_EQ(latest[0].output_tps_per_gpu, 30);
  EXPECT_DOUBLE_EQ(latest[1].output_tps_per_gpu, 50);
  EXPECT_DOUBLE_EQ(LatestPerOperator(rows, std::nullopt)[0].output_tps_per_gpu, 40);
  EXPECT_TRUE(LatestPerOperator(rows, *ParseDate("2027-02-28")).empty());
}

TEST(ThroughputTest, GradeThetaIsTheMedianOfTheTiersOperators) {
  std::vector<ThroughputRow> rows = {Row("a", Tier::kGold, "2027-03-01", 1000),
                                     Row("b", Tier::kGold, "2027-03-01", 1300),
                                     Row("c", Tier::kPlat, "2027-03-01", 9000)};
  EXPECT_DOUBLE_EQ(*GradeTheta(rows, "B200", Tier::kGold), 1150);
  EXPECT_FALSE(GradeTheta(rows, "B200", Tier::kSilv).has_value());
}

}  // namespace
}  // namespace cfx::gpu_valuation
