// Properties of the methodology over generated days (sample_data.h).
#include <algorithm>
#include <map>
#include <random>

#include "cfx/reference/builder.h"
#include "cfx/reference/methodology.h"
#include "cfx/reference/sample_data.h"
#include "gtest/gtest.h"

namespace cfx::reference {
namespace {

// Sample options for the days [from, to] with `seed`, the rest as SampleOptions' defaults.
SampleOptions Days(common::Date from, common::Date to, uint64_t seed) {
  SampleOptions opt;
  opt.from = from;
  opt.to = to;
  opt.seed = seed;
  return opt;
}

// Builds the fixes of every day the sample covers.
absl::StatusOr<BuildResult> BuildSample(const SampleData& data, const SampleOptions& opt) {
  BuildOptions build;
  build.from = opt.from;
  build.to = opt.to;
  return BuildFixes(data.observations, data.throughput, build, nullptr);
}

// Candidate points per grade for one day of generated data (eligible, in the window).
std::map<std::string, std::vector<PricePoint>> DayPoints(uint64_t seed) {
  SampleOptions opt = Days(common::DateFromYmd(2027, 3, 3), common::DateFromYmd(2027, 3, 3), seed);
  opt.regions = {"US", "EU", "APAC"};
  SampleData data = GenerateSample(opt);
  const Window w = FixWindow(opt.from, opt.calendar);
  std::map<std::string, int> ids;
  std::map<std::string, std::vector<PricePoint>> out;
  for (const Observation& o : data.observations) {
    if (!IsEligibleLease(o.lease) || !w.Contains(o.ts)) continue;
    int id = ids.try_emplace(o.provider, ids.size()).first->second;
    out[o.GradeKey()].push_back({id, o.price_e6, o.gpu_hours_e6, o.kind == Kind::kTrade});
  }
  return out;
}

void ExpectSameFix(const FixComputation& a, const FixComputation& b) {
  EXPECT_EQ(a.level, b.level);
  EXPECT_EQ(a.fix_e4, b.fix_e4);
  EXPECT_EQ(a.p25_e4, b.p25_e4);
  EXPECT_EQ(a.p75_e4, b.p75_e4);
  EXPECT_EQ(a.n_obs, b.n_obs);
  EXPECT_EQ(a.n_dropped, b.n_dropped);
}

TEST(PropertiesTest, RowOrderDoesNotMatter) {
  std::mt19937_64 rng(42);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    for (auto& [grade, points] : DayPoints(seed)) {
      FixComputation base = ComputeFix(points);
      std::vector<PricePoint> shuffled = points;
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      ExpectSameFix(base, ComputeFix(shuffled));
    }
  }
}

TEST(PropertiesTest, ScalingAllVolumesLeavesTheFixUnchanged) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    for (auto& [grade, points] : DayPoints(seed)) {
      FixComputation base = ComputeFix(points);
      for (int64_t k : {3, 1000}) {
        std::vector<PricePoint> scaled = points;
        for (PricePoint& p : scaled) p.hours_e6 *= k;
        FixComputation s = ComputeFix(scaled);
        ExpectSameFix(base, s);
        EXPECT_EQ(s.volume_e6, base.volume_e6 * k);
      }
    }
  }
}

TEST(PropertiesTest, NoProviderAboveTheCapAfterCapping) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int n_providers = 1 + rng() % 8;
    std::vector<PricePoint> points;
    const int n = 1 + rng() % 30;
    for (int i = 0; i < n; ++i) {
      // Very uneven sizes: 1 .. 10^6 hours.
      int64_t hours = 1 + static_cast<int64_t>(std::pow(10.0, (rng() % 600) / 100.0));
      points.push_back({static_cast<int32_t>(rng() % n_providers), 5'000'000, hours * 1'000'000,
                        rng() % 2 == 0});
    }
    ProviderCap cap(points);
    const long double limit = std::max(0.30L, 1.0L / static_cast<long double>(cap.n_providers()));
    long double total = 0;
    for (int p = 0; p < n_providers; ++p) {
      EXPECT_LE(cap.Share(p), limit + 1e-15L) << "trial " << trial;
      total += cap.Share(p);
    }
    EXPECT_NEAR(static_cast<double>(total), 1.0, 1e-12);
    long double point_total = 0;
    for (const PricePoint& p : points) point_total += cap.PointShare(p);
    EXPECT_NEAR(static_cast<double>(point_total), 1.0, 1e-12);
  }
}

TEST(PropertiesTest, LevelThreeCarryNeverExceedsFiveDays) {
  // A month of sparse data: many quiet and dead days.
  SampleOptions opt = Days(common::DateFromYmd(2027, 3, 1), common::DateFromYmd(2027, 5, 31), 11);
  opt.observations_per_grade_day = 6;
  opt.dead_day_probability = 0.5;
  SampleData data = GenerateSample(opt);
  auto r = BuildSample(data, opt);
  ASSERT_TRUE(r.ok());
  std::map<std::string, int> run;
  int max_run = 0, stale = 0;
  for (const FixRecord& f : r->records) {
    int& k = run[f.grade];
    k = f.HasFlag("stale") ? k + 1 : 0;
    max_run = std::max(max_run, k);
    stale += f.HasFlag("stale");
    if (f.HasFlag("stale")) {
      EXPECT_EQ(f.level, 3);
    }
  }
  EXPECT_GT(stale, 0);
  EXPECT_EQ(max_run, kMaxStaleDays);  // reached, never exceeded
}

TEST(PropertiesTest, ShuffledInputFilesGiveIdenticalRecords) {
  const SampleOptions opt =
      Days(common::DateFromYmd(2027, 3, 1), common::DateFromYmd(2027, 3, 12), 5);
  SampleData data = GenerateSample(opt);
  auto base = BuildSample(data, opt);
  ASSERT_TRUE(base.ok());
  std::mt19937_64 rng(99);
  std::shuffle(data.observations.begin(), data.observations.end(), rng);
  auto shuffled = BuildSample(data, opt);
  ASSERT_TRUE(shuffled.ok());
  EXPECT_EQ(shuffled->records, base->records);
}

}  // namespace
}  // namespace cfx::reference
