// The security master as the exchange core writes it (SPEC §3): filled from the config's
// products at start, rolled as months enter the 12-month window and contracts expire,
// persisted beside the trades, and the same after a restart or a crash that lost the
// recorder's last rows (re-derived from the journal).
#include <filesystem>
#include <string>
#include <vector>

#include "cfx/exchange/exchange_core.h"
#include "cfx/security_master/format.h"
#include "cfx/settlement/trade_store.h"
#include "cfx/storage/kv_store.h"
#include "core_test_util.h"
#include "gtest/gtest.h"

namespace cfx::exchange {
namespace {

using security_master::Contract;
using security_master::EventKind;
using testing::kNsPerSec;

constexpr int64_t kHour = 3600ll * kNsPerSec;
constexpr int64_t kDay = 24 * kHour;

// The master as one comparable text: a row per contract.
std::string Text(const std::vector<Contract>& master) {
  std::string out;
  for (const Contract& c : master) out += security_master::FormatContractJson(c) + "\n";
  return out;
}

// The master as stored in <dir>/trades (what `cfx settle` reads).
std::string StoredText(const std::string& dir) {
  auto source = settlement::OpenLmdbTradeSource(dir);
  EXPECT_TRUE(source.ok()) << source.status();
  if (!source.ok()) return "";
  auto contracts = (*source)->Contracts();
  EXPECT_TRUE(contracts.ok()) << contracts.status();
  return contracts.ok() ? Text(*contracts) : "";
}

const Contract* Find(const std::vector<Contract>& master, const std::string& sym) {
  for (const Contract& c : master) {
    if (c.sym == sym) return &c;
  }
  return nullptr;
}

TEST(SecurityMasterCoreTest, StartListsTheWindowAndTheRollListsAndExpires) {
  testing::TempDir dir;
  const ExchangeOptions options = testing::TestOptions(dir.path());  // 2027-03-01 09:00Z
  // Wednesday 2027-03-31 is March's last trading day; its close is 16:00Z.
  const engine::Timestamp close = options.start_time + 30 * kDay + 7 * kHour;
  ExchangeCore core(testing::TestConfig(), options);
  ASSERT_TRUE(core.Start().ok());
  std::vector<Contract> master = core.Contracts();
  ASSERT_EQ(master.size(), 12u);
  const Contract* march = Find(master, "B200-GOLD-US-202703");
  ASSERT_NE(march, nullptr);
  EXPECT_EQ(security_master::FormatContractJson(*march),
            R"({"sym":"B200-GOLD-US-202703","grade":"B200-GOLD-US","month":"2027-03",)"
            R"("tick":"0.001","multiplier":1000,"max_order_qty":1000,"band_ref":"5.000",)"
            R"("listing_date":"2027-03-01","last_trading_day":"2027-03-31","state":"listed",)"
            R"("listed_seq":2,"updated_seq":2})");
  EXPECT_EQ(core.ListedSymbols().size(), 12u);
  // Past March's close: March expires and March 2028 enters the window.
  ASSERT_EQ(core.AdvanceTime(close + kNsPerSec), OfferResult::kAccepted);
  ASSERT_TRUE(core.Flush().ok());
  master = core.Contracts();
  ASSERT_EQ(master.size(), 13u);
  EXPECT_EQ(Find(master, "B200-GOLD-US-202703")->state, security_master::ContractState::kExpired);
  const Contract* next = Find(master, "B200-GOLD-US-202803");
  ASSERT_NE(next, nullptr);
  // Listed after March 31's close: it trades, and is settled, from the next trading day.
  EXPECT_EQ(common::FormatDate(*next->listing_date), "2027-04-01");
  EXPECT_FALSE(next->SettlesOn(*common::ParseDate("2027-03-31")));
  EXPECT_TRUE(next->SettlesOn(*common::ParseDate("2027-04-01")));
  EXPECT_EQ(common::FormatDate(*next->last_trading_day), "2028-03-31");
  EXPECT_EQ(core.ListedSymbols().size(), 12u);
  auto record = core.FindContract("B200-GOLD-US-202703");
  ASSERT_TRUE(record.has_value());
  ASSERT_EQ(record->history.size(), 2u);
  EXPECT_EQ(record->history[0].kind, EventKind::kListed);
  EXPECT_EQ(record->history[1].kind, EventKind::kExpired);
  // Stamped with the time input that brought the close (SPEC §5), not the input before it
  // (the start's, 30 days earlier, until 2026-12-07).
  ASSERT_TRUE(record->history[1].ts.has_value());
  EXPECT_GE(*record->history[1].ts, close / 1000);
  EXPECT_FALSE(core.FindContract("B200-GOLD-US-209912").has_value());
  ASSERT_TRUE(core.Stop().ok());
  EXPECT_EQ(StoredText(dir.path()), Text(master));
}

TEST(SecurityMasterCoreTest, ABandMoveIsAReferenceChangeAndAMarginRefreshIsNothing) {
  testing::TempDir dir;
  ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir.path()));
  ASSERT_TRUE(core.Start().ok());
  const std::string sym = "B200-GOLD-US-202704";
  ASSERT_TRUE(core.RefreshMargins({{sym, engine::MicroUsd(1'000'000)}}).ok());
  ASSERT_TRUE(core.Flush().ok());
  EXPECT_EQ(core.FindContract(sym)->history.size(), 1u);  // margins are not in the master
  ASSERT_TRUE(core.RefreshMargins({{sym, engine::MicroUsd(1'000'000)}},
                                  {{sym, engine::PriceTicks(5200)}})
                  .ok());
  ASSERT_TRUE(core.Flush().ok());
  auto record = core.FindContract(sym);
  ASSERT_EQ(record->history.size(), 2u);
  EXPECT_EQ(record->history[1].kind, EventKind::kReferenceChanged);
  EXPECT_EQ(record->contract.band_ref, common::PriceTicks(5200));
  ASSERT_TRUE(core.Stop().ok());
}

TEST(SecurityMasterCoreTest, TheMasterIsTheSameAfterARestartAndAfterLosingTheStoreRows) {
  testing::TempDir dir;
  const ExchangeOptions options = testing::TestOptions(dir.path());
  std::string before;
  {
    ExchangeCore core(testing::TestConfig(), options);
    ASSERT_TRUE(core.Start().ok());
    ASSERT_TRUE(core.RefreshMargins({{"B200-GOLD-US-202705", engine::MicroUsd(0)}},
                                    {{"B200-GOLD-US-202705", engine::PriceTicks(5100)}})
                    .ok());
    ASSERT_EQ(core.AdvanceTime(options.start_time + 31 * kDay), OfferResult::kAccepted);
    ASSERT_TRUE(core.Flush().ok());
    before = Text(core.Contracts());
    ASSERT_TRUE(core.Stop().ok());
  }
  {
    ExchangeCore again(testing::TestConfig(), options);
    auto r = again.Start();
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->listed.empty());
    EXPECT_EQ(Text(again.Contracts()), before);
    ASSERT_TRUE(again.Stop().ok());
  }
  // A crash between the journal's commit and the recorder's: the store has none of the
  // master's rows and no recorded seq. The restart re-derives them from the journal.
  {
    auto kv = storage::KvStore::Open(dir.path(), storage::KvOptions{.file = "trades"});
    ASSERT_TRUE(kv.ok()) << kv.status();
    auto txn = (*kv)->BeginWrite();
    ASSERT_TRUE(txn.ok());
    std::vector<std::pair<std::string, std::string>> keys;
    for (const char* table : {security_master::kContractsTable, security_master::kHistoryTable}) {
      ASSERT_TRUE((*txn)
                      ->Scan(table, "",
                             [&](absl::string_view k, absl::string_view) {
                               keys.emplace_back(table, std::string(k));
                               return true;
                             })
                      .ok());
    }
    ASSERT_FALSE(keys.empty());
    for (const auto& [table, key] : keys) ASSERT_TRUE((*txn)->Delete(table, key).ok());
    ASSERT_TRUE((*txn)->Put("meta", "last_seq", "0").ok());
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  ExchangeCore recovered(testing::TestConfig(), options);
  auto r = recovered.Start();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->recorder_replayed, 0u);
  EXPECT_EQ(Text(recovered.Contracts()), before);
  ASSERT_TRUE(recovered.Stop().ok());
  EXPECT_EQ(StoredText(dir.path()), before);
}

}  // namespace
}  // namespace cfx::exchange
