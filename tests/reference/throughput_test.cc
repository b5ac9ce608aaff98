#include "cfx/reference/throughput.h"

#include <charconv>
#include <random>
#include <string>
#include <vector>

#include "cfx/common/decimal.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace cfx::reference {
namespace {

using testing::kMon;
using testing::Tp;

OperatorThroughput Op(const char* op, common::Tier tier, const char* date, double tps,
                      const char* gpu = "B200") {
  return {op, tier, gpu, *common::ParseDate(date), tps};
}

TEST(ThetaTest, MedianOfLatestPerOperatorLaterRowWinsOnSameDate) {
  std::vector<ThroughputRow> rows = {Tp("2027-03-01", "A", common::Tier::kGold, 2000),
                                     Tp("2027-03-01", "A", common::Tier::kGold, 2100),
                                     Tp("2027-03-01", "B", common::Tier::kGold, 3000),
                                     Tp("2027-03-01", "C", common::Tier::kSilv, 100),
                                     Tp("2027-03-01", "D", common::Tier::kGold, 5000, "H100")};
  // GOLD/B200: A 210 (later row), B 300 -> (210 + 300) / 2 = 255 -> 2θ = 510.
  EXPECT_EQ(GradeTheta(rows, "B200", common::Tier::kGold, kMon), (Theta{210'000'000, 300'000'000}));
  EXPECT_EQ(GradeTheta(rows, "B200", common::Tier::kGold, kMon)->two_theta_e6(), 510'000'000);
  EXPECT_EQ(GradeTheta(rows, "B200", common::Tier::kPlat, kMon), std::nullopt);
  EXPECT_EQ(GradeTheta(rows, "B200", common::Tier::kGold, common::DateFromYmd(2027, 2, 28)),
            std::nullopt);
  // The store's and valuation's rows give the same θ.
  const std::vector<OperatorThroughput> ops = ToOperatorThroughput(rows);
  EXPECT_EQ(GradeTheta(ops, "B200", common::Tier::kGold, kMon),
            GradeTheta(rows, "B200", common::Tier::kGold, kMon));
  EXPECT_EQ(GradeTheta(ops, "B200", common::Tier::kGold, kMon)->Value(), 255.0);
  EXPECT_EQ(GradeTheta(ops, "H100", common::Tier::kGold, kMon)->Value(), 500.0);
  EXPECT_EQ(GradeTheta(ops, "H100", common::Tier::kGold, std::nullopt)->Value(), 500.0);
}

TEST(ThetaTest, OddCountIsTheMiddleValueEvenCountTheMeanOfTheMiddleTwo) {
  std::vector<OperatorThroughput> rows = {Op("a", common::Tier::kGold, "2027-03-01", 1000),
                                          Op("b", common::Tier::kGold, "2027-03-01", 1300),
                                          Op("c", common::Tier::kPlat, "2027-03-01", 9000)};
  EXPECT_EQ(GradeTheta(rows, "B200", common::Tier::kGold, std::nullopt)->Value(), 1150);
  rows.push_back(Op("d", common::Tier::kGold, "2027-03-01", 1200));
  EXPECT_EQ(GradeTheta(rows, "B200", common::Tier::kGold, std::nullopt),
            (Theta{1'200'000'000, 1'200'000'000}));
  EXPECT_FALSE(GradeTheta(rows, "B200", common::Tier::kSilv, std::nullopt).has_value());
}

TEST(ThetaTest, ValueIsCorrectlyRounded) {
  // The sample data's B200 GOLD on 2027-03-01: middle values 260.3 and 261.1.
  const Theta theta{260'300'000, 261'100'000};
  EXPECT_EQ(theta.Value(), 260.7);  // lower + (upper - lower) / 2 in double: 260.70000000000005
  const Theta odd{260'700'000, 260'700'000};
  EXPECT_EQ(odd.Value(), 260.7);
}

TEST(ThroughputTest, LatestPerOperatorByDateThenLaterRowAndOnlyUpToAsOf) {
  std::vector<OperatorThroughput> rows = {
      Op("a", common::Tier::kGold, "2027-03-02", 10),
      Op("a", common::Tier::kGold, "2027-03-01", 20),
      Op("a", common::Tier::kGold, "2027-03-02", 30),          // same date, later row wins
      Op("a", common::Tier::kGold, "2027-03-05", 40),          // after as_of
      Op("a", common::Tier::kGold, "2027-03-01", 50, "H100"),  // another gpu is another series
  };
  auto latest = LatestPerOperator(rows, *common::ParseDate("2027-03-03"));
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest[0].gpu, "B200");
  EXPECT_EQ(latest[0].output_tps_per_gpu, 30);
  EXPECT_EQ(latest[1].output_tps_per_gpu, 50);
  EXPECT_EQ(LatestPerOperator(rows, std::nullopt)[0].output_tps_per_gpu, 40);
  EXPECT_TRUE(LatestPerOperator(rows, *common::ParseDate("2027-02-28")).empty());
}

TEST(ThroughputTest, DoubleOfTpsE6IsTheDoubleOfTheDecimalTextAndRoundTrips) {
  // tps_e6 / 10^6 and parsing the text are both correctly rounded, so they agree bit for
  // bit; TpsE6 recovers the integer over the whole accepted range.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const int64_t e6 = 1 + static_cast<int64_t>(rng() % 1'000'000'000'000'000ULL);
    const std::string text = common::FormatScaled(e6, 6);
    double parsed = 0;
    std::from_chars(text.data(), text.data() + text.size(), parsed);
    ThroughputRow row = Tp("2027-03-01", "a", common::Tier::kGold, 1);
    row.tps_e6 = e6;
    const OperatorThroughput op = ToOperatorThroughput(row);
    ASSERT_EQ(op.output_tps_per_gpu, parsed) << text;
    ASSERT_EQ(TpsE6(op), e6) << text;
  }
}

}  // namespace
}  // namespace cfx::reference
