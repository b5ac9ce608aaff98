// Two exchange cores on a real 3-server NATS cluster: the standby applies the primary's
// random order flow (every command variant) to the same engine state, publishes the same
// books and positions, refuses orders, and takes over when promoted.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "../exchange/core_test_util.h"
#include "cfx/replication/jetstream_log.h"
#include "nats_test_cluster.h"

namespace cfx::replication {
namespace {

using exchange::ExchangeCore;
using exchange::OfferResult;
namespace et = exchange::testing;

// The engine state hash recovery finds in `dir` (a plain restart, no replication).
uint64_t RecoveredHash(const std::string& dir) {
  ExchangeCore core(et::TestConfig(), et::TestOptions(dir));
  auto r = core.Start();
  EXPECT_TRUE(r.ok()) << r.status();
  const uint64_t h = r.ok() ? r->state_hash : 0;
  EXPECT_TRUE(core.Stop().ok());
  return h;
}

TEST(ReplicatedExchangeTest, StandbyAppliesTheSameFlowPublishesTheSameViewsAndTakesOver) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("exchange");
  et::TempDir dir_a, dir_b;
  auto log_a = OpenLog(o);
  auto log_b = OpenLog(o);
  ASSERT_TRUE(log_a && log_b);
  exchange::ExchangeOptions oa = et::TestOptions(dir_a.path());
  oa.replication = log_a.get();
  exchange::ExchangeOptions ob = et::TestOptions(dir_b.path());
  ob.replication = log_b.get();
  auto primary = std::make_unique<ExchangeCore>(et::TestConfig(), oa);
  auto standby = std::make_unique<ExchangeCore>(et::TestConfig(), ob);
  ASSERT_TRUE(primary->Start().ok());
  ASSERT_TRUE(standby->Start().ok());
  EXPECT_FALSE(standby->leading());
  ASSERT_TRUE(primary->Promote().ok());  // it would hold the lease
  ASSERT_TRUE(primary->leading());
  const std::vector<std::string> listed = primary->ListedSymbols();
  ASSERT_FALSE(listed.empty());

  et::RandomCommands gen(23, 2, 4);
  for (const engine::Command& c : gen.Listing()) ASSERT_EQ(primary->Submit(c, 1), OfferResult::kAccepted);
  for (int i = 0; i < 3000; ++i) {
    OfferResult r;
    const engine::Command c = gen.Next();
    while ((r = primary->Submit(c, 2 + i)) == OfferResult::kFull) std::this_thread::yield();
    ASSERT_EQ(r, OfferResult::kAccepted);
  }
  ASSERT_TRUE(primary->Flush().ok());
  EXPECT_EQ(standby->Submit(gen.Next(), 1), OfferResult::kNotLeader);
  const uint64_t end = primary->Stats().next_seq;
  ASSERT_TRUE(WaitFor([&] { return standby->Stats().next_seq == end; }))
      << standby->Stats().next_seq << " of " << end;
  EXPECT_EQ(standby->Stats().followed, end - 1);
  // The standby compared its engine's state with the primary's every 500 inputs, up to the
  // last multiple of 500 (the primary, idle, sent that one on its own).
  const uint64_t last_check = (end - 1) / 500 * 500;
  ASSERT_TRUE(WaitFor([&] { return standby->Stats().state_checked_seq == last_check; }))
      << standby->Stats().state_checked_seq << " of " << last_check;
  EXPECT_EQ(standby->Stats().state_hash, primary->Stats().state_hash);
  EXPECT_GT(primary->Stats().trades, 0u);
  EXPECT_EQ(standby->Stats().trades, primary->Stats().trades);
  EXPECT_EQ(standby->ListedSymbols(), primary->ListedSymbols());
  for (const std::string& sym : {gen.Sym(0), gen.Sym(1)}) {
    auto pa = primary->BookSnapshot(sym, 10), pb = standby->BookSnapshot(sym, 10);
    ASSERT_TRUE(pa && pb) << sym;
    ASSERT_EQ(pa->bids.size(), pb->bids.size()) << sym;
    ASSERT_EQ(pa->asks.size(), pb->asks.size()) << sym;
    for (size_t i = 0; i < pa->bids.size(); ++i) {
      EXPECT_EQ(pa->bids[i].px, pb->bids[i].px);
      EXPECT_EQ(pa->bids[i].qty, pb->bids[i].qty);
    }
    EXPECT_EQ(pa->last_px, pb->last_px);
  }
  for (int i = 0; i < 4; ++i) {
    auto a = primary->Positions(gen.Acct(i)), b = standby->Positions(gen.Acct(i));
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k].qty, b[k].qty) << gen.Acct(i);
  }

  // The primary goes away; the standby reads to the end, takes orders, keeps its listing.
  ASSERT_TRUE(primary->Stop().ok());
  primary.reset();
  ASSERT_TRUE(standby->Promote().ok());
  EXPECT_TRUE(standby->leading());
  for (int i = 0; i < 200; ++i) {
    OfferResult r;
    const engine::Command c = gen.Next();
    while ((r = standby->Submit(c, 10000 + i)) == OfferResult::kFull) std::this_thread::yield();
    ASSERT_EQ(r, OfferResult::kAccepted);
  }
  ASSERT_TRUE(standby->Flush().ok());
  EXPECT_EQ(standby->ListedSymbols(), listed);
  ASSERT_TRUE(standby->Stop().ok());
  standby.reset();

  // The old primary, restarted as a standby, catches up to the same engine state.
  auto log_a2 = OpenLog(o);
  oa.replication = log_a2.get();
  {
    ExchangeCore again(et::TestConfig(), oa);
    ASSERT_TRUE(again.Start().ok());
    ASSERT_TRUE(WaitFor([&] { return again.Stats().followed >= 200; }));
    ASSERT_TRUE(again.Stop().ok());
  }
  EXPECT_EQ(RecoveredHash(dir_a.path()), RecoveredHash(dir_b.path()));
}

}  // namespace
}  // namespace cfx::replication
