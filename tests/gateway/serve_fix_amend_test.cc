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

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
