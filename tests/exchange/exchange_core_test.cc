// ExchangeCore end to end: many producers, outcomes only after durable, restart to the
// journal's state, the trade store in settlement's format, pre-trade risk, time stamps and
// a corrupt journal tail. The calendar's closes, expiries and listings:
// exchange_core_listing_test.cc.
#include "cfx/exchange/exchange_core.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "cfx/exchange/engine_codec.h"
#include "cfx/exchange/engine_matcher.h"
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

using testing::kMarch2027;
using testing::kNsPerSec;
using testing::Order;
using testing::Recorder;
using testing::SubmitOrDie;

uint64_t ReplayHash(const std::string& dir, uint64_t* next_seq) {
  journal::JournalOptions jo;
  jo.data_dir = dir;
  jo.read_only = true;
  auto j = journal::Journal::Open(jo);
  EXPECT_TRUE(j.ok()) << j.status();
  EngineCodec codec;
  EngineMatcher m(MatcherOptions{});
  journal::MatcherStateMachine<engine::Command, Outcome> sm(&codec, &m);
  // Replay from record 1 (no snapshot): a fresh machine, every record.
  uint64_t n = 0;
  engine::Command cmd;
  class Drop : public journal::OutcomeSink<Outcome> {
    void Emit(const Outcome&) override {}
  } drop;
  absl::Status s = (*j)->ReadFrom(1, [&](uint64_t seq, absl::string_view p) {
    int64_t time_us = 0;
    EXPECT_TRUE(journal::DecodeInput(p, codec, &time_us, &cmd).ok());
    m.ApplyAt(seq, time_us, cmd, drop);
    n = seq;
    return true;
  });
  EXPECT_TRUE(s.ok()) << s;
  *next_seq = n + 1;
  return m.engine().StateHash();
}

TEST(ExchangeCoreTest, ManyProducersDurableOutcomesAndRestartToTheSameState) {
  testing::TempDir dir;
  const common::ExchangeConfig config = testing::TestConfig();
  std::map<std::pair<std::string, std::string>, engine::OrderInfo> live;
  std::vector<Outcome> trades;
  {
    ExchangeCore core(config, testing::TestOptions(dir.path()));
    Recorder rec(&core);
    core.AddListener(&rec);
    auto info = core.Start();
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_TRUE(info->fresh);
    EXPECT_EQ(info->listed.size(), 12u);
    EXPECT_EQ(core.ListedSymbols().size(), 12u);
    EXPECT_EQ(core.ListedSymbols().front(), "B200-GOLD-US-202703");
    std::vector<std::thread> producers;
    for (int t = 0; t < 4; ++t) {
      producers.emplace_back([&, t] {
        for (int i = 0; i < 400; ++i) {
          // Accounts alternate with the side, so trades happen whatever the interleaving.
          const bool buy = i % 2 == 0;
          SubmitOrDie(core,
                      Order(absl::StrCat("t", t, "-", i), absl::StrCat("A", i % 4),
                            buy ? engine::Side::kBuy : engine::Side::kSell, 4990 + (i * 7 + t) % 21,
                            1 + i % 5),
                      t * 1000000 + i);
        }
      });
    }
    for (auto& p : producers) p.join();
    ASSERT_TRUE(core.Flush().ok());
    EXPECT_EQ(rec.not_durable.load(), 0u);
    EXPECT_EQ(rec.out_of_order.load(), 0u);
    EXPECT_GT(rec.trades.size(), 10u);
    const ExchangeStats stats = core.Stats();
    EXPECT_EQ(stats.trades, rec.trades.size());
    EXPECT_GE(stats.batches, 1u);
    auto book = core.BookSnapshot("B200-GOLD-US-202703", 5);
    ASSERT_TRUE(book.has_value());
    EXPECT_TRUE(book->has_last_trade);
    EXPECT_FALSE(core.BookSnapshot("NOPE", 5).has_value());
    // Published order views agree with the outcomes.
    for (const auto& [key, o] : rec.live) {
      // Live and ended orders alike (ended ones are kept up to a cap far above this test).
      auto v = core.FindOrder(key.first, key.second);
      ASSERT_TRUE(v.has_value()) << key.second;
      EXPECT_EQ(v->status, o.status) << key.second;
      EXPECT_EQ(v->leaves, o.leaves) << key.second;
      EXPECT_EQ(v->cum, o.cum) << key.second;
    }
    int64_t net = 0;
    for (int a = 0; a < 4; ++a) {
      for (const PositionView& p : core.Positions("A" + std::to_string(a))) net += p.qty.value();
    }
    EXPECT_EQ(net, 0);  // zero-sum
    ASSERT_TRUE(core.Stop().ok());
    live = rec.live;
    trades = rec.trades;
  }
  uint64_t next_seq = 0;
  const uint64_t hash = ReplayHash(dir.path(), &next_seq);
  {
    ExchangeCore core(config, testing::TestOptions(dir.path()));
    auto info = core.Start();
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_FALSE(info->fresh);
    EXPECT_TRUE(info->listed.empty());
    EXPECT_EQ(info->next_seq, next_seq);
    EXPECT_EQ(info->state_hash, hash);
    EXPECT_GT(info->snapshot_seq, 0u);
    for (const auto& [key, o] : live) {  // live and ended orders survive the restart
      auto v = core.FindOrder(key.first, key.second);
      ASSERT_TRUE(v.has_value()) << key.second;
      EXPECT_EQ(v->oid, o.oid);
      EXPECT_EQ(v->status, o.status);
      EXPECT_EQ(v->cum, o.cum);
    }
    ASSERT_TRUE(core.Stop().ok());
  }
  // The trade store holds exactly the trades, in settlement's format.
  auto src = settlement::OpenLmdbTradeSource(dir.path());
  ASSERT_TRUE(src.ok());
  std::vector<settlement::Trade> stored;
  ASSERT_TRUE((*src)
                  ->ForEachTrade(INT64_MIN, INT64_MAX,
                                 [&](const settlement::Trade& t) {
                                   stored.push_back(t);
                                   return absl::OkStatus();
                                 })
                  .ok());
  ASSERT_EQ(stored.size(), trades.size());
  for (size_t i = 0; i < trades.size(); ++i) {
    EXPECT_EQ(stored[i].seq, static_cast<int64_t>(trades[i].event.seq));
    EXPECT_EQ(stored[i].px_ticks, common::PriceTicks(trades[i].event.px));
    EXPECT_EQ(stored[i].qty, common::Qty(trades[i].event.qty));
    EXPECT_EQ(stored[i].buy_acct, trades[i].acct.view());
    EXPECT_EQ(stored[i].sell_acct, trades[i].other_acct.view());
    EXPECT_EQ(stored[i].ts, (kMarch2027 + 9 * 3600 * kNsPerSec) / 1000);
    EXPECT_EQ(stored[i].sym, "B200-GOLD-US-202703");
  }
}

TEST(ExchangeCoreTest, PublishedBooksAreConsistentWhileTheMatcherWrites) {
  testing::TempDir dir;
  ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir.path()));
  ASSERT_TRUE(core.Start().ok());
  std::atomic<bool> done{false};
  std::atomic<uint64_t> reads{0}, bad{0};
  std::thread reader([&] {
    uint64_t last_seq = 0;
    while (!done.load()) {
      auto b = core.BookSnapshot("B200-GOLD-US-202703", kMaxPublishedDepth);
      if (!b) continue;
      ++reads;
      if (b->seq < last_seq) ++bad;  // never goes back
      last_seq = b->seq;
      for (size_t i = 1; i < b->bids.size(); ++i) bad += b->bids[i].px >= b->bids[i - 1].px;
      for (size_t i = 1; i < b->asks.size(); ++i) bad += b->asks[i].px <= b->asks[i - 1].px;
      if (!b->bids.empty() && !b->asks.empty()) bad += b->bids[0].px >= b->asks[0].px;  // uncrossed
      for (const auto& l : b->bids) bad += l.qty <= engine::Qty(0) || l.count == 0;
    }
  });
  for (int i = 0; i < 5000; ++i) {
    SubmitOrDie(core, Order(absl::StrCat("o", i), absl::StrCat("A", i % 4),
                            i % 2 ? engine::Side::kSell : engine::Side::kBuy, 4980 + (i * 13) % 41,
                            1 + i % 3));
  }
  ASSERT_TRUE(core.Flush().ok());
  done = true;
  reader.join();
  EXPECT_GT(reads.load(), 0u);
  EXPECT_EQ(bad.load(), 0u);
  ASSERT_TRUE(core.Stop().ok());
}

TEST(ExchangeCoreTest, EndedOrdersStayFindableUpToTheCapAlsoAfterRestart) {
  testing::TempDir dir;
  ExchangeOptions options = testing::TestOptions(dir.path());
  options.ended_orders_kept = 3;
  auto check = [](ExchangeCore& core, const std::string& when) {
    EXPECT_FALSE(core.FindOrder("A0", "e1").has_value()) << when << ": the oldest is forgotten";
    for (auto [acct, cl] : {std::pair{"A1", "s1"}, {"A0", "e2"}, {"A1", "s2"}}) {
      std::optional<OrderStateView> v = core.FindOrder(acct, cl);
      ASSERT_TRUE(v.has_value()) << when << " " << cl;
      EXPECT_EQ(v->status, engine::OrderStatus::kFilled) << when << " " << cl;
      EXPECT_EQ(v->cum, engine::Qty(1)) << cl;
      EXPECT_EQ(v->leaves, engine::Qty(0)) << cl;
      EXPECT_EQ(v->notional, 5000) << cl;
      EXPECT_EQ(v->sym, "B200-GOLD-US-202703") << cl;
    }
    std::optional<OrderStateView> live = core.FindOrder("A0", "live");
    ASSERT_TRUE(live.has_value()) << when;
    EXPECT_EQ(live->status, engine::OrderStatus::kNew);
    EXPECT_EQ(live->leaves, engine::Qty(4));
    EXPECT_FALSE(core.FindOrder("A1", "e2").has_value()) << "keyed by account";
  };
  {
    ExchangeCore core(testing::TestConfig(), options);
    ASSERT_TRUE(core.Start().ok());
    SubmitOrDie(core, Order("e1", "A0", engine::Side::kBuy, 5000, 1));
    SubmitOrDie(core, Order("s1", "A1", engine::Side::kSell, 5000, 1));
    SubmitOrDie(core, Order("e2", "A0", engine::Side::kBuy, 5000, 1));
    SubmitOrDie(core, Order("s2", "A1", engine::Side::kSell, 5000, 1));
    SubmitOrDie(core, Order("live", "A0", engine::Side::kBuy, 4990, 4));
    ASSERT_TRUE(core.Flush().ok());
    check(core, "running");
    ASSERT_TRUE(core.Stop().ok());
  }
  {
    ExchangeCore again(testing::TestConfig(), options);
    ASSERT_TRUE(again.Start().ok());
    check(again, "after restart");
    ASSERT_TRUE(again.Stop().ok());
  }
  // A cap lowered between runs: only the newest ended order is kept, also in the store.
  options.ended_orders_kept = 1;
  for (int run = 0; run < 2; ++run) {
    ExchangeCore lower(testing::TestConfig(), options);
    ASSERT_TRUE(lower.Start().ok());
    EXPECT_TRUE(lower.FindOrder("A1", "s2").has_value()) << run;
    for (auto [acct, cl] : {std::pair{"A1", "s1"}, {"A0", "e2"}}) {
      EXPECT_FALSE(lower.FindOrder(acct, cl).has_value()) << run << " " << cl;
    }
    // The trimmed rows are deleted with the next commit: one more input makes one.
    SubmitOrDie(lower, Order(absl::StrCat("more", run), "A2", engine::Side::kBuy, 4980, 1));
    ASSERT_TRUE(lower.Flush().ok());
    ASSERT_TRUE(lower.Stop().ok());
  }
}

TEST(ExchangeCoreTest, TradeStoreBehindTheJournalIsRederivedFromASnapshotNotRecordOne) {
  testing::TempDir dir, saved;
  ExchangeOptions options = testing::TestOptions(dir.path());
  options.snapshot_every = 100;  // 3 kept: one is at or before the saved store
  auto submit = [](ExchangeCore& core, int from, int to) {
    for (int i = from; i < to; ++i) {
      SubmitOrDie(core,
                  Order(absl::StrCat("o", i), absl::StrCat("A", i % 4),
                        i % 2 ? engine::Side::kSell : engine::Side::kBuy, 5000 + i % 3, 1 + i % 2));
    }
    ASSERT_TRUE(core.Flush().ok());
  };
  const std::filesystem::path trades =
      std::filesystem::path(dir.path()) / settlement::kTradeStoreFile;
  const std::filesystem::path kept = std::filesystem::path(saved.path()) / "trades";
  {
    ExchangeCore core(testing::TestConfig(), options);
    ASSERT_TRUE(core.Start().ok());
    submit(core, 0, 200);
    ASSERT_TRUE(core.Stop().ok());
  }
  std::filesystem::copy(trades, kept, std::filesystem::copy_options::recursive);
  std::map<std::string, std::vector<PositionView>> want;
  {
    ExchangeCore core(testing::TestConfig(), options);
    ASSERT_TRUE(core.Start().ok());
    submit(core, 200, 400);
    for (int a = 0; a < 4; ++a) want[absl::StrCat("A", a)] = core.Positions(absl::StrCat("A", a));
    ASSERT_TRUE(core.Stop().ok());
  }
  // The trade store as it was after the first 200 orders: as if the process had died
  // before its commits of the last 200 (the journal has them all).
  std::filesystem::remove_all(trades);
  std::filesystem::copy(kept, trades, std::filesystem::copy_options::recursive);
  ExchangeCore core(testing::TestConfig(), options);
  auto info = core.Start();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_GE(info->recorder_replayed, 200u);
  EXPECT_GT(info->recorder_start_seq, 1u) << "re-derivation should start at a snapshot";
  EXPECT_LE(info->recorder_start_seq, info->next_seq - info->recorder_replayed);
  for (int a = 0; a < 4; ++a) {
    const std::string acct = absl::StrCat("A", a);
    std::vector<PositionView> got = core.Positions(acct);
    ASSERT_EQ(got.size(), want[acct].size()) << acct;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].sym, want[acct][i].sym);
      EXPECT_EQ(got[i].qty, want[acct][i].qty) << acct;
      EXPECT_EQ(got[i].bought, want[acct][i].bought) << acct;
      EXPECT_EQ(got[i].sold, want[acct][i].sold) << acct;
      EXPECT_EQ(got[i].open_buy_qty, want[acct][i].open_buy_qty) << acct;
      EXPECT_EQ(got[i].open_sell_qty, want[acct][i].open_sell_qty) << acct;
    }
  }
  ASSERT_TRUE(core.Stop().ok());
}

// Every stored trade, by seq (the trade store's rows parsed).
std::vector<trade_store::Trade> StoredTrades(const std::string& dir) {
  std::vector<trade_store::Trade> out;
  auto store = storage::KvStore::Open(dir, storage::KvOptions{.file = settlement::kTradeStoreFile});
  EXPECT_TRUE(store.ok()) << store.status();
  if (!store.ok()) return out;
  auto txn = (*store)->BeginRead();
  EXPECT_TRUE(txn.ok());
  EXPECT_TRUE((*txn)
                  ->Scan(settlement::kTradesTable, "",
                         [&](absl::string_view, absl::string_view v) {
                           auto t =
                               trade_store::ParseTradeJson(std::string_view(v.data(), v.size()));
                           EXPECT_TRUE(t.ok()) << t.status();
                           if (t.ok()) out.push_back(*t);
                           return true;
                         })
                  .ok());
  return out;
}

// SPEC §5: with the exchange clock, every input is stamped when it is sequenced (µs, not the
// clock's 1 s tick), and everything it causes carries that stamp: an order's ack, its
// trades, the trade store. A trade is never stamped before the acks of the orders that made
// it; a trade store rebuilt from the journal after a crash keeps the live stamps.
TEST(ExchangeCoreTest, InputsAreStampedAtSequencingAndTradesAreNeverBeforeTheirOrdersAcks) {
  testing::TempDir dir;
  ExchangeOptions opt = testing::TestOptions(dir.path());
  opt.clock = ClockMode::kWall;
  opt.wall_tick_ms = 200;  // coarse ticks: an order's time is its own stamp, not the tick
  opt.snapshot_every = 0;
  std::vector<trade_store::Trade> live_trades;
  {
    ExchangeCore core(testing::TestConfig(), opt);
    Recorder rec(&core);
    struct Acks : OutcomeListener {
      void OnOutcome(uint64_t, uint64_t, const Outcome& o) override {
        if (o.kind == OutcomeKind::kEvent && o.event.type == engine::EventType::kAccepted)
          ack_ts[o.event.order.oid] = o.ts;
      }
      std::map<uint64_t, engine::Timestamp> ack_ts;  // publisher thread; read after Stop
    } acks;
    core.AddListener(&rec);
    core.AddListener(&acks);
    auto info = core.Start();
    ASSERT_TRUE(info.ok()) << info.status();
    ASSERT_TRUE(core.OpenAll().ok());
    const engine::Timestamp tick = core.now();
    for (int i = 0; i < 40; ++i) {
      SubmitOrDie(core, Order(absl::StrCat("s", i), "A0", engine::Side::kSell, 5000, 1));
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      SubmitOrDie(core, Order(absl::StrCat("b", i), "A1", engine::Side::kBuy, 5000, 1));
    }
    ASSERT_TRUE(core.Flush().ok());
    ASSERT_TRUE(core.Stop().ok());
    ASSERT_EQ(rec.trades.size(), 40u);
    engine::Timestamp prev = 0;
    for (const Outcome& t : rec.trades) {
      ASSERT_GT(t.ts, tick);  // the sequencer's stamp, not the clock tick
      EXPECT_GE(t.ts, prev);
      prev = t.ts;
      for (uint64_t oid : {t.event.order.oid, t.event.other.oid}) {
        ASSERT_TRUE(acks.ack_ts.count(oid)) << oid;
        EXPECT_GE(t.ts, acks.ack_ts[oid]) << "trade before the ack of order " << oid;
      }
    }
    live_trades = StoredTrades(dir.path());
    ASSERT_EQ(live_trades.size(), 40u);
    for (size_t i = 0; i < live_trades.size(); ++i) {
      EXPECT_EQ(live_trades[i].ts * 1000, rec.trades[i].ts);  // the store keeps µs
    }
  }
  // A crash that lost the trade store: rebuilt from the journal, with the live stamps.
  std::filesystem::remove_all(std::filesystem::path(dir.path()) / settlement::kTradeStoreFile);
  {
    ExchangeCore core(testing::TestConfig(), opt);
    auto info = core.Start();
    ASSERT_TRUE(info.ok()) << info.status();
    std::optional<BookView> book = core.BookSnapshot("B200-GOLD-US-202703", 0);
    ASSERT_TRUE(book.has_value());
    ASSERT_TRUE(book->has_last_trade);
    EXPECT_EQ(book->last_ts, live_trades.back().ts * 1000);  // recovered engine, same stamp
    ASSERT_TRUE(core.Stop().ok());
  }
  const std::vector<trade_store::Trade> rebuilt = StoredTrades(dir.path());
  ASSERT_EQ(rebuilt.size(), live_trades.size());
  for (size_t i = 0; i < rebuilt.size(); ++i) {
    EXPECT_EQ(rebuilt[i].seq, live_trades[i].seq);
    EXPECT_EQ(rebuilt[i].ts, live_trades[i].ts) << "trade " << rebuilt[i].seq;
  }
}

TEST(ExchangeCoreTest, WallClockModeSendsTimeAndInMemoryModeNeedsNoDataDir) {
  ExchangeOptions opt;
  opt.journal = false;  // in memory: no data dir is touched
  opt.clock = ClockMode::kWall;
  opt.wall_tick_ms = 10;
  ExchangeCore core(testing::TestConfig(), opt);
  auto info = core.Start();
  ASSERT_TRUE(info.ok()) << info.status();
  const engine::Timestamp first = core.now();
  ASSERT_NE(first, engine::kNoTime);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(core.Flush().ok());
  EXPECT_GT(core.now(), first);
  SubmitOrDie(core, Order("w", "A0", engine::Side::kBuy, 5000, 1));
  ASSERT_TRUE(core.Flush().ok());
  EXPECT_TRUE(core.FindOrder("A0", "w").has_value());
  auto positions = core.Positions("A0");
  ASSERT_EQ(positions.size(), 1u);
  EXPECT_EQ(positions[0].open_buy_qty, engine::Qty(1));
  ASSERT_TRUE(core.Stop().ok());
  EXPECT_EQ(core.Submit(engine::TimeCmd{1}, 0), OfferResult::kStopped);
}

TEST(ExchangeCoreTest, CorruptJournalTailStopsStartNamingTheRecord) {
  testing::TempDir dir;
  {
    ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir.path()));
    ASSERT_TRUE(core.Start().ok());
    ASSERT_TRUE(core.Flush().ok());
    ASSERT_TRUE(core.Stop().ok());
  }
  uint64_t last = 0;
  {
    journal::JournalOptions jo;
    jo.data_dir = dir.path();
    auto j = journal::Journal::Open(jo);
    ASSERT_TRUE(j.ok());
    last = (*j)->LastSeq();
    std::string rec = journal::Journal::EncodeRecordForTest(last + 1, "payload");
    rec[rec.size() - 1] ^= 0x5a;  // checksum no longer matches
    ASSERT_TRUE((*j)->WriteRawRecordForTest(last + 1, rec).ok());
  }
  ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir.path()));
  auto info = core.Start();
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(absl::IsDataLoss(info.status())) << info.status();
  EXPECT_NE(std::string(info.status().message()).find("journal record " + std::to_string(last + 1)),
            std::string::npos)
      << info.status();
}

// What a kill -9 leaves in the journal's commit log only (acked, not yet copied into LMDB)
// is taken at the next start, and RecoveryInfo counts it (`cfx serve` prints the count on
// its start line): the recovered state is the replay of every record.
// Only an operator's cut of the journal leaves the trade store ahead of it (an input is
// journaled before it is recorded). A start on such a store is refused naming it: it kept
// the cut inputs' rows and took the next inputs, which reuse their seqs, for recorded ones
// (they were silently never stored, until 2026-12-07). Moved away, it is rebuilt.
TEST(ExchangeCoreTest, AStartRefusesATradeStoreAheadOfTheJournal) {
  testing::TempDir dir;
  uint64_t last = 0;
  {
    ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir.path()));
    ASSERT_TRUE(core.Start().ok());
    SubmitOrDie(core, Order("b1", "A0", engine::Side::kBuy, 5000, 1));
    SubmitOrDie(core, Order("s1", "A1", engine::Side::kSell, 5000, 1));
    ASSERT_TRUE(core.Flush().ok());
    ASSERT_TRUE(core.Stop().ok());
  }
  {
    auto journal = journal::Journal::Open({.data_dir = dir.path(), .commit_log = true});
    ASSERT_TRUE(journal.ok()) << journal.status();
    last = (*journal)->LastSeq();
    ASSERT_GE(last, 3u);
    ASSERT_TRUE((*journal)->TruncateAfter(last - 2).ok());  // the operator's cut, by hand
  }
  {
    ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir.path()));
    auto started = core.Start();
    ASSERT_FALSE(started.ok());
    EXPECT_TRUE(absl::IsFailedPrecondition(started.status())) << started.status();
    EXPECT_NE(started.status().message().find(dir.path() + "/trades holds inputs up to " +
                                              std::to_string(last)),
              std::string::npos)
        << started.status();
  }
  std::filesystem::rename(dir.path() + "/trades", dir.path() + "/trades.aside");
  ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir.path()));
  auto started = core.Start();
  ASSERT_TRUE(started.ok()) << started.status();
  EXPECT_FALSE(core.FindOrder("A1", "s1").has_value()) << "the cut input is not recorded";
  ASSERT_TRUE(core.Stop().ok());
}

TEST(ExchangeCoreTest, StartCountsTheInputsOnlyTheCommitLogHeld) {
  testing::TempDir dir;
  const common::ExchangeConfig config = testing::TestConfig();
  {
    ExchangeCore core(config, testing::TestOptions(dir.path()));
    ASSERT_TRUE(core.Start().ok());
    SubmitOrDie(core, Order("r1", "A0", engine::Side::kBuy, 4990, 2));
    ASSERT_TRUE(core.Flush().ok());
    ASSERT_TRUE(core.Stop().ok());  // a clean stop: everything in LMDB
  }
  uint64_t before_next = 0;
  (void)ReplayHash(dir.path(), &before_next);
  // A run of the journal's writer that acks five orders through the commit log and dies
  // before its copier runs.
  constexpr int kLogged = 5;
  const EngineCodec codec;
  const int64_t stamp = (testing::kMarch2027 + 10 * 3600 * kNsPerSec) / 1000;
  std::vector<std::string> inputs(kLogged);
  for (int i = 0; i < kLogged; ++i) {
    const engine::Command order =
        Order(absl::StrCat("log", i), "A1", i % 2 == 0 ? engine::Side::kSell : engine::Side::kBuy,
              4995 + i, 1);
    journal::EncodeInput(stamp, codec, order, &inputs[i]);
  }
  ASSERT_TRUE(testsupport::LeaveInTheCommitLog(dir.path(), inputs));

  uint64_t next_seq = 0;
  const uint64_t hash = ReplayHash(dir.path(), &next_seq);  // read-only: takes nothing
  EXPECT_EQ(next_seq, before_next + kLogged);
  {
    ExchangeCore core(config, testing::TestOptions(dir.path()));
    auto info = core.Start();
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->from_commit_log, static_cast<uint64_t>(kLogged));
    EXPECT_EQ(info->next_seq, next_seq);
    EXPECT_EQ(info->state_hash, hash);
    for (int i = 0; i < kLogged; ++i) {
      EXPECT_TRUE(core.FindOrder("A1", absl::StrCat("log", i)).has_value()) << i;
    }
    ASSERT_TRUE(core.Stop().ok());
  }
  ExchangeCore again(config, testing::TestOptions(dir.path()));
  auto info = again.Start();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->from_commit_log, 0u);  // the first start took them into LMDB
}

}  // namespace
}  // namespace cfx::exchange
