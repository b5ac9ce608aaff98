// The matcher's open quantities (pre-trade risk) against their definition: after every
// input of random streams (every order type, replaces, cancels, mass cancels, expiries,
// trading-state changes), the open buy and sell quantity of each account in each contract
// equals the sum of the leaves of its live orders (resting and pending stops), and after a
// restore the rebuilt figures are the same. The matcher keeps no table of live orders: it
// moves the figures by each event's before and after (EngineMatcher::MoveLeaves).
#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cfx/common/date.h"
#include "cfx/engine/engine.h"
#include "cfx/exchange/engine_matcher.h"
#include "cfx/exchange/trade_recorder.h"
#include "gtest/gtest.h"
#include "random_commands.h"

namespace cfx::exchange {
namespace {

class Discard : public journal::OutcomeSink<Outcome> {
 public:
  void Emit(const Outcome&) override { ++n; }
  size_t n = 0;
};

// Keeps the outcomes of one input, for the trade recorder.
class Keep : public journal::OutcomeSink<Outcome> {
 public:
  void Emit(const Outcome& o) override { outcomes.push_back(o); }
  std::vector<Outcome> outcomes;
};

using Key = std::pair<engine::AccountId, engine::SymbolId>;

// Open quantities from the engine's live orders, by (account, contract).
std::map<Key, EngineMatcher::OpenQty> FromLiveOrders(const engine::Engine& e) {
  std::map<Key, EngineMatcher::OpenQty> out;
  e.ForEachLiveOrder([&](const engine::Order& o) {
    auto& q = out[{o.acct, o.sym}];
    (o.side == engine::Side::kBuy ? q.buy : q.sell) += o.leaves().value();
  });
  return out;
}

void ExpectOpenMatchesLiveOrders(const EngineMatcher& m, const std::string& where) {
  const engine::Engine& e = m.engine();
  const auto want = FromLiveOrders(e);
  std::vector<uint32_t> live(e.account_count(), 0);
  e.ForEachLiveOrder([&](const engine::Order& o) { ++live[o.acct]; });
  for (engine::AccountId a = 0; a < e.account_count(); ++a) {
    ASSERT_EQ(m.OpenOrders(a), live[a]) << where << " account " << a << ": live orders";
  }
  for (engine::AccountId a = 0; a < e.account_count(); ++a) {
    for (engine::SymbolId s = 0; s < e.symbol_count(); ++s) {
      auto it = want.find({a, s});
      const EngineMatcher::OpenQty w = it == want.end() ? EngineMatcher::OpenQty{} : it->second;
      const EngineMatcher::OpenQty got = m.Open(a, s);
      ASSERT_EQ(got.buy, w.buy) << where << " account " << a << " contract " << s;
      ASSERT_EQ(got.sell, w.sell) << where << " account " << a << " contract " << s;
    }
  }
}

TEST(RiskTrackingTest, OpenQuantitiesEqualTheLeavesOfLiveOrdersAfterEveryInput) {
  size_t replaced = 0, traded = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    MatcherOptions opt;
    opt.pre_trade_risk = true;  // tracked either way; on, so the check's path runs too
    opt.collateral = {{"A0", common::MicroUsd(1'000'000'000)},
                      {"A1", common::MicroUsd(1'000'000'000)}};
    testing::RandomCommands gen(seed, /*symbols=*/3, /*accounts=*/4);
    EngineMatcher m(opt);
    Discard sink;
    uint64_t seq = 0;
    for (const engine::Command& c : gen.Listing()) m.Apply(++seq, c, sink);
    std::mt19937_64 rng(seed);
    uint64_t next_cl = 0;
    for (int i = 0; i < 4000; ++i) {
      engine::Command c = gen.Next();
      // One input in four replaces a live order (the generator's own replaces name a random
      // id and account, so few find a live order): a new total below, at or above what it
      // has filled, a new price or not.
      std::vector<const engine::Order*> live;
      m.engine().ForEachLiveOrder([&](const engine::Order& o) { live.push_back(&o); });
      if (!live.empty() && rng() % 4 == 0) {
        const engine::Order& o = *live[rng() % live.size()];
        engine::ReplaceCmd r;
        r.orig = o.cl;
        r.cl = engine::ClientId::From("r" + std::to_string(++next_cl));
        r.acct = engine::Name::From(m.engine().AccountName(o.acct));
        r.has_qty = true;
        const auto extra = static_cast<int64_t>(rng() % 12);
        r.qty = engine::Qty(std::max<int64_t>(0, o.cum.value() - 1 + extra));
        if (rng() % 2 == 0) r.px = engine::PriceField::Ticks(engine::PriceTicks(4980 + rng() % 41));
        c = r;
      }
      m.Apply(++seq, c, sink);
      for (const engine::Event& e : m.engine().last_events()) {
        replaced += e.type == engine::EventType::kReplaced;
        traded += e.type == engine::EventType::kTrade;
      }
      ExpectOpenMatchesLiveOrders(m, "seed " + std::to_string(seed) + " input " +
                                         std::to_string(i));
      if (HasFatalFailure()) return;
    }
    EngineMatcher restored(opt);
    ASSERT_TRUE(restored.Restore(m.Snapshot()).ok());
    ExpectOpenMatchesLiveOrders(restored, "restored, seed " + std::to_string(seed));
  }
  // The streams exercised what the derivation depends on.
  EXPECT_GT(replaced, 1000u);
  EXPECT_GT(traded, 1000u);
}

// The day-close rule (RiskCmd::close_day_orders) is matcher state: off until a RiskCmd sets
// it, kept by a snapshot with or without the open-order cap beside it, and off again in a
// snapshot that does not hold it (one written before the rule).
TEST(RiskTrackingTest, TheDayCloseRuleSurvivesASnapshotWithAndWithoutTheCap) {
  for (const int64_t cap : {int64_t{0}, int64_t{7}}) {
    EngineMatcher m(MatcherOptions{});
    Discard sink;
    EXPECT_FALSE(m.close_day_orders());
    const std::string before = m.Snapshot();
    engine::RiskCmd c;
    c.close_day_orders = 1;
    c.max_open_orders = cap;
    m.Apply(1, c, sink);
    ASSERT_TRUE(m.close_day_orders());
    EngineMatcher restored(MatcherOptions{});
    ASSERT_TRUE(restored.Restore(m.Snapshot()).ok());
    EXPECT_TRUE(restored.close_day_orders()) << "cap " << cap;
    EXPECT_EQ(restored.max_open_orders(), cap);
    EXPECT_EQ(restored.Snapshot(), m.Snapshot());
    ASSERT_TRUE(restored.Restore(before).ok());
    EXPECT_FALSE(restored.close_day_orders());
    c.close_day_orders = 0;
    m.Apply(2, c, sink);
    EXPECT_FALSE(m.close_day_orders());
    // A word of zeros after the risk settings is no block: refused, as any trailing bytes.
    std::string padded = m.Snapshot();
    padded.append(4, '\0');
    EXPECT_FALSE(restored.Restore(padded).ok()) << "cap " << cap;
    // The closes at stamps (close_day_orders = 2) ride with the day close, in snapshots too.
    c.close_day_orders = 2;
    m.Apply(3, c, sink);
    ASSERT_TRUE(m.close_day_orders() && m.close_at_stamps());
    ASSERT_TRUE(restored.Restore(m.Snapshot()).ok());
    EXPECT_TRUE(restored.close_at_stamps());
    EXPECT_EQ(restored.Snapshot(), m.Snapshot());
    c.close_day_orders = 1;
    m.Apply(4, c, sink);
    EXPECT_TRUE(m.close_day_orders());
    EXPECT_FALSE(m.close_at_stamps());
    ASSERT_TRUE(restored.Restore(m.Snapshot()).ok());
    EXPECT_FALSE(restored.close_at_stamps());
  }
}

// Lists B200-GOLD-US-202703 (no band) on `m` and sequences the day-close rule `rule`
// (RiskCmd::close_day_orders); returns the last seq used.
uint64_t ListWithDayCloseRule(EngineMatcher& m, Keep& sink, int8_t rule) {
  uint64_t seq = 0;
  engine::ProductCmd p;
  p.sym = engine::Name::From("B200-GOLD-US-202703");
  p.band_percent = 0;
  m.ApplyAt(++seq, 0, p, sink);
  engine::RiskCmd r;
  r.close_day_orders = rule;
  m.ApplyAt(++seq, 0, r, sink);
  return seq;
}

engine::Command DayLimit(const char* cl, const char* acct, engine::Side side, int64_t px) {
  engine::NewOrderCmd n;
  n.cl = engine::ClientId::From(cl);
  n.acct = engine::Name::From(acct);
  n.sym = engine::Name::From("B200-GOLD-US-202703");
  n.side = side;
  n.tif = engine::TimeInForce::kDay;
  n.px = engine::PriceField::Ticks(engine::PriceTicks(px));
  n.qty = engine::Qty(1);
  return n;
}

// SPEC §9.1: the book at the close is the book after the last input before 16:00Z. With the
// closes at stamps (close_day_orders = 2, what `cfx serve` sequences), an input stamped at
// 16:00:00.3 comes after the closing quote (5.050 / 5.100, the book of 15:59:59) and after
// the day orders' expiry: it is the next trading day's. With the rule as journals before it
// hold (close_day_orders = 1) the close waits for the clock's next `time` input and takes
// the book with that input in it (5.095), as it ran then (a review, 2026-12-07).
TEST(RiskTrackingTest, AnInputStampedPastTheCloseComesAfterTheCloseWithClosesAtStamps) {
  const int64_t before_us = *common::ParseTimestamp("2027-03-01T15:59:59Z");
  const int64_t after_us = *common::ParseTimestamp("2027-03-01T16:00:00.300000Z");
  const int64_t tick_us = *common::ParseTimestamp("2027-03-01T16:00:01Z");
  for (const int8_t rule : {int8_t{2}, int8_t{1}}) {
    SCOPED_TRACE(rule);
    EngineMatcher m(MatcherOptions{});
    Keep sink;
    uint64_t seq = ListWithDayCloseRule(m, sink, rule);
    m.ApplyAt(++seq, before_us, engine::TimeCmd{before_us * 1000}, sink);
    m.ApplyAt(++seq, before_us, DayLimit("bid", "A1", engine::Side::kBuy, 5050), sink);
    m.ApplyAt(++seq, before_us, DayLimit("ask", "B1", engine::Side::kSell, 5100), sink);
    sink.outcomes.clear();
    m.ApplyAt(++seq, after_us, DayLimit("late", "A1", engine::Side::kBuy, 5095), sink);
    std::vector<std::string> kinds;
    for (const Outcome& o : sink.outcomes) {
      if (o.kind == OutcomeKind::kClose) {
        kinds.push_back(absl::StrCat("close ", o.bid.value(), "/", o.ask.value()));
      } else if (o.kind == OutcomeKind::kEvent && o.event.type == engine::EventType::kAccepted) {
        kinds.push_back("accepted " + std::string(o.event.order.cl.view()));
      } else if (o.kind == OutcomeKind::kEvent && o.event.type == engine::EventType::kCanceled) {
        kinds.push_back("canceled " + std::string(o.event.order.cl.view()));
      }
    }
    if (rule == 2) {
      EXPECT_EQ(absl::StrJoin(kinds, "; "),
                "close 5050/5100; canceled bid; canceled ask; accepted late");
      EXPECT_EQ(m.engine().book(0).resting_count(), 1u);  // the late bid alone
    } else {
      EXPECT_EQ(absl::StrJoin(kinds, "; "), "accepted late");
    }
    sink.outcomes.clear();
    m.ApplyAt(++seq, tick_us, engine::TimeCmd{tick_us * 1000}, sink);
    size_t closes = 0;
    for (const Outcome& o : sink.outcomes) {
      if (o.kind != OutcomeKind::kClose) continue;
      ++closes;
      EXPECT_EQ(o.bid.value(), 5095)
          << "the close after the input, as journals before the rule ran";
    }
    EXPECT_EQ(closes, rule == 2 ? 0u : 1u) << "one close a day";
  }
}

engine::Command Gtd(const char* cl, const char* acct, engine::Side side, int64_t px,
                    int64_t expire_us) {
  engine::Command c = DayLimit(cl, acct, side, px);
  auto& n = std::get<engine::NewOrderCmd>(c);
  n.tif = engine::TimeInForce::kGtd;
  n.expire = expire_us * 1000;
  return n;
}

// SPEC §4.2 / §5: a GTD order expires at its ExpireTime, and one already expired when it
// arrives is rejected `invalid_field`; the time of an input is its stamp. With the engine's
// clock at the stamps (close_day_orders = 3, what `cfx serve` sequences), between two clock
// ticks (10:00:00 and 10:00:01): a GTD bid expiring at .300 is expired before a sell stamped
// .500 reaches it (no trade), and a GTD order stamped .700 expiring at .600 is rejected. With
// the rule a journal before it holds (2), the engine's clock is the last tick's, as it ran:
// the sell trades with the expired bid and the late GTD order is accepted (a review,
// 2026-12-07). The rule rides in snapshots.
TEST(RiskTrackingTest, AGtdOrderExpiresAtTheStampOfTheInputThatPassesItsTime) {
  const int64_t at = *common::ParseTimestamp("2027-03-01T10:00:00Z");  // a clock tick
  for (const int8_t rule : {int8_t{3}, int8_t{2}}) {
    SCOPED_TRACE(rule);
    EngineMatcher m(MatcherOptions{});
    Keep sink;
    uint64_t seq = ListWithDayCloseRule(m, sink, rule);
    EXPECT_EQ(m.clock_at_stamps(), rule == 3);
    EngineMatcher restored(MatcherOptions{});
    ASSERT_TRUE(restored.Restore(m.Snapshot()).ok());
    EXPECT_EQ(restored.clock_at_stamps(), rule == 3);
    EXPECT_EQ(restored.Snapshot(), m.Snapshot());
    m.ApplyAt(++seq, at, engine::TimeCmd{at * 1000}, sink);
    m.ApplyAt(++seq, at + 100'000, Gtd("gtd", "A1", engine::Side::kBuy, 5050, at + 300'000), sink);
    sink.outcomes.clear();
    m.ApplyAt(++seq, at + 500'000, DayLimit("sell", "B1", engine::Side::kSell, 5050), sink);
    m.ApplyAt(++seq, at + 700'000, Gtd("late", "A1", engine::Side::kBuy, 5000, at + 600'000), sink);
    std::vector<std::string> kinds;
    for (const Outcome& o : sink.outcomes) {
      if (o.kind != OutcomeKind::kEvent) continue;
      const engine::Event& e = o.event;
      if (e.type == engine::EventType::kTrade) {
        kinds.push_back("trade");
      } else if (e.type == engine::EventType::kCanceled) {
        kinds.push_back(absl::StrCat("canceled ", std::string(e.order.cl.view()), " ",
                                     std::string(engine::ToString(e.cancel)), " at ",
                                     o.ts / 1000 - at));
      } else if (e.type == engine::EventType::kRejected) {
        kinds.push_back(absl::StrCat("rejected ", std::string(e.order.cl.view()), " ",
                                     std::string(engine::ToString(e.reject))));
      } else if (e.type == engine::EventType::kAccepted) {
        kinds.push_back("accepted " + std::string(e.order.cl.view()));
      }
    }
    if (rule == 3) {
      EXPECT_EQ(absl::StrJoin(kinds, "; "),
                "canceled gtd expired at 500000; accepted sell; rejected late invalid_field");
    } else {
      EXPECT_EQ(absl::StrJoin(kinds, "; "), "accepted sell; trade; accepted late");
    }
  }
}

// The cap on an account's live orders (docs/reliability.md, "Bounds"), set by a sequenced
// RiskCmd: in random streams no account ever has more live orders than the cap, a new order
// is refused `throttled` exactly when its account is at the cap, and the cap and the counts
// survive a snapshot. Replaces, triggers and fills never add an order.
// The per-firm STP-group cap (docs/engine.md, "Names kept") is a sequenced setting
// (RiskCmd::stp_groups_per_firm, what `cfx serve` sequences at start): before its input
// nothing is counted or refused, so a journal written before it replays as it ran, and every
// node counts from that input; after it, a firm past its cap is refused a new group
// (`invalid_field`), a group named before the rule included. The cap and the counts survive a
// snapshot, and a snapshot of a matcher that never took the rule is what it was.
TEST(RiskTrackingTest, TheStpGroupCapIsSequencedAndSurvivesASnapshot) {
  EngineMatcher m(MatcherOptions{});
  Keep sink;
  uint64_t seq = ListWithDayCloseRule(m, sink, 0);
  const auto accepted = [&](EngineMatcher& on, const char* cl, const char* group) {
    engine::Command c = DayLimit(cl, "A1", engine::Side::kBuy, 5000);
    std::get<engine::NewOrderCmd>(c).stp = engine::Name::From(group);
    sink.outcomes.clear();
    on.ApplyAt(++seq, 0, c, sink);
    for (const Outcome& o : sink.outcomes) {
      if (o.kind != OutcomeKind::kEvent) continue;
      if (o.event.type == engine::EventType::kAccepted) return true;
      if (o.event.type == engine::EventType::kRejected) {
        EXPECT_EQ(o.event.reject, engine::RejectReason::kInvalidField) << cl;
      }
    }
    return false;
  };
  EXPECT_TRUE(accepted(m, "g1", "G1"));
  EXPECT_TRUE(accepted(m, "g2", "G2"));
  EXPECT_EQ(m.engine().stp_groups_per_firm(), 0u) << "none before the rule's input";
  EXPECT_EQ(m.Snapshot().find("STPG"), std::string::npos);
  engine::RiskCmd rule;
  rule.stp_groups_per_firm = 1;
  m.ApplyAt(++seq, 0, rule, sink);
  EXPECT_TRUE(accepted(m, "g3", "G3"));  // the firm's first counted group
  EXPECT_FALSE(accepted(m, "g4", "G4"));
  EXPECT_FALSE(accepted(m, "g1-again", "G1")) << "named before the rule: not counted";
  EXPECT_TRUE(accepted(m, "g3-again", "G3"));
  EXPECT_TRUE(accepted(m, "own", "A1"));
  EngineMatcher restored(MatcherOptions{});
  ASSERT_TRUE(restored.Restore(m.Snapshot()).ok());
  EXPECT_EQ(restored.engine().stp_groups_per_firm(), 1u);
  EXPECT_EQ(restored.engine().StateHash(), m.engine().StateHash());
  EXPECT_EQ(restored.Snapshot(), m.Snapshot());
  EXPECT_FALSE(accepted(restored, "r-g5", "G5"));
  EXPECT_TRUE(accepted(restored, "r-g3", "G3"));
  // What `cfx serve` sequences at start: its cap, once, only while the state differs.
  const auto groups_cmds = [](const std::vector<engine::RiskCmd>& cmds) {
    int64_t n = -1;
    for (const engine::RiskCmd& c : cmds) n = std::max(n, c.stp_groups_per_firm);
    return n;
  };
  EXPECT_EQ(groups_cmds(restored.RiskCmdsFor(MatcherOptions{})),
            MatcherOptions::kMaxStpGroupsPerFirm);
  MatcherOptions one;
  one.max_stp_groups_per_firm = 1;
  EXPECT_EQ(groups_cmds(restored.RiskCmdsFor(one)), -1);
  // The rule off again: nothing refused, the groups counted so far kept.
  rule.stp_groups_per_firm = 0;
  m.ApplyAt(++seq, 0, rule, sink);
  EXPECT_TRUE(accepted(m, "g6", "G6"));
  EXPECT_EQ(m.Snapshot().find("STPG"), std::string::npos);
}

TEST(RiskTrackingTest, NoAccountHoldsMoreLiveOrdersThanTheCap) {
  constexpr int64_t kCap = 4;
  size_t throttled = 0, accepted_at_cap_minus_one = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    MatcherOptions opt;  // no margin check: the cap holds without it
    testing::RandomCommands gen(seed, /*symbols=*/2, /*accounts=*/3);
    EngineMatcher m(opt);
    Discard sink;
    uint64_t seq = 0;
    for (const engine::Command& c : gen.Listing()) m.Apply(++seq, c, sink);
    engine::RiskCmd cap;
    cap.max_open_orders = kCap;
    m.Apply(++seq, cap, sink);
    ASSERT_EQ(m.max_open_orders(), kCap);
    for (int i = 0; i < 4000; ++i) {
      const engine::Command c = gen.Next();
      const auto* n = std::get_if<engine::NewOrderCmd>(&c);
      std::vector<uint32_t> before(m.engine().account_count() + 8, 0);
      for (engine::AccountId a = 0; a < before.size(); ++a) before[a] = m.OpenOrders(a);
      m.Apply(++seq, c, sink);
      for (const engine::Event& e : m.engine().last_events()) {
        if (n == nullptr) continue;
        const std::string where = "seed " + std::to_string(seed) + " input " + std::to_string(i);
        if (e.type == engine::EventType::kRejected &&
            e.reject == engine::RejectReason::kThrottled) {
          ++throttled;
          const std::optional<engine::AccountId> a = m.engine().FindAccount(n->acct.view());
          ASSERT_TRUE(a.has_value()) << where;
          ASSERT_EQ(before.at(*a), static_cast<uint32_t>(kCap))
              << where << ": throttled below the cap";
        }
        if (e.type == engine::EventType::kAccepted) {
          ASSERT_LT(before.at(e.order.acct), static_cast<uint32_t>(kCap))
              << where << ": accepted at the cap";
          accepted_at_cap_minus_one += before.at(e.order.acct) == static_cast<uint32_t>(kCap - 1);
        }
      }
      ExpectOpenMatchesLiveOrders(m, "capped, seed " + std::to_string(seed));
      for (engine::AccountId a = 0; a < m.engine().account_count(); ++a) {
        ASSERT_LE(m.OpenOrders(a), static_cast<uint32_t>(kCap));
      }
      if (HasFatalFailure()) return;
    }
    EngineMatcher restored(opt);
    ASSERT_TRUE(restored.Restore(m.Snapshot()).ok());
    EXPECT_EQ(restored.max_open_orders(), kCap);
    ExpectOpenMatchesLiveOrders(restored, "restored, seed " + std::to_string(seed));
    // A cap of 0 lifts it, as a RiskCmd; one that says nothing of it leaves it as it is.
    restored.Apply(++seq, engine::RiskCmd{1, engine::Name(), engine::MicroUsd(0)}, sink);
    EXPECT_EQ(restored.max_open_orders(), kCap);
    cap.max_open_orders = 0;
    restored.Apply(++seq, cap, sink);
    EXPECT_EQ(restored.max_open_orders(), 0);
  }
  EXPECT_GT(throttled, 100u);
  EXPECT_GT(accepted_at_cap_minus_one, 100u);
}

// The trade recorder's open quantities (Positions: what the HTTP API and the risk desk read)
// against the same definition: it keeps them by (account, contract) as orders change,
// instead of walking an account's live orders under the lock the delivering thread needs,
// and they must equal the leaves of the engine's live orders after every input.
TEST(RiskTrackingTest, TheRecordersOpenQuantitiesEqualTheLeavesOfLiveOrders) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    auto recorder = TradeRecorder::Open("");  // memory only
    ASSERT_TRUE(recorder.ok()) << recorder.status();
    testing::RandomCommands gen(seed, /*symbols=*/3, /*accounts=*/4);
    EngineMatcher m(MatcherOptions{});
    uint64_t seq = 0;
    auto apply = [&](const engine::Command& c) {
      Keep keep;
      m.Apply(++seq, c, keep);
      for (const Outcome& o : keep.outcomes) (*recorder)->Add(seq, o);
      (*recorder)->EndInput(seq);
    };
    for (const engine::Command& c : gen.Listing()) apply(c);
    for (int i = 0; i < 3000; ++i) {
      apply(gen.Next());
      if (i % 50 != 49) continue;
      const engine::Engine& e = m.engine();
      const auto want = FromLiveOrders(e);
      for (engine::AccountId a = 0; a < e.account_count(); ++a) {
        const std::string acct(e.AccountName(a));
        std::map<std::string, EngineMatcher::OpenQty> got;
        for (const PositionView& v : (*recorder)->Positions(acct)) {
          if (v.open_buy_qty != engine::Qty(0) || v.open_sell_qty != engine::Qty(0)) {
            got[v.sym] = {v.open_buy_qty.value(), v.open_sell_qty.value()};
          }
        }
        std::map<std::string, EngineMatcher::OpenQty> w;
        for (const auto& [key, q] : want) {
          if (key.first == a && (q.buy != 0 || q.sell != 0)) {
            w[std::string(e.SymbolName(key.second))] = q;
          }
        }
        ASSERT_EQ(got.size(), w.size()) << "seed " << seed << " input " << i << " " << acct;
        for (const auto& [sym, q] : w) {
          ASSERT_EQ(got[sym].buy, q.buy) << "seed " << seed << " input " << i << " " << acct
                                         << " " << sym;
          ASSERT_EQ(got[sym].sell, q.sell) << "seed " << seed << " input " << i << " " << acct
                                           << " " << sym;
        }
      }
    }
  }
}

}  // namespace
}  // namespace cfx::exchange
