// The production margin source of `cfx settle` (SPEC §9 step 4: span16 initial margin).
#include "cfx/settlement/valuation_margin.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "test_util.h"

namespace cfx::settlement {
namespace {

using testing::D;

// A data dir where `cfx reference build` never ran has no throughput: the margin is still
// span16 (every tier at the conservative throughput move), not 0. Until 2026-12-07 such a
// settlement took initial margin as 0 and called only for negative cash (a review). The
// source from a data dir without a reference store is NotFound, creating nothing.
TEST(ValuationMarginTest, WithoutThroughputTheMarginIsStillSpan16) {
  testing::TempDir dir;
  auto none = OpenValuationMarginSource(dir.path(), D("2027-03-01"), 0.15);
  EXPECT_TRUE(absl::IsNotFound(none.status())) << none.status();
  auto margin = ValuationMarginWithoutThroughput(D("2027-03-01"), 0.15);
  const SettlePrices prices = {{"B200-GOLD-US-202703", common::PriceTicks(5000)}};
  const std::vector<SymQty> short_100 = {{"B200-GOLD-US-202703", common::Qty(-100)}};
  auto m = margin->InitialMargin("A1", short_100, prices);
  ASSERT_TRUE(m.ok()) << m.status();
  // At least the price scan alone: 100 lots × 1000 GPU-hours × 5.000 × 0.15 = USD 75,000.
  EXPECT_GE(m->value(), int64_t{75'000} * 1'000'000) << m->value();
  auto flat = margin->InitialMargin("A2", {}, prices);
  ASSERT_TRUE(flat.ok()) << flat.status();
  EXPECT_EQ(flat->value(), 0);
}

}  // namespace
}  // namespace cfx::settlement
