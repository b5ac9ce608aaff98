#include "cfx/gpu_valuation/scenarios.h"

#include <cstring>

#include "cfx/gpu_valuation/margin_engine.h"
#include "gtest/gtest.h"

namespace cfx::gpu_valuation {
namespace {

TsrTable GoldTsr(double gold) {
  TsrTable t;
  t.Set("B200", common::Tier::kGold, gold);
  t.Set("B200", common::Tier::kPlat, 0.2);
  return t;
}

TEST(Span16Test, TableMatchesSpecNumberingAndValues) {
  auto set = BuildSpan16(0.15, GoldTsr(0.1));
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->scenarios.size(), 16u);
  EXPECT_EQ(set->rank, 1);
  // (a in thirds of PSR, b sign, weight) for scenarios 1..16, SPEC §10.
  const struct {
    double thirds, sign, weight;
  } kExpected[16] = {{0, 1, 1},  {0, -1, 1},  {1, 1, 1},    {1, -1, 1},   {-1, 1, 1}, {-1, -1, 1},
                     {2, 1, 1},  {2, -1, 1},  {-2, 1, 1},   {-2, -1, 1},  {3, 1, 1},  {3, -1, 1},
                     {-3, 1, 1}, {-3, -1, 1}, {9, 0, 0.35}, {-9, 0, 0.35}};
  for (int i = 0; i < 16; ++i) {
    const Scenario& s = set->scenarios[i];
    SCOPED_TRACE(i + 1);
    EXPECT_EQ(s.label, std::to_string(i + 1));
    EXPECT_DOUBLE_EQ(s.price_move, 0.15 * kExpected[i].thirds / 3.0);
    EXPECT_DOUBLE_EQ(s.weight, kExpected[i].weight);
    EXPECT_DOUBLE_EQ(set->TputMove(s, "B200", common::Tier::kGold), kExpected[i].sign * 0.1);
    EXPECT_DOUBLE_EQ(set->TputMove(s, "B200", common::Tier::kPlat), kExpected[i].sign * 0.2);
    // A gpu without measurements is scanned at the widest TSR.
    EXPECT_DOUBLE_EQ(set->TputMove(s, "H100", common::Tier::kGold),
                     kExpected[i].sign * kTsrUnmeasured);
  }
  EXPECT_DOUBLE_EQ(set->scenarios[2].price_move, 0.05);
  EXPECT_DOUBLE_EQ(set->scenarios[6].price_move, 0.1);
  EXPECT_DOUBLE_EQ(set->scenarios[14].price_move, 0.45);
  EXPECT_DOUBLE_EQ(set->scenarios[15].price_move, -0.45);
}

TEST(Span16Test, RejectsPsrOutsideRange) {
  EXPECT_FALSE(BuildSpan16(0.0, TsrTable()).ok());
  EXPECT_FALSE(BuildSpan16(-0.1, TsrTable()).ok());
  EXPECT_FALSE(BuildSpan16(0.34, TsrTable()).ok());
  EXPECT_TRUE(BuildSpan16(1.0 / 3.0, TsrTable()).ok());
}

TEST(MonteCarloTest, SameSeedGivesBitIdenticalScenarios) {
  auto a = BuildMonteCarlo(0.15, GoldTsr(0.1), 1000, 42);
  auto b = BuildMonteCarlo(0.15, GoldTsr(0.1), 1000, 42);
  auto c = BuildMonteCarlo(0.15, GoldTsr(0.1), 1000, 43);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const Scenario& x = a->scenarios[i];
    const Scenario& y = b->scenarios[i];
    EXPECT_EQ(std::memcmp(&x.price_move, &y.price_move, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(x.tput_factor.data(), y.tput_factor.data(), sizeof(x.tput_factor)), 0);
    differs |= x.price_move != c->scenarios[i].price_move;
  }
  EXPECT_TRUE(differs);
}

TEST(MonteCarloTest, RankIsOnePercentAndMovesAreBoundedAndPlausible) {
  EXPECT_EQ(BuildMonteCarlo(0.15, TsrTable(), 10000, 1)->rank, 100);
  EXPECT_EQ(BuildMonteCarlo(0.15, TsrTable(), 250, 1)->rank, 2);
  EXPECT_EQ(BuildMonteCarlo(0.15, TsrTable(), 99, 1)->rank, 1);
  EXPECT_FALSE(BuildMonteCarlo(0.15, TsrTable(), 0, 1).ok());
  auto set = BuildMonteCarlo(0.15, GoldTsr(0.1), 20000, 7);
  double sum = 0, sum_sq = 0;
  for (const Scenario& s : set->scenarios) {
    EXPECT_LE(std::abs(s.price_move), 0.15 * kMcZClamp / 3.0);
    EXPECT_LE(std::abs(s.tput_factor[0]), kMcZClamp / 3.0);
    sum += s.price_move;
    sum_sq += s.price_move * s.price_move;
  }
  const double n = 20000;
  EXPECT_NEAR(sum / n, 0.0, 0.002);
  EXPECT_NEAR(std::sqrt(sum_sq / n), 0.05, 0.002);  // sd = PSR / 3
}

TEST(UTableTest, RoundsExactHalvesToEven) {
  // settle 1.000, a = 2^-10: (1 + 2^-10 - 1) * 1000 * 1e6 = 976562.5 exactly.
  EXPECT_EQ(ScenarioValueChangeMicro(1000, 0x1.0p-10, 0.0, 1.0), 976562);
  EXPECT_EQ(ScenarioValueChangeMicro(1000, 3 * 0x1.0p-10, 0.0, 1.0), 2929688);
  EXPECT_EQ(ScenarioValueChangeMicro(1000, -0x1.0p-10, 0.0, 1.0), -976562);
  EXPECT_EQ(ScenarioValueChangeMicro(5000, 0.0, 0.0, 1.0), 0);
  // 5.000 x 0.85 x 0.95 - 5.000 = -0.9625 -> -962.50 USD per contract.
  EXPECT_EQ(ScenarioValueChangeMicro(5000, -0.15, -0.05, 1.0), -962'500'000);
  EXPECT_EQ(ScenarioValueChangeMicro(5000, -0.45, 0.0, 0.35), -787'500'000);
}

TEST(UTableTest, FormatsMicroUsdAsCentsHalfEven) {
  EXPECT_EQ(FormatMicroAsUsd(1'234'565'000), "1234.56");
  EXPECT_EQ(FormatMicroAsUsd(1'234'575'000), "1234.58");
  EXPECT_EQ(FormatMicroAsUsd(5'001), "0.01");
  EXPECT_EQ(FormatMicroAsUsd(0), "0.00");
  EXPECT_EQ(FormatMicroAsUsd(-5'000), "0.00");
}

}  // namespace
}  // namespace cfx::gpu_valuation
