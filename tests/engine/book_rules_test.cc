// One test per matching rule of SPEC §4 / §4.2, driven through the replay interface.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cfx::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(OrderBookTest, EarlierOrderAtSamePriceFillsFirst) {
  auto out =
      RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 2),
                Limit("s2", "C1", "sell", "5.000", 2), Limit("b1", "A1", "buy", "5.000", 3)});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 2, "b1", "A1", "s1", "B1", "buy"),
                                              Trade("5.000", 1, "b1", "A1", "s2", "C1", "buy")));
}

TEST(OrderBookTest, BetterPriceFillsFirstAndTradesPrintAtRestingPrice) {
  auto out =
      RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.010", 2),
                Limit("s2", "C1", "sell", "5.000", 2), Limit("b1", "A1", "buy", "5.020", 3)});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 2, "b1", "A1", "s2", "C1", "buy"),
                                              Trade("5.010", 1, "b1", "A1", "s1", "B1", "buy")));
}

TEST(OrderBookTest, IocRemainderIsCanceled) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 4),
                       Limit("b1", "A1", "buy", "5.000", 10, R"(,"tif":"ioc")")});
  EXPECT_EQ(Grep(out, "canceled")[0], Canceled("b1", "A1", 6, "ioc"));
}

TEST(OrderBookTest, MarketOrderWithEmptyOppositeSideIsCanceledNoLiquidity) {
  auto out = RunNoSeq({ProductLine(), Order("m1", "A1", "buy", "market", 5, "")});
  EXPECT_THAT(out, ElementsAre(R"({"ev":"accepted","cl":"m1","acct":"A1"})",
                               Canceled("m1", "A1", 5, "no_liquidity"), BookLine("[]", "[]")));
}

TEST(OrderBookTest, MarketProtectionIsInclusiveAndRemainderCanceledIoc) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 1),
                       Limit("s2", "B1", "sell", "5.050", 1), Limit("s3", "B1", "sell", "5.051", 1),
                       Order("m1", "A1", "buy", "market", 5, "")});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 1, "m1", "A1", "s1", "B1", "buy"),
                                              Trade("5.050", 1, "m1", "A1", "s2", "B1", "buy")));
  EXPECT_EQ(Grep(out, "canceled")[0], Canceled("m1", "A1", 3, "ioc"));
}

// The protection's bound saturates: an ask at the largest price a tick count holds plus 50
// ticks overflowed (undefined behaviour; the bound wrapped negative and the market buy was
// canceled `ioc` with the ask in reach).
TEST(OrderBookTest, MarketProtectionAtTheLargestPriceStillTrades) {
  auto out = RunNoSeq({R"({"op":"product","sym":"B200-GOLD-US-202703"})",
                       Limit("s1", "B1", "sell", "9223372036854775.807", 1),
                       Order("m1", "A1", "buy", "market", 1, "")});
  EXPECT_THAT(Grep(out, "trade"),
              ElementsAre(Trade("9223372036854775.807", 1, "m1", "A1", "s1", "B1", "buy")));
}

// A band around the largest ref a tick count holds: its bounds are computed in 128 bits
// (ref × 110 overflowed: undefined behaviour, caught by the sanitizer build). The band is
// far wider than the dense window; its prices rest all the same (far levels, docs/engine.md).
// Until 2026-12-06 the window's cap acted as a band of its own and refused b1.
TEST(OrderBookTest, ABandAroundTheLargestRefDoesNotOverflow) {
  auto out =
      RunNoSeq({R"({"op":"product","sym":"B200-GOLD-US-202703","ref":"9223372036854775.807"})",
                Limit("b1", "A1", "buy", "9223372036854775.807", 1),
                Limit("b2", "A1", "buy", "8301034833169298.227", 1),
                Limit("b3", "A1", "buy", "8301034833169298.226", 1)});
  EXPECT_THAT(
      Grep(out, "rejected"),
      ElementsAre(R"({"ev":"rejected","cl":"b3","acct":"A1","reason":"price_outside_band"})"));
  EXPECT_EQ(out.back(),
            BookLine(R"([["9223372036854775.807",1,1],["8301034833169298.227",1,1]])", "[]"));
}

TEST(OrderBookTest, PostOnlyThatWouldCrossIsRejected) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 1),
                       Limit("b1", "A1", "buy", "5.000", 1, R"(,"post_only":true)")});
  EXPECT_EQ(Grep(out, "rejected")[0],
            R"({"ev":"rejected","cl":"b1","acct":"A1","reason":"post_only_would_cross"})");
}

TEST(OrderBookTest, PostOnlyCrossingIsAcceptedInPreOpen) {
  auto out = RunNoSeq({ProductLine(), StateLine("pre_open"), Limit("s1", "B1", "sell", "5.000", 1),
                       Limit("b1", "A1", "buy", "5.000", 1, R"(,"post_only":true)")});
  EXPECT_EQ(Grep(out, "accepted").size(), 2u);
  EXPECT_THAT(Grep(out, "trade"), IsEmpty());
}

TEST(OrderBookTest, IcebergShowsDisplayAndRefillsToBackOfLevel) {
  auto out =
      RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 10, R"(,"display":3)"),
                Limit("s2", "C1", "sell", "5.000", 2), Limit("b1", "A1", "buy", "5.000", 4)});
  // s1's first slice (3) trades, s1 refills and goes behind s2, so s2 trades next.
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 3, "b1", "A1", "s1", "B1", "buy"),
                                              Trade("5.000", 1, "b1", "A1", "s2", "C1", "buy")));
  EXPECT_EQ(out.back(), BookLine("[]", R"([["5.000",4,2]])"));
}

TEST(OrderBookTest, IcebergPrintsOneTradePerSlice) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 5, R"(,"display":2)"),
                       Limit("b1", "A1", "buy", "5.000", 5)});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 2, "b1", "A1", "s1", "B1", "buy"),
                                              Trade("5.000", 2, "b1", "A1", "s1", "B1", "buy"),
                                              Trade("5.000", 1, "b1", "A1", "s1", "B1", "buy")));
}

TEST(OrderBookTest, CanceledQtyIncludesHiddenIcebergQuantity) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 10, R"(,"display":3)"),
                       CancelLine("s1", "B1")});
  EXPECT_EQ(Grep(out, "canceled")[0], Canceled("s1", "B1", 10, "user"));
}

TEST(OrderBookTest, CancelOfUnknownEndedOrOtherAccountsOrderIsRejectedUnknownOrder) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 1), CancelLine("s1", "X1"),
                       CancelLine("zz", "B1"), CancelLine("s1", "B1"), CancelLine("s1", "B1")});
  auto rej = Grep(out, "cancel_rejected");
  ASSERT_EQ(rej.size(), 3u);
  EXPECT_EQ(rej[0], R"({"ev":"cancel_rejected","orig":"s1","acct":"X1","reason":"unknown_order"})");
}

// A client id's record keeps the slot its order had (order_store.h: the store has no oid
// map), and the pool gives an ended order's slot to the next order accepted. A cancel or
// replace by the ended order's id must not reach the order now in that slot, whether the
// first ended by a cancel or by a fill, of the same account or another.
TEST(OrderBookTest, CancelByAnEndedOrdersIdDoesNotReachTheOrderNowInItsSlot) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 1), CancelLine("s1", "B1"),
                       Limit("s2", "B1", "sell", "5.010", 2), CancelLine("s1", "B1"),
                       ReplaceLine("s1b", "s1", "B1", R"(,"qty":5)"),
                       Limit("s3", "C1", "sell", "5.020", 1), Limit("b1", "A1", "buy", "5.020", 1),
                       Limit("b2", "D1", "buy", "4.900", 3), CancelLine("b1", "A1")});
  EXPECT_EQ(Grep(out, "unknown_order").size(), 3u);
  EXPECT_THAT(Grep(out, "canceled"), ElementsAre(Canceled("s1", "B1", 1, "user")));
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.010", 1, "b1", "A1", "s2", "B1", "buy")));
  EXPECT_EQ(out.back(), BookLine(R"([["4.900",3,1]])", R"([["5.010",1,1],["5.020",1,1]])"));
}

TEST(OrderBookTest, ClientIdStaysTakenAfterOrderEnds) {
  auto out = RunNoSeq({ProductLine(), Limit("b1", "A1", "buy", "4.900", 1), CancelLine("b1", "A1"),
                       Limit("b1", "A1", "buy", "4.900", 1), Limit("b1", "A2", "buy", "4.900", 1)});
  EXPECT_EQ(Grep(out, "duplicate_client_id").size(), 1u);
  EXPECT_EQ(Grep(out, "accepted").size(), 2u);  // same id, other account: fine
}

TEST(OrderBookTest, ReplaceWithHigherQtyLosesPriority) {
  auto out = RunNoSeq(
      {ProductLine(), Limit("s1", "B1", "sell", "5.000", 2), Limit("s2", "C1", "sell", "5.000", 2),
       ReplaceLine("s1b", "s1", "B1", R"(,"qty":3)"), Limit("b1", "A1", "buy", "5.000", 2)});
  EXPECT_EQ(Grep(out, "replaced")[0],
            R"({"ev":"replaced","cl":"s1b","orig":"s1","acct":"B1","px":"5.000","qty":3})");
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 2, "b1", "A1", "s2", "C1", "buy")));
}

TEST(OrderBookTest, ReplaceWithLowerQtyAtSamePriceKeepsPriority) {
  auto out = RunNoSeq(
      {ProductLine(), Limit("s1", "B1", "sell", "5.000", 5), Limit("s2", "C1", "sell", "5.000", 2),
       ReplaceLine("s1b", "s1", "B1", R"(,"qty":3)"), Limit("b1", "A1", "buy", "5.000", 2)});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 2, "b1", "A1", "s1b", "B1", "buy")));
}

TEST(OrderBookTest, ReplaceWithPriceChangeLosesPriority) {
  auto out = RunNoSeq(
      {ProductLine(), Limit("s1", "B1", "sell", "5.010", 2), Limit("s2", "C1", "sell", "5.000", 2),
       ReplaceLine("s1b", "s1", "B1", R"(,"px":"5.000")"), Limit("b1", "A1", "buy", "5.000", 2)});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 2, "b1", "A1", "s2", "C1", "buy")));
}

TEST(OrderBookTest, ReplaceThatChangesNothingKeepsPriority) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 2),
                       Limit("s2", "C1", "sell", "5.000", 2), ReplaceLine("s1b", "s1", "B1", ""),
                       Limit("b1", "A1", "buy", "5.000", 2)});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 2, "b1", "A1", "s1b", "B1", "buy")));
}

TEST(OrderBookTest, ReplaceToTotalAtOrBelowExecutedEndsOrder) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 5),
                       Limit("b1", "A1", "buy", "5.000", 3),
                       ReplaceLine("s1b", "s1", "B1", R"(,"qty":3)")});
  EXPECT_EQ(Grep(out, "canceled")[0], Canceled("s1b", "B1", 2, "replaced_to_zero"));
  EXPECT_THAT(Grep(out, "replaced\""), IsEmpty());
}

// SPEC §4.2: a new total of 0 is at or below what was executed, partly filled or not.
TEST(OrderBookTest, ReplaceToZeroEndsTheOrderFilledOrNot) {
  auto out = RunNoSeq(
      {ProductLine(), Limit("s1", "B1", "sell", "5.000", 5), Limit("b1", "A1", "buy", "5.000", 3),
       ReplaceLine("s1b", "s1", "B1", R"(,"qty":0)"), Limit("s2", "B1", "sell", "5.010", 4),
       ReplaceLine("s2b", "s2", "B1", R"(,"qty":0)"),
       ReplaceLine("s2c", "s2b", "B1", R"(,"qty":0)")});
  EXPECT_THAT(Grep(out, "canceled"), ElementsAre(Canceled("s1b", "B1", 2, "replaced_to_zero"),
                                                 Canceled("s2b", "B1", 4, "replaced_to_zero")));
  EXPECT_THAT(Grep(out, "cancel_rejected"), ElementsAre(HasSubstr("unknown_order")));
  EXPECT_THAT(Grep(out, "replaced\""), IsEmpty());
  EXPECT_EQ(out.back(), BookLine("[]", "[]"));
}

// A negative total is no total: refused, the order unchanged.
TEST(OrderBookTest, ReplaceToANegativeTotalIsInvalidQty) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 5),
                       ReplaceLine("s1b", "s1", "B1", R"(,"qty":-1)")});
  EXPECT_THAT(Grep(out, "cancel_rejected"), ElementsAre(HasSubstr("invalid_qty")));
  EXPECT_EQ(out.back(), BookLine("[]", R"([["5.000",5,1]])"));
}

TEST(OrderBookTest, ReplaceMayTradeOnArrival) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 2),
                       Limit("b1", "A1", "buy", "4.990", 2),
                       ReplaceLine("b1b", "b1", "A1", R"(,"px":"5.000")")});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 2, "b1b", "A1", "s1", "B1", "buy")));
}

TEST(OrderBookTest, AfterReplaceOnlyNewIdNamesTheOrder) {
  auto out = RunNoSeq({ProductLine(), Limit("b1", "A1", "buy", "4.990", 2),
                       ReplaceLine("b1b", "b1", "A1", R"(,"qty":1)"), CancelLine("b1", "A1"),
                       CancelLine("b1b", "A1")});
  EXPECT_EQ(Grep(out, "unknown_order").size(), 1u);
  EXPECT_EQ(Grep(out, "canceled")[0], Canceled("b1b", "A1", 1, "user"));
}

TEST(OrderBookTest, IcebergKeepingPriorityShowsMinOfShownAndRemaining) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 10, R"(,"display":4)"),
                       ReplaceLine("s1b", "s1", "B1", R"(,"qty":3)")});
  EXPECT_EQ(out.back(), BookLine("[]", R"([["5.000",3,1]])"));
}

TEST(OrderBookTest, PendingStopCanBeReplaced) {
  auto out =
      RunNoSeq({ProductLine(), Order("st", "A1", "buy", "stop", 5, R"(,"stop":"5.100")"),
                ReplaceLine("st2", "st", "A1", R"(,"qty":2)"),
                Limit("s1", "B1", "sell", "5.100", 5), Limit("b1", "C1", "buy", "5.100", 1)});
  EXPECT_EQ(Grep(out, "triggered")[0], R"({"ev":"triggered","cl":"st2","acct":"A1"})");
  EXPECT_EQ(Grep(out, "trade").back(), Trade("5.100", 2, "st2", "A1", "s1", "B1", "buy"));
}

TEST(OrderBookTest, MassCancelCancelsInAcceptanceOrderWithReasonMass) {
  auto out =
      RunNoSeq({ProductLine(), Limit("b1", "A1", "buy", "4.900", 1),
                Order("st", "A1", "sell", "stop", 1, R"(,"stop":"4.500")"),
                Limit("b2", "A1", "buy", "4.950", 2), Limit("x", "Z1", "buy", "4.950", 2),
                R"({"op":"mass_cancel","acct":"A1"})", R"({"op":"mass_cancel","acct":"A1"})"});
  EXPECT_THAT(Grep(out, "canceled"),
              ElementsAre(Canceled("b1", "A1", 1, "mass"), Canceled("st", "A1", 1, "mass"),
                          Canceled("b2", "A1", 2, "mass")));
}

// The live orders are walked by order id (OrderStore::ForEachLive sorts its dense array of
// live slots): canceling the first of three orders moves the third into its place, and a
// mass cancel still cancels the two left in acceptance order. A second round does the same
// with many orders, every seventh kept.
TEST(OrderBookTest, MassCancelGoesInAcceptanceOrderAfterReleasesReorderTheLiveOrders) {
  EngineConfig cfg;
  cfg.order_capacity = 16;
  Engine engine(cfg);
  ProductCmd p;
  p.sym = Name::From("S");
  engine.Process(p);
  int next = 0;
  auto enter = [&] {
    NewOrderCmd n;
    n.cl = ClientId::From("o" + std::to_string(++next));
    n.acct = Name::From("A1");
    n.sym = Name::From("S");
    n.side = Side::kBuy;
    n.px = PriceField::Ticks(PriceTicks(1000 + next));
    n.qty = Qty(1);
    engine.Process(n);
    return n.cl;
  };
  auto cancel = [&](const ClientId& cl) {
    CancelCmd c;
    c.orig = cl;
    c.acct = Name::From("A1");
    engine.Process(c);
  };
  auto mass_cancel = [&] {
    MassCancelCmd m;
    m.acct = Name::From("A1");
    engine.Process(m);
    std::vector<OrderId> canceled;
    for (const Event& e : engine.last_events()) {
      if (e.type == EventType::kCanceled) canceled.push_back(e.order.oid);
    }
    return canceled;
  };
  const ClientId first = enter();
  enter();
  enter();
  cancel(first);
  EXPECT_THAT(mass_cancel(), ElementsAre(2, 3));
  std::vector<ClientId> ids;
  for (int k = 4; k <= 60; ++k) ids.push_back(enter());
  std::vector<OrderId> kept;
  for (int k = 59; k >= 4; --k) {  // newest first: each cancel moves the array's last entry
    if (k % 7 != 0) cancel(ids[k - 4]);
  }
  for (int k = 4; k <= 60; ++k) {
    if (k % 7 == 0 || k == 60) kept.push_back(static_cast<OrderId>(k));
  }
  ASSERT_EQ(engine.live_orders(), kept.size());
  EXPECT_EQ(mass_cancel(), kept);
  EXPECT_EQ(engine.live_orders(), 0u);
}

TEST(OrderBookTest, MassCancelBySymbolAndUnknownSymbol) {
  auto out = RunNoSeq({ProductLine(), Limit("b1", "A1", "buy", "4.900", 1),
                       R"({"op":"mass_cancel","acct":"A1","sym":"NOPE"})",
                       std::string(R"({"op":"mass_cancel","acct":"A1","sym":")") + kSym + "\"}"});
  EXPECT_EQ(Grep(out, "unknown_symbol").size(), 1u);
  EXPECT_EQ(Grep(out, "canceled").size(), 1u);
}

TEST(OrderBookTest, MassCancelBySessionCancelsWithReasonDisconnect) {
  auto out = RunNoSeq({ProductLine(), Limit("b1", "A1", "buy", "4.900", 1, R"(,"session":7)"),
                       Limit("b2", "A2", "buy", "4.900", 1, R"(,"session":8)"),
                       R"({"op":"mass_cancel","session":7})"});
  EXPECT_THAT(Grep(out, "canceled"), ElementsAre(Canceled("b1", "A1", 1, "disconnect")));
}

// SPEC §4.1: unknown extra keys are ignored. A mass cancel naming an account is the spec's,
// whatever else it holds: an extra "session" (replay's disconnect extension) turned it into
// a disconnect of that session until 2026-12-07 (another account's order canceled
// `disconnect`, the account's own left). A "session" that is no session number on a new
// order is ignored too (it was invalid_field).
TEST(OrderBookTest, AMassCancelNamingAnAccountIgnoresAnExtraSession) {
  auto out = RunNoSeq({ProductLine(), Limit("b1", "B1", "buy", "4.900", 1, R"(,"session":7)"),
                       Limit("a1", "A1", "buy", "4.900", 1, R"(,"session":"x")"),
                       Limit("a2", "A1", "buy", "4.900", 1, R"(,"session":-1)"),
                       R"({"op":"mass_cancel","acct":"A1","session":7})"});
  EXPECT_THAT(Grep(out, "rejected"), IsEmpty());
  EXPECT_THAT(Grep(out, "canceled"),
              ElementsAre(Canceled("a1", "A1", 1, "mass"), Canceled("a2", "A1", 1, "mass")));
}

// A session's own mass cancel (not a disconnect) naming a firm cancels only the orders the
// session entered for that firm: a session moved to another firm by an operator touches none
// of its old firm's orders (SPEC §6). Without a firm (a journal before codec version 5), every
// order the session entered, as before.
TEST(OrderBookTest, ASessionsMassCancelNamingAFirmCancelsOnlyThatFirmsOrders) {
  struct Canceled : EngineListener {
    void OnCanceled(const Event& e) override { cls.emplace_back(e.order.cl.view()); }
    std::vector<std::string> cls;
  };
  Engine engine{EngineConfig{}};
  Canceled canceled;
  engine.set_listener(&canceled);
  ProductCmd p;
  p.sym.Assign("S");
  p.ref = PriceField::Ticks(PriceTicks(5000));
  engine.Process(p);
  StateCmd open;
  open.sym.Assign("S");
  open.state = TradingState::kOpen;
  engine.Process(open);
  auto order = [&](const char* cl, const char* acct, const char* firm, SessionId session) {
    NewOrderCmd n;
    n.cl.Assign(cl);
    n.acct.Assign(acct);
    n.firm.Assign(firm);
    n.sym.Assign("S");
    n.side = Side::kBuy;
    n.type = OrderType::kLimit;
    n.px = PriceField::Ticks(PriceTicks(4900));
    n.qty = Qty(1);
    n.session = session;
    engine.Process(n);
  };
  order("old1", "B1", "BETA", 7);   // entered when session 7 was BETA's
  order("new1", "A1", "ALPHA", 7);  // since the session moved to ALPHA
  order("other", "A1", "ALPHA", 8);
  MassCancelCmd mine;
  mine.session = 7;
  mine.firm.Assign("ALPHA");
  engine.Process(mine);
  EXPECT_THAT(canceled.cls, ElementsAre("new1"));
  mine.firm.Assign("NOBODY");  // a firm with no order: nothing
  engine.Process(mine);
  EXPECT_THAT(canceled.cls, ElementsAre("new1"));
  mine.firm = Name();  // no firm: every order the session entered
  engine.Process(mine);
  EXPECT_THAT(canceled.cls, ElementsAre("new1", "old1"));
}

TEST(StpTest, CancelRestingCancelsRestingAndAggressorGoesOn) {
  auto out =
      RunNoSeq({ProductLine(), Limit("s1", "A1", "sell", "5.000", 5),
                Limit("s2", "B1", "sell", "5.000", 5), Limit("b1", "A1", "buy", "5.000", 8)});
  EXPECT_EQ(Grep(out, "canceled")[0], Canceled("s1", "A1", 5, "stp"));
  EXPECT_EQ(Grep(out, "trade").size(), 1u);
}

TEST(StpTest, CancelAggressorCancelsAggressorRemainder) {
  auto out = RunNoSeq(
      {ProductLine(), Limit("s0", "B1", "sell", "5.000", 1), Limit("s1", "A1", "sell", "5.000", 5),
       Limit("b1", "A1", "buy", "5.000", 8, R"(,"stp_action":"cancel_aggressor")")});
  EXPECT_THAT(Grep(out, "canceled"), ElementsAre(Canceled("b1", "A1", 7, "stp")));
  EXPECT_EQ(out.back(), BookLine("[]", R"([["5.000",5,1]])"));
}

TEST(StpTest, CancelBothReportsRestingFirst) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "A1", "sell", "5.000", 5),
                       Limit("b1", "A1", "buy", "5.000", 8, R"(,"stp_action":"cancel_both")")});
  EXPECT_THAT(Grep(out, "canceled"),
              ElementsAre(Canceled("s1", "A1", 5, "stp"), Canceled("b1", "A1", 8, "stp")));
}

TEST(StpTest, SameFirmAndStpIdAcrossAccountsIsPrevented) {
  auto out =
      RunNoSeq({ProductLine(), Limit("s1", "A1", "sell", "5.000", 5, R"(,"firm":"F","stp":"X")"),
                Limit("b1", "A2", "buy", "5.000", 5, R"(,"firm":"F","stp":"X")")});
  EXPECT_THAT(Grep(out, "trade"), IsEmpty());
  EXPECT_EQ(Grep(out, "canceled")[0], Canceled("s1", "A1", 5, "stp"));
}

TEST(StpTest, SameStpIdInDifferentFirmsTrades) {
  auto out =
      RunNoSeq({ProductLine(), Limit("s1", "A1", "sell", "5.000", 5, R"(,"firm":"F","stp":"X")"),
                Limit("b1", "A2", "buy", "5.000", 5, R"(,"firm":"G","stp":"X")")});
  EXPECT_EQ(Grep(out, "trade").size(), 1u);
}

TEST(AuctionTest, TieOnVolumeBrokenBySmallestImbalanceThenReferenceThenLowerPrice) {
  // Bid 5 @5.020, ask 5 @4.980: every price in [4.980, 5.020] executes 5 with imbalance 0;
  // the reference 5.000 is inside, so 5.000 wins.
  auto out = RunNoSeq({ProductLine(), StateLine("pre_open"), Limit("b1", "A1", "buy", "5.020", 5),
                       Limit("s1", "B1", "sell", "4.980", 5), StateLine("open")});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.000", 5, "b1", "A1", "s1", "B1", "none")));
  // Without a reference, the lower price wins.
  out = RunNoSeq({ProductLine(""), StateLine("pre_open"), Limit("b1", "A1", "buy", "5.020", 5),
                  Limit("s1", "B1", "sell", "4.980", 5), StateLine("open")});
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("4.980", 5, "b1", "A1", "s1", "B1", "none")));
}

TEST(AuctionTest, SmallestImbalanceWinsAmongEqualVolumes) {
  auto out = RunNoSeq({ProductLine(), StateLine("pre_open"), Limit("b1", "A1", "buy", "5.010", 5),
                       Limit("b2", "A2", "buy", "5.000", 3), Limit("s1", "B1", "sell", "5.000", 5),
                       StateLine("open")});
  // exec 5 everywhere in [5.000, 5.010]; imbalance 3 at 5.000, 0 above it; of those the
  // nearest to the reference 5.000 is 5.001.
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.001", 5, "b1", "A1", "s1", "B1", "none")));
}

TEST(AuctionTest, StopsTriggeredByAuctionEnterAfterIt) {
  auto out = RunNoSeq({ProductLine(), StateLine("pre_open"),
                       Order("st", "C1", "buy", "stop", 1, R"(,"stop":"5.010")"),
                       Limit("b1", "A1", "buy", "5.010", 5), Limit("s1", "B1", "sell", "5.010", 6),
                       StateLine("open")});
  auto trades = Grep(out, "trade");
  ASSERT_EQ(trades.size(), 2u);
  EXPECT_EQ(trades[1], Trade("5.010", 1, "st", "C1", "s1", "B1", "buy"));
}

// STP during the pairing can take away volume the price was found on: here x2's cancel
// leaves y's bid at 5.005 over z2's ask at 5.004 after the open at 5.003 (the volume-max
// price with imbalance 0). They trade right away as in continuous trading: the later-entered
// (z2) is the aggressor, at the earlier's (y's) price, and the book is not left crossed.
TEST(AuctionTest, WhatStpLeavesCrossedTradesAtTheEarlierOrdersPrice) {
  auto out =
      RunNoSeq({ProductLine(), StateLine("pre_open"), Limit("x1", "X1", "buy", "5.010", 10),
                Limit("y", "Y1", "buy", "5.005", 10),
                Limit("x2", "X1", "sell", "5.000", 10, R"(,"stp_action":"cancel_aggressor")"),
                Limit("z", "Z1", "sell", "5.003", 10), Limit("z2", "Z1", "sell", "5.004", 10),
                StateLine("open")});
  EXPECT_THAT(Grep(out, "canceled"), ElementsAre(Canceled("x2", "X1", 10, "stp")));
  EXPECT_THAT(Grep(out, "trade"), ElementsAre(Trade("5.003", 10, "x1", "X1", "z", "Z1", "none"),
                                              Trade("5.005", 10, "y", "Y1", "z2", "Z1", "sell")));
}

TEST(AuctionTest, OnlyPreOpenToOpenRunsAnAuction) {
  auto out =
      RunNoSeq({ProductLine(), StateLine("pre_open"), Limit("b1", "A1", "buy", "5.010", 5),
                Limit("s1", "B1", "sell", "5.010", 5), StateLine("halted"), StateLine("open")});
  EXPECT_THAT(Grep(out, "trade"), IsEmpty());
}

TEST(StateTest, HaltedAllowsCancelsOnly) {
  auto out = RunNoSeq({ProductLine(), Limit("b1", "A1", "buy", "4.990", 5), StateLine("halted"),
                       Limit("b2", "A1", "buy", "4.990", 5),
                       ReplaceLine("b1b", "b1", "A1", R"(,"qty":3)"), CancelLine("b1", "A1")});
  EXPECT_EQ(Grep(out, R"("reason":"halted")").size(), 2u);
  EXPECT_EQ(Grep(out, "canceled")[0], Canceled("b1", "A1", 5, "user"));
}

TEST(StateTest, CloseExpiresDayOrdersAndPendingStopsButNotGtc) {
  auto out = RunNoSeq({ProductLine(), Limit("b1", "A1", "buy", "4.990", 5),
                       Limit("b2", "A1", "buy", "4.990", 5, R"(,"tif":"gtc")"),
                       Order("st", "A1", "buy", "stop", 1, R"(,"stop":"5.100")"),
                       std::string(R"({"op":"close","sym":")") + kSym + "\"}",
                       Limit("b3", "A1", "buy", "4.990", 5), CancelLine("b2", "A1")});
  EXPECT_THAT(Grep(out, "canceled"),
              ElementsAre(Canceled("b1", "A1", 5, "expired"), Canceled("st", "A1", 1, "expired")));
  EXPECT_EQ(Grep(out, "market_closed").size(), 2u);
  EXPECT_EQ(out.back(), BookLine(R"([["4.990",5,1]])", "[]"));
}

// SPEC §4.2: in `closed`, new -> market_closed, cancel/replace -> cancel_rejected
// market_closed (the order unchanged); gtd still expires.
TEST(StateTest, InClosedCancelAndReplaceAreRefusedAndGtdStillExpires) {
  std::string gtd = R"(,"tif":"gtd","expire":"2027-03-01T16:00:00Z")";
  auto out = RunNoSeq({ProductLine(), R"({"op":"time","ts":"2027-03-01T15:00:00Z"})",
                       Limit("g1", "A1", "buy", "4.990", 5, gtd),
                       Limit("c1", "A1", "buy", "4.980", 5, R"(,"tif":"gtc")"),
                       StateLine("closed"), CancelLine("c1", "A1"),
                       ReplaceLine("c1b", "c1", "A1", R"(,"qty":3)"),
                       Limit("n1", "A1", "buy", "4.990", 1),
                       R"({"op":"time","ts":"2027-03-01T16:00:00Z"})"});
  EXPECT_EQ(Grep(out, R"("ev":"cancel_rejected","orig":"c1","acct":"A1","reason":"market_closed")")
                .size(),
            2u);
  EXPECT_THAT(Grep(out, "\"rejected\""), ElementsAre(HasSubstr("market_closed")));
  EXPECT_THAT(Grep(out, "canceled"), ElementsAre(Canceled("g1", "A1", 5, "expired")));
  EXPECT_EQ(out.back(), BookLine(R"([["4.980",5,1]])", "[]"));
}

TEST(StateTest, StateClosedChangesOnlyTheState) {
  auto out = RunNoSeq({ProductLine(), Limit("b1", "A1", "buy", "4.990", 5), StateLine("closed")});
  EXPECT_THAT(Grep(out, "canceled"), IsEmpty());
  EXPECT_EQ(out.back(), BookLine(R"([["4.990",5,1]])", "[]"));
}

TEST(StateTest, UnknownSymbolStateOrCloseIsRejected) {
  auto out = RunNoSeq({StateLine("open", "NOPE"), R"({"op":"close","sym":"NOPE"})"});
  EXPECT_EQ(Grep(out, "unknown_symbol").size(), 2u);
}

TEST(GtdTest, ExpiresAtTimeAtOrAfterExpireAndEarlierTimeIsIgnored) {
  std::string gtd = R"(,"tif":"gtd","expire":"2027-03-01T16:00:00Z")";
  auto out = RunNoSeq(
      {ProductLine(), R"({"op":"time","ts":"2027-03-01T15:00:00Z"})",
       Limit("b1", "A1", "buy", "4.990", 5, gtd), R"({"op":"time","ts":"2027-03-01T14:00:00Z"})",
       R"({"op":"time","ts":"2027-03-01T15:59:59Z"})",
       R"({"op":"time","ts":"2027-03-01T16:00:00Z"})", Limit("b2", "A1", "buy", "4.990", 5, gtd)});
  EXPECT_EQ(Grep(out, "canceled")[0], Canceled("b1", "A1", 5, "expired"));
  EXPECT_EQ(Grep(out, "invalid_field").size(), 1u);  // b2 already expired on arrival
}

TEST(BandTest, BandIsInclusiveAndExact) {
  auto out = RunNoSeq({ProductLine(), Limit("a", "A1", "buy", "4.500", 1),
                       Limit("b", "A1", "buy", "4.499", 1), Limit("c", "A1", "sell", "5.500", 1),
                       Limit("d", "A1", "sell", "5.501", 1)});
  EXPECT_EQ(Grep(out, "price_outside_band").size(), 2u);
  EXPECT_EQ(Grep(out, "accepted").size(), 2u);
}

TEST(BandTest, SecondProductReplacesReference) {
  auto out = RunNoSeq({ProductLine(), ProductLine("6.000"), Limit("a", "A1", "buy", "4.500", 1),
                       Limit("b", "A1", "buy", "5.400", 1)});
  EXPECT_EQ(Grep(out, "price_outside_band").size(), 1u);
  EXPECT_EQ(Grep(out, "accepted")[0], R"({"ev":"accepted","cl":"b","acct":"A1"})");
}

TEST(BandTest, ProductWithoutReferenceHasNoBand) {
  auto out = RunNoSeq({ProductLine(""), Limit("a", "A1", "buy", "0.001", 1),
                       Limit("b", "A1", "sell", "900.000", 1)});
  EXPECT_EQ(Grep(out, "accepted").size(), 2u);
}

}  // namespace
}  // namespace cfx::engine::testing
