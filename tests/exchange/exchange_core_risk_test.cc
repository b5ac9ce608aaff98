// The exchange core's pre-trade risk (SPEC §4): new orders and quantity-raising replaces
// against collateral, and restarts that replay the decisions under other settings.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/exchange/engine_codec.h"
#include "cfx/exchange/engine_matcher.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/journal/journal.h"
#include "cfx/journal/matcher_state_machine.h"
#include "cfx/journal/recovery.h"
#include "cfx/settlement/trade_store.h"
#include "cfx/storage/kv_store.h"
#include "commit_log_child.h"
#include "core_test_util.h"
#include "exchange_core_test_util.h"
#include "gtest/gtest.h"

namespace cfx::exchange {
namespace {

using testing::Order;
using testing::Recorder;
using testing::SubmitOrDie;

// A core on a fresh data dir whose account A0 holds 5,000 USD of collateral, its outcomes
// recorded; Start()ed by the test.
struct CoreWithCollateral {
  static common::ExchangeConfig Config() {
    common::ExchangeConfig config = testing::TestConfig();
    config.accounts[0].collateral = common::MicroUsd(5'000'000'000);  // 5,000 USD
    return config;
  }
  CoreWithCollateral() : core(Config(), testing::TestOptions(dir.path())), rec(&core) {
    core.AddListener(&rec);
  }
  testing::TempDir dir;
  ExchangeCore core;
  Recorder rec;
};

TEST(ExchangeCoreTest, PreTradeRiskRejectsOrdersAboveCollateral) {
  CoreWithCollateral t;
  ExchangeCore& core = t.core;
  Recorder& rec = t.rec;
  ASSERT_TRUE(core.Start().ok());
  // 1,000 USD
  ASSERT_TRUE(core.RefreshMargins({{"B200-GOLD-US-202703", engine::MicroUsd(1'000'000'000)}}).ok());
  SubmitOrDie(core, Order("ok", "A0", engine::Side::kBuy, 5000, 3));
  SubmitOrDie(core, Order("ok2", "A0", engine::Side::kSell, 5100, 2));  // max(|3|,|-2|) = 3
  SubmitOrDie(core, Order("big", "A0", engine::Side::kBuy, 5000, 3));   // 6 lots > 5
  SubmitOrDie(core, Order("fits", "A0", engine::Side::kBuy, 5000, 2));  // 5 lots
  ASSERT_TRUE(core.Flush().ok());
  ASSERT_EQ(rec.rejects.size(), 1u);
  EXPECT_EQ(rec.rejects[0].event.order.cl.view(), "big");
  EXPECT_EQ(rec.rejects[0].event.reject, engine::RejectReason::kInsufficientMargin);
  EXPECT_TRUE(core.FindOrder("A0", "fits").has_value());
  ASSERT_TRUE(core.Stop().ok());
}

// SPEC §4: pre-trade risk counts open buys and sells, so a replace that raises an order's
// quantity is checked as a new order of the difference would be; refused, it is
// cancel_rejected `insufficient_margin` and the order stays as it was (SPEC §4.2). Until
// 2026-12-07 no replace was checked: 3 lots within 5,000 USD of collateral became 500.
TEST(ExchangeCoreTest, PreTradeRiskChecksAReplaceThatRaisesTheQuantity) {
  CoreWithCollateral t;
  ExchangeCore& core = t.core;
  ASSERT_TRUE(core.Start().ok());
  ASSERT_TRUE(core.RefreshMargins({{"B200-GOLD-US-202703", engine::MicroUsd(1'000'000'000)}}).ok());
  auto replace = [](const char* orig, const char* cl, int64_t qty) {
    engine::ReplaceCmd c;
    c.orig = engine::Name::From(orig);
    c.cl = engine::Name::From(cl);
    c.acct = engine::Name::From("A0");
    c.has_qty = true;
    c.qty = engine::Qty(qty);
    return c;
  };
  SubmitOrDie(core, Order("b", "A0", engine::Side::kBuy, 5000, 3));
  SubmitOrDie(core, replace("b", "b500", 500));  // 500 lots > 5: refused
  SubmitOrDie(core, replace("b", "b5", 5));      // 5 lots: fits
  SubmitOrDie(core, replace("b5", "b6", 6));     // 6 lots > 5: refused
  SubmitOrDie(core, replace("b5", "b1", 1));     // lower: never asked
  ASSERT_TRUE(core.Flush().ok());
  EXPECT_FALSE(core.FindOrder("A0", "b500").has_value());
  EXPECT_FALSE(core.FindOrder("A0", "b6").has_value());
  auto now = core.FindOrder("A0", "b1");
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(now->detail.qty, engine::Qty(1));
  ASSERT_TRUE(core.Stop().ok());
}

// A contract nothing prices (never settled, no fix, no config `ref`) has no margin: `cfx
// serve` sends it MatcherOptions::kNoPriceMargin, and under the check an order that raises
// the exposure in it is refused `insufficient_margin`, while one that lowers or keeps it goes
// on to the sum check; its position counts 0 in the sum. Until 2026-12-07 such a contract's
// margin was 0 and any size was taken.
TEST(ExchangeCoreTest, PreTradeRiskRefusesNewExposureInAContractWithNoPrice) {
  CoreWithCollateral t;
  ExchangeCore& core = t.core;
  Recorder& rec = t.rec;
  ASSERT_TRUE(core.Start().ok());
  const std::string priced = "B200-GOLD-US-202703", unpriced = "B200-GOLD-US-202704";
  auto order = [&](const char* cl, const char* acct, const std::string& sym, engine::Side side,
                   int64_t qty) {
    engine::NewOrderCmd c = Order(cl, acct, side, 5000, qty);
    c.sym = engine::Name::From(sym);
    return c;
  };
  // A position of 2 in the second month while it still had a margin (of 0).
  ASSERT_TRUE(core.RefreshMargins(
                      {{priced, engine::MicroUsd(1'000'000'000)}, {unpriced, engine::MicroUsd(0)}})
                  .ok());
  SubmitOrDie(core, order("pos", "A0", unpriced, engine::Side::kBuy, 2));
  SubmitOrDie(core, order("pos-other", "A1", unpriced, engine::Side::kSell, 2));
  ASSERT_TRUE(core.Flush().ok());
  ASSERT_TRUE(rec.rejects.empty());
  ASSERT_EQ(rec.trades.size(), 1u);
  // Then its price is gone from the risk desk's data: no margin for it.
  ASSERT_TRUE(core.RefreshMargins({{unpriced, MatcherOptions::kNoPriceMargin}}).ok());
  SubmitOrDie(core, order("more", "A0", unpriced, engine::Side::kBuy, 1));     // 3 > 2: refused
  SubmitOrDie(core, order("fresh", "A2", unpriced, engine::Side::kBuy, 1));    // 1 > 0: refused
  SubmitOrDie(core, order("close1", "A0", unpriced, engine::Side::kSell, 1));  // max(2, 1): kept
  SubmitOrDie(core, order("flip", "A0", unpriced, engine::Side::kSell, 3));    // max(2, |2-4|)
  SubmitOrDie(core, order("past", "A0", unpriced, engine::Side::kSell, 1));    // |2-5| = 3 > 2
  // The priced month: 5 lots of 1,000 USD fit 5,000 USD; the other month's position adds 0.
  SubmitOrDie(core, order("p5", "A0", priced, engine::Side::kBuy, 5));
  SubmitOrDie(core, order("p6", "A0", priced, engine::Side::kBuy, 1));
  ASSERT_TRUE(core.Flush().ok());
  std::vector<std::string> refused;
  for (const Outcome& o : rec.rejects) {
    EXPECT_EQ(o.event.reject, engine::RejectReason::kInsufficientMargin) << o.event.order.cl.view();
    refused.emplace_back(o.event.order.cl.view());
  }
  EXPECT_EQ(refused, (std::vector<std::string>{"more", "fresh", "past", "p6"}));
  EXPECT_TRUE(core.FindOrder("A0", "close1").has_value());
  EXPECT_TRUE(core.FindOrder("A0", "flip").has_value());
  EXPECT_TRUE(core.FindOrder("A0", "p5").has_value());

  // A contract the risk desk priced before keeps its margin when it has no price any more:
  // its 5 lots still count (5 × 1,000 USD of 5,000), so 1 more lot is refused.
  ASSERT_TRUE(core.RefreshMargins({{priced, MatcherOptions::kNoPriceMargin}}).ok());
  SubmitOrDie(core, order("p-after", "A0", priced, engine::Side::kBuy, 1));
  // A month listed once margins arrived (the roll) takes no new exposure until priced.
  engine::ProductCmd listed;
  listed.sym = engine::Name::From("B200-GOLD-US-202903");
  listed.ref = engine::PriceField::Ticks(engine::PriceTicks(5000));
  SubmitOrDie(core, listed);
  SubmitOrDie(core, order("new-month", "A3", "B200-GOLD-US-202903", engine::Side::kBuy, 1));
  ASSERT_TRUE(core.Flush().ok());
  ASSERT_EQ(rec.rejects.size(), 6u);
  EXPECT_EQ(rec.rejects[4].event.order.cl.view(), "p-after");
  EXPECT_EQ(rec.rejects[5].event.order.cl.view(), "new-month");
  EXPECT_EQ(rec.rejects[5].event.reject, engine::RejectReason::kInsufficientMargin);
  ASSERT_TRUE(core.RefreshMargins({{"B200-GOLD-US-202903", engine::MicroUsd(1'000'000)}}).ok());
  SubmitOrDie(core, order("priced-month", "A3", "B200-GOLD-US-202903", engine::Side::kBuy, 1));
  ASSERT_TRUE(core.Flush().ok());
  EXPECT_EQ(rec.rejects.size(), 6u);
  EXPECT_TRUE(core.FindOrder("A3", "priced-month").has_value());
  ASSERT_TRUE(core.Stop().ok());
}

// Before the risk desk's margins arrive the check has nothing to check against: a month
// listed then (the start's listing) trades as before, on a margin of 0 (ExchangeOptions::
// pre_trade_risk, "active once margins are set").
TEST(ExchangeCoreTest, AMonthListedBeforeAnyMarginIsNotRefused) {
  testing::TempDir dir;
  ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir.path()));
  Recorder rec(&core);
  core.AddListener(&rec);
  ASSERT_TRUE(core.Start().ok());
  engine::ProductCmd listed;
  listed.sym = engine::Name::From("B200-GOLD-US-202903");
  listed.ref = engine::PriceField::Ticks(engine::PriceTicks(5000));
  SubmitOrDie(core, listed);
  engine::NewOrderCmd c = Order("o", "A0", engine::Side::kBuy, 5000, 1);
  c.sym = listed.sym;
  SubmitOrDie(core, c);
  ASSERT_TRUE(core.Flush().ok());
  EXPECT_TRUE(rec.rejects.empty());
  EXPECT_TRUE(core.FindOrder("A0", "o").has_value());
  ASSERT_TRUE(core.Stop().ok());
}

// A run: a core of `config` started, the March contract priced (so the margin check has a
// margin), `orders` entered, the orders `refused` (account, ClOrdID) checked refused, stopped.
void RunPriced(const common::ExchangeConfig& config, const ExchangeOptions& options,
               const std::vector<engine::NewOrderCmd>& orders,
               const std::vector<std::pair<std::string, std::string>>& refused) {
  ExchangeCore core(config, options);
  ASSERT_TRUE(core.Start().ok());
  ASSERT_TRUE(core.RefreshMargins({{"B200-GOLD-US-202703", engine::MicroUsd(1'000'000'000)}}).ok());
  for (const engine::NewOrderCmd& o : orders) SubmitOrDie(core, o);
  ASSERT_TRUE(core.Flush().ok());
  for (const auto& [acct, cl] : refused) ASSERT_FALSE(core.FindOrder(acct, cl).has_value()) << cl;
  ASSERT_TRUE(core.Stop().ok());
}

// The state hash a start of `config` recovers (0 when the start fails).
uint64_t HashAtStart(const common::ExchangeConfig& config, const ExchangeOptions& options) {
  ExchangeCore core(config, options);
  auto info = core.Start();
  EXPECT_TRUE(info.ok()) << info.status();
  const uint64_t hash = info.ok() ? info->state_hash : 0;
  EXPECT_TRUE(core.Stop().ok());
  return hash;
}

// The same for an account whose collateral no RiskCmd named yet: 0 at the first start (or an
// account added at 0 later) is sequenced state too, so raising it at a restart does not make
// its refused orders replay as taken. Until 2026-12-07 every matcher started from the
// config's collateral and only differences from it were sequenced: the refused order was
// accepted in the replay, the state hash changed, and the raise never reached the journal.
TEST(ExchangeCoreTest, AnAccountsCollateralNeverSequencedReplaysAtZeroUnderARaise) {
  for (const int64_t snapshot_every : {0, 1}) {
    SCOPED_TRACE(snapshot_every);
    testing::TempDir dir;
    common::ExchangeConfig config = testing::TestConfig();
    config.accounts[1].collateral = common::MicroUsd(0);  // A1
    ExchangeOptions options = testing::TestOptions(dir.path());
    options.snapshot_every = snapshot_every;
    uint64_t hash = 0;
    RunPriced(config, options, {Order("zero", "A1", engine::Side::kBuy, 5000, 1)},
              {{"A1", "zero"}});
    hash = HashAtStart(config, options);
    common::ExchangeConfig raised = config;
    raised.accounts[1].collateral = common::MicroUsd(50'000'000'000);
    common::ExchangeConfig added = config;  // A4 joins at 0, then is raised
    added.accounts.push_back(common::AccountConfig{"A4", "F1", common::MicroUsd(0)});
    {
      ExchangeCore core(raised, options);
      auto info = core.Start();
      ASSERT_TRUE(info.ok()) << info.status();
      EXPECT_EQ(info->state_hash, hash) << "the refusal of 'zero' replayed as acknowledged";
      EXPECT_FALSE(core.FindOrder("A1", "zero").has_value());
      // The raise is sequenced: what follows is decided under it.
      SubmitOrDie(core, Order("after", "A1", engine::Side::kBuy, 5000, 1));
      ASSERT_TRUE(core.Flush().ok());
      EXPECT_TRUE(core.FindOrder("A1", "after").has_value());
      ASSERT_TRUE(core.Stop().ok());
    }
    {
      ExchangeCore core(added, options);
      ASSERT_TRUE(core.Start().ok());
      SubmitOrDie(core, Order("a4", "A4", engine::Side::kBuy, 5000, 1));  // refused at 0
      ASSERT_TRUE(core.Flush().ok());
      ASSERT_FALSE(core.FindOrder("A4", "a4").has_value());
      ASSERT_TRUE(core.Stop().ok());
    }
    added.accounts.back().collateral = common::MicroUsd(50'000'000'000);
    {
      ExchangeCore core(added, options);
      ASSERT_TRUE(core.Start().ok());
      EXPECT_FALSE(core.FindOrder("A4", "a4").has_value());
      EXPECT_TRUE(core.FindOrder("A1", "after").has_value());
      ASSERT_TRUE(core.Stop().ok());
    }
  }
}

// SPEC §5: a restart replays the journal to the identical state, also when the next start
// has other risk settings (the check switched off, collateral raised): they are sequenced
// inputs, so the inputs before them replay under the settings they were decided with, and
// only what follows is decided under the new ones. With and without snapshots.
TEST(ExchangeCoreTest, ARestartUnderOtherRiskSettingsReplaysTheDecisionsThatWereAcknowledged) {
  for (const int64_t snapshot_every : {0, 1}) {
    SCOPED_TRACE(snapshot_every);
    testing::TempDir dir;
    common::ExchangeConfig config = testing::TestConfig();
    config.accounts[0].collateral = common::MicroUsd(5'000'000'000);  // 5,000 USD
    ExchangeOptions options = testing::TestOptions(dir.path());
    options.snapshot_every = snapshot_every;
    uint64_t hash = 0;
    RunPriced(config, options,
              {Order("ok", "A0", engine::Side::kBuy, 5000, 3),
               Order("big", "A0", engine::Side::kBuy, 5000, 3)},  // 6 lots > 5: refused
              {{"A0", "big"}});
    hash = HashAtStart(config, options);  // the same settings: the reference state
    common::ExchangeConfig richer = config;
    richer.accounts[0].collateral = common::MicroUsd(50'000'000'000);
    ExchangeOptions no_risk = options;
    no_risk.pre_trade_risk = false;
    for (const auto& [c, o] : {std::pair{richer, options}, std::pair{config, no_risk}}) {
      {
        ExchangeCore core(c, o);
        auto info = core.Start();
        ASSERT_TRUE(info.ok()) << info.status();
        EXPECT_EQ(info->state_hash, hash) << "the refusal of 'big' replayed as acknowledged";
        EXPECT_FALSE(core.FindOrder("A0", "big").has_value());
        ASSERT_TRUE(core.Stop().ok());
      }
      {  // back to the first settings before the next case: what these starts recorded
        ExchangeCore back(config, options);
        ASSERT_TRUE(back.Start().ok());
        ASSERT_TRUE(back.Stop().ok());
      }
    }
    {  // the new settings decide what follows them: without the check 'big2' is accepted
      ExchangeCore core(config, no_risk);
      ASSERT_TRUE(core.Start().ok());
      SubmitOrDie(core, Order("big2", "A0", engine::Side::kBuy, 5000, 3));
      ASSERT_TRUE(core.Flush().ok());
      EXPECT_TRUE(core.FindOrder("A0", "big2").has_value());
      ASSERT_TRUE(core.Stop().ok());
    }
    {  // and replay after a start with the check on again keeps 'big2' and refuses 'big3'
      ExchangeCore core(config, options);
      ASSERT_TRUE(core.Start().ok());
      EXPECT_TRUE(core.FindOrder("A0", "big2").has_value());
      EXPECT_FALSE(core.FindOrder("A0", "big").has_value());
      SubmitOrDie(core, Order("big3", "A0", engine::Side::kBuy, 5000, 3));
      ASSERT_TRUE(core.Flush().ok());
      EXPECT_FALSE(core.FindOrder("A0", "big3").has_value());
      ASSERT_TRUE(core.Stop().ok());
    }
  }
}

}  // namespace
}  // namespace cfx::exchange
