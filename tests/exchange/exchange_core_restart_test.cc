// What a restart of the exchange core keeps beyond the engine's state: the published books'
// marks that no replayed input reports again (exchange_core_test.cc has the recovery of the
// state itself).
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "cfx/exchange/exchange_core.h"
#include "core_test_util.h"
#include "exchange_core_test_util.h"
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
