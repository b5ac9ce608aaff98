// FIX amends against the real exchange (`cfx serve`'s core, engine and journal) over
// loopback: cancel/replace and order status, replaces that name terms a working order cannot
// change, mass cancel with and without an account, and what the working order looks like in
// the report when the engine or the gateway refuses an amend. C++14 (QuickFIX headers); the
// fixture is in serve_fix_fixture.h.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "fix_test_client.h"
#include "fix_test_steps.h"
#include "serve_fix_fixture.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

using Msg = FIX::Message;

TEST_F(ServeFixTest, ReplaceStatusCancelAndMassCancel) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  TestClient* beta = Connect("BETA_T1");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("o1", "A1", '1', 10, "4.900"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*alpha, ReplaceMsg("o2", "o1", "A1", "4.910", 8), '5', &m));
  EXPECT_EQ(F(m, 41), "o1");
  EXPECT_EQ(F(m, 44), "4.910");
  EXPECT_EQ(F(m, 38), "8");
  EXPECT_EQ(F(m, 151), "8");
  ASSERT_TRUE(SendAndWaitExec(*alpha, Status("o2", "A1"), 'I', &m));
  EXPECT_EQ(F(m, 39), "0");
  EXPECT_EQ(F(m, 790), "q-o2");
  EXPECT_EQ(F(m, 151), "8");
  // Another firm's order looks unknown.
  ASSERT_TRUE(SendAndWaitExec(*beta, Status("o2", "A1"), 'I', &m));
  EXPECT_EQ(F(m, 39), "8");
  ASSERT_TRUE(SendAndWaitExec(*alpha, CancelMsg("c1", "o2", "A1"), '4', &m));
  EXPECT_EQ(F(m, 41), "o2");
  EXPECT_EQ(F(m, 58), "user");
  ASSERT_TRUE(SendAndWaitType(*alpha, CancelMsg("c2", "o2", "A1"), "9", &m));
  EXPECT_EQ(F(m, 58), "unknown_order");

  alpha->Send(NewOrderMsg("m1", "A1", '1', 1, "4.800"));
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("m2", "A1", '1', 1, "4.810"), '0', &m));
  Msg q = MassCancelMsg("mc1", "A1");
  ASSERT_TRUE(SendAndWaitType(*alpha, q, "r", &m));
  EXPECT_EQ(F(m, 531), "7");
  EXPECT_EQ(F(m, 533), "2");
  const std::string mass_time = F(m, 60);
  ASSERT_TRUE(alpha->WaitExec("m1", '4', &m));
  EXPECT_EQ(F(m, 58), "mass");
  // The report carries the request's exchange stamp, as its cancels do (SPEC §5).
  EXPECT_EQ(mass_time, F(m, 60));
  q.setField(11, "mc2");
  q.setField(530, "1");
  q.setField(55, "B200-GOLD-US-209912");
  ASSERT_TRUE(SendAndWaitType(*alpha, q, "r", &m));
  EXPECT_EQ(F(m, 531), "0");
  EXPECT_EQ(F(m, 58), "unknown_symbol");
}

// A replace can change the price and the quantity only. One that repeats a term it cannot
// change (FIX requires 54 and 40 on a G) with another value is refused invalid_field, the
// order left as it was and still live, instead of acknowledged as a change that did not
// happen; one that repeats them as they are is a replace.
TEST_F(ServeFixTest, AReplaceNamingOtherUnchangeableTermsIsRefused) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("u1", "A1", '1', 10, "4.900"), '0', &m));
  const std::string oid = F(m, 37);
  int n = 0;
  for (const auto& term : std::vector<std::pair<int, std::string>>{
           {54, "2"}, {40, "1"}, {40, "3"}, {40, "4"}, {59, "1"}, {99, "4.800"}}) {
    const int tag = term.first;
    const std::string& value = term.second;
    SCOPED_TRACE(std::to_string(tag) + "=" + value);
    Msg g = ReplaceMsg("u1-r" + std::to_string(++n), "u1", "A1", "4.910", 8);
    g.setField(tag, value);
    ASSERT_TRUE(SendAndWaitType(*alpha, g, "9", &m));
    EXPECT_EQ(F(m, 58), "invalid_field");
    EXPECT_EQ(F(m, 434), "2");
    EXPECT_EQ(F(m, 37), oid);
    EXPECT_EQ(F(m, 39), "0") << "still live";
  }
  ASSERT_TRUE(SendAndWaitExec(*alpha, Status("u1", "A1"), 'I', &m));
  EXPECT_EQ(F(m, 44), "4.900");
  EXPECT_EQ(F(m, 151), "10");
  Msg same = ReplaceMsg("u2", "u1", "A1", "4.910", 8);
  same.setField(59, "0");
  ASSERT_TRUE(SendAndWaitExec(*alpha, same, '5', &m));
  EXPECT_EQ(F(m, 44), "4.910");
  EXPECT_EQ(F(m, 151), "8");
}

// ExecInst (18, post-only), MaxFloor (111, the iceberg's display quantity) and ExpireTime
// (126) cannot change on a replace either: a G repeating the order's own values is served, one
// naming others (or adding one the order lacks) is refused invalid_field with the order as
// it is. Until 2026-12-06 the G was acknowledged and the three ignored, so a client that
// lowered its iceberg's display was told it had. The trade store keeps the three, so the
// comparison holds after a restart too.
TEST_F(ServeFixTest, AReplaceCannotChangePostOnlyTheDisplayOrTheExpiry) {
  TestClient* beta = Connect("BETA_T1");  // no cancel-on-disconnect: its orders stay
  Msg m;
  Msg iceberg = NewOrderMsg("i1", "B1", '2', 10, "5.300");
  iceberg.setField(111, "2");
  iceberg.setField(18, "6");
  iceberg.setField(59, "6");
  iceberg.setField(126, "20270302-14:00:00");
  ASSERT_TRUE(SendAndWaitExec(*beta, iceberg, '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("p1", "B1", '2', 5, "5.400"), '0', &m));
  const std::string p1 = F(m, 37);
  int n = 0;
  auto refused = [&](const std::string& orig, const std::vector<std::pair<int, std::string>>& set,
                     bool restarted) {
    SCOPED_TRACE(orig + (restarted ? " after the restart" : ""));
    Msg g = ReplaceMsg("r" + std::to_string(++n), orig, "B1", "5.310", 10);
    g.setField(54, "2");
    for (const auto& f : set) g.setField(f.first, f.second);
    ASSERT_TRUE(SendAndWaitType(*beta, g, "9", &m));
    EXPECT_EQ(F(m, 58), "invalid_field");
    EXPECT_EQ(F(m, 434), "2");
    EXPECT_EQ(F(m, 39), "0") << "still live";
  };
  for (int pass = 0; pass < 2; ++pass) {
    const bool restarted = pass == 1;
    refused("i1", {{111, "3"}, {59, "6"}, {126, "20270302-14:00:00"}}, restarted);
    refused("i1", {{111, "2"}, {59, "6"}, {126, "20270303-14:00:00"}}, restarted);
    refused("p1", {{18, "6"}}, restarted);   // p1 is no post-only order
    refused("p1", {{111, "1"}}, restarted);  // nor an iceberg
    refused("p1", {{126, "20270302-14:00:00"}}, restarted);
    if (HasFailure()) return;
    if (!restarted) {
      RestartServer();
      beta = Connect("BETA_T1");
    }
  }
  ASSERT_TRUE(SendAndWaitExec(*beta, Status("p1", "B1"), 'I', &m));
  EXPECT_EQ(F(m, 37), p1);
  EXPECT_EQ(F(m, 44), "5.400");
  // The order's own values are served.
  Msg same = ReplaceMsg("i2", "i1", "B1", "5.310", 10);
  same.setField(54, "2");
  same.setField(111, "2");
  same.setField(18, "6");
  same.setField(59, "6");
  same.setField(126, "20270302-14:00:00");
  ASSERT_TRUE(SendAndWaitExec(*beta, same, '5', &m));
  EXPECT_EQ(F(m, 44), "5.310");
}

// An order's contract cannot change either: a G or an F whose 55 names another listed
// contract than the order's is refused invalid_field, reporting the order as it is, and the
// order keeps working. The engine's commands carry no contract for an amend, so until
// 2026-12-04 both went through on the order named by 41, whatever 55 said.
TEST_F(ServeFixTest, AnAmendNamingAnotherContractIsRefused) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("k1", "A1", '1', 10, "4.900"), '0', &m));
  const std::string oid = F(m, 37);
  Msg g = ReplaceMsg("k1-r", "k1", "A1", "4.910", 8);
  g.setField(55, kSym2);
  ASSERT_TRUE(SendAndWaitType(*alpha, g, "9", &m));
  EXPECT_EQ(F(m, 58), "invalid_field");
  EXPECT_EQ(F(m, 434), "2");
  EXPECT_EQ(F(m, 37), oid);
  EXPECT_EQ(F(m, 39), "0") << "still live";
  Msg f = CancelMsg("k1-c", "k1", "A1");
  f.setField(55, kSym2);
  ASSERT_TRUE(SendAndWaitType(*alpha, f, "9", &m));
  EXPECT_EQ(F(m, 58), "invalid_field");
  EXPECT_EQ(F(m, 434), "1");
  EXPECT_EQ(F(m, 37), oid);
  EXPECT_EQ(F(m, 39), "0") << "still live";
  ASSERT_TRUE(SendAndWaitExec(*alpha, Status("k1", "A1"), 'I', &m));
  EXPECT_EQ(F(m, 39), "0");
  EXPECT_EQ(F(m, 44), "4.900");
  EXPECT_EQ(F(m, 151), "10");
  // Its own contract: a replace, then a cancel.
  ASSERT_TRUE(SendAndWaitExec(*alpha, ReplaceMsg("k2", "k1", "A1", "4.910", 8), '5', &m));
  EXPECT_EQ(F(m, 55), kSym);
  ASSERT_TRUE(SendAndWaitExec(*alpha, CancelMsg("k3", "k2", "A1"), '4', &m));
}

// A mass cancel that names no Account cancels the orders its session entered: only on the
// symbol 55 names (530=1), with 58=mass, and an unknown symbol is refused (SPEC §4.2). It
// went down the cancel-on-disconnect path: every symbol, 58=disconnect, no refusal.
TEST_F(ServeFixTest, AMassCancelWithoutAccountKeepsToItsSymbolAndSaysMass) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("g1", "A1", '1', 1, "4.900"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(
      *alpha, NewOrderMsg("p1", "A1", '1', 1, "5.900", "B200-PLAT-US-202703"), '0', &m));
  Msg q = MassCancelMsg("mq1", "A1");
  q.removeField(1);
  q.setField(530, "1");
  q.setField(55, "B200-GOLD-US-202703");
  ASSERT_TRUE(SendAndWaitType(*alpha, q, "r", &m));
  EXPECT_EQ(F(m, 531), "1");
  EXPECT_EQ(F(m, 533), "1");
  ASSERT_TRUE(alpha->WaitExec("g1", '4', &m));
  EXPECT_EQ(F(m, 58), "mass");
  ASSERT_TRUE(SendAndWaitExec(*alpha, StatusMsg("p1", "A1"), 'I', &m));
  EXPECT_EQ(F(m, 39), "0") << "the other symbol's order still works";
  Msg unknown = MassCancelMsg("mq2", "A1");
  unknown.removeField(1);
  unknown.setField(530, "1");
  unknown.setField(55, "B200-GOLD-US-209912");
  ASSERT_TRUE(SendAndWaitType(*alpha, unknown, "r", &m));
  EXPECT_EQ(F(m, 531), "0");
  EXPECT_EQ(F(m, 58), "unknown_symbol");
}

// A replace the engine refuses (outside the band, off tick, over the maximum quantity) leaves
// the order working, and the reject says so: 37 its OrderID, 39 its status. It said
// 37=NONE 39=8, as for an unknown order.
TEST_F(ServeFixTest, AnEngineRefusedReplaceReportsTheWorkingOrder) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("e1", "A1", '1', 5, "4.900"), '0', &m));
  const std::string oid = F(m, 37);
  int n = 0;
  for (const auto& refused : std::vector<std::tuple<std::string, int, std::string>>{
           std::make_tuple("9.000", 5, "price_outside_band"),
           std::make_tuple("4.9005", 5, "invalid_price_tick")}) {
    const std::string& px = std::get<0>(refused);
    const int qty = std::get<1>(refused);
    const std::string& reason = std::get<2>(refused);
    SCOPED_TRACE(reason);
    ASSERT_TRUE(SendAndWaitType(
        *alpha, ReplaceMsg("e1-r" + std::to_string(++n), "e1", "A1", px, qty), "9", &m));
    EXPECT_EQ(F(m, 58), reason);
    EXPECT_EQ(F(m, 37), oid);
    EXPECT_EQ(F(m, 39), "0");
  }
}

// A cancel or replace the gateway refuses itself (a quantity that is no whole number, a
// price not above 0, an off-tick stop, a symbol that is no id) for an order of the firm's own that
// still works reports the order as it stands: its OrderID and 39=1 (partly filled), not 37=NONE
// 39=8, which a client's order manager would read as the order being dead. An unknown order and
// another firm's account still get 37=NONE 39=8, the same answer either way.
TEST_F(ServeFixTest, AGatewayRefusedAmendOfAWorkingOrderReportsItsStatus) {
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  TestClient* beta = Connect("BETA_T1");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("w1", "A1", '1', 10, "4.900"), '0', &m));
  const std::string oid = F(m, 37);
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("w1-hit", "B1", '2', 3, "4.900"), 'F', &m));
  ASSERT_TRUE(alpha->WaitExec("w1", 'F', &m));
  int n = 0;
  for (const auto& term :
       std::vector<std::pair<int, std::string>>{{38, "1.5"}, {44, "-4.900"}, {99, "4.8005"}}) {
    const int tag = term.first;
    const std::string& value = term.second;
    SCOPED_TRACE(std::to_string(tag) + "=" + value);
    Msg g = ReplaceMsg("w1-r" + std::to_string(++n), "w1", "A1", "4.910", 8);
    g.setField(tag, value);
    ASSERT_TRUE(SendAndWaitType(*alpha, g, "9", &m));
    EXPECT_EQ(F(m, 434), "2");
    EXPECT_EQ(F(m, 37), oid);
    EXPECT_EQ(F(m, 39), "1") << "partly filled and still working";
  }
  Msg c = CancelMsg("w1-c", "w1", "A1");
  c.setField(55, "BAD SYMBOL");  // not an id: refused at the gateway
  ASSERT_TRUE(SendAndWaitType(*alpha, c, "9", &m));
  EXPECT_EQ(F(m, 58), "invalid_field");
  EXPECT_EQ(F(m, 434), "1");
  EXPECT_EQ(F(m, 37), oid);
  EXPECT_EQ(F(m, 39), "1");
  // Unknown, or another firm's: nothing told.
  Msg unknown = ReplaceMsg("w1-r9", "nope", "A1", "-4.900", 8);
  ASSERT_TRUE(SendAndWaitType(*alpha, unknown, "9", &m));
  EXPECT_EQ(F(m, 37), "NONE");
  EXPECT_EQ(F(m, 39), "8");
  Msg foreign = ReplaceMsg("b-r1", "w1", "A1", "-4.900", 8);
  ASSERT_TRUE(SendAndWaitType(*beta, foreign, "9", &m));
  EXPECT_EQ(F(m, 37), "NONE");
  EXPECT_EQ(F(m, 39), "8");
  EXPECT_EQ(F(m, 58), "unknown_order");
  // Nothing changed.
  ASSERT_TRUE(SendAndWaitExec(*alpha, Status("w1", "A1"), 'I', &m));
  EXPECT_EQ(F(m, 44), "4.900");
  EXPECT_EQ(F(m, 151), "7");
}

// SPEC §6 ("a firm never touches another firm's orders"; "no session ever receives another
// firm's execution reports"). An operator moves BETA_T1 to ALPHA: a config edit and a
// restart. Its orders entered for BETA stay BETA's: its own mass cancel (530=7) cancels none
// of them, and a ResendRequest gets its BETA-era reports as a gap fill, not again.
TEST_F(ServeFixTest, ASessionMovedToAnotherFirmNeitherGetsAgainNorCancelsItsOldFirmsOrders) {
  const std::string soh(1, '\x01');
  auto raw = [](int seq, const std::string& type, const std::string& fields) {
    return Frame("35=" + type + "|49=BETA_T1|56=CFX|34=" + std::to_string(seq) + "|52=" + UtcNow() +
                 "|" + fields);
  };
  bool closed = false;
  {
    RawSocket s(server_->fix_port());
    ASSERT_TRUE(s.Write(raw(1, "A", "98=0|108=30|141=Y|")));
    ASSERT_NE(s.ReadUntil(soh + "35=A" + soh, 5000, &closed).find(soh + "35=A" + soh),
              std::string::npos);
    for (int i = 0; i < 2; ++i) {  // BETA_T1 has no cancel-on-disconnect: they stay
      const std::string cl = "old" + std::to_string(i);
      ASSERT_TRUE(s.Write(raw(
          2 + i, "D",
          "11=" + cl + "|1=B1|55=" + kSym + "|54=2|38=3|40=2|44=5.100|59=1|60=" + UtcNow() + "|")));
      const std::string ack = s.ReadUntil(soh + "11=" + cl + soh, 5000, &closed);
      ASSERT_NE(ack.find(soh + "11=" + cl + soh), std::string::npos) << ack;
    }
    ASSERT_TRUE(s.Write(raw(4, "5", "")));
    s.ReadUntil(soh + "35=5" + soh, 5000, &closed);
  }
  StopServer();
  std::string config = ServeConfigText(dir_ + "/data");
  const std::string before = "sender_comp_id = \"BETA_T1\"\nfirm = \"BETA\"";
  const size_t at = config.find(before);
  ASSERT_NE(at, std::string::npos);
  config.replace(at, before.size(), "sender_comp_id = \"BETA_T1\"\nfirm = \"ALPHA\"");
  std::string error;
  server_ = ServeHarness::StartWithConfig(config, &error);
  ASSERT_TRUE(server_ != nullptr) << error;

  RawSocket s(server_->fix_port());
  ASSERT_TRUE(s.Write(raw(5, "A", "98=0|108=30|")));  // no reset: its numbers go on
  ASSERT_NE(s.ReadUntil(soh + "35=A" + soh, 5000, &closed).find(soh + "35=A" + soh),
            std::string::npos);
  ASSERT_TRUE(s.Write(raw(6, "2", "7=1|16=0|")));
  std::string resent = s.ReadUntil(soh + "123=Y" + soh, 5000, &closed);
  resent += s.Read(500, &closed);
  EXPECT_NE(resent.find(soh + "123=Y" + soh), std::string::npos) << resent;
  EXPECT_EQ(resent.find(soh + "1=B1" + soh), std::string::npos) << resent;
  EXPECT_EQ(resent.find("=old"), std::string::npos) << resent;

  ASSERT_TRUE(s.Write(raw(7, "q", "11=q1|530=7|60=" + UtcNow() + "|")));
  const std::string report = s.ReadUntil(soh + "35=r" + soh, 5000, &closed);
  ASSERT_NE(report.find(soh + "35=r" + soh), std::string::npos) << report;
  EXPECT_NE(report.find(soh + "533=0" + soh), std::string::npos) << report;
  EXPECT_EQ(report.find(soh + "150=4" + soh), std::string::npos) << report;
}

// The gateway's refusal of an order on an account the session may not use (a typo here)
// echoes the Account it was sent with and names no order (37=NONE): a ResendRequest gets it
// again (43=Y), not a GapFill, so the client learns its order's fate. It was gap-filled as
// another firm's report until 2026-12-07 (a review), and the order stayed pending for good.
TEST_F(ServeFixTest, AGatewayRefusalOfAForeignAccountIsResentNotGapFilled) {
  const std::string soh(1, '\x01');
  auto raw = [](int seq, const std::string& type, const std::string& fields) {
    return Frame("35=" + type + "|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) +
                 "|52=" + UtcNow() + "|" + fields);
  };
  bool closed = false;
  RawSocket s(server_->fix_port());
  ASSERT_TRUE(s.Write(raw(1, "A", "98=0|108=30|141=Y|")));
  ASSERT_NE(s.ReadUntil(soh + "35=A" + soh, 5000, &closed).find(soh + "35=A" + soh),
            std::string::npos);
  ASSERT_TRUE(s.Write(raw(2, "D",
                          "11=typo1|1=TYPO|55=" + std::string(kSym) +
                              "|54=1|38=1|40=2|44=5.000|59=0|60=" + UtcNow() + "|")));
  const std::string refused = s.ReadUntil(soh + "11=typo1" + soh, 5000, &closed);
  ASSERT_NE(refused.find(soh + "58=account_not_permitted" + soh), std::string::npos) << refused;
  ASSERT_NE(refused.find(soh + "37=NONE" + soh), std::string::npos) << refused;
  ASSERT_TRUE(s.Write(raw(3, "2", "7=1|16=0|")));
  std::string resent = s.ReadUntil(soh + "11=typo1" + soh, 5000, &closed);
  resent += s.Read(300, &closed);
  EXPECT_NE(resent.find(soh + "43=Y" + soh), std::string::npos) << resent;
  EXPECT_NE(resent.find(soh + "11=typo1" + soh), std::string::npos) << resent;
  EXPECT_NE(resent.find(soh + "1=TYPO" + soh), std::string::npos) << resent;
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
