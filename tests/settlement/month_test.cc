// A month of random trading settled day by day: cash reconciles to the sum of all VM to the
// cent, the ledger audits clean every day, and the March contract expires at its FSP.
#include <nlohmann/json.hpp>
#include <random>

#include "batch_fixture.h"
#include "cfx/settlement/expiry.h"
#include "cfx/settlement/statements.h"
#include "cfx/settlement/vm.h"

namespace cfx::settlement {
namespace {

using testing::D;
using testing::ReadFile;

using testing::kMar;

constexpr char kGrade[] = "B200-GOLD-US";

class MonthTest : public testing::BatchFixture {};

TEST_F(MonthTest, CashReconcilesToAllVmAndMarchExpiresAtItsFsp) {
  config_.grades = {*common::ParseGrade(kGrade)};
  const std::vector<std::string> accounts = {"A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7"};
  for (size_t i = 0; i < accounts.size(); i += 2) {
    config_.collateral[accounts[i]] = common::MicroUsd(static_cast<int64_t>(i + 1) * 123'456'789);
  }
  const std::vector<std::string> syms = {kMar, "B200-GOLD-US-202704", "B200-GOLD-US-202705"};
  std::vector<common::Date> days = config_.calendar.BusinessDays(D("2027-03-01"), D("2027-04-02"));
  std::mt19937 rng(7);
  // Fixes: every business day except every 4th (missing days are skipped by the FSP and
  // make T3 keep the prior price).
  std::vector<std::optional<int64_t>> march_fixes;
  for (size_t i = 0; i < days.size(); ++i) {
    std::optional<int64_t> fix;
    if (i % 4 != 3) fix = 50000 + static_cast<int64_t>(rng() % 2000);
    if (fix) fixes_.Set(kGrade, days[i], *fix);
    int y, m, d;
    common::YmdFromDate(days[i], &y, &m, &d);
    if (m == 3) march_fixes.push_back(fix);
  }
  fixes_.Set(kGrade, D("2027-04-01"), 50500);  // so that the new month can list by T4
  fixes_.Set(kGrade, D("2027-04-02"), 50600);
  // Trades: a dozen a day at random times of the trading day, some in the closing window.
  struct Signed {
    std::string acct, sym;
    int64_t qty, px;
  };
  std::vector<Signed> ledger_of_trades;
  for (size_t i = 0; i < days.size(); ++i) {
    common::TimestampUs start =
        common::AtHour(i == 0 ? common::Date{days[0].days - 3} : days[i - 1], 16);
    common::TimestampUs end = common::AtHour(days[i], 16);
    for (int k = 0; k < 12; ++k) {
      const std::string& sym =
          syms[rng() % (days[i] > D("2027-03-31") ? 2 : 3) + (days[i] > D("2027-03-31") ? 1 : 0)];
      std::string buy = accounts[rng() % accounts.size()];
      std::string sell = accounts[rng() % accounts.size()];
      int64_t qty = 1 + rng() % 20;
      int64_t px = 4800 + rng() % 400;
      common::TimestampUs ts =
          k % 3 == 0 ? end - 1 - static_cast<int64_t>(rng() % (30 * common::kUsPerMinute))
                     : start + static_cast<int64_t>(rng() % (end - start));
      Trade t;
      t.seq = ++seq_;
      t.ts = ts;
      t.sym = sym;
      t.px_ticks = common::PriceTicks(px);
      t.qty = common::Qty(qty);
      t.buy_acct = buy;
      t.sell_acct = sell;
      trades_.AddTrade(t);
      ledger_of_trades.push_back({buy, sym, qty, px});
      ledger_of_trades.push_back({sell, sym, -qty, px});
    }
  }
  std::map<std::string, common::PriceTicks> last_settle;
  std::map<std::string, int64_t> sum_vm_cents;  // Σ of the printed daily vm_total
  for (common::Date day : days) {
    auto r = SettleDate(day, config_, {&trades_, &fixes_, &margin_},
                        {.data_dir = data(), .out_dir = out()});
    ASSERT_TRUE(r.ok()) << common::FormatDate(day) << ": " << r.status();
    auto ledger = Ledger::Open(data());
    ASSERT_TRUE((*ledger)->Verify().ok()) << common::FormatDate(day);
    for (const ContractDay& c : r->day.contracts) {
      last_settle[c.sym] = c.expired ? *c.fsp : c.settle;
      if (c.sym == kMar) {
        EXPECT_EQ(c.expired, day == D("2027-03-31"));
      }
    }
    if (day > D("2027-03-31")) {
      for (const ContractDay& c : r->day.contracts) EXPECT_NE(c.sym, kMar);
      EXPECT_EQ(r->day.contracts.back().sym, "B200-GOLD-US-202803");  // newly listed
    }
    for (const std::string& a : accounts) {
      std::string path = out() + "/" + common::FormatDate(day) + "/" + a + ".json";
      if (!std::filesystem::exists(path)) continue;
      auto j = nlohmann::json::parse(ReadFile(path));
      sum_vm_cents[a] += *common::ParseScaled(j["vm_total"].get<std::string>(), 2, true);
      if (day > D("2027-03-31")) {
        for (const auto& p : j["positions"]) EXPECT_NE(p["sym"], kMar);
      }
    }
  }
  // FSP: mean of March's fixes, missing days skipped.
  ASSERT_EQ(last_settle[kMar], *FinalSettlementPrice(march_fixes));
  // Telescoping: all VM of an account = Σ trades q × (final price − px).
  std::map<std::string, common::MicroUsd> expected_vm;
  for (const Signed& s : ledger_of_trades) {
    const common::PriceTicks move = last_settle[s.sym] - common::PriceTicks(s.px);
    expected_vm[s.acct] += *common::MicroUsdOf(common::Qty(s.qty), move, kMicroUsdPerTickContract);
  }
  common::MicroUsd total;
  for (const std::string& a : accounts) {
    auto j = nlohmann::json::parse(ReadFile(out() + "/2027-04-02/" + a + ".json"));
    const common::MicroUsd collateral =
        config_.collateral.count(a) ? config_.collateral[a] : common::MicroUsd(0);
    EXPECT_EQ(j["cash"], UsdCents(collateral + expected_vm[a])) << a;
    EXPECT_EQ(common::MicroUsd(sum_vm_cents[a] * 10'000), expected_vm[a]) << a;
    total += expected_vm[a];
  }
  EXPECT_EQ(total, common::MicroUsd(0));
}

TEST_F(MonthTest, ExpiryPostsFinalVmAndClosesPositions) {
  // First settlement on 03-30; 03-31 is the March contract's last trading day.
  fixes_.Set(kGrade, D("2027-03-02"), 51000);
  fixes_.Set(kGrade, D("2027-03-03"), 51000);  // e.g. a stale carry: the same value counts
  fixes_.Set(kGrade, D("2027-03-31"), 51030);  // mean 51010 e4 -> FSP 5.101
  AddTrade("2027-03-30T15:45:00Z", "5.000", 4, "L", "S");
  ASSERT_TRUE(Settle("2027-03-30").ok());
  AddTrade("2027-03-31T15:45:00Z", "5.050", 1, "L", "S");
  auto r = Settle("2027-03-31");
  ASSERT_TRUE(r.ok()) << r.status();
  const ContractDay& c = r->day.contracts[0];
  EXPECT_EQ(c.settle, common::PriceTicks(5050));
  EXPECT_TRUE(c.expired);
  EXPECT_EQ(c.fsp, common::PriceTicks(5101));
  // L: daily 4×50 = 200 USD; final 5×(5101−5050) = 255 USD.
  auto l = nlohmann::json::parse(Statement("2027-03-31", "L"));
  EXPECT_EQ(l["positions"][0]["qty"], 5);
  EXPECT_EQ(l["positions"][0]["vm"], "455.00");
  EXPECT_EQ(l["positions"][0]["final_vm"], "255.00");
  EXPECT_EQ(l["positions"][0]["fsp"], "5.101");
  EXPECT_EQ(l["margin"], "0.00");  // the position is closed
  auto prices = nlohmann::json::parse(ReadFile(out() + "/2027-03-31/settlement_prices.json"));
  EXPECT_EQ(prices[0]["fsp"], "5.101");
  auto next = Settle("2027-04-01");
  ASSERT_TRUE(next.ok()) << next.status();
  // Other months listed by T4 on 03-31 carry on; the March contract is gone.
  for (const ContractDay& c : next->day.contracts) EXPECT_NE(c.sym, kMar);
  auto l2 = nlohmann::json::parse(Statement("2027-04-01", "L"));
  EXPECT_TRUE(l2["positions"].empty());
  EXPECT_EQ(l2["cash"], "455.00");
  auto ledger = Ledger::Open(data());
  EXPECT_TRUE((*(*ledger)->Contracts()).at(kMar).expired);
  EXPECT_TRUE((*ledger)->Verify().ok());
}

// The FSP skips days without a fix, but not a day whose fixes were not built yet: the run
// for the last trading day is refused, naming it, and writes nothing (docs/settlement.md).
TEST_F(MonthTest, AnFspDayWhoseFixesWereNotBuiltIsRefusedNotSkipped) {
  fixes_.Set(kGrade, D("2027-03-02"), 51000);
  fixes_.Set(kGrade, D("2027-03-31"), 51030);
  fixes_.NotBuilt(D("2027-03-30"));
  AddTrade("2027-03-31T15:45:00Z", "5.050", 1, "L", "S");
  auto r = Settle("2027-03-31");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no reference fix was built for 2027-03-30"),
            std::string::npos)
      << r.status();
  EXPECT_FALSE(std::filesystem::exists(out() + "/2027-03-31"));
}

TEST_F(MonthTest, ExpiryWithoutAnyFixInTheMonthIsUnsettled) {
  AddTrade("2027-03-31T15:45:00Z", "5.050", 1, "L", "S");
  fixes_.Set(kGrade, D("2027-04-01"), 51000);  // not in the contract month
  auto r = Settle("2027-03-31");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(kMar), std::string::npos);
  EXPECT_NE(r.status().message().find("FSP"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(out() + "/2027-03-31"));
}

// SPEC §9 step 3 names no exception: without a fix in the month there is no FSP, and the
// contract is unsettled even when no position is left to pay at it.
TEST_F(MonthTest, ExpiryWithoutAnyFixIsUnsettledEvenWithoutOpenInterest) {
  AddTrade("2027-03-30T15:45:00Z", "5.050", 1, "L", "S");
  ASSERT_TRUE(Settle("2027-03-30").ok());
  AddTrade("2027-03-31T15:45:00Z", "5.060", 1, "S", "L");  // both flat again
  auto r = Settle("2027-03-31");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(kMar), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("FSP"), std::string::npos) << r.status();
  EXPECT_FALSE(std::filesystem::exists(out() + "/2027-03-31"));
}

TEST_F(MonthTest, TradedContractPastItsLastTradingDayIsRefused) {
  AddTrade("2027-04-01T15:45:00Z", "5.050", 1, "L", "S");  // March contract, traded in April
  auto r = Settle("2027-04-01");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("past its last trading day"), std::string::npos);
}

}  // namespace
}  // namespace cfx::settlement
