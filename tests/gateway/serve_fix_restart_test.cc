// `cfx serve` stopped and started again on its data dir: what a FIX client finds after it
// (sequence numbers, resting orders, market data). The reports a crash kept from going out
// are serve_fix_test.cc's. C++14, like every file that includes QuickFIX.
#include <string>
#include <vector>

#include "fix_test_client.h"
#include "fix_test_steps.h"
#include "serve_fix_fixture.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

using Msg = FIX::Message;

TEST_F(ServeFixTest, RestartKeepsSequenceNumbersAndRestingOrders) {
  TestClient* beta = Connect("BETA_T1");  // no cancel-on-disconnect: the order survives
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("keep", "B1", '2', 7, "5.100"), '0', &m));
  const std::string order_id = F(m, 37);
  const int seq_before = std::atoi(m.getHeader().getField(34).c_str());
  RestartServer();
  beta = Connect("BETA_T1");  // same client store: continues its sequence numbers
  ASSERT_TRUE(SendAndWaitExec(*beta, Status("keep", "B1"), 'I', &m));
  EXPECT_EQ(F(m, 39), "0");
  EXPECT_EQ(F(m, 37), order_id);
  EXPECT_EQ(F(m, 151), "7");
  // The gateway continued its outgoing sequence instead of starting again at 1.
  EXPECT_GT(std::atoi(m.getHeader().getField(34).c_str()), seq_before);
}

// SPEC §5 (a restart gives the same books) and §6 (`V` answers with the book as a `W`
// snapshot): FIX market data hears of a book only when an input changes it, so until
// 2026-12-06 a `V` after a restart found every book empty and no last trade, while HTTP
// showed them.
TEST_F(ServeFixTest, AfterARestartMarketDataHasTheRecoveredBookAndLastTrade) {
  TestClient* beta = Connect("BETA_T1");  // no cancel-on-disconnect: its orders stay
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b1", "B1", '1', 3, "5.100"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b2", "B1", '1', 2, "5.050"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("a1", "A1", '2', 1, "5.100"), 'F', &m));
  RestartServer();
  beta = Connect("BETA_T1");
  ASSERT_TRUE(SendAndWaitType(*beta, MarketDataMsg("md-r", kSym), "W", &m));
  ASSERT_EQ(F(m, 268), "3") << m.toString();
  std::vector<std::string> entries;
  for (int i = 1; i <= 3; ++i) {
    FIX::Group e(268, 269);
    m.getGroup(i, e);
    entries.push_back(e.getField(269) + " " + e.getField(270) + " " + e.getField(271));
  }
  EXPECT_EQ(entries[0], "0 5.100 2");
  EXPECT_EQ(entries[1], "0 5.050 2");
  EXPECT_EQ(entries[2], "2 5.100 1");
}

// [limits] max_open_orders_per_account (docs/reliability.md, "Bounds"): an account's live
// orders are capped, a new order past the cap is rejected `throttled`, another account is
// not touched, an order that ends frees its place. The cap is a sequenced risk setting and
// the counts come from the orders, so a restart with another cap applies it to the orders
// that survived, and lifting it (0) lets them grow again.
TEST_F(ServeFixTest, AnAccountsLiveOrdersAreCappedAlsoAcrossRestarts) {
  RestartServer("max_open_orders_per_account = 2\n");
  TestClient* beta = Connect("BETA_T1");  // no cancel-on-disconnect: its orders stay
  TestClient* alpha = Connect("ALPHA_T1", "alpha-secret");
  Msg m;
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b1", "B1", '2', 1, "5.300"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b2", "B1", '2', 1, "5.310"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b3", "B1", '2', 1, "5.320"), '8', &m));
  EXPECT_EQ(F(m, 58), "throttled");
  EXPECT_EQ(F(m, 37), "NONE");
  // Another account is not touched; a fill that ends b1 frees its place.
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("a1", "A1", '1', 1, "5.300"), 'F', &m));
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b4", "B1", '2', 1, "5.330"), '0', &m));
  // Lifted at a restart: the two live orders survive it and a third rests.
  RestartServer("max_open_orders_per_account = 0\n");
  beta = Connect("BETA_T1");
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b5", "B1", '2', 1, "5.340"), '0', &m));
  // Capped again at 2: three live orders, so the next one is refused until two end.
  RestartServer("max_open_orders_per_account = 2\n");
  beta = Connect("BETA_T1");
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b6", "B1", '2', 1, "5.350"), '8', &m));
  EXPECT_EQ(F(m, 58), "throttled");
  ASSERT_TRUE(SendAndWaitExec(*beta, CancelMsg("c2", "b2", "B1"), '4', &m));
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b7", "B1", '2', 1, "5.350"), '8', &m));
  ASSERT_TRUE(SendAndWaitExec(*beta, CancelMsg("c4", "b4", "B1"), '4', &m));
  ASSERT_TRUE(SendAndWaitExec(*beta, NewOrderMsg("b8", "B1", '2', 1, "5.350"), '0', &m));
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
