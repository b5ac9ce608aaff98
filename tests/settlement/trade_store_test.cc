#include "cfx/settlement/trade_store.h"

#include "cfx/security_master/format.h"
#include "cfx/storage/kv_store.h"
#include "test_util.h"

namespace cfx::settlement {
namespace {

using testing::D;
using testing::MakeTrade;
using testing::TempDir;
using testing::Ts;

TEST(TradeStoreTest, ParsesTheDocumentedRecord) {
  auto t = ParseTradeJson(
      R"({"seq":7,"ts":"2027-03-01T15:45:00Z","sym":"B200-GOLD-US-202703","px":"5.250","qty":3,)"
      R"("buy_acct":"A1","sell_acct":"B1","buy_firm":"F1","sell_firm":"F2","aggressor":"sell"})");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->seq, 7);
  EXPECT_EQ(t->ts, Ts("2027-03-01T15:45:00Z"));
  EXPECT_EQ(t->px_ticks, common::PriceTicks(5250));
  EXPECT_EQ(t->qty, common::Qty(3));
  EXPECT_EQ(t->buy_acct, "A1");
  EXPECT_EQ(t->sell_firm, "F2");
  EXPECT_EQ(t->aggressor, Aggressor::kSell);
  // The row holds PriceTicks and Qty; the JSON keeps the documented price text and integer.
  EXPECT_EQ(FormatTradeJson(*t),
            R"({"aggressor":"sell","buy_acct":"A1","buy_firm":"F1","px":"5.250","qty":3,)"
            R"("sell_acct":"B1","sell_firm":"F2","seq":7,"sym":"B200-GOLD-US-202703",)"
            R"("ts":"2027-03-01T15:45:00Z"})");
  auto again = ParseTradeJson(FormatTradeJson(*t));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(FormatTradeJson(*again), FormatTradeJson(*t));
}

TEST(TradeStoreTest, RejectsBadRecordsNamingTheField) {
  EXPECT_FALSE(ParseTradeJson("not json").ok());
  auto no_px = ParseTradeJson(
      R"({"seq":1,"ts":"2027-03-01T15:45:00Z","sym":"S","qty":3,"buy_acct":"A","sell_acct":"B"})");
  ASSERT_FALSE(no_px.ok());
  EXPECT_NE(no_px.status().message().find("px"), std::string::npos);
  auto bad_qty = ParseTradeJson(
      R"({"seq":1,"ts":"2027-03-01T15:45:00Z","sym":"S","px":"1.000","qty":0,"buy_acct":"A","sell_acct":"B"})");
  EXPECT_NE(bad_qty.status().message().find("qty"), std::string::npos);
  auto bad_tick = ParseTradeJson(
      R"({"seq":1,"ts":"2027-03-01T15:45:00Z","sym":"S","px":"1.0005","qty":1,"buy_acct":"A","sell_acct":"B"})");
  EXPECT_FALSE(bad_tick.ok());
  // A whole record, then a NUL and bytes (damage): not read as the record before the NUL.
  const std::string whole =
      R"({"seq":1,"ts":"2027-03-01T15:45:00Z","sym":"S","px":"1.000","qty":1,"buy_acct":"A","sell_acct":"B"})";
  ASSERT_TRUE(ParseTradeJson(whole).ok());
  EXPECT_FALSE(ParseTradeJson(whole + std::string(1, '\0') + "junk").ok());
  const std::string close = R"({"sym":"X","date":"2027-03-01","bid":"5.240","ask":null})";
  ASSERT_TRUE(ParseCloseJson(close).ok());
  EXPECT_FALSE(ParseCloseJson(close + std::string(1, '\0')).ok());
}

TEST(TradeStoreTest, CloseRecordsWithNullSides) {
  auto q = ParseCloseJson(R"({"sym":"X","date":"2027-03-01","bid":"5.240","ask":null})");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->bid_ticks, common::PriceTicks(5240));
  EXPECT_FALSE(q->ask_ticks);
  EXPECT_EQ(FormatCloseJson("X", D("2027-03-01"), *q),
            R"({"ask":null,"bid":"5.240","date":"2027-03-01","sym":"X"})");
}

TEST(TradeStoreTest, LmdbSourceReadsTradesInWindowAndCloses) {
  TempDir dir;
  {
    auto store = storage::KvStore::Open(dir.path(), {.file = kTradeStoreFile});
    ASSERT_TRUE(store.ok());
    auto txn = (*store)->BeginWrite();
    const char* times[] = {"2027-02-26T17:00:00Z", "2027-03-01T15:45:00Z", "2027-03-01T16:00:00Z"};
    for (int i = 0; i < 3; ++i) {
      Trade t = MakeTrade(i + 1, times[i], "B200-GOLD-US-202703", "5.250", 1, "A", "B");
      ASSERT_TRUE((*txn)->Put(kTradesTable, TradeKey(t.seq), FormatTradeJson(t)).ok());
    }
    const CloseQuote close{common::PriceTicks(5240), common::PriceTicks(5260)};
    ASSERT_TRUE((*txn)->Put(kClosesTable, CloseKey("B200-GOLD-US-202703", D("2027-03-01")),
                            FormatCloseJson("B200-GOLD-US-202703", D("2027-03-01"), close))
                    .ok());
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  auto src = OpenLmdbTradeSource(dir.path());
  ASSERT_TRUE(src.ok()) << src.status();
  std::vector<int64_t> seqs;
  ASSERT_TRUE((*src)
                  ->ForEachTrade(Ts("2027-02-26T16:00:00Z"), Ts("2027-03-01T16:00:00Z"),
                                 [&](const Trade& t) {
                                   seqs.push_back(t.seq);
                                   return absl::OkStatus();
                                 })
                  .ok());
  EXPECT_EQ(seqs, (std::vector<int64_t>{1, 2}));  // 16:00:00 belongs to the next day
  auto close = (*src)->Close("B200-GOLD-US-202703", D("2027-03-01"));
  ASSERT_TRUE(close.ok() && close->has_value());
  EXPECT_EQ((*close)->bid_ticks, common::PriceTicks(5240));
  EXPECT_FALSE((*(*src)->Close("B200-GOLD-US-202703", D("2027-03-02"))).has_value());
}

TEST(TradeStoreTest, CorruptTradeRecordIsReportedWithItsKey) {
  TempDir dir;
  {
    auto store = storage::KvStore::Open(dir.path(), {.file = kTradeStoreFile});
    auto txn = (*store)->BeginWrite();
    ASSERT_TRUE((*txn)->Put(kTradesTable, TradeKey(9), "{broken").ok());
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  auto src = OpenLmdbTradeSource(dir.path());
  absl::Status s = (*src)->ForEachTrade(0, Ts("2030-01-01T00:00:00Z"),
                                        [](const Trade&) { return absl::OkStatus(); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("0000000000000009"), std::string::npos) << s;
}

// A security-master row is stored under its symbol: one whose key names another contract
// is damage, refused naming both (until 2026-12-07 it was read as its `sym` said, a review).
TEST(TradeStoreTest, AContractRowUnderAnotherSymbolsKeyIsDataLoss) {
  TempDir dir;
  {
    security_master::Contract c;
    c.sym = "B200-GOLD-US-202704";
    c.contract = *common::ParseSymbol(c.sym);
    c.last_trading_day =
        common::BusinessCalendar().LastBusinessDayOfMonth(c.contract->year, c.contract->month);
    auto store = storage::KvStore::Open(dir.path(), {.file = kTradeStoreFile});
    auto txn = (*store)->BeginWrite();
    ASSERT_TRUE((*txn)
                    ->Put(security_master::kContractsTable, "B200-GOLD-US-202703",
                          security_master::FormatContractJson(c))
                    .ok());
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  auto src = OpenLmdbTradeSource(dir.path());
  ASSERT_TRUE(src.ok()) << src.status();
  auto contracts = (*src)->Contracts();
  ASSERT_FALSE(contracts.ok());
  EXPECT_EQ(contracts.status().code(), absl::StatusCode::kDataLoss) << contracts.status();
  EXPECT_NE(contracts.status().message().find("B200-GOLD-US-202703"), std::string::npos);
  EXPECT_NE(contracts.status().message().find("B200-GOLD-US-202704"), std::string::npos);
}

}  // namespace
}  // namespace cfx::settlement

namespace cfx::settlement {
namespace {

TEST(TradeStoreTest, BatchSettlesFromTheLmdbTradeStore) {
  testing::TempDir dir;
  {
    auto store = storage::KvStore::Open(dir.path(), {.file = kTradeStoreFile});
    auto txn = (*store)->BeginWrite();
    Trade t = testing::MakeTrade(1, "2027-03-01T15:45:00Z", "B200-GOLD-US-202703", "5.250", 2,
                                 "A", "B");
    ASSERT_TRUE((*txn)->Put(kTradesTable, TradeKey(1), FormatTradeJson(t)).ok());
    const CloseQuote close{common::PriceTicks(5260), common::PriceTicks(5270)};
    ASSERT_TRUE((*txn)->Put(kClosesTable, CloseKey(t.sym, testing::D("2027-03-02")),
                            FormatCloseJson(t.sym, testing::D("2027-03-02"), close))
                    .ok());
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  auto trades = OpenLmdbTradeSource(dir.path());
  ASSERT_TRUE(trades.ok());
  SettleOptions options;
  options.data_dir = dir.path();
  for (const char* day : {"2027-03-01", "2027-03-02"}) {
    auto r = SettleDate(testing::D(day), SettleConfig{}, {trades->get(), nullptr, nullptr}, options);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->day.fixes_available);
  }
  auto ledger = Ledger::Open(dir.path());
  auto day = (*ledger)->ReadDay(testing::D("2027-03-02"));
  ASSERT_TRUE(day.ok() && day->has_value());
  EXPECT_EQ((*day)->contracts[0].settle, common::PriceTicks(5265));  // T2 from the stored close
  EXPECT_EQ((*day)->contracts[0].tier, PriceTier::kT2);
  EXPECT_TRUE((*ledger)->Verify().ok());
}

}  // namespace
}  // namespace cfx::settlement
