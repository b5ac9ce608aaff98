// SPEC §4.1: a product without `ref` has no band, so any price of at least one tick rests.
// The book keeps a dense window of price levels and the prices outside it in far levels
// (docs/engine.md, "Dense window and far levels"); these tests check the rules hold across
// both and that a client cannot make the window cost more than its cap.
#include <string>
#include <vector>

#include "cfx/engine/engine.h"
#include "engine_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cfx::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Prices as `cfx replay` writes them: `ticks` thousandths of a USD.
std::string Px(int64_t ticks) {
  std::string s = std::to_string(ticks / 1000) + ".";
  std::string frac = std::to_string(ticks % 1000);
  return s + std::string(3 - frac.size(), '0') + frac;
}

EngineConfig WindowOf(size_t levels) {
  EngineConfig c;
  c.max_grid_levels = levels;
  return c;
}

TEST(PriceWindowTest, AnyPriceOfAtLeastOneTickRestsAndTradesInPriceOrder) {
  auto out =
      RunNoSeq({ProductLine(""), Limit("s1", "B1", "sell", "9223372036854775.807", 1),
                Limit("s2", "B1", "sell", "3000.000", 1), Limit("s3", "B1", "sell", "1048.577", 1),
                Limit("b1", "A1", "buy", "0.001", 1), Limit("b2", "A1", "buy", "5.000", 1)});
  EXPECT_THAT(Grep(out, "rejected"), IsEmpty());
  EXPECT_EQ(out.back(),
            BookLine(R"([["5.000",1,1],["0.001",1,1]])",
                     R"([["1048.577",1,1],["3000.000",1,1],["9223372036854775.807",1,1]])"));
  // One buy at the largest price sweeps the asks best first, each at its resting price.
  auto sweep =
      RunNoSeq({ProductLine(""), Limit("s1", "B1", "sell", "9223372036854775.807", 1),
                Limit("s2", "B1", "sell", "3000.000", 1), Limit("s3", "B1", "sell", "1048.577", 1),
                Limit("b", "A1", "buy", "9223372036854775.807", 3)});
  EXPECT_THAT(Grep(sweep, "trade"),
              ElementsAre(Trade("1048.577", 1, "b", "A1", "s3", "B1", "buy"),
                          Trade("3000.000", 1, "b", "A1", "s2", "B1", "buy"),
                          Trade("9223372036854775.807", 1, "b", "A1", "s1", "B1", "buy")));
  EXPECT_EQ(sweep.back(), BookLine("[]", "[]"));
}

// The auction's candidates are every tick between the lowest and the highest price, also
// when they are 3,000 USD apart: here 2500.000 (most volume, no imbalance, the lower of the
// tied prices). And with a reference, the tick nearest it inside a gap between two far
// levels, where no order rests: 5.000 between 4.600 and 5.400, in a window of 16 levels.
TEST(PriceWindowTest, TheAuctionPriceMayLieAnywhereBetweenFarLevels) {
  auto out =
      RunNoSeq({ProductLine(""), StateLine("pre_open"), Limit("b", "A1", "buy", "3000.000", 2),
                Limit("s1", "B1", "sell", "1.000", 1), Limit("s2", "B1", "sell", "2500.000", 1),
                StateLine("open")});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("2500.000", 1, "b", "A1", "s1", "B1", "none"),
                                              Trade("2500.000", 1, "b", "A1", "s2", "B1", "none")));
  Engine engine(WindowOf(16));
  auto with_ref =
      RunNoSeq({ProductLine("5.000"), StateLine("pre_open"), Limit("b", "A1", "buy", "5.400", 2),
                Limit("s", "B1", "sell", "4.600", 2), StateLine("open")},
               &engine);
  EXPECT_THAT(Grep(with_ref, "trade"),
              ElementsAre(Trade("5.000", 2, "b", "A1", "s", "B1", "none")));
}

// An emptied book's window moves to where the orders are now (the base alone: no new
// array), and far levels it comes over move into it.
TEST(PriceWindowTest, TheWindowFollowsAnEmptiedBookAndTakesInFarLevels) {
  Engine engine(WindowOf(1024));
  RunNoSeq({ProductLine(""), Limit("a", "A1", "buy", "1.000", 1),
            Limit("far", "A1", "buy", "5000.000", 1)},
           &engine);
  const OrderBook& book = engine.book(0);
  EXPECT_EQ(book.window_levels(), 1024);
  EXPECT_EQ(book.far_level_count(), 1u);  // 5000.000 is 4,999,000 ticks from the window
  auto out = RunNoSeq({CancelLine("a", "A1"), Limit("b", "A1", "buy", "5000.100", 1)}, &engine);
  EXPECT_EQ(book.window_levels(), 1024);
  EXPECT_EQ(book.far_level_count(), 0u);
  EXPECT_LE(book.window_base(), PriceTicks(5'000'000));
  EXPECT_EQ(out.back(), BookLine(R"([["5000.100",1,1],["5000.000",1,1]])", "[]"));
  // And they trade in price-time order from there.
  out = RunNoSeq({Limit("s", "B1", "sell", "4000.000", 2)}, &engine);
  EXPECT_THAT(Grep(out, "trade"),
              ElementsAre(Trade("5000.100", 1, "b", "A1", "s", "B1", "sell"),
                          Trade("5000.000", 1, "far", "A1", "s", "B1", "sell")));
}

// A client spreading orders over prices far apart gets far levels, one per price: the
// window keeps its cap, and every level goes when its orders do.
TEST(PriceWindowTest, FarPricesCostALevelEachAndTheWindowKeepsItsCap) {
  Engine engine(WindowOf(1 << 12));
  std::vector<std::string> lines = {ProductLine(""), Limit("anchor", "A1", "buy", "2.000", 1)};
  constexpr int kFar = 2000;
  for (int i = 1; i <= kFar; ++i) {
    const int64_t ticks = 2'000 + int64_t{i} * (1 << 13);  // each past the window's reach
    lines.push_back(Limit("o" + std::to_string(i), "B1", "sell", Px(ticks), 1));
  }
  auto out = RunNoSeq(lines, &engine);
  EXPECT_THAT(Grep(out, "rejected"), IsEmpty());
  const OrderBook& book = engine.book(0);
  // The window stays where the anchor put it (1,024 levels: no far price fits with the
  // anchor in 4,096), and each far price has a level of its own.
  EXPECT_EQ(book.window_levels(), 1024);
  EXPECT_EQ(book.far_level_count(), static_cast<size_t>(kFar));
  EXPECT_EQ(book.BestPrice(Side::kSell), PriceTicks(2'000 + (1 << 13)));
  std::vector<std::string> cancels;
  for (int i = 1; i <= kFar; ++i) cancels.push_back(CancelLine("o" + std::to_string(i), "B1"));
  RunNoSeq(cancels, &engine);
  EXPECT_EQ(book.far_level_count(), 0u);
  EXPECT_FALSE(book.HasBest(Side::kSell));
  EXPECT_EQ(engine.live_orders(), 1u);
}

}  // namespace
}  // namespace cfx::engine::testing
