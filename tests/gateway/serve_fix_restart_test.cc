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
  beta->Stop();
  clients_.clear();
  StopServer();
  StartServer();
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
  beta->Stop();
  alpha->Stop();
  clients_.clear();
  StopServer();
  StartServer();
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

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
