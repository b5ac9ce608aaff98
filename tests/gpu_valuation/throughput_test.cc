#include "cfx/gpu_valuation/throughput.h"

#include "gtest/gtest.h"

namespace cfx::gpu_valuation {
namespace {

ThroughputRow Row(const char* op, common::Tier tier, const char* date, double tps,
                  const char* gpu = "B200") {
  return {op, tier, gpu, *common::ParseDate(date), tps};
}

TEST(ThroughputTest, PercentileInterpolatesBetweenClosestRanks) {
  const std::vector<double> v = {500, 100, 300, 200, 400};  // unsorted on purpose
  EXPECT_DOUBLE_EQ(Percentile(v, 0.1), 140.0);              // h = 0.4
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
      Row("p1", common::Tier::kPlat, "2027-03-01", 1000),  // n = 1: 0
      Row("g1", common::Tier::kGold, "2027-03-01", 100),
      Row("g2", common::Tier::kGold, "2027-03-01", 200),
      Row("g3", common::Tier::kGold, "2027-03-01", 300),
      Row("g4", common::Tier::kGold, "2027-03-01", 400),
      Row("g5", common::Tier::kGold, "2027-03-01", 500),  // 0.533
      Row("s1", common::Tier::kSilv, "2027-03-01", 1000),
      Row("s2", common::Tier::kSilv, "2027-03-01", 1100),
      Row("s3", common::Tier::kSilv, "2027-03-01", 1200),  // 0.0727
  };
  TsrTable tsr = ComputeTsr(reference::LatestPerOperator(rows, std::nullopt));
  EXPECT_DOUBLE_EQ(tsr.Get("B200", common::Tier::kPlat), kTsrMin);
  EXPECT_DOUBLE_EQ(tsr.Get("B200", common::Tier::kGold), kTsrMax);
  EXPECT_NEAR(tsr.Get("B200", common::Tier::kSilv), 160.0 / 2200.0, 1e-15);
  EXPECT_FALSE(tsr.Measured("B200", common::Tier::kBrnz));
  EXPECT_DOUBLE_EQ(tsr.Get("B200", common::Tier::kBrnz), kTsrUnmeasured);
  EXPECT_DOUBLE_EQ(tsr.Get("H100", common::Tier::kPlat), kTsrUnmeasured);
}

}  // namespace
}  // namespace cfx::gpu_valuation
