// Every reject reason of §4, and the reject precedence of §4.2.
#include "cfx/engine/engine.h"
#include "engine_test_util.h"
#include "gtest/gtest.h"

namespace cfx::engine::testing {
namespace {

std::string Time(const std::string& ts) { return R"({"op":"time","ts":")" + ts + R"("})"; }

std::string RejectOf(const std::vector<std::string>& lines, Engine* engine = nullptr) {
  auto out = RunNoSeq(lines, engine);
  auto rej = Grep(out, "\"rejected\"");
  if (rej.empty()) return "none";
  auto pos = rej.back().find("\"reason\":\"");
  auto end = rej.back().find('"', pos + 10);
  return rej.back().substr(pos + 10, end - pos - 10);
}

TEST(ValidationTest, InvalidFieldCases) {
  EXPECT_EQ(RejectOf({ProductLine(), Order("a", "A1", "buy", "limit", 1, "")}), "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), Order("a", "A1", "buy", "stop", 1, "")}), "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "0", 1)}), "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "-5.0", 1)}), "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "5.", 1)}), "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "hold", "5.000", 1)}), "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "5.000", 1, R"(,"tif":"gtd")")}),
            "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), R"({"op":"new","cl":"a","acct":"A1","sym":"S","side":"buy",)"
                                     R"("type":"limit","px":"5.000","qty":1.5})"}),
            "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), R"({"op":"new","cl":"a","acct":"A1","sym":"S","side":"buy",)"
                                     R"("type":"limit","px":5.0,"qty":1})"}),
            "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), Order("a", "A1", "buy", "market", 5, R"(,"display":2)")}),
            "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(),
                      Limit("a", "A1", "buy", "5.000", 1, R"(,"tif":"ioc","post_only":true)")}),
            "invalid_field");
  EXPECT_EQ(RejectOf({R"({"op":"dance"})"}), "invalid_field");
  EXPECT_EQ(RejectOf({R"({"sym":"x"})"}), "invalid_field");
}

TEST(ValidationTest, UnknownExtraKeysAreIgnored) {
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "5.000", 1, R"(,"color":"red")")}),
            "none");
}

// A null value is a key not given: optional keys take their default, a required one is
// missing.
TEST(ValidationTest, NullValuesAreKeysNotGiven) {
  EXPECT_EQ(RejectOf({ProductLine(), Order("m", "A1", "buy", "market", 1,
                                           R"(,"px":null,"stop":null,"display":null,)"
                                           R"("expire":null,"stp":null,"firm":null,"tif":null)")}),
            "none");
  EXPECT_EQ(
      RejectOf({ProductLine(), R"({"op":"new","cl":"a","acct":"A1","sym":")" + std::string(kSym) +
                                   R"(","side":"buy","type":"limit","px":null,"qty":1})"}),
      "invalid_field");
}

// Times are calendar dates, and ones past the engine's nanosecond range (2262) are held at
// its end: "9999-12-31T23:59:59Z" is a gtd that never expires (it wrapped to before 1970,
// so every later time input expired it).
TEST(ValidationTest, TimesAreCalendarDatesAndFarFutureExpiresNever) {
  EXPECT_EQ(RejectOf({ProductLine(), Time("2027-03-01T10:00:00Z"),
                      Limit("g", "A1", "buy", "4.990", 1,
                            R"(,"tif":"gtd","expire":"2027-02-31T16:00:00Z")")}),
            "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), Time("2027-02-29T10:00:00Z")}), "invalid_field");
  EXPECT_EQ(RejectOf({ProductLine(), Time("2028-02-29T10:00:00Z")}), "none");  // leap year
  auto out = RunNoSeq(
      {ProductLine(), Time("2027-03-01T10:00:00Z"),
       Limit("g", "A1", "buy", "4.990", 1, R"(,"tif":"gtd","expire":"9999-12-31T23:59:59Z")"),
       Time("2027-03-02T10:00:00Z"), Time("2200-01-01T00:00:00Z")});
  EXPECT_EQ(Grep(out, "accepted").size(), 1u);
  EXPECT_TRUE(Grep(out, "canceled").empty());
  EXPECT_EQ(Grep(out, R"("bids":[["4.990",1,1]])").size(), 1u);
  // Past 2262 (the end of int64 nanoseconds) a time stays before every expiry past it: a
  // time in 2300 expired a gtd of 2400 and refused one of 2500 until 2026-12-07.
  auto far = RunNoSeq(
      {ProductLine(), Time("2027-03-01T10:00:00Z"),
       Limit("g1", "A1", "buy", "4.990", 1, R"(,"tif":"gtd","expire":"2400-01-01T00:00:00Z")"),
       Time("2300-01-01T00:00:00Z"),
       Limit("g2", "A1", "buy", "4.990", 1, R"(,"tif":"gtd","expire":"2500-01-01T00:00:00Z")")});
  EXPECT_EQ(Grep(far, "accepted").size(), 2u);
  EXPECT_TRUE(Grep(far, "canceled").empty());
  EXPECT_TRUE(Grep(far, "rejected").empty());
}

TEST(ValidationTest, EachRejectReason) {
  EXPECT_EQ(RejectOf({Limit("a", "A1", "buy", "5.000", 1)}), "unknown_symbol");
  EXPECT_EQ(RejectOf({ProductLine(), StateLine("closed"), Limit("a", "A1", "buy", "5.000", 1)}),
            "market_closed");
  EXPECT_EQ(RejectOf({ProductLine(), StateLine("halted"), Limit("a", "A1", "buy", "5.000", 1)}),
            "halted");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "4.900", 1),
                      Limit("a", "A1", "buy", "4.900", 1)}),
            "duplicate_client_id");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "5.000", 0)}), "invalid_qty");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "5.000", 5, R"(,"display":6)")}),
            "invalid_qty");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "5.000", 5, R"(,"display":0)")}),
            "invalid_qty");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "5.000", 1001)}), "qty_above_max");
  {
    // A JSON integer past int64 is a quantity above the maximum too (it was invalid_field).
    std::string huge = Limit("a", "A1", "buy", "5.000", 1);
    huge.replace(huge.find("\"qty\":1"), 7, "\"qty\":18446744073709551615");
    EXPECT_EQ(RejectOf({ProductLine(), huge}), "qty_above_max") << huge;
  }
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "5.0005", 1)}), "invalid_price_tick");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "6.000", 1)}), "price_outside_band");
  EXPECT_EQ(RejectOf({ProductLine(), Order("a", "A1", "sell", "stop", 1, R"(,"stop":"5.100")")}),
            "invalid_stop_price");
  EXPECT_EQ(RejectOf({ProductLine(), StateLine("pre_open"),
                      Limit("a", "A1", "buy", "5.000", 1, R"(,"tif":"ioc")")}),
            "market_closed");
}

TEST(ValidationTest, PrecedenceFollowsSpecOrder) {
  // unknown_symbol before everything but invalid_field.
  EXPECT_EQ(RejectOf({Limit("a", "A1", "buy", "5.0005", 0)}), "unknown_symbol");
  // halted before duplicate id.
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "4.900", 1), StateLine("halted"),
                      Limit("a", "A1", "buy", "4.900", 1)}),
            "halted");
  // duplicate id before invalid qty.
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "4.900", 1),
                      Limit("a", "A1", "buy", "4.900", 0)}),
            "duplicate_client_id");
  // qty before tick; tick of px before tick of stop; tick before band.
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "9.0001", 0)}), "invalid_qty");
  EXPECT_EQ(RejectOf({ProductLine(), Limit("a", "A1", "buy", "9.0001", 1)}), "invalid_price_tick");
  // band before stop check; stop check before pre_open restriction.
  EXPECT_EQ(RejectOf({ProductLine(),
                      Order("a", "A1", "buy", "stop_limit", 1, R"(,"stop":"4.000","px":"9.000")")}),
            "price_outside_band");
  EXPECT_EQ(RejectOf({ProductLine(),
                      Order("a", "A1", "buy", "stop_limit", 1, R"(,"stop":"4.000","px":"5.000")")}),
            "invalid_stop_price");
}

TEST(ValidationTest, RefusedReplaceIsCancelRejectedWithReasonAndOrderUnchanged) {
  auto out = RunNoSeq({ProductLine(), Limit("s0", "B1", "sell", "5.010", 1),
                       Limit("b1", "A1", "buy", "4.900", 2, R"(,"post_only":true)"),
                       ReplaceLine("b1b", "b1", "A1", R"(,"px":"5.010")"),
                       ReplaceLine("b1c", "b1", "A1", R"(,"px":"9.000")"),
                       ReplaceLine("b1d", "b1", "A1", R"(,"qty":2000)"),
                       ReplaceLine("b1", "b1", "A1", R"(,"qty":1)")});
  auto rej = Grep(out, "cancel_rejected");
  ASSERT_EQ(rej.size(), 4u);
  EXPECT_NE(rej[0].find("post_only_would_cross"), std::string::npos);
  EXPECT_NE(rej[1].find("price_outside_band"), std::string::npos);
  EXPECT_NE(rej[2].find("qty_above_max"), std::string::npos);
  EXPECT_NE(rej[3].find("duplicate_client_id"), std::string::npos);
  EXPECT_NE(out.back().find(R"("bids":[["4.900",2,1]])"), std::string::npos);
}

// SPEC §4: a post-only order never trades on arrival, and a replace that loses priority
// arrives again. On a book left crossed (pre_open -> halted -> open runs no auction) a
// replace that only raises the quantity is refused post_only_would_cross, the order
// unchanged; until 2026-12-07 only a new price was checked, and it traded as the aggressor.
TEST(ValidationTest, APostOnlyReplaceThatRaisesTheQuantityIsCheckedForCrossing) {
  auto out = RunNoSeq({ProductLine(), StateLine("pre_open"),
                       Limit("b1", "A1", "buy", "5.010", 5, R"(,"post_only":true)"),
                       Limit("s1", "B1", "sell", "5.000", 5), StateLine("halted"),
                       StateLine("open"), ReplaceLine("b1b", "b1", "A1", R"(,"qty":6)"),
                       ReplaceLine("b1c", "b1", "A1", R"(,"qty":4)")});
  EXPECT_TRUE(Grep(out, "\"trade\"").empty()) << out.back();
  auto rej = Grep(out, "cancel_rejected");
  ASSERT_EQ(rej.size(), 1u);
  EXPECT_NE(rej[0].find("post_only_would_cross"), std::string::npos) << rej[0];
  EXPECT_EQ(Grep(out, "\"replaced\"").size(), 1u);  // lowering keeps priority: taken
}

// EngineConfig::max_price (what `cfx serve` sets; none in `cfx replay`): a limit price above
// it is price_outside_band at entry and at replace, also on a contract without a band; at it,
// and for a stop's trigger price, orders are taken.
TEST(ValidationTest, TheEnginesPriceLimitRefusesHigherLimitPricesEvenWithoutABand) {
  EngineConfig config;
  config.max_price = PriceTicks(10'000);  // 10.000
  const std::string unbanded = std::string(R"({"op":"product","sym":")") + kSym + R"("})";
  {
    Engine engine(config);
    EXPECT_EQ(RejectOf({unbanded, Limit("a", "A1", "buy", "10.001", 1)}, &engine),
              "price_outside_band");
  }
  Engine engine(config);
  auto out = RunNoSeq({unbanded, Limit("a", "A1", "buy", "10.000", 1),
                       Order("s", "A1", "buy", "stop", 1, R"(,"stop":"99999.000")"),
                       ReplaceLine("a2", "a", "A1", R"(,"px":"10.001")"),
                       ReplaceLine("a3", "a", "A1", R"(,"px":"9.000")")},
                      &engine);
  EXPECT_TRUE(Grep(out, "\"rejected\"").empty()) << out.back();
  auto rej = Grep(out, "cancel_rejected");
  ASSERT_EQ(rej.size(), 1u);
  EXPECT_NE(rej[0].find("price_outside_band"), std::string::npos) << rej[0];
  EXPECT_NE(out.back().find(R"("bids":[["9.000",1,1]])"), std::string::npos) << out.back();
  // Without a limit (replay's engine), any price of a tick or more rests.
  EXPECT_EQ(RejectOf({unbanded, Limit("a", "A1", "buy", "9999999.000", 1)}), "none");
}

class FixedRisk : public PreTradeRisk {
 public:
  explicit FixedRisk(RejectReason r) : r_(r) {}
  RejectReason CheckNewOrder(const NewOrderCmd&, AccountId, const OrderBook&) override {
    return r_;
  }

 private:
  RejectReason r_;
};

class Collect : public EngineListener {
 public:
  void OnRejected(const Event& e) override { rejects.push_back(e.reject); }
  std::vector<RejectReason> rejects;
};

// A day limit order on symbol "S" (px in ticks, qty in contracts), as the Engine API takes it.
NewOrderCmd LimitOnS(const char* cl, const char* acct, Side side, int64_t px, int64_t qty) {
  NewOrderCmd n;
  n.cl.Assign(cl);
  n.acct.Assign(acct);
  n.sym.Assign("S");
  n.side = side;
  n.px = PriceField::Ticks(PriceTicks(px));
  n.qty = Qty(qty);
  return n;
}

TEST(ValidationTest, PreTradeRiskHookRejectsAfterOtherChecks) {
  for (RejectReason r : {RejectReason::kInsufficientMargin, RejectReason::kAccountNotPermitted,
                         RejectReason::kThrottled}) {
    Engine engine;
    FixedRisk risk(r);
    Collect events;
    engine.set_listener(&events);
    engine.set_pre_trade_risk(&risk);
    ProductCmd p;
    p.sym.Assign("S");
    p.ref = PriceField::Ticks(PriceTicks(5000));
    engine.Process(p);
    NewOrderCmd n = LimitOnS("a", "A1", Side::kBuy, 5000, 1);
    engine.Process(n);
    n.qty = Qty(0);
    engine.Process(n);  // invalid_qty wins over the risk check
    ASSERT_EQ(events.rejects.size(), 2u);
    EXPECT_EQ(events.rejects[0], r);
    EXPECT_EQ(events.rejects[1], RejectReason::kInvalidQty);
    EXPECT_EQ(engine.live_orders(), 0u);
  }
}

TEST(EngineTest, OrderLookupByAccountAndClientIdReportsExecutionState) {
  Engine engine;
  ProductCmd p;
  p.sym.Assign("S");
  engine.Process(p);
  engine.Process(LimitOnS("s1", "B1", Side::kSell, 5000, 10));
  engine.Process(LimitOnS("b1", "A1", Side::kBuy, 5010, 4));
  auto v = engine.FindOrder("B1", "s1");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->cum, Qty(4));
  EXPECT_EQ(v->leaves, Qty(6));
  EXPECT_EQ(v->notional, 4 * 5000);
  EXPECT_EQ(v->status, OrderStatus::kPartiallyFilled);
  EXPECT_FALSE(engine.FindOrder("A1", "b1").has_value());  // filled: ended
  const auto& events = engine.last_events();
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events.back().type, EventType::kTrade);
  EXPECT_EQ(events.back().order.cum, Qty(4));
  EXPECT_EQ(events.back().order.status, OrderStatus::kFilled);
  EXPECT_EQ(events.back().other.leaves, Qty(6));
}

// STP groups are counted per firm (EngineConfig::max_stp_groups_per_firm): past its cap a
// firm's order naming a group it has not named before is refused `invalid_field`, while its
// known groups, its accounts' defaults and its firm go on, and no other firm is affected. What
// a firm at its cap is told does not depend on whether another firm uses the name. Until
// 2026-12-07 the cap was one table of 65,536 names for the whole exchange: one firm filling it
// stopped every other firm's new groups, and a firm could tell from the refusal whether a name
// was in use.
TEST(ValidationTest, StpGroupsAreCappedPerFirmAndAFirmAtItsCapStopsNoOther) {
  EngineConfig config;
  config.max_stp_groups_per_firm = 2;
  auto order = [](const std::string& cl, const std::string& acct, const std::string& extra) {
    return Limit(cl, acct, "buy", "4.900", 1, extra);
  };
  auto stp = [](const std::string& group) { return R"(,"stp":")" + group + R"(")"; };
  const std::string f2 = R"(,"firm":"F2")";
  Engine a(config);
  // Firm A1 (the account's default firm) names G1 and G2: its cap.
  EXPECT_EQ(
      RejectOf({ProductLine(), order("g1", "A1", stp("G1")), order("g2", "A1", stp("G2"))}, &a),
      "none");
  EXPECT_EQ(RejectOf({order("g3", "A1", stp("G3"))}, &a), "invalid_field");
  EXPECT_EQ(RejectOf({order("g1-again", "A1", stp("G1")), order("own", "A1", ""),
                      order("own-named", "A1", stp("A1"))},
                     &a),
            "none");
  // Firm F2 names groups of its own, G1 among them (a name A1 uses), and reaches its cap.
  EXPECT_EQ(
      RejectOf({order("f2-g3", "A2", f2 + stp("G3")), order("f2-g1", "A2", f2 + stp("G1"))}, &a),
      "none");
  // At its cap F2 is refused G2, which A1 uses, as it is G9, which nobody does.
  EXPECT_EQ(RejectOf({order("f2-g2", "A2", f2 + stp("G2"))}, &a), "invalid_field");
  EXPECT_EQ(RejectOf({order("f2-g9", "A2", f2 + stp("G9"))}, &a), "invalid_field");
  EXPECT_EQ(
      RejectOf({order("f2-g3-again", "A2", f2 + stp("G3")), order("f2-firm", "A2", f2 + stp("F2")),
                order("f2-acct", "A2", f2 + stp("A2"))},
               &a),
      "none");
  // A refused order names nothing: F3's order on an unknown contract leaves its cap whole.
  const std::string f3 = R"(,"firm":"F3")";
  EXPECT_EQ(RejectOf({R"({"op":"new","cl":"f3-x","acct":"A3","sym":"NOPE","side":"buy",)"
                      R"("type":"limit","px":"4.900","qty":1,"firm":"F3","stp":"X1"})"},
                     &a),
            "unknown_symbol");
  EXPECT_EQ(
      RejectOf({order("f3-g1", "A3", f3 + stp("G1")), order("f3-g2", "A3", f3 + stp("G2"))}, &a),
      "none");
  // The counts are state: a snapshot carries them, and the state hash covers them.
  Engine restored(config);
  ASSERT_TRUE(restored.Restore(a.Snapshot()).ok());
  EXPECT_EQ(restored.StateHash(), a.StateHash());
  EXPECT_EQ(RejectOf({order("r-g3", "A1", stp("G3"))}, &restored), "invalid_field");
  EXPECT_EQ(RejectOf({order("r-g2", "A1", stp("G2"))}, &restored), "none");
  // Without the cap (`cfx replay`) nothing is counted or refused.
  Engine uncapped{EngineConfig{}};
  EXPECT_EQ(RejectOf({ProductLine(), order("g1", "A1", stp("G1")), order("g2", "A1", stp("G2")),
                      order("g3", "A1", stp("G3"))},
                     &uncapped),
            "none");
}

// A version-1 engine snapshot (before the per-firm STP groups) restores with no group
// counted; one whose groups name no known name, or come out of order, is damage.
TEST(ValidationTest, AnEngineSnapshotWithoutStpGroupsRestoresAndBadGroupsAreDataLoss) {
  EngineConfig config;
  config.max_stp_groups_per_firm = 1;
  Engine a(config);
  ASSERT_EQ(RejectOf({ProductLine(), Limit("g1", "A1", "buy", "4.900", 1, R"(,"stp":"G1")")}, &a),
            "none");
  Engine none(config);  // no group named: version 1's layout, as an engine before the cap
  ASSERT_EQ(RejectOf({ProductLine(), Limit("own", "A1", "buy", "4.900", 1)}, &none), "none");
  EXPECT_EQ(none.Snapshot()[4], 1);
  const std::string blob = a.Snapshot();
  // The blob ends with the groups: a count (8 bytes) and one 8-byte key (firm << 32 | group).
  ASSERT_GT(blob.size(), 21u);
  ASSERT_EQ(blob[4], 2) << "the version byte after the magic";
  std::string v1 = blob.substr(0, blob.size() - 16);
  v1[4] = 1;
  Engine old(config);
  ASSERT_TRUE(old.Restore(v1).ok());
  EXPECT_EQ(RejectOf({Limit("g2", "A1", "buy", "4.900", 1, R"(,"stp":"G2")")}, &old), "none")
      << "nothing counted for the firm before";
  std::string unknown = blob;
  unknown[unknown.size() - 1] = 0x7F;  // the key's firm: no such name
  Engine bad(config);
  EXPECT_TRUE(absl::IsDataLoss(bad.Restore(unknown)));
}

}  // namespace
}  // namespace cfx::engine::testing

namespace cfx::engine::testing {
namespace {

// The exchange's delisting state (docs/engine.md, "expired"), through the Engine API: the
// replay format has no `expired` state.
TEST(ExpiredStateTest, CancelsEveryOrderRefusesNewOnesAndNeverReopens) {
  Engine eng;
  auto sym = Name::From(kSym);
  ProductCmd p;
  p.sym = sym;
  p.ref = PriceField::Ticks(PriceTicks(5000));
  eng.Process(p);
  auto order = [&](const char* cl, Side side, TimeInForce tif, OrderType type, int64_t px) {
    NewOrderCmd c;
    c.cl = ClientId::From(cl);
    c.acct = Name::From("A1");
    c.sym = sym;
    c.side = side;
    c.tif = tif;
    c.type = type;
    if (type == OrderType::kStop)
      c.stop = PriceField::Ticks(PriceTicks(px));
    else
      c.px = PriceField::Ticks(PriceTicks(px));
    c.qty = Qty(3);
    return c;
  };
  eng.Process(order("gtc", Side::kBuy, TimeInForce::kGtc, OrderType::kLimit, 4990));
  eng.Process(order("day", Side::kSell, TimeInForce::kDay, OrderType::kLimit, 5010));
  eng.Process(order("stop", Side::kBuy, TimeInForce::kGtc, OrderType::kStop, 5100));
  ASSERT_EQ(eng.live_orders(), 3u);
  eng.Process(StateCmd{sym, TradingState::kExpired});
  int expired = 0;
  for (const Event& e : eng.last_events()) {
    if (e.type == EventType::kCanceled && e.cancel == CancelReason::kExpired) ++expired;
  }
  EXPECT_EQ(expired, 3);
  EXPECT_EQ(eng.live_orders(), 0u);
  EXPECT_EQ(eng.book(0).state(), TradingState::kExpired);

  eng.Process(StateCmd{sym, TradingState::kOpen});  // ignored
  eng.Process(CloseCmd{sym});                       // ignored
  EXPECT_EQ(eng.book(0).state(), TradingState::kExpired);
  eng.Process(order("late", Side::kBuy, TimeInForce::kGtc, OrderType::kLimit, 5000));
  ASSERT_EQ(eng.last_events().size(), 1u);
  EXPECT_EQ(eng.last_events()[0].type, EventType::kRejected);
  EXPECT_EQ(eng.last_events()[0].reject, RejectReason::kMarketClosed);

  Engine restored;
  ASSERT_TRUE(restored.Restore(eng.Snapshot()).ok());
  EXPECT_EQ(restored.book(0).state(), TradingState::kExpired);
  EXPECT_EQ(restored.StateHash(), eng.StateHash());
}

}  // namespace
}  // namespace cfx::engine::testing

namespace cfx::engine::testing {
namespace {

std::vector<std::string> TwoDaysOfIds() {
  return {ProductLine(), Time("2027-03-01T14:00:00Z"), Limit("ended", "A1", "buy", "4.900", 1),
          CancelLine("ended", "A1"), Limit("gtc", "A1", "buy", "4.900", 1, R"(,"tif":"gtc")")};
}

// SPEC §4.2: client ids stay taken for the whole run (`cfx replay`), also after the order
// ends and across dates.
TEST(ValidationTest, ClientIdsStayTakenForTheWholeRun) {
  std::vector<std::string> lines = TwoDaysOfIds();
  lines.push_back(Time("2027-03-01T23:59:59Z"));
  lines.push_back(Limit("ended", "A1", "buy", "4.900", 1));
  EXPECT_EQ(RejectOf(lines), "duplicate_client_id");
  lines.push_back(Time("2027-03-05T00:00:01Z"));
  lines.push_back(Limit("ended", "A1", "buy", "4.900", 1));
  EXPECT_EQ(RejectOf(lines), "duplicate_client_id");
  lines.push_back(ReplaceLine("gtc2", "gtc", "A1", R"(,"qty":2)"));
  lines.push_back(Limit("gtc", "A1", "buy", "4.900", 1));  // replaced away, still taken
  EXPECT_EQ(RejectOf(lines), "duplicate_client_id");
  // Another account never shared the id space.
  EXPECT_EQ(RejectOf({ProductLine(), Limit("x", "A1", "buy", "4.900", 1),
                      Limit("x", "A2", "buy", "4.900", 1)}),
            "none");
}

// `cfx serve` (EngineConfig::client_ids_per_day): ClOrdIDs are unique per account for the
// trading day; at the UTC date change the ids of ended orders are forgotten (the engine's id
// set does not grow with every id ever used), those of live orders stay taken.
TEST(ValidationTest, PerDayEndedOrdersIdsAreReusableOnTheNextDayOnly) {
  EngineConfig config;
  config.client_ids_per_day = true;
  // The same day: both ids are taken.
  std::vector<std::string> same_day = TwoDaysOfIds();
  same_day.push_back(Time("2027-03-01T23:59:59Z"));
  same_day.push_back(Limit("ended", "A1", "buy", "4.900", 1));
  Engine a(config);
  EXPECT_EQ(RejectOf(same_day, &a), "duplicate_client_id");
  // The next day: the canceled order's id is free again, the live GTC order's is not.
  std::vector<std::string> next_day = TwoDaysOfIds();
  next_day.push_back(Time("2027-03-02T00:00:01Z"));
  next_day.push_back(Limit("ended", "A1", "buy", "4.900", 1));
  Engine b(config);
  EXPECT_EQ(RejectOf(next_day, &b), "none");
  next_day.push_back(Limit("gtc", "A1", "buy", "4.900", 1));
  Engine c(config);
  EXPECT_EQ(RejectOf(next_day, &c), "duplicate_client_id");
}

}  // namespace
}  // namespace cfx::engine::testing
