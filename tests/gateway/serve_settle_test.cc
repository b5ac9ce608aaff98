// `cfx settle` with the span16 margin adapter (SPEC §9 step 4): the margin and call in the
// statements equal what `cfx margin` computes for the same positions, prices and
// throughput. Runs the real binaries on a data dir written through the modules' stores.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cfx/common/date.h"
#include "cfx/journal/journal.h"
#include "cfx/reference/fix_store.h"
#include "cfx/security_master/format.h"
#include "cfx/settlement/trade_store.h"
#include "cfx/storage/kv_store.h"
#include "fresh_dir.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "remove_on_exit.h"
#include "run_cfx.h"

namespace cfx {
namespace {

using testsupport::RunCfx;
using Result = testsupport::CfxResult;

std::string MakeDir(const std::string& name) {
  return testsupport::FreshDir("cfx_serve_settle_" + name);
}

settlement::Trade MakeTrade(int64_t seq, const std::string& ts, const std::string& sym, int64_t px,
                            int64_t qty, const std::string& buyer, const std::string& seller) {
  settlement::Trade t;
  t.seq = seq;
  t.ts = *common::ParseTimestamp(ts);
  t.sym = sym;
  t.px_ticks = common::PriceTicks(px);
  t.qty = common::Qty(qty);
  t.buy_acct = buyer;
  t.sell_acct = seller;
  t.buy_firm = buyer.substr(0, 1);
  t.sell_firm = seller.substr(0, 1);
  t.aggressor = settlement::Aggressor::kBuy;
  return t;
}

// Stores `trades` as the exchange's trade store holds them.
void StoreTrades(const std::string& dir, const std::vector<settlement::Trade>& trades) {
  auto kv = storage::KvStore::Open(dir, storage::KvOptions{.file = settlement::kTradeStoreFile});
  ASSERT_TRUE(kv.ok()) << kv.status();
  auto txn = (*kv)->BeginWrite();
  ASSERT_TRUE(txn.ok());
  for (const settlement::Trade& t : trades) {
    ASSERT_TRUE((*txn)
                    ->Put(settlement::kTradesTable, settlement::TradeKey(t.seq),
                          settlement::FormatTradeJson(t))
                    .ok());
  }
  ASSERT_TRUE((*txn)->Commit().ok());
}

// The GOLD grade's fix on `date` (T4 for the untraded months) and operator throughput, as
// `cfx reference build` stores them; the throughput also as a CSV for `cfx margin`
// (dir/throughput.csv).
void StoreGoldReference(const std::string& dir, common::Date date) {
  auto store = reference::FixStore::Open(dir);
  ASSERT_TRUE(store.ok()) << store.status();
  reference::PublishItem item;
  item.record.grade = "B200-GOLD-US";
  item.record.date = date;
  item.record.fix_e4 = 50000;
  item.record.p25_e4 = 49000;
  item.record.p75_e4 = 51000;
  item.record.level = 1;
  item.record.n_obs = 5;
  item.record.n_providers = 3;
  std::vector<reference::OperatorThroughput> ops;
  std::ofstream csv(dir + "/throughput.csv");
  csv << "date,operator,tier,gpu,model,isl,osl,output_tps_per_gpu\n";
  const std::pair<const char*, double> rows[] = {{"g1", 1000}, {"g2", 1400}, {"g3", 2100}};
  for (const auto& [name, tps] : rows) {
    ops.push_back({name, common::Tier::kGold, "B200", *common::ParseDate("2027-02-20"), tps});
    csv << "2027-02-20," << name << ",GOLD,B200,m,1024,1024," << tps << "\n";
  }
  ASSERT_TRUE((*store)->Publish({item}, ops).ok());
}

// `cfx margin` of the positions and prices (CSV bodies), by account.
std::map<std::string, std::string> CfxMargins(const std::string& dir, const std::string& positions,
                                              const std::string& prices) {
  std::ofstream(dir + "/positions.csv") << positions;
  std::ofstream(dir + "/prices.csv") << prices;
  Result margin = RunCfx("margin --positions " + dir + "/positions.csv --prices " + dir +
                         "/prices.csv --throughput " + dir + "/throughput.csv --date 2027-03-01");
  EXPECT_EQ(margin.exit_code, 0) << margin.output;
  std::map<std::string, std::string> out;
  std::istringstream lines(margin.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '{') continue;
    nlohmann::json j = nlohmann::json::parse(line);
    out[j["account"].get<std::string>()] = j["margin"].get<std::string>();
  }
  return out;
}

TEST(SettleMarginTest, StatementMarginAndCallMatchCfxMargin) {
  const std::string dir = MakeDir("data");
  const testsupport::RemoveOnExit cleanup(dir);
  const common::Date date = *common::ParseDate("2027-03-01");
  // Trades in the closing window, so the traded contracts settle T1 at the trade price
  // and VM is zero: the call is then the whole margin (no collateral configured).
  ASSERT_NO_FATAL_FAILURE(StoreTrades(
      dir, {MakeTrade(1, "2027-03-01T15:40:00Z", "B200-GOLD-US-202703", 5000, 5, "A1", "B1"),
            MakeTrade(2, "2027-03-01T15:45:00Z", "B200-GOLD-US-202704", 5100, 3, "B1", "A1"),
            MakeTrade(3, "2027-03-01T15:50:00Z", "B200-GOLD-US-202703", 5000, 2, "C1", "A1")}));
  ASSERT_NO_FATAL_FAILURE(StoreGoldReference(dir, date));
  const std::string out = dir + "/out";
  Result settle = RunCfx("settle --date 2027-03-01 --data-dir " + dir + " --out " + out);
  ASSERT_EQ(settle.exit_code, 0) << settle.output;
  EXPECT_EQ(settle.output.find("no margin"), std::string::npos) << settle.output;

  // The same positions and prices through `cfx margin`.
  const std::map<std::string, std::string> expected =
      CfxMargins(dir,
                 "account,sym,qty\nA1,B200-GOLD-US-202703,3\nA1,B200-GOLD-US-202704,-3\n"
                 "B1,B200-GOLD-US-202703,-5\nB1,B200-GOLD-US-202704,3\nC1,B200-GOLD-US-202703,2\n",
                 "sym,settle\nB200-GOLD-US-202703,5.000\nB200-GOLD-US-202704,5.100\n");
  ASSERT_EQ(expected.size(), 3u);
  for (const auto& [account, want] : expected) {
    std::ifstream in(out + "/2027-03-01/" + account + ".json");
    ASSERT_TRUE(in.good()) << account;
    nlohmann::json statement = nlohmann::json::parse(in);
    EXPECT_EQ(statement["margin"], want) << account;
    EXPECT_NE(want, "0.00") << account;
    EXPECT_EQ(statement["cash"], "0.00") << account;
    EXPECT_EQ(statement["call"], want) << account;  // no collateral, no VM
  }
}

// A contract with no band can trade at any price; one settled above what the margin engine
// values (USD 1,000,000 a GPU-hour) used to fail every settlement run from then on (and
// the exchange's start, whose margin basis is the latest settlement). It is valued at the
// engine's highest price: the day settles, the margin is `cfx margin`'s at that price.
TEST(SettleMarginTest, APriceAboveWhatTheMarginEngineValuesStillSettles) {
  const std::string dir = MakeDir("absurd");
  const testsupport::RemoveOnExit cleanup(dir);
  ASSERT_NO_FATAL_FAILURE(StoreTrades(
      dir,
      {MakeTrade(1, "2027-03-01T15:40:00Z", "B200-GOLD-US-202703", 2'000'000'000, 2, "A1", "B1")}));
  ASSERT_NO_FATAL_FAILURE(StoreGoldReference(dir, *common::ParseDate("2027-03-01")));
  const std::string out = dir + "/out";
  Result settle = RunCfx("settle --date 2027-03-01 --data-dir " + dir + " --out " + out);
  ASSERT_EQ(settle.exit_code, 0) << settle.output;
  const std::map<std::string, std::string> expected =
      CfxMargins(dir, "account,sym,qty\nA1,B200-GOLD-US-202703,2\nB1,B200-GOLD-US-202703,-2\n",
                 "sym,settle\nB200-GOLD-US-202703,1000000.000\n");
  ASSERT_EQ(expected.size(), 2u);
  for (const auto& [account, want] : expected) {
    std::ifstream in(out + "/2027-03-01/" + account + ".json");
    ASSERT_TRUE(in.good()) << account;
    nlohmann::json statement = nlohmann::json::parse(in);
    EXPECT_EQ(statement["margin"], want) << account;
    ASSERT_EQ(statement["positions"].size(), 1u) << statement;
    EXPECT_EQ(statement["positions"][0]["settle"], "2000000.000") << statement;
  }
}

// Sums of trades at prices no market has may not fit in 64 bits: the run is refused with a
// message naming the trade, nothing written (it used to wrap, or stop the process with an
// abort in the variation margin).
TEST(SettleMarginTest, TradesWhoseSumsDoNotFitIn64BitsAreRefusedNotWrapped) {
  const std::string dir = MakeDir("overflow");
  const testsupport::RemoveOnExit cleanup(dir);
  const int64_t px = 5'000'000'000'000'000;  // USD 5e12 a GPU-hour: no band stops it
  ASSERT_NO_FATAL_FAILURE(StoreTrades(
      dir, {MakeTrade(1, "2027-03-01T15:40:00Z", "B200-GOLD-US-202703", px, 1000, "A1", "B1"),
            MakeTrade(2, "2027-03-01T15:41:00Z", "B200-GOLD-US-202703", px, 1000, "A1", "B1")}));
  ASSERT_NO_FATAL_FAILURE(StoreGoldReference(dir, *common::ParseDate("2027-03-01")));
  const std::string out = dir + "/out";
  Result settle = RunCfx("settle --date 2027-03-01 --data-dir " + dir + " --out " + out);
  EXPECT_EQ(settle.exit_code, 1) << settle.output;
  EXPECT_NE(settle.output.find("trade 2 (B200-GOLD-US-202703, 1000 at 5000000000000000 ticks): a "
                               "day's sum of trades does not fit in 64 bits"),
            std::string::npos)
      << settle.output;
  EXPECT_NE(settle.output.find("nothing was written"), std::string::npos) << settle.output;
  EXPECT_FALSE(std::filesystem::exists(out + "/2027-03-01"));
}

// The trade store of SettleRunningTest: one contract listed on `listed`, one trade on
// 2026-03-02, no closing book.
void StoreOneContract(const std::string& dir, const std::string& sym, common::Date listed,
                      bool trade) {
  auto kv = storage::KvStore::Open(dir, storage::KvOptions{.file = settlement::kTradeStoreFile});
  ASSERT_TRUE(kv.ok()) << kv.status();
  auto txn = (*kv)->BeginWrite();
  ASSERT_TRUE(txn.ok());
  security_master::Contract c;
  c.sym = sym;
  c.contract = *common::ParseSymbol(sym);
  c.listing_date = listed;
  c.last_trading_day =
      common::BusinessCalendar().LastBusinessDayOfMonth(c.contract->year, c.contract->month);
  ASSERT_TRUE(
      (*txn)
          ->Put(security_master::kContractsTable, sym, security_master::FormatContractJson(c))
          .ok());
  if (trade) {
    const settlement::Trade t = MakeTrade(1, "2026-03-02T15:45:00Z", sym, 5000, 2, "A1", "B1");
    ASSERT_TRUE((*txn)
                    ->Put(settlement::kTradesTable, settlement::TradeKey(t.seq),
                          settlement::FormatTradeJson(t))
                    .ok());
  }
  ASSERT_TRUE((*txn)->Commit().ok());
}

// Takes serve.lock as cfx serve does: to `cfx settle`, an exchange runs on `dir`.
void HoldServeLock(const std::string& dir, int* fd) {
  *fd = ::open((dir + "/serve.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(*fd, 0);
  ASSERT_EQ(::flock(*fd, LOCK_EX | LOCK_NB), 0);
}

void StoreClose(const std::string& dir, const std::string& sym, common::Date date) {
  auto kv = storage::KvStore::Open(dir, storage::KvOptions{.file = settlement::kTradeStoreFile});
  ASSERT_TRUE(kv.ok()) << kv.status();
  auto txn = (*kv)->BeginWrite();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE((*txn)
                  ->Put(settlement::kClosesTable, settlement::CloseKey(sym, date),
                        settlement::FormatCloseJson(sym, date, {}))
                  .ok());
  ASSERT_TRUE((*txn)->Commit().ok());
}

// While an exchange runs on the data dir (it holds serve.lock: taken here as cfx serve takes
// it), a day past its close whose closes the exchange has not recorded yet is refused: the
// trade store may still lack its last trades (the exchange writes each contract's closing
// book within a second of 16:00Z, after every trade before it). With the close recorded the
// same run settles. A past date: a future one is refused before (ServeAuditTest).
TEST(SettleRunningTest, ADayWhoseCloseARunningExchangeHasNotRecordedIsRefused) {
  const std::string dir = MakeDir("running");
  const testsupport::RemoveOnExit cleanup(dir);
  const common::Date date = *common::ParseDate("2026-03-02");
  const std::string sym = "B200-GOLD-US-202603";
  ASSERT_NO_FATAL_FAILURE(StoreOneContract(dir, sym, date, true));
  int lock = -1;
  ASSERT_NO_FATAL_FAILURE(HoldServeLock(dir, &lock));
  const std::string out = dir + "/out";
  Result early = RunCfx("settle --date 2026-03-02 --data-dir " + dir + " --out " + out);
  EXPECT_EQ(early.exit_code, 1) << early.output;
  EXPECT_NE(early.output.find("has not recorded the close of 2026-03-02 yet (no closing book of " +
                              sym + ")"),
            std::string::npos)
      << early.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  ASSERT_NO_FATAL_FAILURE(StoreClose(dir, sym, date));
  Result closed = RunCfx("settle --date 2026-03-02 --data-dir " + dir + " --out " + out);
  EXPECT_EQ(closed.exit_code, 0) << closed.output;
  ::close(lock);
}

// SPEC §9: a rerun of a settled date changes nothing, says so and exits 0. Beside a running
// exchange it did not get that far: the check for the close the exchange has recorded came
// first, and a date settled while the exchange was stopped (no closing books: a replay's
// trades) was refused, exit 1, until 2026-12-07.
TEST(SettleRunningTest, ARerunOfASettledDateBesideARunningExchangeChangesNothingAndExitsZero) {
  const std::string dir = MakeDir("rerun");
  const testsupport::RemoveOnExit cleanup(dir);
  const std::string sym = "B200-GOLD-US-202603";
  ASSERT_NO_FATAL_FAILURE(StoreOneContract(dir, sym, *common::ParseDate("2026-03-02"), true));
  const std::string out = dir + "/out";
  Result offline = RunCfx("settle --date 2026-03-02 --data-dir " + dir + " --out " + out);
  ASSERT_EQ(offline.exit_code, 0) << offline.output;
  int lock = -1;
  ASSERT_NO_FATAL_FAILURE(HoldServeLock(dir, &lock));
  Result rerun = RunCfx("settle --date 2026-03-02 --data-dir " + dir + " --out " + out);
  EXPECT_EQ(rerun.exit_code, 0) << rerun.output;
  EXPECT_NE(rerun.output.find("2026-03-02 is already settled; nothing changed"), std::string::npos)
      << rerun.output;
  // The next date is not settled: the running exchange's missing close still refuses it.
  Result next = RunCfx("settle --date 2026-03-03 --data-dir " + dir + " --out " + out);
  EXPECT_EQ(next.exit_code, 1) << next.output;
  EXPECT_NE(next.output.find("has not recorded the close of 2026-03-03 yet"), std::string::npos)
      << next.output;
  ::close(lock);
}

// The trade store is written after the journal: after a crash it can lack acknowledged
// inputs (trades) until the exchange's next start stores them from the journal. A settlement
// of a stopped exchange's data dir whose trade store is behind its journal is refused, naming
// both, with nothing written: it would leave those trades out for good (their day's window
// has passed when they are stored; a review, 2026-12-07). Caught up, the same run settles.
TEST(SettleRunningTest, ATradeStoreBehindItsJournalIsNotSettled) {
  const std::string dir = MakeDir("behind");
  const testsupport::RemoveOnExit cleanup(dir);
  const std::string sym = "B200-GOLD-US-202603";
  ASSERT_NO_FATAL_FAILURE(StoreOneContract(dir, sym, *common::ParseDate("2026-03-02"), true));
  {
    auto journal = journal::Journal::Open({.data_dir = dir});
    ASSERT_TRUE(journal.ok()) << journal.status();
    std::vector<absl::string_view> inputs = {"one", "two", "three"};
    ASSERT_EQ(*(*journal)->AppendBatch(inputs), 3u);
  }
  auto record = [&](uint64_t seq) {
    auto kv = storage::KvStore::Open(dir, storage::KvOptions{.file = settlement::kTradeStoreFile});
    ASSERT_TRUE(kv.ok()) << kv.status();
    auto txn = (*kv)->BeginWrite();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE(
        (*txn)->Put(trade_store::kMetaTable, trade_store::kLastSeqKey, std::to_string(seq)).ok());
    ASSERT_TRUE((*txn)->Commit().ok());
  };
  ASSERT_NO_FATAL_FAILURE(record(2));
  const std::string out = dir + "/out";
  Result behind = RunCfx("settle --date 2026-03-02 --data-dir " + dir + " --out " + out);
  EXPECT_EQ(behind.exit_code, 1) << behind.output;
  EXPECT_NE(behind.output.find("/trades holds the exchange's inputs through 2 and its journal "
                               "through 3"),
            std::string::npos)
      << behind.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  ASSERT_NO_FATAL_FAILURE(record(3));
  Result caught_up = RunCfx("settle --date 2026-03-02 --data-dir " + dir + " --out " + out);
  EXPECT_EQ(caught_up.exit_code, 0) << caught_up.output;
}

// The month that enters the window at a last trading day's close is listed on the next
// trading day (docs/settlement.md, `listing_date`): a running exchange that has recorded
// the day's closes of what traded that day is not waiting for a close of it.
TEST(SettleRunningTest, AContractListedForTheNextTradingDayIsNotDueTheDayBefore) {
  const std::string dir = MakeDir("rolled");
  const testsupport::RemoveOnExit cleanup(dir);
  const common::Date date = *common::ParseDate("2026-03-02");
  const std::string traded = "B200-GOLD-US-202603", rolled = "B200-GOLD-US-202703";
  ASSERT_NO_FATAL_FAILURE(StoreOneContract(dir, traded, date, true));
  ASSERT_NO_FATAL_FAILURE(StoreOneContract(dir, rolled, *common::ParseDate("2026-03-03"), false));
  ASSERT_NO_FATAL_FAILURE(StoreClose(dir, traded, date));
  int lock = -1;
  ASSERT_NO_FATAL_FAILURE(HoldServeLock(dir, &lock));
  const std::string out = dir + "/out";
  Result settled = RunCfx("settle --date 2026-03-02 --data-dir " + dir + " --out " + out);
  EXPECT_EQ(settled.exit_code, 0) << settled.output;
  std::ifstream prices(out + "/2026-03-02/settlement_prices.json");
  ASSERT_TRUE(prices.good());
  const std::string text((std::istreambuf_iterator<char>(prices)), {});
  EXPECT_NE(text.find(traded), std::string::npos) << text;
  EXPECT_EQ(text.find(rolled), std::string::npos) << text;
  ::close(lock);
}

}  // namespace
}  // namespace cfx
