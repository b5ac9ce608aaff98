// End-to-end tests of the FIX gateway's market data and security list (SPEC §6: x/y, V/W/X/Y)
// over loopback sockets, with the fake exchange's books behind the gateway.
#include <algorithm>
#include <string>
#include <vector>

#include "fix_test_client.h"
#include "fix_test_steps.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

using Msg = FIX::Message;

TEST_F(FixGatewayTest, SecurityListAndMarketDataSnapshotThenIncrementals) {
  auto alpha = Connect("ALPHA_T1", "alpha-secret");
  auto beta = Connect("BETA_T1");
  Msg m;
  ASSERT_TRUE(SendAndWaitType(*beta, SecurityListMsg("sl1"), "y", &m));
  EXPECT_EQ(F(m, 320), "sl1");
  EXPECT_EQ(F(m, 560), "0");
  EXPECT_EQ(F(m, 146), "2");

  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("md1", "A1", '1', 5, "5.000"), '0', &m));
  exchange_->Drain();  // the book update follows the ExecutionReport

  Msg v = MarketDataMsg("md-1", kSym);
  ASSERT_TRUE(SendAndWaitType(*beta, v, "W", &m));
  EXPECT_EQ(F(m, 262), "md-1");
  EXPECT_EQ(F(m, 55), kSym);
  ASSERT_EQ(F(m, 268), "1");
  FIX::Group e(268, 269);
  m.getGroup(1, e);
  EXPECT_EQ(e.getField(269), "0");
  EXPECT_EQ(e.getField(270), "5.000");
  EXPECT_EQ(e.getField(271), "5");

  beta->Send(NewOrderMsg("md2", "B1", '2', 2, "5.000"));
  // A trade entry, then the bid level changing from 5 to 3.
  ASSERT_TRUE(beta->WaitFor(FirstIncremental("2", "2"), &m));
  ASSERT_TRUE(beta->WaitFor(FirstIncremental("0", "3", "1"), &m));

  // Unknown symbol -> Y; unsubscribe stops the stream.
  Msg bad = v;
  bad.setField(262, "md-2");
  bad.FIX::FieldMap::removeGroup(146);
  FIX::Group s2(146, 55);
  s2.setField(55, "NOPE-202701");
  bad.addGroup(s2);
  ASSERT_TRUE(SendAndWaitType(*beta, bad, "Y", &m));
  EXPECT_EQ(F(m, 262), "md-2");
  EXPECT_EQ(F(m, 281), "0");
  v.setField(263, "2");
  beta->Send(v);
  // The session's messages are processed in order: once a later request of BETA's is
  // answered, the unsubscribe has been too (a fixed wait was tight under TSan).
  bad.setField(262, "md-3");
  ASSERT_TRUE(SendAndWaitType(*beta, bad, "Y", &m));
  EXPECT_EQ(F(m, 262), "md-3");
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("md3", "A1", '1', 1, "4.900"), '0', &m));
  EXPECT_FALSE(beta->WaitType("X", &m, 300));
}

// SPEC §6: MarketDepth (264) cuts the book, 263=0 is a snapshot with nothing kept, and a
// request gets only the entry types (269) it names; each refusal names its reason (281).
TEST_F(FixGatewayTest, MarketDataDepthSnapshotOnlyAndEntryTypesAreHonoured) {
  auto alpha = Connect("ALPHA_T1", "alpha-secret");
  auto beta = Connect("BETA_T1");
  Msg m;
  for (const char* px : {"5.000", "4.990", "4.980"}) {
    ASSERT_TRUE(
        SendAndWaitExec(*alpha, NewOrderMsg(std::string("bid") + px, "A1", '1', 1, px), '0', &m));
  }
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("ask", "A1", '2', 1, "5.100"), '0', &m));
  exchange_->Drain();  // the book updates follow the ExecutionReports
  auto request = [](const std::string& id, const std::string& type, const std::string& depth,
                    std::vector<std::string> entry_types) {
    Msg v = MarketDataMsg(id, kSym, depth);
    v.setField(263, type);
    v.FIX::FieldMap::removeGroup(267);
    for (const std::string& t : entry_types) {
      FIX::Group g(267, 269);
      g.setField(269, t);
      v.addGroup(g);
    }
    return v;
  };
  auto for_request = [](const std::string& type, const std::string& id) {
    return [type, id](const Msg& x) { return F(x, 35) == type && F(x, 262) == id; };
  };
  auto entries = [](const Msg& w) {
    std::vector<std::string> out;
    const int n = w.isSetField(268) ? std::stoi(w.getField(268)) : 0;
    for (int i = 1; i <= n; ++i) {
      FIX::Group e(268, 269);
      w.getGroup(i, e);
      out.push_back(e.getField(269) + "@" + e.getField(270));
    }
    return out;
  };
  // Bids only, two levels, kept.
  beta->Send(request("depth2", "1", "2", {"0"}));
  ASSERT_TRUE(beta->WaitFor(for_request("W", "depth2"), &m));
  EXPECT_EQ(entries(m), (std::vector<std::string>{"0@5.000", "0@4.990"}));
  // Everything, once.
  beta->Send(request("once", "0", "0", {"0", "1"}));
  ASSERT_TRUE(beta->WaitFor(for_request("W", "once"), &m));
  EXPECT_EQ(entries(m), (std::vector<std::string>{"0@5.000", "0@4.990", "0@4.980", "1@5.100"}));
  // Changes below the depth, on the offers, or to what a snapshot-only request saw: nothing.
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("deep", "A1", '1', 1, "4.970"), '0', &m));
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("ask2", "A1", '2', 1, "5.090"), '0', &m));
  // Then one inside the depth on the bids: the first incremental is that one, 4.990 leaving
  // the two levels and 5.010 entering them.
  ASSERT_TRUE(SendAndWaitExec(*alpha, NewOrderMsg("top", "A1", '1', 1, "5.010"), '0', &m));
  ASSERT_TRUE(beta->WaitType("X", &m));
  EXPECT_EQ(F(m, 262), "depth2");
  std::vector<std::string> changes;
  for (int i = 1; i <= std::stoi(F(m, 268)); ++i) {
    FIX::Group e(268, 279);
    m.getGroup(i, e);
    changes.push_back(e.getField(279) + ":" + e.getField(269) + "@" + e.getField(270));
  }
  std::sort(changes.begin(), changes.end());
  EXPECT_EQ(changes, (std::vector<std::string>{"0:0@5.010", "2:0@4.990"}));
  EXPECT_FALSE(beta->WaitFor(for_request("X", "once"), &m, 300));
  // Refusals, each with its reason.
  struct Refusal {
    Msg request;
    std::string reason;
  };
  Msg update_type = request("full", "1", "0", {"0"});
  update_type.setField(265, "0");
  for (const Refusal& r :
       {Refusal{request("depth2", "1", "0", {"0"}), "1"},  // a live MDReqID again
        Refusal{request("neg", "1", "-1", {"0"}), "5"}, Refusal{update_type, "6"},
        Refusal{request("type9", "1", "0", {"9"}), "8"},
        Refusal{request("nosub", "2", "0", {"0"}), "4"},
        // A subscription type other than 0, 1, 2: Y, not a session Reject (the dictionary
        // listed 263's values and refused it before the gateway saw it, until 2026-12-06).
        Refusal{request("sub5", "5", "0", {"0"}), "4"}}) {
    const std::string id = F(r.request, 262);
    SCOPED_TRACE(id);
    beta->Send(r.request);
    ASSERT_TRUE(beta->WaitFor(for_request("Y", id), &m));
    EXPECT_EQ(F(m, 281), r.reason);
  }
}

// A session holds at most 64 live subscriptions (each keeps its own copy of the books it
// sent and is walked on every book change): the 65th request gets Y with 281=2, and an
// unsubscribe frees a place. Another session is not affected.
TEST_F(FixGatewayTest, MarketDataSubscriptionsPerSessionAreBounded) {
  auto beta = Connect("BETA_T1");
  Msg m;
  for (int i = 0; i < 64; ++i) {
    const std::string id = "sub-" + std::to_string(i);
    ASSERT_TRUE(SendAndWaitType(*beta, MarketDataMsg(id, kSym), "W", &m)) << i;
    EXPECT_EQ(F(m, 262), id);
  }
  ASSERT_TRUE(SendAndWaitType(*beta, MarketDataMsg("sub-64", kSym), "Y", &m));
  EXPECT_EQ(F(m, 262), "sub-64");
  EXPECT_EQ(F(m, 281), "2");
  EXPECT_NE(F(m, 58).find("at most 64"), std::string::npos) << F(m, 58);
  Msg off = MarketDataMsg("sub-3", kSym);
  off.setField(263, "2");
  beta->Send(off);
  ASSERT_TRUE(SendAndWaitType(*beta, MarketDataMsg("sub-64", kSym), "W", &m));
  EXPECT_EQ(F(m, 262), "sub-64");
  auto alpha = Connect("ALPHA_T1", "alpha-secret");
  ASSERT_TRUE(SendAndWaitType(*alpha, MarketDataMsg("a-1", kSym), "W", &m));
}
}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
