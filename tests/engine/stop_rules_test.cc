// One test per rule of SPEC §4 / §4.2 on stop and stop_limit orders (entry, the trigger,
// the order in which triggered stops enter, cascades), driven through the replay interface.
#include "engine_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cfx::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(StopTest, StopAlreadyMetWithEqualityIsRejected) {
  auto out = RunNoSeq({ProductLine(), Order("st", "A1", "buy", "stop", 1, R"(,"stop":"5.000")"),
                       Order("st2", "A1", "sell", "stop", 1, R"(,"stop":"5.000")"),
                       Order("st3", "A1", "buy", "stop", 1, R"(,"stop":"5.001")")});
  EXPECT_EQ(Grep(out, "invalid_stop_price").size(), 2u);
  EXPECT_EQ(Grep(out, "accepted").size(), 1u);
}

TEST(StopTest, StopWithoutLastTradeOrRefIsAccepted) {
  auto out = RunNoSeq({ProductLine(""), Order("st", "A1", "buy", "stop", 1, R"(,"stop":"5.000")")});
  EXPECT_EQ(Grep(out, "accepted").size(), 1u);
}

TEST(StopTest, StopLimitBecomesLimitAtPxAndRests) {
  auto out = RunNoSeq(
      {ProductLine(), Order("st", "A1", "buy", "stop_limit", 5, R"(,"stop":"5.010","px":"5.020")"),
       Limit("s1", "B1", "sell", "5.010", 1), Limit("b1", "C1", "buy", "5.010", 1)});
  EXPECT_EQ(Grep(out, "triggered").size(), 1u);
  EXPECT_EQ(out.back(), BookLine(R"([["5.020",5,1]])", "[]"));
}

TEST(StopTest, TriggeredBuyStopsEnterByAscendingStopThenTime) {
  auto out =
      RunNoSeq({ProductLine(), Order("t1", "A1", "buy", "stop", 1, R"(,"stop":"5.010")"),
                Order("t2", "A2", "buy", "stop", 1, R"(,"stop":"5.005")"),
                Order("t3", "A3", "buy", "stop", 1, R"(,"stop":"5.005")"),
                Limit("s1", "B1", "sell", "5.010", 10), Limit("b1", "C1", "buy", "5.010", 1)});
  EXPECT_THAT(Grep(out, "triggered"), ElementsAre(R"({"ev":"triggered","cl":"t2","acct":"A2"})",
                                                  R"({"ev":"triggered","cl":"t3","acct":"A3"})",
                                                  R"({"ev":"triggered","cl":"t1","acct":"A1"})"));
}

// SPEC §4: sells by descending stop price, then time of submission.
TEST(StopTest, TriggeredSellStopsEnterByDescendingStopThenTime) {
  auto out =
      RunNoSeq({ProductLine(), Order("t1", "A1", "sell", "stop", 1, R"(,"stop":"4.990")"),
                Order("t2", "A2", "sell", "stop", 1, R"(,"stop":"4.995")"),
                Order("t3", "A3", "sell", "stop", 1, R"(,"stop":"4.995")"),
                Limit("b1", "B1", "buy", "4.990", 10), Limit("s1", "C1", "sell", "4.990", 1)});
  EXPECT_THAT(Grep(out, "triggered"), ElementsAre(R"({"ev":"triggered","cl":"t2","acct":"A2"})",
                                                  R"({"ev":"triggered","cl":"t3","acct":"A3"})",
                                                  R"({"ev":"triggered","cl":"t1","acct":"A1"})"));
  // Each entered as a market sell against the resting buy, in that order.
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("4.990", 1, "b1", "B1", "s1", "C1", "sell"),
                                              Trade("4.990", 1, "b1", "B1", "t2", "A2", "sell"),
                                              Trade("4.990", 1, "b1", "B1", "t3", "A3", "sell"),
                                              Trade("4.990", 1, "b1", "B1", "t1", "A1", "sell")));
}

// SPEC §4: "a price change or a quantity increase loses time priority"; a pending stop so
// replaced counts as submitted at the replace among the stops one print triggers (until
// 2026-12-04 it kept its first submission time). A decrease keeps its place.
TEST(StopTest, AReplaceThatLosesPriorityMovesAPendingStopBehindLaterStops) {
  auto out =
      RunNoSeq({ProductLine(), Order("up", "A1", "buy", "stop", 1, R"(,"stop":"5.010")"),
                Order("lim", "A2", "buy", "stop_limit", 1, R"(,"stop":"5.010","px":"5.030")"),
                Order("down", "A3", "buy", "stop", 3, R"(,"stop":"5.010")"),
                Order("late", "A4", "buy", "stop", 1, R"(,"stop":"5.010")"),
                ReplaceLine("up2", "up", "A1", R"(,"qty":2)"),         // more: behind "late"
                ReplaceLine("lim2", "lim", "A2", R"(,"px":"5.040")"),  // a new price: behind too
                ReplaceLine("down2", "down", "A3", R"(,"qty":1)"),     // less: keeps its place
                Limit("s1", "B1", "sell", "5.010", 1), Limit("s2", "B1", "sell", "5.050", 10),
                Limit("b1", "C1", "buy", "5.010", 1)});
  EXPECT_THAT(Grep(out, "triggered"), ElementsAre(R"({"ev":"triggered","cl":"down2","acct":"A3"})",
                                                  R"({"ev":"triggered","cl":"late","acct":"A4"})",
                                                  R"({"ev":"triggered","cl":"up2","acct":"A1"})",
                                                  R"({"ev":"triggered","cl":"lim2","acct":"A2"})"));
}

// SPEC §4.2: a triggered stop_limit's time priority starts when it enters: it queues
// behind an order already resting at its price.
TEST(StopTest, ATriggeredStopLimitQueuesBehindOrdersAlreadyAtItsPrice) {
  auto out = RunNoSeq(
      {ProductLine(), Order("st", "A1", "buy", "stop_limit", 2, R"(,"stop":"5.010","px":"4.990")"),
       Limit("early", "A2", "buy", "4.990", 2), Limit("s1", "B1", "sell", "5.010", 1),
       Limit("b1", "C1", "buy", "5.010", 1), Limit("s2", "B1", "sell", "4.990", 3)});
  EXPECT_EQ(Grep(out, "triggered").size(), 1u);
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.010", 1, "b1", "C1", "s1", "B1", "buy"),
                                              Trade("4.990", 2, "early", "A2", "s2", "B1", "sell"),
                                              Trade("4.990", 1, "st", "A1", "s2", "B1", "sell")));
  EXPECT_EQ(out.back(), BookLine(R"([["4.990",1,1]])", "[]"));
}

// A product without band: a pending stop_limit's price far from the orders entered after it
// still rests when the stop triggers. Until 2026-12-04 an order entered later could move the
// dense window away from that price, and the trigger found no room: an assert, the process
// gone; until 2026-12-06 the window's cap refused 2000.000 as `price_outside_band`. Now
// every price rests, in the window or in a far level (docs/engine.md).
TEST(StopTest, AStopLimitFarFromLaterOrdersStillRestsWhenTriggered) {
  auto out =
      RunNoSeq({ProductLine(""), Limit("a", "A1", "buy", "1000.000", 1),
                Order("s", "A1", "buy", "stop_limit", 1, R"(,"stop":"1.000","px":"1.000")"),
                Limit("b", "B1", "sell", "2000.000", 1), Limit("c", "B1", "sell", "1000.000", 1)});
  // The trade at 1000.000 triggers the stop, which rests at 1.000, 1,999,000 ticks below
  // the ask: wider than the window's cap of 2^20 levels.
  EXPECT_THAT(Grep(out, "\"rejected\""), ElementsAre());
  EXPECT_EQ(Grep(out, "triggered").size(), 1u);
  EXPECT_EQ(out.back(), BookLine(R"([["1.000",1,1]])", R"([["2000.000",1,1]])"));
}

TEST(StopTest, CascadeTriggersFurtherStops) {
  auto out =
      RunNoSeq({ProductLine(), Order("t1", "A1", "buy", "stop", 1, R"(,"stop":"5.010")"),
                Order("t2", "A2", "buy", "stop", 1, R"(,"stop":"5.020")"),
                Limit("s1", "B1", "sell", "5.010", 1), Limit("s2", "B1", "sell", "5.020", 1),
                Limit("s3", "B1", "sell", "5.030", 1), Limit("b1", "C1", "buy", "5.010", 1)});
  EXPECT_EQ(Grep(out, "triggered").size(), 2u);
  EXPECT_EQ(Grep(out, "trade").back(), Trade("5.030", 1, "t2", "A2", "s3", "B1", "buy"));
}

TEST(StopTest, StopsRestPendingInPreOpen) {
  auto out = RunNoSeq({ProductLine(), StateLine("pre_open"),
                       Order("st", "A1", "buy", "stop", 1, R"(,"stop":"5.100")"),
                       Order("m", "A1", "buy", "market", 1, "")});
  EXPECT_EQ(Grep(out, "accepted").size(), 1u);
  EXPECT_EQ(Grep(out, "market_closed").size(), 1u);
}

}  // namespace
}  // namespace cfx::engine::testing
