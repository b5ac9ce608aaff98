#include "cfx/reference/sample_data.h"

#include <map>
#include <set>

#include "cfx/reference/builder.h"
#include "gtest/gtest.h"

namespace cfx::reference {
namespace {

SampleOptions Month(uint64_t seed) {
  SampleOptions opt;
  opt.from = common::DateFromYmd(2027, 3, 1);
  opt.to = common::DateFromYmd(2027, 3, 31);
  opt.seed = seed;
  return opt;
}

TEST(SampleDataTest, SameSeedSameData) {
  SampleData a = GenerateSample(Month(3)), b = GenerateSample(Month(3));
  EXPECT_EQ(ObservationsToCsv(a.observations), ObservationsToCsv(b.observations));
  EXPECT_EQ(ThroughputToCsv(a.throughput), ThroughputToCsv(b.throughput));
  EXPECT_NE(ObservationsToCsv(a.observations),
            ObservationsToCsv(GenerateSample(Month(4)).observations));
}

TEST(SampleDataTest, LooksLikeTheMarketItDescribes) {
  SampleData d = GenerateSample(Month(1));
  std::set<std::string> providers, grades;
  std::map<common::Tier, std::pair<double, int>> on_demand;  // sum, count (US trades)
  for (const Observation& o : d.observations) {
    providers.insert(o.provider);
    grades.insert(o.GradeKey());
    if (o.lease == Lease::kOnDemand && o.region == "US" && o.kind == Kind::kTrade) {
      on_demand[o.tier].first += o.price_e6 / 1e6;
      on_demand[o.tier].second += 1;
    }
  }
  EXPECT_GE(providers.size(), 20u);
  EXPECT_LE(providers.size(), 40u);
  EXPECT_EQ(grades.size(), 8u);
  double prev = 1e9;
  for (common::Tier t :
       {common::Tier::kPlat, common::Tier::kGold, common::Tier::kSilv, common::Tier::kBrnz}) {
    double mean = on_demand[t].first / on_demand[t].second;
    EXPECT_GT(mean, 3.5);
    EXPECT_LT(mean, 7.0);
    EXPECT_LT(mean, prev);  // PLAT > GOLD > SILV > BRNZ
    prev = mean;
  }
  double lo = 1e9, hi = 0;
  for (const ThroughputRow& t : d.throughput) {
    lo = std::min(lo, t.tps_e6 / 1e6);
    hi = std::max(hi, t.tps_e6 / 1e6);
  }
  EXPECT_GE(lo, 150);
  EXPECT_LE(hi, 350);
  EXPECT_GT(hi / lo, 1.3);
}

TEST(SampleDataTest, AMonthHasLevelTwoAndLevelThreeDays) {
  SampleData d = GenerateSample(Month(1));
  BuildOptions build;
  build.from = common::DateFromYmd(2027, 3, 1);
  build.to = common::DateFromYmd(2027, 3, 31);
  auto r = BuildFixes(d.observations, d.throughput, build, nullptr);
  ASSERT_TRUE(r.ok());
  std::map<int, int> levels;
  for (const FixRecord& f : r->records) levels[f.level.value_or(0)]++;
  EXPECT_GT(levels[1], 0);
  EXPECT_GT(levels[2], 0);
  EXPECT_GT(levels[3], 0);
}

}  // namespace
}  // namespace cfx::reference
