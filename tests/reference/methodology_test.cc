// Hand-computed examples for each step of SPEC §8.
#include "cfx/reference/methodology.h"

#include "gtest/gtest.h"

namespace cfx::reference {
namespace {

constexpr int64_t kE6 = 1'000'000;

// price in 1/100 USD, hours whole.
PricePoint T(int provider, int64_t cents, int64_t hours) {
  return PricePoint{provider, cents * 10'000, hours * kE6, true};
}
PricePoint Q(int provider, int64_t cents, int64_t hours) {
  return PricePoint{provider, cents * 10'000, hours * kE6, false};
}

TEST(WindowTest, IsPreviousBusinessDayToDayAtFourPmExclusiveInclusive) {
  common::BusinessCalendar cal;
  const common::Date monday = common::DateFromYmd(2027, 3, 1);
  Window w = FixWindow(monday, cal);
  EXPECT_EQ(w.after, *common::ParseTimestamp("2027-02-26T16:00:00Z"));  // Friday
  EXPECT_EQ(w.until, *common::ParseTimestamp("2027-03-01T16:00:00Z"));
  EXPECT_FALSE(w.Contains(*common::ParseTimestamp("2027-02-26T16:00:00Z")));
  EXPECT_TRUE(w.Contains(*common::ParseTimestamp("2027-02-26T16:00:00.000001Z")));
  EXPECT_TRUE(w.Contains(*common::ParseTimestamp("2027-02-28T09:00:00Z")));  // the weekend counts
  EXPECT_TRUE(w.Contains(*common::ParseTimestamp("2027-03-01T16:00:00Z")));
  EXPECT_FALSE(w.Contains(*common::ParseTimestamp("2027-03-01T16:00:01Z")));
}

TEST(WindowTest, HolidayMovesTheStart) {
  common::BusinessCalendar cal({common::DateFromYmd(2027, 2, 26)});
  EXPECT_EQ(FixWindow(common::DateFromYmd(2027, 3, 1), cal).after,
            *common::ParseTimestamp("2027-02-25T16:00:00Z"));
}

TEST(EligibilityTest, OnlyOnDemandAndOneMonthReserved) {
  EXPECT_TRUE(IsEligibleLease(Lease::kOnDemand));
  EXPECT_TRUE(IsEligibleLease(Lease::kReserved1m));
  EXPECT_FALSE(IsEligibleLease(Lease::kReserved3m));
  EXPECT_FALSE(IsEligibleLease(Lease::kReserved1y));
  EXPECT_FALSE(IsEligibleLease(Lease::kSpot));
}

TEST(ThresholdTest, NeedsFiveObservationsFromThreeProviders) {
  std::vector<PricePoint> p = {T(0, 500, 1), T(0, 500, 1), T(1, 500, 1), T(1, 500, 1)};
  EXPECT_FALSE(MeetsThresholds(p));  // 4 obs
  p.push_back(T(1, 500, 1));
  EXPECT_FALSE(MeetsThresholds(p));  // 2 providers
  p.push_back(T(2, 500, 1));
  EXPECT_TRUE(MeetsThresholds(p));
  EXPECT_EQ(CountProviders(p), 3);
}

TEST(MedianTest, EvenCountIsMeanOfMiddleTwo) {
  EXPECT_EQ(TwiceMedian({3, 1, 2}), 4);
  EXPECT_EQ(TwiceMedian({4, 1, 3, 2}), 5);  // (2 + 3)
  EXPECT_EQ(TwiceMedian({7}), 14);
}

TEST(OutlierTest, DropsFarPointAndKeepsOrder) {
  // m = 5.20, |dev| = .2 .1 0 .1 3.8 -> MAD = .1, limit 0.44478: 9.00 goes.
  auto r = DropOutliers({T(0, 500, 1), T(1, 510, 1), T(2, 520, 1), T(3, 530, 1), T(4, 900, 1)});
  EXPECT_EQ(r.n_dropped, 1);
  ASSERT_EQ(r.kept.size(), 4u);
  EXPECT_EQ(r.kept[3].value_e6, 5'300'000);
}

TEST(OutlierTest, LimitIsStrictlyGreater) {
  // 6 values: m = (5.2 + 5.3)/2 = 5.25; devs .25 .15 .05 .05 .15 X → MAD = .15;
  // limit = 4.4478 × 0.15 = 0.66717 → X = 5.91717 stays, 5.917171 goes.
  auto base = [] {
    return std::vector<PricePoint>{T(0, 500, 1), T(1, 510, 1), T(2, 520, 1), T(3, 530, 1),
                                   T(4, 540, 1)};
  };
  std::vector<PricePoint> at = base();
  at.push_back(PricePoint{5, 5'917'170, kE6, true});
  EXPECT_EQ(DropOutliers(at).n_dropped, 0);
  std::vector<PricePoint> above = base();
  above.push_back(PricePoint{5, 5'917'171, kE6, true});
  EXPECT_EQ(DropOutliers(above).n_dropped, 1);
}

TEST(OutlierTest, ZeroMadKeepsEverything) {
  auto r = DropOutliers({T(0, 500, 1), T(1, 500, 1), T(2, 500, 1), T(3, 900, 1)});
  EXPECT_EQ(r.n_dropped, 0);
  EXPECT_EQ(r.kept.size(), 4u);
}

TEST(ProviderCapTest, ThreeProvidersCapAtOneThird) {
  // Weights A 400, B 400, C 200 (units): 1/3 cap binds on A and B, then C is at 1/3 too.
  std::vector<PricePoint> p = {T(0, 500, 100), T(1, 510, 100), T(2, 520, 100), T(0, 530, 100),
                               T(1, 540, 100)};
  ProviderCap cap(p);
  EXPECT_EQ(cap.n_providers(), 3);
  EXPECT_EQ(cap.n_capped(), 2);
  EXPECT_NEAR(static_cast<double>(cap.Share(0)), 1.0 / 3, 1e-15);
  EXPECT_NEAR(static_cast<double>(cap.Share(2)), 1.0 / 3, 1e-15);
}

TEST(ProviderCapTest, IterativeCapSharesTheRestProportionally) {
  // A 60%, B 20%, C 10%, D 5%, E 5%: A capped at 30%; the 70% left goes B 40%, C 20%,
  // D 10%, E 10%; B is now above → capped at 30%; 40% left for C, D, E: 20%, 10%, 10%.
  std::vector<PricePoint> p = {T(0, 500, 60), T(1, 500, 20), T(2, 500, 10), T(3, 500, 5),
                               T(4, 500, 5)};
  ProviderCap cap(p);
  EXPECT_EQ(cap.n_capped(), 2);
  EXPECT_NEAR(static_cast<double>(cap.Share(0)), 0.30, 1e-15);
  EXPECT_NEAR(static_cast<double>(cap.Share(1)), 0.30, 1e-15);
  EXPECT_NEAR(static_cast<double>(cap.Share(2)), 0.20, 1e-15);
  EXPECT_NEAR(static_cast<double>(cap.Share(3)), 0.10, 1e-15);
}

TEST(ProviderCapTest, ProviderExactlyAtCapIsNotAbove) {
  // 30/20/20/20/10: A holds exactly 30% — not above the cap.
  std::vector<PricePoint> p = {T(0, 500, 30), T(1, 500, 20), T(2, 500, 20), T(3, 500, 20),
                               T(4, 500, 10)};
  EXPECT_FALSE(ProviderCap(p).binding());
}

TEST(WeightedPercentileTest, FirstPointReachingTheShare) {
  // Equal weights, 6 points: cum at the 3rd = exactly 50% → the 3rd price, not a mean.
  std::vector<PricePoint> p = {T(0, 500, 10), T(1, 510, 10), T(2, 520, 10),
                               T(3, 530, 10), T(4, 540, 10), T(5, 550, 10)};
  ProviderCap cap(p);
  EXPECT_EQ(WeightedPercentile(p, cap, 1, 2), 5'200'000);
  EXPECT_EQ(WeightedPercentile(p, cap, 1, 4), 5'100'000);  // 2/6 >= 1/4
  EXPECT_EQ(WeightedPercentile(p, cap, 3, 4), 5'400'000);  // 5/6 >= 3/4
}

TEST(WeightedPercentileTest, ExactTieAfterCapping) {
  // Three providers capped to 1/3 each: A's two points 1/6 each, B's 1/6 each, C 1/3.
  // Sorted 5.00(A) 5.10(B) 5.20(C) 5.30(A) 5.40(B): cum 1/6, 2/6, 4/6, 5/6, 1.
  std::vector<PricePoint> p = {T(0, 500, 100), T(1, 510, 100), T(2, 520, 100), T(0, 530, 100),
                               T(1, 540, 100)};
  ProviderCap cap(p);
  EXPECT_EQ(WeightedPercentile(p, cap, 1, 2), 5'200'000);
  EXPECT_EQ(WeightedPercentile(p, cap, 1, 4), 5'100'000);
  EXPECT_EQ(WeightedPercentile(p, cap, 3, 4), 5'300'000);
  // A 2-provider exact 50% tie: A and B capped to 1/2; A's point reaches exactly 1/2.
  std::vector<PricePoint> two = {T(0, 500, 7), T(1, 600, 3)};
  EXPECT_EQ(WeightedPercentile(two, ProviderCap(two), 1, 2), 5'000'000);
}

TEST(SumOfFractionsTest, ExactAtEquality) {
  // 1/3 + 1/6 = 1/2 exactly, with large denominators that long double cannot separate.
  const __int128 big = static_cast<__int128>(1) << 60;
  EXPECT_TRUE(SumOfFractionsAtLeast({{big, 3 * big}, {big, 6 * big}}, 0));
  EXPECT_TRUE(SumOfFractionsAtLeast({{2 * big, 3 * big}, {big, 3 * big}}, 1));
  EXPECT_FALSE(SumOfFractionsAtLeast({{2 * big, 3 * big}, {big - 1, 3 * big}}, 1));
  EXPECT_TRUE(SumOfFractionsAtLeast({{2 * big, 3 * big}, {big + 1, 3 * big}}, 1));
}

TEST(RoundingTest, FourDecimalsHalfEven) {
  EXPECT_EQ(RoundE6ToE4(5'123'450), 51234);
  EXPECT_EQ(RoundE6ToE4(5'123'550), 51236);
  EXPECT_EQ(RoundE6ToE4(5'123'451), 51235);
}

TEST(PricePerTokenTest, DividesRoundedFixByHourlyTokens) {
  // 5.4000 / (250 × 3600) × 1e6 = 6.0 exactly.
  EXPECT_EQ(PricePerMtokE4(54000, 500'000'000), 60000);
  // 5.2000 / (251.25 × 3600) × 1e6 = 5.749033...  -> 5.7490
  EXPECT_EQ(PricePerMtokE4(52000, 502'500'000), 57490);
  // Exact halves go to even: 0.0009 / (1000 × 3600) × 1e6 = 0.00025 → 0.0002;
  // 0.0027 → 0.00075 → 0.0008.
  EXPECT_EQ(PricePerMtokE4(9, 2'000'000'000), 2);
  EXPECT_EQ(PricePerMtokE4(27, 2'000'000'000), 8);
}

TEST(ComputeFixTest, LevelOneUsesTradesOnlyDropsOutlierAndCaps) {
  // Trades: A 5.00, 5.10; B 5.10, 5.30; C 5.20 (100 h each); D 9.90 (outlier); plus a quote
  // that level 1 ignores. Provider medians 5.05, 5.20, 5.20, 9.90: m = 5.20, MAD = 0.075,
  // limit 0.33359: only 9.90 goes. Cap 1/3 (three providers): A, B capped, C 1/3. By price:
  // 5.00 1/6, 5.10 (B) 1/3 (p25), 5.10 (A) 1/2 (fix: exactly 50%), 5.20 5/6 (p75), 5.30 1.
  std::vector<PricePoint> p = {T(0, 500, 100), T(1, 510, 100), T(2, 520, 100), T(0, 510, 100),
                               T(1, 530, 100), T(3, 990, 50),  Q(4, 100, 1000)};
  FixComputation f = ComputeFix(p);
  EXPECT_EQ(f.level, 1);
  EXPECT_EQ(f.n_dropped, 1);
  EXPECT_EQ(f.n_obs, 5);
  EXPECT_EQ(f.n_providers, 3);
  EXPECT_EQ(f.fix_e4, 51000);
  EXPECT_EQ(f.p25_e4, 51000);
  EXPECT_EQ(f.p75_e4, 52000);
  EXPECT_EQ(f.volume_e6, 500 * kE6);
}

TEST(OutlierTest, StatisticsAreOneValuePerProvider) {
  // A: 5.00 5.10 (p̃ 5.05, even count), B: 5.10 5.20 5.90 (p̃ 5.20), C: 5.30.
  // m = 5.20; |p̃ − m| = .15 0 .10 → MAD = .10; limit .44478: B's 5.90 (|dev| .70) goes.
  OutlierStats s =
      ComputeOutlierStats(std::vector<PricePoint>{T(0, 500, 1), T(0, 510, 1), T(1, 510, 1),
                                                  T(1, 520, 1), T(1, 590, 1), T(2, 530, 1)});
  ASSERT_EQ(s.providers.size(), 3u);
  EXPECT_EQ(s.providers[0].twice_median_e6, 10'100'000);
  EXPECT_EQ(s.providers[1].twice_median_e6, 10'400'000);
  EXPECT_EQ(s.providers[1].n_points, 3);
  EXPECT_EQ(s.m4_e6, 4 * 5'200'000);
  EXPECT_EQ(s.mad8_e6, 8 * 100'000);
  EXPECT_TRUE(s.Drops(5'900'000));
  EXPECT_FALSE(s.Drops(5'644'780));  // exactly m + 4.4478 × MAD: not strictly greater
  EXPECT_TRUE(s.Drops(5'644'781));
  EXPECT_FALSE(s.Drops(4'755'220));
  EXPECT_TRUE(s.Drops(4'755'219));
}

TEST(OutlierTest, OneProviderSendingManyObservationsCountsOnce) {
  // Five providers at 4.98 .. 5.02 and a sixth with 20 observations around 6.00. Per
  // observation (the old rule) the median would be ~6.00 and every honest price an outlier;
  // per provider m = 5.005, MAD = .015 and the sixth provider's prices are the outliers.
  std::vector<PricePoint> p;
  for (int i = 0; i < 5; ++i) p.push_back(T(i, 498 + i, 100));
  for (int k = 0; k < 20; ++k) p.push_back(T(5, 595 + k % 11, 1));
  OutlierResult r = DropOutliers(p);
  EXPECT_EQ(r.n_dropped, 20);
  EXPECT_EQ(r.kept.size(), 5u);
  EXPECT_EQ(r.stats.m4_e6, 4 * 5'005'000);
}

TEST(ComputeFixTest, ManySmallTradesFromOneProviderCannotEraseTheFix) {
  // SPEC §8 step 3, the case of issue #15: five honest providers at 4.98-5.02 (100 GPU-h
  // each) give a level-1 fix of 5.0000; a sixth provider's 20 one-hour trades at 5.95-6.05
  // leave it so. (Under the per-observation rule the fix disappeared: level 0.)
  std::vector<PricePoint> honest;
  for (int i = 0; i < 5; ++i) honest.push_back(T(i, 498 + i, 100));
  FixComputation before = ComputeFix(honest);
  ASSERT_EQ(before.level, 1);
  ASSERT_EQ(before.fix_e4, 50000);
  std::vector<PricePoint> p = honest;
  for (int k = 0; k < 20; ++k) p.push_back(T(5, 595 + k % 11, 1));
  FixComputation after = ComputeFix(p);
  EXPECT_EQ(after.level, 1);
  EXPECT_EQ(after.fix_e4, 50000);
  EXPECT_EQ(after.n_dropped, 20);
  EXPECT_EQ(after.n_providers, 5);
}

TEST(ComputeFixTest, TraceRecordsEachAttemptAndEachFate) {
  // Level 1 fails after step 3 (the example below), level 2 is chosen.
  std::vector<PricePoint> p = {T(0, 500, 10), T(1, 510, 10), T(2, 520, 10), T(0, 530, 10),
                               T(1, 990, 10), Q(3, 515, 10), Q(4, 525, 10)};
  FixTrace trace;
  FixComputation f = ComputeFix(p, &trace);
  ASSERT_EQ(f.level, 2);
  ASSERT_EQ(trace.attempts.size(), 2u);
  EXPECT_TRUE(trace.attempts[0].meets);
  EXPECT_FALSE(trace.attempts[0].meets_after);
  EXPECT_EQ(trace.attempts[0].n_obs_after, 4);
  EXPECT_TRUE(trace.attempts[1].meets_after);
  ASSERT_EQ(trace.fates.size(), p.size());
  EXPECT_EQ(trace.fates[4], Fate::kOutlier);
  EXPECT_EQ(trace.fates[5], Fate::kUsed);
  EXPECT_EQ(trace.used.size(), 6u);
  EXPECT_EQ(RoundE6ToE4(trace.used[trace.fix_at].value_e6), f.fix_e4);
  // The trace changes nothing.
  FixComputation untraced = ComputeFix(p);
  EXPECT_EQ(untraced.fix_e4, f.fix_e4);
  FixTrace none;
  EXPECT_EQ(ComputeFix(std::vector<PricePoint>{T(0, 500, 1)}, &none).level, 0);
  EXPECT_EQ(none.fates, std::vector<Fate>{Fate::kNoLevel});
}

TEST(ComputeFixTest, LevelTwoHalvesQuoteWeights) {
  // Trades A 5.00, B 5.10, C 5.20, A 5.30 (100 h): 4 trades, not level 1.
  // Quotes D 5.40 (200 h), E 5.50 (100 h). Weights A .4/1.1 → capped 30%; B .2, C .2,
  // D .2, E .1 of the rest → cum .15 .35 .55 .70 .90 1.
  std::vector<PricePoint> p = {T(0, 500, 100), T(1, 510, 100), T(2, 520, 100),
                               T(0, 530, 100), Q(3, 540, 200), Q(4, 550, 100)};
  FixComputation f = ComputeFix(p);
  EXPECT_EQ(f.level, 2);
  EXPECT_EQ(f.fix_e4, 52000);
  EXPECT_EQ(f.p25_e4, 51000);
  EXPECT_EQ(f.p75_e4, 54000);
  EXPECT_EQ(f.n_obs, 6);
  EXPECT_EQ(f.n_providers, 5);
  EXPECT_EQ(f.volume_e6, 700 * kE6);  // quotes at full size
}

TEST(ComputeFixTest, OutlierDropFailingLevelOneFallsToLevelTwoWithItsOwnSet) {
  // 5 trades from 3 providers, one an outlier → 4 left → level 1 fails after step 3.
  // Level 2 takes all 7 points and filters them afresh.
  std::vector<PricePoint> p = {T(0, 500, 10), T(1, 510, 10), T(2, 520, 10), T(0, 530, 10),
                               T(1, 990, 10), Q(3, 515, 10), Q(4, 525, 10)};
  FixComputation f = ComputeFix(p);
  EXPECT_EQ(f.level, 2);
  EXPECT_EQ(f.n_dropped, 1);
  EXPECT_EQ(f.n_obs, 6);
}

// SPEC §8 step 3: "The level's thresholds are checked again after dropping": level 2
// passes before (5 observations, 3 providers) and fails after the outlier goes (4), so
// there is no fix of this day's own (level 3 carries the previous one, builder).
TEST(ComputeFixTest, LevelTwoFailingAfterItsOutlierDropGivesNoFixOfItsOwn) {
  // Provider medians A 5.025, B 5.10, C (5.20 + 9.90) / 2 = 7.55; m = 5.10, MAD = 0.075:
  // only C's 9.90 is beyond 3 × 1.4826 × MAD.
  std::vector<PricePoint> p = {T(0, 500, 10), T(1, 510, 10), Q(2, 520, 10), Q(0, 505, 10),
                               Q(2, 990, 10)};
  FixComputation f = ComputeFix(p);
  EXPECT_EQ(f.level, 0);
}

TEST(ComputeFixTest, TooFewGivesLevelZero) {
  std::vector<PricePoint> p = {T(0, 500, 10), T(1, 510, 10), Q(1, 520, 10), Q(0, 530, 10)};
  EXPECT_EQ(ComputeFix(p).level, 0);
  EXPECT_EQ(ComputeFix({}).level, 0);
}

}  // namespace
}  // namespace cfx::reference
