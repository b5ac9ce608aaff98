// The settlement batch's listing comes from the security master (SPEC §9 item 6), and its
// close surveillance (SPEC §9 item 7).
#include <nlohmann/json.hpp>

#include "batch_fixture.h"
#include "cfx/settlement/statements.h"

namespace cfx::settlement {
namespace {

using testing::D;
using testing::kMar;
using testing::ReadFile;

constexpr char kApr[] = "B200-GOLD-US-202704";
constexpr char kSilvMar[] = "B200-SILV-EU-202703";

class ListingTest : public testing::BatchFixture {};

TEST_F(ListingTest, EveryListedContractSettlesTradedOrNotAndHasAPriorTheNextDay) {
  List(kMar);
  List(kApr);
  List(kSilvMar);
  fixes_.Set("B200-GOLD-US", D("2027-03-01"), 52000);
  fixes_.Set("B200-GOLD-US", D("2027-03-02"), 52105);
  fixes_.Set("B200-SILV-EU", D("2027-03-01"), 41000);
  fixes_.Set("B200-SILV-EU", D("2027-03-02"), 40500);
  AddTrade("2027-03-01T15:45:00Z", "5.250", 2, "A", "B");  // only March of GOLD trades
  auto r1 = Settle("2027-03-01");
  ASSERT_TRUE(r1.ok()) << r1.status();
  ASSERT_EQ(r1->day.contracts.size(), 3u);
  EXPECT_EQ(r1->day.contracts[0].sym, kMar);
  EXPECT_EQ(r1->day.contracts[0].tier, PriceTier::kT1);
  EXPECT_EQ(r1->day.contracts[1].sym, kApr);
  EXPECT_EQ(r1->day.contracts[1].tier, PriceTier::kT4);
  EXPECT_EQ(r1->day.contracts[2].sym, kSilvMar);
  EXPECT_EQ(r1->day.contracts[2].settle, common::PriceTicks(4100));
  EXPECT_EQ(r1->day.contracts[2].tier, PriceTier::kT4);
  // Day 2 without trades: every contract has its prior settlement, so T3, not T4.
  auto r2 = Settle("2027-03-02");
  ASSERT_TRUE(r2.ok()) << r2.status();
  ASSERT_EQ(r2->day.contracts.size(), 3u);
  for (const ContractDay& c : r2->day.contracts) {
    EXPECT_EQ(c.tier, PriceTier::kT3) << c.sym;
    EXPECT_TRUE(c.prior_settle.has_value()) << c.sym;
  }
  EXPECT_EQ(r2->day.contracts[2].settle, common::PriceTicks(4050));  // 4.100 + (4.05 − 4.10)
  auto prices = nlohmann::json::parse(ReadFile(out() + "/2027-03-02/settlement_prices.json"));
  EXPECT_EQ(prices.size(), 3u);
}

TEST_F(ListingTest, AListedContractWithoutAnyPriceSourceFailsTheBatchAndWritesNothing) {
  List(kMar);
  List(kSilvMar);  // no trade, no close, no prior, no fix of its grade
  fixes_.Set("B200-GOLD-US", D("2027-03-01"), 52000);
  auto r = Settle("2027-03-01");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find(kSilvMar), std::string::npos) << r.status();
  EXPECT_EQ(r.status().message().find(kMar), std::string::npos) << r.status();
  EXPECT_FALSE(std::filesystem::exists(out() + "/2027-03-01"));
  auto ledger = Ledger::Open(data());
  ASSERT_TRUE(ledger.ok());
  EXPECT_FALSE((*(*ledger)->LastSettledDate()).has_value());
}

// The master's last trading day is the calendar's at listing (`cfx serve` refuses holidays
// that would move it): another one is a damaged row, or holidays other than the exchange's.
// The batch refuses it, naming the contract and both days, and writes nothing. Until
// 2026-12-07 a row saying 2027-03-15 expired March mid-month at an FSP of half its month
// (a review).
TEST_F(ListingTest, AMasterRowWhoseLastTradingDayIsNotTheCalendarsFailsTheBatch) {
  security_master::Contract c;
  c.sym = kMar;
  c.contract = *common::ParseSymbol(kMar);
  c.last_trading_day = D("2027-03-15");  // the calendar's: 2027-03-31
  trades_.List(std::move(c));
  fixes_.Set("B200-GOLD-US", D("2027-03-01"), 52000);
  auto r = Settle("2027-03-01");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find(kMar), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("2027-03-15"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("2027-03-31"), std::string::npos) << r.status();
  EXPECT_FALSE(std::filesystem::exists(out() + "/2027-03-01"));
}

TEST_F(ListingTest, OnlyContractsListedOnTheDateAndNotPastTheirLastTradingDaySettle) {
  fixes_.Set("B200-GOLD-US", D("2027-03-31"), 52000);
  List("B200-GOLD-US-202702");                // last trading day 2027-02-26: past
  List(kMar);                                 // its last trading day: settles (and expires)
  List(kApr, D("2027-04-01"));                // listed the next day: not yet
  List("B200-GOLD-US-202705", D("2027-03-31"));  // listed on the date: settles
  auto r = Settle("2027-03-31");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->day.contracts.size(), 2u);
  EXPECT_EQ(r->day.contracts[0].sym, kMar);
  EXPECT_TRUE(r->day.contracts[0].expired);
  EXPECT_EQ(r->day.contracts[1].sym, "B200-GOLD-US-202705");
}

// A master without listing dates (a replay's `product` lines before any `time`): the first
// trade says when trading began, and a first date before its trading day is refused naming
// that day, a business day: a Friday evening's trade is Monday's (until 2026-12-07 the
// message named the Saturday).
TEST_F(ListingTest, AFirstDateBeforeTheFirstTradesDayNamesThatTradingDay) {
  List(kMar);
  AddTrade("2027-03-05T17:00:00Z", "5.200", 1, "A", "B");  // Friday, after the close
  auto r = Settle("2027-03-05");
  ASSERT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status();
  EXPECT_NE(r.status().message().find("(the first is listed on 2027-03-08)"), std::string::npos)
      << r.status();
}

TEST_F(ListingTest, ASymbolOutsideTheContractSchemeIsNamedUnsettled) {
  security_master::Contract odd;
  odd.sym = "XYZ";
  trades_.List(odd);
  auto r = Settle("2027-03-01");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("XYZ (not a <grade>-<YYYYMM> contract"), std::string::npos)
      << r.status();
}

TEST_F(ListingTest, TheBatchFilesStartWithAnUnderscoreAndBadAccountIdsAreRefused) {
  List(kMar);
  AddTrade("2027-03-01T15:45:00Z", "5.250", 2, "A", "B");
  ASSERT_TRUE(Settle("2027-03-01").ok());
  EXPECT_TRUE(std::filesystem::exists(out() + "/2027-03-01/_summary.json"));
  EXPECT_TRUE(std::filesystem::exists(out() + "/2027-03-01/_surveillance.json"));
  EXPECT_FALSE(std::filesystem::exists(out() + "/2027-03-01/summary.json"));
  for (const char* bad : {"_summary", "settlement_prices", ".hidden", "a/b", "x y"}) {
    AddTrade("2027-03-02T15:45:00Z", "5.250", 1, bad, "B");
    auto r = Settle("2027-03-02");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(r.status().message().find("account id"), std::string::npos) << r.status();
    trades_ = MemoryTradeSource();
    List(kMar);
  }
}

// Closing window [15:30Z, 16:00Z) of 2027-03-01: 10 lots. A is on the buy side of 8 of
// them (0.8 > 0.5: an alert), B on the sell side of as many (A is named: the smaller id).
TEST_F(ListingTest, SurveillanceReportsTheLargestSharesAndAlertsAboveTheThreshold) {
  List(kMar);
  List(kApr);
  fixes_.Set("B200-GOLD-US", D("2027-03-01"), 52000);
  AddTrade("2027-03-01T15:00:00Z", "5.100", 50, "C", "D");  // before the window: not counted
  AddTrade("2027-03-01T15:31:00Z", "5.250", 5, "A", "B");
  AddTrade("2027-03-01T15:40:00Z", "5.250", 3, "A", "B");
  AddTrade("2027-03-01T15:50:00Z", "5.250", 2, "C", "D");
  auto r = Settle("2027-03-01");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->day.surveillance.size(), 1u);  // April settled T4: no closing window
  const CloseConcentration& s = r->day.surveillance[0];
  EXPECT_EQ(s.sym, kMar);
  EXPECT_EQ(s.volume, common::Qty(10));
  EXPECT_EQ(s.top_account, "A");  // A and B both 8: the smaller id
  EXPECT_EQ(s.top_account_qty, common::Qty(8));
  EXPECT_EQ(s.top_firm, "F-A");
  auto j = nlohmann::json::parse(ReadFile(out() + "/2027-03-01/_surveillance.json"));
  EXPECT_EQ(j["date"], "2027-03-01");
  EXPECT_EQ(j["close_concentration_alert"], "0.5000");
  ASSERT_EQ(j["contracts"].size(), 1u);
  EXPECT_EQ(j["contracts"][0]["closing_volume"], 10);
  EXPECT_EQ(j["contracts"][0]["largest_account"],
            nlohmann::json({{"id", "A"}, {"qty", 8}, {"share", "0.8000"}, {"alert", true}}));
  EXPECT_EQ(j["contracts"][0]["largest_firm"]["share"], "0.8000");
  const std::string alerts = SurveillanceAlertsText(r->day);
  EXPECT_NE(alerts.find("surveillance alert: 2027-03-01 B200-GOLD-US-202703: account A took "
                        "part in 0.8000"),
            std::string::npos)
      << alerts;
  EXPECT_NE(alerts.find("firm F-A"), std::string::npos) << alerts;
}

// SPEC §9.7 names the largest account's share and the largest firm's: a firm's share adds
// up its accounts, counts a trade between two of its own accounts once, and a trade that
// names no firm counts for its account. Window of 10 lots: A1 and A2 (firm F) each buy 3
// and trade 1 between them, D (no firm) buys 3 from E (firm L). A1 and A2 took part in 4
// each (0.4: no alert), F in 7 (0.7: an alert).
TEST_F(ListingTest, AFirmsShareAddsItsAccountsAndCountsItsOwnTradesOnce) {
  List(kMar);
  fixes_.Set("B200-GOLD-US", D("2027-03-01"), 52000);
  auto add = [&](const char* ts, int64_t qty, const char* buy, const char* buy_firm,
                 const char* sell, const char* sell_firm) {
    Trade t = testing::MakeTrade(++seq_, ts, kMar, "5.250", qty, buy, sell);
    t.buy_firm = buy_firm;
    t.sell_firm = sell_firm;
    trades_.AddTrade(t);
  };
  add("2027-03-01T15:31:00Z", 3, "A1", "F", "B", "G");
  add("2027-03-01T15:35:00Z", 3, "A2", "F", "C", "H");
  add("2027-03-01T15:40:00Z", 1, "A2", "F", "A1", "F");
  add("2027-03-01T15:45:00Z", 3, "D", "", "E", "L");
  auto r = Settle("2027-03-01");
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->day.surveillance.size(), 1u);
  const CloseConcentration& s = r->day.surveillance[0];
  EXPECT_EQ(s.volume, common::Qty(10));
  EXPECT_EQ(s.top_account, "A1");  // A1 and A2 both 4: the smaller id
  EXPECT_EQ(s.top_account_qty, common::Qty(4));
  EXPECT_EQ(s.top_firm, "F");
  EXPECT_EQ(s.top_firm_qty, common::Qty(7)) << "F's own trade counted twice, or not at all";
  auto j = nlohmann::json::parse(ReadFile(out() + "/2027-03-01/_surveillance.json"));
  EXPECT_EQ(j["contracts"][0]["largest_account"]["share"], "0.4000");
  EXPECT_EQ(j["contracts"][0]["largest_account"]["alert"], false);
  EXPECT_EQ(j["contracts"][0]["largest_firm"]["share"], "0.7000");
  EXPECT_EQ(j["contracts"][0]["largest_firm"]["alert"], true);
  const std::string alerts = SurveillanceAlertsText(r->day);
  EXPECT_NE(alerts.find("firm F"), std::string::npos) << alerts;
  EXPECT_EQ(alerts.find("account A1"), std::string::npos) << alerts;
}

TEST_F(ListingTest, NoAlertAtOrBelowTheConfiguredThreshold) {
  config_.close_concentration_alert_e4 = 8000;  // 0.8 exactly is not above
  List(kMar);
  AddTrade("2027-03-01T15:31:00Z", "5.250", 8, "A", "B");
  AddTrade("2027-03-01T15:50:00Z", "5.250", 2, "C", "D");
  auto r = Settle("2027-03-01");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(SurveillanceAlertsText(r->day), "");
  auto j = nlohmann::json::parse(ReadFile(out() + "/2027-03-01/_surveillance.json"));
  EXPECT_EQ(j["close_concentration_alert"], "0.8000");
  EXPECT_EQ(j["contracts"][0]["largest_account"]["alert"], false);
  // The record keeps the run's threshold: a rerun writes the same file.
  auto ledger = Ledger::Open(data());
  auto day = (*ledger)->ReadDay(D("2027-03-01"));
  ASSERT_TRUE(day.ok() && day->has_value());
  EXPECT_EQ((*day)->concentration_alert_e4, 8000);
  EXPECT_EQ((*day)->surveillance.size(), 1u);
}

}  // namespace
}  // namespace cfx::settlement
