// FIX against the real exchange (ExchangeServer: core + engine + journal) over loopback:
// new orders and fills, engine rejects as ExecutionReport rejects, firm and drop-copy
// boundaries, market data, cancel-on-disconnect through the engine, and a restart that keeps
// sequence numbers and resting orders. Amends (cancel/replace, status, mass cancel) are in
// serve_fix_amend_test.cc. C++14 (QuickFIX headers); the fixture is in serve_fix_fixture.h.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "fix_test_client.h"
#include "fix_test_steps.h"
#include "serve_fix_fixture.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

using Msg = FIX::Message;

TEST_F(ServeFixTest, CrossingOrdersFillThroughTheEngineAndCopiesStayInTheFirm) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  TestClient* beta = Connect("BETA_T1");
  TestClient* alpha_dc = Connect("ALPHA_DC");
  TestClient* beta_dc = Connect("BETA_DC");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("a1", "A1", '1', 10, "5.000"), '0', &m));
  EXPECT_EQ(F(m, 39), "0");
  EXPECT_EQ(F(m, 151), "10");
  const std::string order_id = F(m, 37);
  EXPECT_NE(order_id, "NONE");
  const std::string acked_at = F(m, 60);        // TransactTime: the exchange time of the input
  EXPECT_EQ(acked_at.size(), 24u) << acked_at;  // YYYYMMDD-HH:MM:SS.ffffff (µs)
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b1", "B1", '2', 4, "4.990"), 'F', &m));
  EXPECT_GE(F(m, 60), acked_at);  // SPEC §5: a trade is never stamped before the ack
  EXPECT_EQ(F(m, 31), "5.000");  // the resting order's price
  EXPECT_EQ(F(m, 32), "4");
  EXPECT_EQ(F(m, 39), "2");
  ASSERT_TRUE(alpha->WaitExec("a1", 'F', &m));
  EXPECT_EQ(F(m, 37), order_id);
  EXPECT_GE(F(m, 60), acked_at);
  EXPECT_EQ(F(m, 14), "4");
  EXPECT_EQ(F(m, 151), "6");
  EXPECT_EQ(F(m, 39), "1");
  ASSERT_TRUE(alpha_dc->WaitExec("a1", 'F', &m));
  EXPECT_EQ(F(m, 797), "Y");
  ASSERT_TRUE(beta_dc->WaitExec("b1", 'F', &m));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (const Msg& x : alpha_dc->Snapshot()) EXPECT_NE(F(x, 1), "B1");
  for (const Msg& x : beta_dc->Snapshot()) EXPECT_NE(F(x, 1), "A1");
  for (const Msg& x : beta->Snapshot()) EXPECT_NE(F(x, 1), "A1");
}

// Batched writes (docs/fix.md): on the publisher's thread a connection's reports are held
// until the end of the publisher's burst. A lone order's report must leave then, not when
// the connection's own thread next wakes (its one-second tick for the session's timers):
// 20 orders one at a time, each waiting for its ack, take far less than the ~10 s that
// waiting for the tick would.
TEST_F(ServeFixTest, ALoneOrdersReportLeavesAtTheEndOfItsBurst) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("warm", "A1", '1', 1, "4.900"), '0', &m));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    const std::string cl = "lone" + std::to_string(i);
    ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg(cl, "A1", '1', 1, "4.900"), '0', &m)) << cl;
    EXPECT_EQ(F(m, 11), cl);
  }
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(5))
      << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
}

TEST_F(ServeFixTest, EngineRejectsBecomeExecutionReportRejectsWithReason) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  struct Case {
    Msg msg;
    std::string reason;
  };
  Msg post_only = NewOrderMsg("r6", "A1", '2', 1, "4.900");
  post_only.setField(18, "6");
  std::vector<Case> cases = {
      {NewOrderMsg("r1", "A1", '1', 5, "5.000", "B200-GOLD-US-209912"), "unknown_symbol"},
      {NewOrderMsg("r2", "A1", '1', 5, "5.600"), "price_outside_band"},
      {NewOrderMsg("r3", "A1", '1', 5000, "5.000"), "qty_above_max"},
      {NewOrderMsg("r4", "B1", '1', 5, "5.000"), "account_not_permitted"},
      {NewOrderMsg("r5", "A2", '1', 1, "5.000"), "insufficient_margin"},
  };
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("rest", "A1", '1', 1, "4.950"), '0', &m));
  cases.push_back({post_only, "post_only_would_cross"});
  cases.push_back({NewOrderMsg("rest", "A1", '1', 1, "4.950"), "duplicate_client_id"});
  for (Case& c : cases) {
    const std::string cl = F(c.msg, 11);
    alpha->Send(c.msg);
    ASSERT_TRUE(alpha->WaitExec(cl, '8', &m)) << cl;
    EXPECT_EQ(F(m, 39), "8") << cl;
    EXPECT_EQ(F(m, 58), c.reason) << cl;
    EXPECT_EQ(F(m, 37), "NONE") << cl;
  }
}

// SPEC §4.2's reject precedence holds through FIX: an off-tick price or a quantity of 0 is
// judged by the engine in its place, after unknown_symbol, duplicate_client_id and the
// quantity checks, not by the gateway first.
TEST_F(ServeFixTest, OffTickPricesAndZeroQuantitiesKeepTheRejectPrecedence) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("taken", "A1", '1', 1, "4.950"), '0', &m));
  Msg zero_post_only = NewOrderMsg("p2", "A1", '1', 0, "5.000");
  zero_post_only.setField(18, "5");  // an ExecInst cfx does not know: invalid_field
  Msg zero_display = NewOrderMsg("p6", "A1", '1', 5, "5.000", "B200-GOLD-US-209912");
  zero_display.setField(111, "0");  // 111=0 is invalid_qty, after unknown_symbol
  Msg market_display = NewOrderMsg("p7", "A1", '1', 5, "5.000");
  market_display.removeField(44);
  market_display.setField(40, "1");
  market_display.setField(111, "0");  // a display on a market order: invalid_field first
  // A quantity that is no whole number (a fraction, past int64) is malformed: invalid_field,
  // first in SPEC §4.2's order, as `cfx replay` says of it (until 2026-12-06 the gateway
  // said invalid_qty, ahead of unknown_symbol and duplicate_client_id).
  Msg fraction = NewOrderMsg("p8", "A1", '1', 5, "5.000", "B200-GOLD-US-209912");
  fraction.setField(38, "1.5");
  Msg past_int64 = NewOrderMsg("taken", "A1", '1', 5, "5.000");
  past_int64.setField(38, "9223372036854775808");
  Msg fraction_display = NewOrderMsg("p9", "A1", '1', 5, "5.000", "B200-GOLD-US-209912");
  fraction_display.setField(111, "2.5");
  const struct {
    Msg msg;
    std::string reason;
  } cases[] = {
      {NewOrderMsg("p1", "A1", '1', 5, "5.0005", "B200-GOLD-US-209912"), "unknown_symbol"},
      {zero_post_only, "invalid_field"},
      {NewOrderMsg("taken", "A1", '1', 0, "5.0005"), "duplicate_client_id"},
      {NewOrderMsg("p3", "A1", '1', 5000, "5.0005"), "qty_above_max"},
      {NewOrderMsg("p4", "A1", '1', 0, "5.0005"), "invalid_qty"},
      {NewOrderMsg("p5", "A1", '1', 5, "5.0005"), "invalid_price_tick"},
      {zero_display, "unknown_symbol"},
      {market_display, "invalid_field"},
      {fraction, "invalid_field"},
      {past_int64, "invalid_field"},
      {fraction_display, "invalid_field"},
  };
  for (const auto& c : cases) {
    const std::string cl = F(c.msg, 11);
    alpha->Send(c.msg);
    ASSERT_TRUE(alpha->WaitExec(cl, '8', &m)) << cl;
    EXPECT_EQ(F(m, 58), c.reason) << cl;
    EXPECT_EQ(F(m, 44), c.reason == "invalid_price_tick" ? "" : F(m, 44)) << cl;
    // An engine reject carries the input's exchange stamp (the harness's manual clock), not
    // the wall clock (the gateway's own invalid_field has no input: the wall clock).
    if (c.reason != "invalid_field") {
      EXPECT_EQ(F(m, 60).substr(0, 17), "20270301-14:00:00") << cl;
    }
  }
  // A replace to a total of 0 ends the order (SPEC §4.2: total <= executed).
  Msg to_zero = ReplaceMsg("taken2", "taken", "A1", "4.950", 1);
  to_zero.setField(38, "0");  // ReplaceMsg leaves out a qty of 0 (keep)
  ASSERT_TRUE(SendAndWaitExec(*alpha, to_zero, '4', &m));
  EXPECT_EQ(F(m, 58), "replaced_to_zero");
  EXPECT_EQ(F(m, 11), "taken2");
  EXPECT_EQ(F(m, 39), "4");
}

// A stop keeps, in every report after it triggers, the type the client sent and its stop
// price (the engine turns it into a market order; 40=1 without 99 was reported).
TEST_F(ServeFixTest, ATriggeredStopIsReportedWithItsOwnTypeAndStopPrice) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  TestClient* beta = Connect("BETA_T1");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("s1", "B1", '2', 5, "5.010"), '0', &m));
  Msg stop = NewOrderMsg("st", "A1", '1', 2, "5.010");
  stop.removeField(44);
  stop.setField(40, "3");
  stop.setField(99, "5.010");
  ASSERT_TRUE(SendAndWaitExec(*alpha, stop, '0', &m));
  EXPECT_EQ(F(m, 40), "3");
  EXPECT_EQ(F(m, 99), "5.010");
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("b1", "A1", '1', 1, "5.010"), 'F', &m));
  ASSERT_TRUE(alpha->WaitExec("st", 'L', &m));  // triggered
  EXPECT_EQ(F(m, 40), "3");
  EXPECT_EQ(F(m, 99), "5.010");
  ASSERT_TRUE(alpha->WaitExec("st", 'F', &m));
  EXPECT_EQ(F(m, 40), "3");
  EXPECT_EQ(F(m, 99), "5.010");
  EXPECT_EQ(F(m, 39), "2");
  ASSERT_TRUE(SendAndWaitExec(*alpha, Status("st", "A1"), 'I', &m));
  EXPECT_EQ(F(m, 40), "3");
  EXPECT_EQ(F(m, 99), "5.010");
}

// SPEC §6's order tags reach the engine with SPEC §4's meaning. Each case tells its value
// from its neighbours: IOC and FOK by the cancel's reason, GTC by its echo, a stop-limit (a
// stop would refuse its 44), MaxFloor by the first fill against an iceberg being one slice,
// 7928 by two different STP ids of one account trading (without it both default to the
// account), and 8000's O, N and B by which order STP cancels.
TEST_F(ServeFixTest, TheOrderTagsReachTheEngineWithTheirSpecMeaning) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  TestClient* beta = Connect("BETA_T1");
  Msg m;
  auto with = [](Msg msg, int tag, const std::string& value) {
    msg.setField(tag, value);
    return msg;
  };
  // Time in force, on an empty book.
  ASSERT_TRUE(
      SendAndWaitExec(*alpha, with(NewOrderMsg("ioc", "A1", '1', 2, "4.900"), 59, "3"), '4', &m));
  EXPECT_EQ(F(m, 58), "ioc");
  ASSERT_TRUE(
      SendAndWaitExec(*alpha, with(NewOrderMsg("fok", "A1", '1', 2, "4.900"), 59, "4"), '4', &m));
  EXPECT_EQ(F(m, 58), "fok");
  ASSERT_TRUE(
      SendAndWaitExec(*alpha, with(NewOrderMsg("gtc", "A1", '1', 2, "4.900"), 59, "1"), '0', &m));
  EXPECT_EQ(F(m, 59), "1");
  EXPECT_EQ(F(m, 39), "0");
  // A stop-limit: a price and a stop price.
  Msg stop_limit = with(NewOrderMsg("sl", "A1", '1', 1, "5.300"), 40, "4");
  stop_limit.setField(99, "5.250");
  ASSERT_TRUE(SendAndWaitExec(*alpha, stop_limit, '0', &m));
  EXPECT_EQ(F(m, 40), "4");
  EXPECT_EQ(F(m, 44), "5.300");
  EXPECT_EQ(F(m, 99), "5.250");
  // An iceberg showing 3 of 10: a buy of all 10 trades it slice by slice, 3 first.
  ASSERT_TRUE(
      SendAndWaitExec(*alpha, with(NewOrderMsg("ice", "A1", '2', 10, "5.100"), 111, "3"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("lift", "B1", '1', 10, "5.100"), 'F', &m));
  EXPECT_EQ(F(m, 32), "3");
  ASSERT_TRUE(alpha->WaitExec("ice", 'F', &m));
  EXPECT_EQ(F(m, 32), "3");
  // Self-trade prevention within account A1 (the iceberg is gone: B1 took all of it).
  Msg rest_x = with(NewOrderMsg("rx", "A1", '2', 5, "5.200"), 7928, "X");
  ASSERT_TRUE(SendAndWaitExec(*alpha, rest_x, '0', &m));
  // ... a different STP id trades; 7928 dropped, both would be "A1" and never trade.
  ASSERT_TRUE(
      SendAndWaitExec(*alpha, with(NewOrderMsg("bz", "A1", '1', 1, "5.200"), 7928, "Z"), 'F', &m));
  EXPECT_EQ(F(m, 32), "1");
  // ... N: the aggressor is canceled, the resting order stays.
  Msg n = with(NewOrderMsg("bn", "A1", '1', 1, "5.200"), 7928, "X");
  n.setField(8000, "N");
  ASSERT_TRUE(SendAndWaitExec(*alpha, n, '4', &m));
  EXPECT_EQ(F(m, 58), "stp");
  // ... O: the resting order is canceled, and the aggressor rests.
  Msg o = with(NewOrderMsg("bo", "A1", '1', 1, "5.200"), 7928, "X");
  o.setField(8000, "O");
  ASSERT_TRUE(SendAndWaitExec(*alpha, o, '0', &m));
  ASSERT_TRUE(alpha->WaitExec("rx", '4', &m));
  EXPECT_EQ(F(m, 58), "stp");
  EXPECT_EQ(F(m, 151), "0");
  // ... B: both.
  ASSERT_TRUE(
      SendAndWaitExec(*alpha, with(NewOrderMsg("ry", "A1", '2', 3, "5.400"), 7928, "Y"), '0', &m));
  Msg b = with(NewOrderMsg("bb", "A1", '1', 1, "5.400"), 7928, "Y");
  b.setField(8000, "B");
  ASSERT_TRUE(SendAndWaitExec(*alpha, b, '4', &m));
  EXPECT_EQ(F(m, 58), "stp");
  ASSERT_TRUE(alpha->WaitExec("ry", '4', &m));
  EXPECT_EQ(F(m, 58), "stp");
}

// 126=99991231-23:59:59 is a GTD that never expires (its µs -> ns product overflowed into
// a date before 1970: refused as already expired); a fraction of a second is kept.
TEST_F(ServeFixTest, AFarFutureGtdIsAcceptedAndAnExpiryKeepsItsFraction) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  auto gtd = [](const std::string& cl, const std::string& expire) {
    Msg o = NewOrderMsg(cl, "A1", '1', 1, "4.950");
    o.setField(59, "6");
    o.setField(126, expire);
    return o;
  };
  ASSERT_TRUE(SendAndWaitExec(*alpha, gtd("g1", "99991231-23:59:59"), '0', &m));
  // The exchange clock is at 14:00:00.000.
  ASSERT_TRUE(SendAndWaitExec(*alpha, gtd("g2", "20270301-14:00:00.500"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*alpha, gtd("g3", "20270301-14:00:00."), '8', &m));
  EXPECT_EQ(F(m, 58), "invalid_field");
}

TEST_F(ServeFixTest, SecurityListAndMarketDataFromTheEngine) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  TestClient* beta = Connect("BETA_T1");
  Msg m;
  ASSERT_TRUE(SendAndWaitType(*beta, SecurityListMsg("sl1"), "y", &m));
  EXPECT_EQ(F(m, 146), "24");  // 2 grades x 12 months
  // Each contract with its terms from the security master (SPEC §3).
  bool found = false;
  for (int i = 1; i <= 24; ++i) {
    FIX::Group g(146, 55);
    m.getGroup(i, g);
    EXPECT_EQ(g.getField(167), "FUT");
    EXPECT_EQ(g.getField(231), "1000");
    EXPECT_EQ(g.getField(969), "0.001");
    EXPECT_EQ(g.getField(1140), "1000");
    EXPECT_EQ(g.getField(200), g.getField(55).substr(g.getField(55).size() - 6));
    EXPECT_EQ(g.getField(541).size(), 8u);
    if (g.getField(55) == "B200-GOLD-US-202703") {
      found = true;
      EXPECT_EQ(g.getField(541), "20270331");  // last business day of March 2027
    }
  }
  EXPECT_TRUE(found);
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("md1", "A1", '1', 5, "5.000"), '0', &m));
  const std::string md1_time = F(m, 60);  // TransactTime: the input's exchange time
  ASSERT_TRUE(server_->Flush());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(SendAndWaitType(*beta, MarketDataMsg("md-1", kSym), "W", &m));
  ASSERT_EQ(F(m, 268), "1");
  FIX::Group e(268, 269);
  m.getGroup(1, e);
  EXPECT_EQ(e.getField(270), "5.000");
  EXPECT_EQ(e.getField(271), "5");
  // A book entry carries the exchange time of the input that made the book (SPEC §5), as
  // the trade entry does: the resting bid's is its order's TransactTime.
  ASSERT_TRUE(e.isSetField(272) && e.isSetField(273));
  EXPECT_EQ(e.getField(272) + "-" + e.getField(273), md1_time);
  beta->Send(NewOrderMsg("md2", "B1", '2', 2, "5.000"));
  ASSERT_TRUE(beta->WaitFor(FirstIncremental("2", "2"), &m));
  auto trade_entry = [](const Msg& msg, std::string* date, std::string* time) {
    for (int i = 1; i <= std::stoi(F(msg, 268)); ++i) {
      FIX::Group g(268, 269);
      msg.getGroup(i, g);
      if (g.getField(269) != "2") continue;
      *date = g.isSetField(272) ? g.getField(272) : "";
      *time = g.isSetField(273) ? g.getField(273) : "";
      return true;
    }
    return false;
  };
  std::string x_date, x_time, w_date, w_time;
  ASSERT_TRUE(trade_entry(m, &x_date, &x_time));
  EXPECT_EQ(x_date.size(), 8u) << x_date;
  // The bid the trade reduced (5 -> 3) changes in an X with the trade's input's time.
  const Msg trade_x = m;
  auto bid_change = [&](const Msg& msg, std::string* when) {
    if (F(msg, 268).empty() || F(msg, 262) != "md-1") return false;
    for (int i = 1; i <= std::stoi(F(msg, 268)); ++i) {
      FIX::Group g(268, 279);
      msg.getGroup(i, g);
      if (g.getField(269) != "0") continue;
      *when = g.isSetField(272) ? g.getField(272) + "-" + g.getField(273) : "";
      return true;
    }
    return false;
  };
  std::string bid_when;
  if (!bid_change(trade_x, &bid_when)) {
    ASSERT_TRUE(beta->WaitFor([&](const Msg& msg) { return bid_change(msg, &bid_when); }, &m));
  }
  EXPECT_EQ(bid_when, x_date + "-" + x_time);
  // A snapshot taken after it shows the trade with the same exchange time (SPEC §5).
  ASSERT_TRUE(SendAndWaitType(*beta, MarketDataMsg("md-2", kSym), "W", &m));
  ASSERT_TRUE(trade_entry(m, &w_date, &w_time));
  EXPECT_EQ(w_date, x_date);
  EXPECT_EQ(w_time, x_time);
}

TEST_F(ServeFixTest, CancelOnDisconnectCancelsThroughTheEngine) {
  TestClient* t1 = Connect("ALPHA_T1", "alpha-secret");
  TestClient* t2 = Connect("ALPHA_T2");
  TestClient* dc = Connect("ALPHA_DC");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*t2, NewOrderMsg("cod1", "A1", '1', 3, "4.900"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*t1, Status("cod1", "A1"), 'I', &m));
  EXPECT_EQ(F(m, 39), "0");
  t2->Stop(/*force=*/true);
  ASSERT_TRUE(dc->WaitExec("cod1", '4', &m, 5000));
  EXPECT_EQ(F(m, 58), "disconnect");
  ASSERT_TRUE(SendAndWaitExec(*t1, Status("cod1", "A1"), 'I', &m));
  EXPECT_EQ(F(m, 39), "4");  // ended: status still answers, with its last state
  EXPECT_EQ(F(m, 151), "0");
}

// SPEC §6 bounds with the real core: the matcher delivers reports in bursts on its own
// thread and holds each connection's bytes until the burst ends (docs/fix.md, "Batched
// writes"). A client that floods orders and reads nothing is disconnected once its unread
// output passes fix_max_outbound_bytes; the matcher never waits for it: another firm's
// orders are acknowledged all along, each within five seconds, and the slow session's
// resting order is canceled on disconnect.
TEST_F(ServeFixTest, AClientThatStopsReadingIsCutOffAndTheMatcherNeverWaitsForIt) {
  StopServer();
  StartServer("fix_max_outbound_bytes = 65536\n");
  TestClient* beta = Connect("BETA_T1");
  RawSocket slow(server_->fix_port(), "127.0.0.1", /*receive_buffer_bytes=*/4096);
  ASSERT_TRUE(slow.ok());
  ASSERT_TRUE(
      slow.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")));
  bool closed = false;
  std::string reply = slow.ReadUntil("\00135=A\001", kWaitMs, &closed);
  ASSERT_NE(reply.find("\00135=A\001"), std::string::npos) << reply;
  auto order = [](int seq, const std::string& cl, const std::string& account) {
    return Frame("35=D|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) + "|52=" + UtcNow() +
                 "|11=" + cl + "|1=" + account + "|55=" + kSym +
                 "|54=1|38=1|40=2|44=4.900|60=" + UtcNow() + "|");
  };
  ASSERT_TRUE(slow.Write(order(2, "keep", "A1")));
  reply = slow.ReadUntil("\00111=keep\001", kWaitMs, &closed);
  ASSERT_NE(reply.find("\00111=keep\001"), std::string::npos) << reply;

  // From here on the client only writes. Each order of A2 (too little collateral) is
  // sequenced, journaled and refused by the matcher with an ExecutionReport of ~300 bytes
  // that the client never reads (past the session's throttle, the refusals come from its
  // connection thread instead).
  const auto start = std::chrono::steady_clock::now();
  const auto give_up = start + std::chrono::seconds(60);
  int seq = 3;
  int round_trips = 0;
  bool write_failed = false;
  Msg m;
  for (int burst = 0; !write_failed && std::chrono::steady_clock::now() < give_up; ++burst) {
    std::string bytes;
    for (int i = 0; i < 100; ++i, ++seq) bytes += order(seq, "flood" + std::to_string(seq), "A2");
    write_failed = !slow.Write(bytes);
    if (burst % 10 == 0) {
      const std::string cl = "beta" + std::to_string(burst);
      beta->Send(NewOrderMsg(cl, "B1", '1', 1, "4.900"));
      ASSERT_TRUE(beta->WaitExec(cl, '0', &m, 5000)) << cl << " not acknowledged within 5 s";
      ++round_trips;
    }
  }
  std::fprintf(stderr, "slow reader: %d orders written, %d round trips of another firm, %lld ms\n",
               seq - 3, round_trips,
               static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now() - start)
                                          .count()));
  EXPECT_TRUE(write_failed) << "the gateway kept a client that read nothing for " << seq - 3
                            << " orders";
  // The cancel-on-disconnect, as another session of the firm sees it. Not through the
  // firm's drop copy: it gets a copy of every refusal of the flood too, and on a loaded
  // machine its own client falls 64 KiB behind and is cut off just the same.
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  bool canceled = false;
  for (int i = 0; i < 100 && !canceled; ++i) {
    ASSERT_TRUE(SendAndWaitExec(*alpha, Status("keep", "A1"), 'I', &m));
    canceled = F(m, 39) == "4";
    if (!canceled) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(canceled) << "no cancel-on-disconnect: " << F(m, 39);
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("after", "B1", '1', 1, "4.900"), '0', &m));
}

// A kill -9 between the journal commit and the reports leaves inputs whose reports reached
// no one (docs/durability.md, "Reports a crash kept from going out"); the server's
// `fix/reported` then names an input before them. Here it is set back to before a trade, and
// the restart sends both firms their reports of it again: marked PossResend (97=Y), with the
// ExecIDs they had, which is how a FIX client knows them for the same executions.
TEST_F(ServeFixTest, ARestartSendsAgainTheReportsAfterTheWatermarkWithTheirExecIds) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  TestClient* beta = Connect("BETA_T1");
  Msg accepted, alpha_fill, beta_fill;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("r1", "A1", '1', 5, "5.000"), '0', &accepted));
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("r2", "B1", '2', 2, "5.000"), 'F', &beta_fill));
  ASSERT_TRUE(alpha->WaitExec("r1", 'F', &alpha_fill));
  EXPECT_FALSE(accepted.getHeader().isSetField(97));
  const std::string exec_id = F(accepted, 17);
  const std::string seq = exec_id.substr(0, exec_id.find('-'));
  ASSERT_FALSE(seq.empty());
  ASSERT_EQ(exec_id, seq + "-0") << "ExecIDs are <input seq>-<n>";
  beta->Stop();
  alpha->Stop();
  clients_.clear();
  StopServer();
  std::string error;
  ASSERT_TRUE(SetReportedWatermark(dir_ + "/data", std::stoull(seq) - 1, &error)) << error;
  StartServer();
  alpha = Connect("ALPHA_T1",
                  "alpha-secret");  // ALPHA_T1 is cancel-on-disconnect: r1's rest was canceled
  beta = Connect("BETA_T1");
  auto again = [](const std::string& cl, const std::string& exec_type, const std::string& id) {
    return [cl, exec_type, id](const Msg& m) {
      return F(m, 35) == "8" && F(m, 11) == cl && F(m, 150) == exec_type && F(m, 17) == id &&
             m.getHeader().isSetField(97) && m.getHeader().getField(97) == "Y";
    };
  };
  Msg m;
  EXPECT_TRUE(alpha->WaitFor(again("r1", "0", exec_id), &m)) << "the acceptance, again";
  EXPECT_EQ(F(m, 37), F(accepted, 37));
  EXPECT_TRUE(alpha->WaitFor(again("r1", "F", F(alpha_fill, 17)), &m)) << "the fill, again";
  EXPECT_EQ(F(m, 32), "2");
  EXPECT_TRUE(beta->WaitFor(again("r2", "F", F(beta_fill, 17)), &m)) << "the other side";
  EXPECT_NE(F(alpha_fill, 17), F(beta_fill, 17));
  // The cancel-on-disconnect of r1's rest came after the watermark too, and was not sent by
  // the first run at all (the gateway had stopped): it comes, and new orders go on.
  EXPECT_TRUE(alpha->WaitExec("r1", '4', &m));
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("r3", "A1", '1', 1, "4.990"), '0', &m));
  EXPECT_FALSE(m.getHeader().isSetField(97));
  // A status answer, which no input causes, has an ExecID of the gateway's own.
  ASSERT_TRUE(SendAndWaitExec(*alpha, Status("r3", "A1"), 'I', &m));
  EXPECT_EQ(F(m, 17).substr(0, 1), "g") << F(m, 17);
}

// A cancel-on-disconnect session whose orders outlived its connection because no Logout
// reached the exchange (kill -9, a power loss, a failover): at the next start they are
// cancelled (58=disconnect) before any connection is accepted, and the session finds the
// reports when it logs on. Until 2026-12-05 they rested, unattended, until the session logged
// on and off again. Here BETA_T1's order outlives a stop with the flag off, and the restart
// turns it on.
TEST_F(ServeFixTest, AStartCancelsTheOrdersOfACancelOnDisconnectSession) {
  TestClient* beta = Connect("BETA_T1");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("cod1", "B1", '2', 3, "5.100"), '0', &m));
  beta->Stop();
  clients_.clear();
  StopServer();
  std::string config = ServeConfigText(dir_ + "/data", "");
  const std::string off = "cancel_on_disconnect = false";
  ASSERT_NE(config.find(off), std::string::npos);
  config.replace(config.find(off), off.size(), "cancel_on_disconnect = true");
  std::string error;
  server_ = ServeHarness::StartWithConfig(config, &error);
  ASSERT_TRUE(server_ != nullptr) << error;
  beta = Connect("BETA_T1");  // same client store: the report comes in the resend
  ASSERT_TRUE(beta->WaitExec("cod1", '4', &m));
  EXPECT_EQ(F(m, 58), "disconnect");
  ASSERT_TRUE(SendAndWaitExec(*beta, Status("cod1", "B1"), 'I', &m));
  EXPECT_EQ(F(m, 39), "4");
  // The session trades on: its new order is not caught by the start's cancel.
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("cod2", "B1", '2', 3, "5.100"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*beta, Status("cod2", "B1"), 'I', &m));
  EXPECT_EQ(F(m, 39), "0");
}

TEST_F(ServeFixTest, SecurityListAndMarketDataFollowExpiryAndTheNewListing) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  alpha->Send(NewOrderMsg("gtc", "A1", '1', 2, "4.900"));  // resting in March
  ASSERT_TRUE(alpha->WaitExec("gtc", '0', &m));
  // Past March's last trading day (Wednesday 2027-03-31) at its 16:00Z close.
  ASSERT_TRUE(server_->AdvanceTime("2027-03-31T16:00:01Z"));
  ASSERT_TRUE(alpha->WaitExec("gtc", 'C', &m));  // canceled, reason expired
  EXPECT_EQ(F(m, 58), "expired");
  ASSERT_TRUE(server_->AdvanceTime("2027-03-31T16:00:02Z"));  // one more input: the refresh
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(SendAndWaitType(*alpha, SecurityListMsg("after"), "y", &m));
  EXPECT_EQ(F(m, 146), "24");  // still 2 grades x 12 months
  std::string listed;
  for (int i = 1; i <= 24; ++i) {
    FIX::Group g(146, 55);
    m.getGroup(i, g);
    listed += g.getField(55) + " ";
  }
  EXPECT_EQ(listed.find(std::string(kSym) + " "), std::string::npos) << listed;
  EXPECT_NE(listed.find("B200-GOLD-US-202803"), std::string::npos) << listed;
  // The new month has market data; the expired one is refused as unknown.
  ASSERT_TRUE(SendAndWaitType(*alpha, MarketDataMsg("md-new", "B200-GOLD-US-202803"), "W", &m));
  EXPECT_EQ(F(m, 262), "md-new");
  ASSERT_TRUE(SendAndWaitType(*alpha, MarketDataMsg("md-old", kSym), "Y", &m));
  EXPECT_EQ(F(m, 262), "md-old");
  // Orders in the expired month: market_closed.
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("late", "A1", '1', 1, "5.000"), '8', &m));
  EXPECT_EQ(F(m, 58), "market_closed");
}

TEST_F(ServeFixTest, StatusOfFilledAndCanceledOrdersAlsoAfterRestart) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  TestClient* beta = Connect("BETA_T1");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("f1", "A1", '1', 3, "5.000"), '0', &m));
  const std::string filled_id = F(m, 37);
  beta->Send(NewOrderMsg("fb", "B1", '2', 3, "5.000"));
  ASSERT_TRUE(alpha->WaitExec("f1", 'F', &m));
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("x1", "A1", '1', 2, "4.900"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*alpha, CancelMsg("x2", "x1", "A1"), '4', &m));

  auto check = [&](const std::string& when) {
    Msg s;
    alpha->Send(Status("f1", "A1"));
    ASSERT_TRUE(alpha->WaitExec("f1", 'I', &s)) << when;
    EXPECT_EQ(F(s, 39), "2") << when;
    EXPECT_EQ(F(s, 37), filled_id) << when;
    EXPECT_EQ(F(s, 14), "3") << when;
    EXPECT_EQ(F(s, 151), "0") << when;
    EXPECT_EQ(F(s, 6), "5.000000") << when;
    alpha->Send(Status("x1", "A1"));
    ASSERT_TRUE(alpha->WaitExec("x1", 'I', &s)) << when;
    EXPECT_EQ(F(s, 39), "4") << when;
    EXPECT_EQ(F(s, 14), "0") << when;
    EXPECT_EQ(F(s, 151), "0") << when;
    // Another firm asking for the ended order still gets the unknown-order answer.
    beta->Send(Status("f1", "A1"));
    ASSERT_TRUE(beta->WaitExec("f1", 'I', &s)) << when;
    EXPECT_EQ(F(s, 39), "8") << when;
    EXPECT_EQ(F(s, 58), "unknown_order") << when;
    EXPECT_EQ(F(s, 37), "NONE") << when;
  };
  check("before restart");
  clients_.clear();
  StopServer();
  StartServer();
  alpha = Connect("ALPHA_T1", "alpha-secret");
  beta = Connect("BETA_T1");
  check("after restart");
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
