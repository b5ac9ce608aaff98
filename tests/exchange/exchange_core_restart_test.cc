// What a restart of the exchange core keeps beyond the engine's state: the published books'
// marks that no replayed input reports again (exchange_core_test.cc has the recovery of the
// state itself).
#include <atomic>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "cfx/exchange/exchange_core.h"
#include "core_test_util.h"
#include "exchange_core_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cfx::exchange {
namespace {

using testing::Order;
using testing::SubmitOrDie;

// A restart from a snapshot taken after a book's last trade replays no input that reports
// that trade: the published book (HTTP /v1/book's last_trade, positions' last_price, FIX
// market data's 269=2) keeps its price, quantity and time from the trade store's rows. Until
// 2026-12-06 it had no last trade until the next one.
TEST(ExchangeCoreTest, ARestartFromASnapshotAfterTheLastTradeKeepsIt) {
  testing::TempDir dir;
  ExchangeOptions opt = testing::TestOptions(dir.path());
  opt.snapshot_every = 4;
  BookView before;
  {
    ExchangeCore core(testing::TestConfig(), opt);
    ASSERT_TRUE(core.Start().ok());
    ASSERT_TRUE(core.OpenAll().ok());
    SubmitOrDie(core, Order("s1", "A0", engine::Side::kSell, 5010, 3));
    SubmitOrDie(core, Order("b1", "A1", engine::Side::kBuy, 5010, 2));
    for (int i = 0; i < 12; ++i) {  // snapshots after the trade
      SubmitOrDie(core, Order(absl::StrCat("r", i), "A1", engine::Side::kBuy, 4900 - i, 1));
    }
    ASSERT_TRUE(core.Flush().ok());
    std::optional<BookView> book = core.BookSnapshot("B200-GOLD-US-202703", 0);
    ASSERT_TRUE(book.has_value() && book->has_last_trade);
    before = *book;
    ASSERT_TRUE(core.Stop().ok());
  }
  ExchangeCore core(testing::TestConfig(), opt);
  auto info = core.Start();
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_GT(info->snapshot_seq, 0u) << "the restart did not use a snapshot";
  std::optional<BookView> book = core.BookSnapshot("B200-GOLD-US-202703", 0);
  ASSERT_TRUE(book.has_value());
  ASSERT_TRUE(book->has_last_trade);
  EXPECT_EQ(book->last_px, before.last_px);
  EXPECT_EQ(book->last_qty.value(), 2);
  EXPECT_EQ(book->last_ts, before.last_ts);
  ASSERT_TRUE(core.Stop().ok());
}

// A full journal map stops the order path with an error that names the setting which raises
// it (until 2026-12-07 it said "raise the map size", which no setting did), keeps what was
// acknowledged, and a restart with the map raised recovers it all and takes orders again.
TEST(ExchangeCoreTest, AFullJournalNamesItsSettingAndARestartWithMoreRoomGoesOn) {
  testing::TempDir dir;
  ExchangeOptions opt = testing::TestOptions(dir.path());
  opt.pre_trade_risk = false;
  common::ExchangeConfig config = testing::TestConfig();
  config.journal_map_bytes = 4 << 20;
  class Errors : public OutcomeListener {
   public:
    void OnOutcome(uint64_t, uint64_t, const Outcome&) override {}
    void OnAck(uint64_t seq, uint64_t, int64_t) override { last_acked = seq; }
    void OnJournalError(const absl::Status& s) override {
      std::lock_guard<std::mutex> lock(mu);
      error = s;
    }
    std::atomic<uint64_t> last_acked{0};
    std::mutex mu;
    absl::Status error;
  };
  uint64_t acked = 0;
  uint64_t hash = 0;
  {
    ExchangeCore core(config, opt);
    Errors errors;
    core.AddListener(&errors);
    ASSERT_TRUE(core.Start().ok());
    ASSERT_TRUE(core.OpenAll().ok());
    bool stopped = false;
    for (int i = 0; i < 400000 && !stopped; ++i) {
      const engine::Side side = i % 2 == 0 ? engine::Side::kBuy : engine::Side::kSell;
      const engine::Command c =
          Order(absl::StrCat("fill-the-journal-", i), absl::StrCat("A", i % 4), side,
                side == engine::Side::kBuy ? 4900 - i % 90 : 5100 + i % 90, 1);
      for (;;) {
        const OfferResult r = core.Submit(c, 0);
        if (r == OfferResult::kAccepted) break;
        if (r == OfferResult::kStopped) {
          stopped = true;
          break;
        }
        std::this_thread::yield();
      }
    }
    ASSERT_TRUE(stopped) << "4 MiB of journal took 400,000 orders";
    const absl::Status stop = core.Stop();
    EXPECT_EQ(stop.code(), absl::StatusCode::kResourceExhausted) << stop;
    EXPECT_THAT(std::string(stop.message()), ::testing::HasSubstr("exchange.journal_map_gib"));
    {
      std::lock_guard<std::mutex> lock(errors.mu);
      EXPECT_THAT(std::string(errors.error.message()),
                  ::testing::HasSubstr("exchange.journal_map_gib"));
      EXPECT_THAT(std::string(errors.error.message()), ::testing::HasSubstr(dir.path()));
    }
    acked = errors.last_acked.load();
    ASSERT_GT(acked, 0u);
  }
  {
    // The same map again: a clear refusal or a start that takes nothing new, never a crash
    // or a lost input.
    ExchangeCore core(config, opt);
    auto info = core.Start();
    if (info.ok()) {
      // Every input the journal kept was acknowledged, and every acknowledged one kept.
      EXPECT_EQ(info->next_seq, acked + 1);
      hash = info->state_hash;
      (void)core.Stop();
    } else {
      EXPECT_THAT(std::string(info.status().message()),
                  ::testing::HasSubstr("exchange.journal_map_gib"));
    }
  }
  config.journal_map_bytes = 16 << 20;
  ExchangeCore core(config, opt);
  Errors errors;
  core.AddListener(&errors);
  auto info = core.Start();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_GE(info->next_seq, acked + 1) << "an acknowledged input was lost";
  if (hash != 0) EXPECT_EQ(info->state_hash, hash);
  const uint64_t before = info->next_seq - 1;
  ASSERT_TRUE(core.OpenAll().ok());
  SubmitOrDie(core, Order("after-the-raise", "A0", engine::Side::kBuy, 4700, 1));
  ASSERT_TRUE(core.Flush().ok());
  EXPECT_GT(errors.last_acked.load(), before);
  EXPECT_TRUE(core.FindOrder("A0", "after-the-raise").has_value());
  EXPECT_TRUE(core.FindOrder("A1", "fill-the-journal-1").has_value());
  ASSERT_TRUE(core.Stop().ok());
}

// Snapshots whose records fail their check (a byte flipped in each, inside what LMDB reads
// fine) are passed over, counted in RecoveryInfo::skipped_snapshots (cfx serve says so on
// stderr; until 2026-12-06 it passed them over without a word), and the whole journal is
// replayed to the same state.
TEST(ExchangeCoreTest, DamagedSnapshotsArePassedOverCountedAndReplayedAround) {
  testing::TempDir dir;
  ExchangeOptions opt = testing::TestOptions(dir.path());
  opt.snapshot_every = 4;
  uint64_t hash = 0;
  {
    ExchangeCore core(testing::TestConfig(), opt);
    auto info = core.Start();
    ASSERT_TRUE(info.ok()) << info.status();
    ASSERT_TRUE(core.OpenAll().ok());
    for (int i = 0; i < 12; ++i) {
      SubmitOrDie(core, Order(absl::StrCat("r", i), "A1", engine::Side::kBuy, 4900 - i, 1));
    }
    ASSERT_TRUE(core.Flush().ok());
    ASSERT_TRUE(core.Stop().ok());
  }
  {
    ExchangeCore core(testing::TestConfig(), opt);
    auto info = core.Start();
    ASSERT_TRUE(info.ok()) << info.status();
    ASSERT_GT(info->snapshot_seq, 0u) << "no snapshot to damage";
    EXPECT_EQ(info->skipped_snapshots, 0);
    hash = info->state_hash;
    ASSERT_TRUE(core.Stop().ok());
  }
  // The symbol is in every snapshot's state: one byte of each copy flipped.
  const std::string file = dir.path() + "/journal/snapshots/data.mdb";
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  int flipped = 0;
  for (size_t at = bytes.find("B200-GOLD-US-202703"); at != std::string::npos;
       at = bytes.find("B200-GOLD-US-202703", at + 1)) {
    bytes[at] ^= 0x20;
    ++flipped;
  }
  ASSERT_GT(flipped, 0);
  std::ofstream(file, std::ios::binary | std::ios::in | std::ios::out)
      .write(bytes.data(), bytes.size());
  ExchangeCore core(testing::TestConfig(), opt);
  auto info = core.Start();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_GT(info->skipped_snapshots, 0);
  EXPECT_EQ(info->snapshot_seq, 0u);  // every one damaged: replayed from record 1
  EXPECT_EQ(info->state_hash, hash);
  ASSERT_TRUE(core.Stop().ok());
}

}  // namespace
}  // namespace cfx::exchange
