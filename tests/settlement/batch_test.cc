#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "batch_fixture.h"
#include "cfx/settlement/ledger.h"
#include "cfx/settlement/statements.h"

namespace cfx::settlement {
namespace {

using testing::D;
using testing::ReadFile;
using testing::ReadTree;
using testing::kMar;

class BatchTest : public testing::BatchFixture {
 protected:
  // Day 1 (2027-03-01): A buys 3 from B at 10:00 @ 5.200 (outside the closing window);
  // A buys 2 from C @ 5.250 and C buys 2 from B @ 5.260 inside it: VWAP 5.255 (T1).
  void FirstDay() {
    config_.collateral["A"] = common::MicroUsd(1'000'000'000);  // 1000 USD
    AddTrade("2027-03-01T10:00:00Z", "5.200", 3, "A", "B");
    AddTrade("2027-03-01T15:45:00Z", "5.250", 2, "A", "C");
    AddTrade("2027-03-01T15:50:00Z", "5.260", 2, "C", "B");
  }
};

TEST_F(BatchTest, FirstDaySettlesByVwapAndWritesExactStatements) {
  FirstDay();
  auto r = Settle("2027-03-01");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->already_settled);
  ASSERT_EQ(r->day.contracts.size(), 1u);  // no security master: the traded contract only
  EXPECT_EQ(r->day.contracts[0].settle, common::PriceTicks(5255));
  EXPECT_EQ(r->day.contracts[0].tier, PriceTier::kT1);
  // A: 3×(5255−5200) + 2×(5255−5250) = 175 USD; B: −165 + 10 = −155; C: −10 − 10 = −20.
  EXPECT_EQ(Statement("2027-03-01", "A"),
            R"({"account":"A","date":"2027-03-01","positions":[{"sym":"B200-GOLD-US-202703",)"
            R"("qty":5,"settle":"5.255","prior_settle":null,"vm":"175.00"}],"vm_total":"175.00",)"
            R"("cash":"1175.00","margin":"500.00","call":"0.00"})"
            "\n");
  EXPECT_EQ(
      Statement("2027-03-01", "B"),
      R"({"account":"B","date":"2027-03-01","positions":[{"sym":"B200-GOLD-US-202703",)"
      R"("qty":-5,"settle":"5.255","prior_settle":null,"vm":"-155.00"}],"vm_total":"-155.00",)"
      R"("cash":"-155.00","margin":"500.00","call":"655.00"})"
      "\n");
  // C is flat but owes 20 USD: the call covers negative cash.
  auto c = nlohmann::json::parse(Statement("2027-03-01", "C"));
  EXPECT_EQ(c["positions"][0]["qty"], 0);
  EXPECT_EQ(c["vm_total"], "-20.00");
  EXPECT_EQ(c["call"], "20.00");
  EXPECT_EQ(Statement("2027-03-01", "A", "csv"),
            "account,date,sym,qty,settle,prior_settle,vm,vm_total,cash,margin,call\n"
            "A,2027-03-01,B200-GOLD-US-202703,5,5.255,,175.00,175.00,1175.00,500.00,0.00\n");
  EXPECT_EQ(ReadFile(out() + "/2027-03-01/settlement_prices.json"),
            R"([{"sym":"B200-GOLD-US-202703","settle":"5.255","tier":"T1"}])"
            "\n");
  auto summary = nlohmann::json::parse(ReadFile(out() + "/2027-03-01/_summary.json"));
  EXPECT_EQ(summary["vm_total"], "175.00");
  EXPECT_EQ(summary["calls"], 2);
  EXPECT_EQ(summary["call_total"], "675.00");
  EXPECT_EQ(r->day.vm_paid, common::MicroUsd(175'000'000));
}

TEST_F(BatchTest, SecondDayMarksPriorPositionsAndTradesAtTheMidpoint) {
  FirstDay();
  ASSERT_TRUE(Settle("2027-03-01").ok());
  // Day 2: no closing-window trade; a tight book at the close: mid 5.265 (T2).
  AddTrade("2027-03-02T11:00:00Z", "5.262", 1, "C", "A");
  trades_.SetClose(kMar, D("2027-03-02"),
                   CloseQuote{common::PriceTicks(5260), common::PriceTicks(5270)});
  auto r = Settle("2027-03-02");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->day.contracts[0].settle, common::PriceTicks(5265));
  EXPECT_EQ(r->day.contracts[0].tier, PriceTier::kT2);
  EXPECT_EQ(r->day.contracts[0].prior_settle, common::PriceTicks(5255));
  // A: 5×10 − 1×3 = 47 USD; B: −5×10 = −50; C: 0×10 + 1×3 = 3.
  auto a = nlohmann::json::parse(Statement("2027-03-02", "A"));
  EXPECT_EQ(a["positions"][0]["qty"], 4);
  EXPECT_EQ(a["positions"][0]["prior_settle"], "5.255");
  EXPECT_EQ(a["positions"][0]["vm"], "47.00");
  EXPECT_EQ(a["cash"], "1222.00");
  EXPECT_EQ(nlohmann::json::parse(Statement("2027-03-02", "B"))["vm_total"], "-50.00");
  EXPECT_EQ(nlohmann::json::parse(Statement("2027-03-02", "C"))["vm_total"], "3.00");
  auto ledger = Ledger::Open(data());
  EXPECT_TRUE((*ledger)->Verify().ok());
}

// SPEC §9 step 4: cash = the account's configured collateral + all VM posted so far. The
// collateral is the run's config: a top-up between two runs shows in the next day's cash,
// and the ledger's audit accepts it.
TEST_F(BatchTest, ACollateralChangeBetweenRunsShowsInCashAndTheLedgerVerifies) {
  FirstDay();
  ASSERT_TRUE(Settle("2027-03-01").ok());
  config_.collateral["A"] = common::MicroUsd(2'000'000'000);  // 2000 USD
  trades_.SetClose(kMar, D("2027-03-02"),
                   CloseQuote{common::PriceTicks(5260), common::PriceTicks(5270)});
  ASSERT_TRUE(Settle("2027-03-02").ok());
  // VM 175 + 50 (5 × 10): cash 2000 + 225.
  EXPECT_EQ(nlohmann::json::parse(Statement("2027-03-02", "A"))["cash"], "2225.00");
  auto ledger = Ledger::Open(data());
  ASSERT_TRUE(ledger.ok());
  absl::Status verified = (*ledger)->Verify();
  EXPECT_TRUE(verified.ok()) << verified;
}

// SPEC §9 step 1: the trading day is [previous business day 16:00Z, D 16:00Z) and the
// closing window [15:30Z, 16:00Z), both from the batch's own dates, to the microsecond.
TEST_F(BatchTest, TheClosingWindowAndTheTradingDayEndWhereTheSpecSays) {
  AddTrade("2027-03-01T15:29:59.999999Z", "5.000", 1, "A", "B");  // day 1, before the window
  AddTrade("2027-03-01T15:30:00Z", "5.100", 1, "A", "B");         // day 1, in the window
  AddTrade("2027-03-01T16:00:00Z", "5.300", 1, "A", "B");         // day 2
  auto r1 = Settle("2027-03-01");
  ASSERT_TRUE(r1.ok()) << r1.status();
  EXPECT_EQ(r1->day.contracts[0].settle, common::PriceTicks(5100));
  EXPECT_EQ(r1->day.contracts[0].tier, PriceTier::kT1);
  auto a1 = nlohmann::json::parse(Statement("2027-03-01", "A"));
  EXPECT_EQ(a1["positions"][0]["qty"], 2);
  EXPECT_EQ(a1["positions"][0]["vm"], "100.00");  // 1 × (5.100 − 5.000) × 1000
  auto r2 = Settle("2027-03-02");  // no window trade, no close, no fix: the prior unchanged
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(r2->day.contracts[0].settle, common::PriceTicks(5100));
  auto a2 = nlohmann::json::parse(Statement("2027-03-02", "A"));
  EXPECT_EQ(a2["positions"][0]["qty"], 3);
  EXPECT_EQ(a2["positions"][0]["vm"], "-200.00");  // 1 × (5.100 − 5.300) × 1000
}

// SPEC §9 step 1, T3: the fix change is from the previous *business* day: across a weekend
// Friday's fix, not Sunday's.
TEST_F(BatchTest, TierThreeTakesTheFixOfThePreviousBusinessDayAcrossAWeekend) {
  ListYear("B200-GOLD-US");
  fixes_.Set("B200-GOLD-US", D("2027-03-05"), 52000);  // Friday
  fixes_.Set("B200-GOLD-US", D("2027-03-07"), 60000);  // Sunday: not a business day
  fixes_.Set("B200-GOLD-US", D("2027-03-08"), 52100);  // Monday
  auto fri = Settle("2027-03-05");
  ASSERT_TRUE(fri.ok()) << fri.status();
  EXPECT_EQ(fri->day.contracts[1].settle, common::PriceTicks(5200));
  EXPECT_EQ(fri->day.contracts[1].tier, PriceTier::kT4);
  auto mon = Settle("2027-03-08");
  ASSERT_TRUE(mon.ok()) << mon.status();
  EXPECT_EQ(mon->day.contracts[1].settle, common::PriceTicks(5210));  // 5.200 + 0.010
  EXPECT_EQ(mon->day.contracts[1].tier, PriceTier::kT3);
}

// SPEC §9 step 2: "Σ VM over all accounts = 0 is checked on every run" — not only by the
// audit (`--verify`): a ledger whose last day does not balance (here written past the batch)
// stops the next run, which writes nothing.
TEST_F(BatchTest, EveryRunRefusesALedgerThatDoesNotBalance) {
  {
    auto ledger = Ledger::Open(data());
    ASSERT_TRUE(ledger.ok()) << ledger.status();
    DayRecord day;
    day.date = D("2027-03-01");
    day.contracts.push_back(ContractDay{kMar, common::PriceTicks(5000), PriceTier::kT1,
                                        std::nullopt, false, std::nullopt, common::MicroUsd(0)});
    day.accounts = 2;
    day.vm_paid = common::MicroUsd(10'000'000);
    auto entry = [](const char* account, int64_t qty, int64_t vm) {
      return AccountDay{
          .account = account,
          .lines = {AccountLine{0, common::Qty(qty), common::MicroUsd(vm), common::MicroUsd(0)}},
          .vm_cum = common::MicroUsd(vm),
          .cash = common::MicroUsd(vm),
          .call = common::MicroUsd(0)};
    };
    // A was posted 10 USD, B only −9: one dollar appeared from nowhere.
    absl::Status s =
        (*ledger)->CommitDay(day, {entry("A", 1, 10'000'000), entry("B", -1, -9'000'000)}, nullptr);
    ASSERT_TRUE(s.ok()) << s;
  }
  AddTrade("2027-03-02T15:45:00Z", "5.010", 1, "A", "B");
  auto r = Settle("2027-03-02");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal) << r.status();
  EXPECT_NE(r.status().message().find("does not balance"), std::string::npos) << r.status();
  EXPECT_FALSE(std::filesystem::exists(out() + "/2027-03-02"));
  auto ledger = Ledger::Open(data());
  ASSERT_TRUE(ledger.ok());
  auto last = (*ledger)->LastSettledDate();
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, std::optional<common::Date>(D("2027-03-01")));
}

TEST_F(BatchTest, ExactHalfVwapRoundsTowardPriorSettlement) {
  AddTrade("2027-03-01T15:45:00Z", "5.000", 1, "A", "B");
  ASSERT_TRUE(Settle("2027-03-01").ok());
  // Day 2 VWAP (5.010 + 5.011) / 2 = 5.0105, prior 5.000 below -> 5.010.
  AddTrade("2027-03-02T15:40:00Z", "5.010", 1, "A", "B");
  AddTrade("2027-03-02T15:41:00Z", "5.011", 1, "B", "A");
  auto r = Settle("2027-03-02");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->day.contracts[0].settle, common::PriceTicks(5010));
}

TEST_F(BatchTest, ListedContractsSettleByFixT4ThenT3) {
  ListYear("B200-GOLD-US");
  fixes_.Set("B200-GOLD-US", D("2027-03-01"), 52000);
  fixes_.Set("B200-GOLD-US", D("2027-03-02"), 52105);
  AddTrade("2027-03-01T15:45:00Z", "5.250", 1, "A", "B");
  auto r1 = Settle("2027-03-01");
  ASSERT_TRUE(r1.ok()) << r1.status();
  ASSERT_EQ(r1->day.contracts.size(), 12u);
  EXPECT_EQ(r1->day.contracts[0].sym, kMar);
  EXPECT_EQ(r1->day.contracts[0].tier, PriceTier::kT1);
  EXPECT_EQ(r1->day.contracts[11].sym, "B200-GOLD-US-202802");
  EXPECT_EQ(r1->day.contracts[11].settle, common::PriceTicks(5200));
  EXPECT_EQ(r1->day.contracts[11].tier, PriceTier::kT4);
  auto r2 = Settle("2027-03-02");
  ASSERT_TRUE(r2.ok()) << r2.status();
  // 5.200 + (5.2105 − 5.2000) = 5.2105 -> half to even 5.210; the traded one 5.250 -> 5.260
  // (5.2605).
  EXPECT_EQ(r2->day.contracts[11].settle, common::PriceTicks(5210));
  EXPECT_EQ(r2->day.contracts[11].tier, PriceTier::kT3);
  EXPECT_EQ(r2->day.contracts[0].settle, common::PriceTicks(5260));
  EXPECT_EQ(r2->day.contracts[0].tier, PriceTier::kT3);
}

// A day whose fixes were not built yet (the reference store has earlier days, none of D)
// is not a day without a fix (SPEC §8 publishes those, fix null): T3 keeping the prior, T4
// and the FSP would take it as one, for good (a rerun only says "already settled"). The
// run is refused, naming the day, and writes nothing; once built, the day settles. Until
// 2026-12-06 it settled at the prior unchanged.
TEST_F(BatchTest, ADayWhoseFixesWereNotBuiltIsRefusedNotTakenAsNoFix) {
  fixes_.Set("B200-GOLD-US", D("2027-03-01"), 52000);
  AddTrade("2027-03-01T15:45:00Z", "5.250", 1, "A", "B");
  ASSERT_TRUE(Settle("2027-03-01").ok());
  fixes_.NotBuilt(D("2027-03-02"));
  auto r = Settle("2027-03-02");  // no trades, no close: T3 would need the fix of D
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("no reference fix was built for 2027-03-02"),
            std::string::npos)
      << r.status();
  EXPECT_FALSE(std::filesystem::exists(out() + "/2027-03-02"));
  EXPECT_EQ(*(*Ledger::Open(data()))->LastSettledDate(), D("2027-03-01"));
  // Built, with a fix: T3 moves the prior by the fix's change.
  fixes_ = MemoryFixSource();
  fixes_.Set("B200-GOLD-US", D("2027-03-01"), 52000);
  fixes_.Set("B200-GOLD-US", D("2027-03-02"), 52105);
  auto built = Settle("2027-03-02");
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->day.contracts[0].tier, PriceTier::kT3);
  EXPECT_EQ(built->day.contracts[0].settle, common::PriceTicks(5260));
  // Built with no fix for the grade (a published "no fix", or a grade without data): the
  // prior stays.
  fixes_ = MemoryFixSource();
  fixes_.Set("B200-GOLD-US", D("2027-03-01"), 52000);
  fixes_.Set("B200-GOLD-US", D("2027-03-02"), 52105);
  auto unchanged = Settle("2027-03-03");
  ASSERT_TRUE(unchanged.ok()) << unchanged.status();
  EXPECT_EQ(unchanged->day.contracts[0].settle, common::PriceTicks(5260));
  // A previous business day not built: refused too (T3 needs both fixes).
  fixes_.NotBuilt(D("2027-03-03"));
  fixes_.Set("B200-GOLD-US", D("2027-03-04"), 52200);
  auto prev = Settle("2027-03-04");
  ASSERT_FALSE(prev.ok());
  EXPECT_NE(prev.status().message().find("no reference fix was built for 2027-03-03"),
            std::string::npos)
      << prev.status();
}

TEST_F(BatchTest, ContractWithoutAnyPriceIsUnsettledAndNothingIsWritten) {
  AddTrade("2027-03-01T10:00:00Z", "5.250", 1, "A", "B");  // not in the closing window
  auto r = Settle("2027-03-01");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find(kMar), std::string::npos) << r.status();
  EXPECT_FALSE(std::filesystem::exists(out() + "/2027-03-01"));
  auto ledger = Ledger::Open(data());
  EXPECT_FALSE((*(*ledger)->LastSettledDate()).has_value());
  // Once a fix exists the same date settles (T4).
  fixes_.Set("B200-GOLD-US", D("2027-03-01"), 52500);
  auto again = Settle("2027-03-01");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->day.contracts[0].tier, PriceTier::kT4);
}

TEST_F(BatchTest, RefusesNonBusinessDaysGapsAndDatesBeforeTheFirst) {
  AddTrade("2027-03-01T15:45:00Z", "5.250", 1, "A", "B");
  EXPECT_EQ(Settle("2027-03-06").status().code(), absl::StatusCode::kInvalidArgument);  // Saturday
  fixes_.Set("B200-GOLD-US", D("2027-03-02"), 52500);
  ASSERT_TRUE(Settle("2027-03-02").ok());  // the very first date may be any business day
  auto before = Settle("2027-03-01");
  EXPECT_EQ(before.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(before.status().message().find("first settled date"), std::string::npos);
  auto gap = Settle("2027-03-04");
  EXPECT_EQ(gap.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(gap.status().message().find("2027-03-03 is not settled"), std::string::npos)
      << gap.status();
}

TEST_F(BatchTest, HolidaysAreSkippedByTheChain) {
  config_.calendar = common::BusinessCalendar({D("2027-03-02")});
  AddTrade("2027-03-01T15:45:00Z", "5.250", 1, "A", "B");
  ASSERT_TRUE(Settle("2027-03-01").ok());
  EXPECT_EQ(Settle("2027-03-02").status().code(), absl::StatusCode::kInvalidArgument);
  // Trades of the holiday belong to the next business day.
  AddTrade("2027-03-02T15:45:00Z", "5.300", 1, "A", "B");
  auto r = Settle("2027-03-03");
  ASSERT_TRUE(r.ok()) << r.status();
  // T3 unchanged: the 03-02 trade is outside the closing window.
  EXPECT_EQ(r->day.contracts[0].settle, common::PriceTicks(5250));
  auto a = nlohmann::json::parse(Statement("2027-03-03", "A"));
  EXPECT_EQ(a["positions"][0]["qty"], 2);
  EXPECT_EQ(a["positions"][0]["vm"], "-50.00");  // bought at 5.300, settled 5.250
}

TEST_F(BatchTest, RerunOfASettledDateChangesNothingAndRestoresLostStatements) {
  FirstDay();
  ASSERT_TRUE(Settle("2027-03-01").ok());
  auto tree = ReadTree(out());
  std::string ledger = testing::DumpLedger(data());
  AddTrade("2027-03-01T15:55:00Z", "9.999", 100, "A", "B");  // late data is not picked up
  auto again = Settle("2027-03-01");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->already_settled);
  EXPECT_FALSE(again->statements_written);
  EXPECT_EQ(ReadTree(out()), tree);
  EXPECT_EQ(testing::DumpLedger(data()), ledger);
  std::filesystem::remove_all(out() + "/2027-03-01");
  auto restore = Settle("2027-03-01");
  ASSERT_TRUE(restore.ok());
  EXPECT_TRUE(restore->statements_written);
  EXPECT_EQ(ReadTree(out()), tree);
}

// The statements' folder must be this user's alone: in one others may write, a published
// folder could be swapped for a forged one that a rerun then takes for ours. Refused before
// anything is posted, naming the folder (until 2026-12-07 any folder was taken); a rerun of
// a settled date refuses it too.
TEST_F(BatchTest, AStatementsFolderOthersMayWriteIsRefusedBeforeAnythingIsPosted) {
  FirstDay();
  std::filesystem::create_directories(out());
  std::filesystem::permissions(out(), std::filesystem::perms::all);  // 0777
  auto r = Settle("2027-03-01");
  ASSERT_EQ(r.status().code(), absl::StatusCode::kPermissionDenied) << r.status();
  EXPECT_NE(r.status().message().find("statements folder"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find(out()), std::string::npos) << r.status();
  EXPECT_TRUE(std::filesystem::is_empty(out()));
  std::filesystem::permissions(out(), std::filesystem::perms::owner_all);  // 0700
  ASSERT_TRUE(Settle("2027-03-01").ok());  // nothing was posted: the date settles now
  std::filesystem::remove_all(out() + "/2027-03-01");
  std::filesystem::permissions(out(), std::filesystem::perms::all);
  auto rerun = Settle("2027-03-01");
  EXPECT_EQ(rerun.status().code(), absl::StatusCode::kPermissionDenied) << rerun.status();
  EXPECT_TRUE(std::filesystem::is_empty(out()));
}

// A `<out>/<D>` made by someone else while the batch runs (after the check before posting)
// is left as it is: the statements are not renamed over it, their temporary folder goes.
TEST_F(BatchTest, AStatementsFolderMadeDuringTheRunIsNotReplaced) {
  FirstDay();
  const std::string theirs = out() + "/2027-03-01";
  auto r = Settle("2027-03-01", [&](std::string_view point) {
    if (point == "committed") {
      std::filesystem::create_directories(theirs);
      std::ofstream(theirs + "/mine.txt") << "mine";
    }
    return absl::OkStatus();
  });
  ASSERT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status();
  EXPECT_NE(r.status().message().find(theirs), std::string::npos) << r.status();
  EXPECT_EQ(ReadFile(theirs + "/mine.txt"), "mine");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(theirs), {}), 1);
  EXPECT_FALSE(std::filesystem::exists(out() + "/.2027-03-01.tmp"));
}

// The same with an empty folder, which rename(2) alone would have replaced.
TEST_F(BatchTest, AnEmptyStatementsFolderMadeDuringTheRunIsNotReplaced) {
  FirstDay();
  const std::string theirs = out() + "/2027-03-01";
  auto r = Settle("2027-03-01", [&](std::string_view point) {
    if (point == "committed") std::filesystem::create_directories(theirs);
    return absl::OkStatus();
  });
  ASSERT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status();
  EXPECT_TRUE(std::filesystem::is_empty(theirs));
  EXPECT_FALSE(std::filesystem::exists(out() + "/.2027-03-01.tmp"));
}

TEST_F(BatchTest, AccountsThatWereActiveKeepGettingStatements) {
  FirstDay();
  ASSERT_TRUE(Settle("2027-03-01").ok());
  trades_.SetClose(kMar, D("2027-03-02"),
                   CloseQuote{common::PriceTicks(5250), common::PriceTicks(5260)});
  ASSERT_TRUE(Settle("2027-03-02").ok());
  // C was flat after day 1 and did not trade on day 2: an empty statement, cash carried.
  auto c = nlohmann::json::parse(Statement("2027-03-02", "C"));
  EXPECT_TRUE(c["positions"].empty());
  EXPECT_EQ(c["vm_total"], "0.00");
  EXPECT_EQ(c["cash"], "-20.00");
  EXPECT_EQ(Statement("2027-03-02", "C", "csv"),
            "account,date,sym,qty,settle,prior_settle,vm,vm_total,cash,margin,call\n"
            "C,2027-03-02,,,,,,0.00,-20.00,0.00,20.00\n");
}

TEST(StatementsTest, MoneyIsRoundedHalfEvenToCents) {
  EXPECT_EQ(UsdCents(common::MicroUsd(1'234'567)), "1.23");
  EXPECT_EQ(UsdCents(common::MicroUsd(1'235'000)), "1.24");
  EXPECT_EQ(UsdCents(common::MicroUsd(1'225'000)), "1.22");
  EXPECT_EQ(UsdCents(common::MicroUsd(-1'225'000)), "-1.22");
  EXPECT_EQ(UsdCents(common::MicroUsd(0)), "0.00");
  EXPECT_EQ(PriceText(common::PriceTicks(5250)), "5.250");
}

}  // namespace
}  // namespace cfx::settlement
