#include "cfx/settlement/ledger.h"

#include <filesystem>

#include "cfx/storage/kv_store.h"
#include "test_util.h"

namespace cfx::settlement {
namespace {

using common::MicroUsd;
using common::PriceTicks;
using common::Qty;
using testing::D;
using testing::TempDir;

AccountLine Line(int32_t contract, int64_t qty, int64_t vm, int64_t final_vm = 0) {
  return AccountLine{contract, Qty(qty), MicroUsd(vm), MicroUsd(final_vm)};
}

// An entry with vm_cum = cash (no collateral) and no margin.
AccountDay Entry(std::string account, std::vector<AccountLine> lines, int64_t vm_cum,
                 int64_t call = 0) {
  return AccountDay{.account = std::move(account),
                    .lines = std::move(lines),
                    .vm_cum = MicroUsd(vm_cum),
                    .cash = MicroUsd(vm_cum),
                    .call = MicroUsd(call)};
}

TEST(LedgerTest, EntryEncodingRoundTrips) {
  AccountDay a{"A1",
               {Line(0, 5, 20'000'000), Line(3, -2, -4'000'000, 7'000'000)},
               MicroUsd(23'000'000),
               MicroUsd(1'023'000'000),
               MicroUsd(50'000'000),
               MicroUsd(0)};
  std::string text = EncodeAccountDay(a);
  EXPECT_EQ(text, "23000000 1023000000 50000000 0|0:5:20000000;3:-2:-4000000:7000000");
  auto back = DecodeAccountDay("A1", text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(EncodeAccountDay(*back), text);
  EXPECT_EQ(back->VmTotal(), MicroUsd(23'000'000));
  EXPECT_EQ(back->lines[1].qty, Qty(-2));
  EXPECT_EQ(back->lines[1].final_vm, MicroUsd(7'000'000));
  EXPECT_EQ(back->cash, MicroUsd(1'023'000'000));
  EXPECT_EQ(DecodeAccountDay("A1", "1 2 3 4|").value().lines.size(), 0u);
  EXPECT_EQ(DecodeAccountDay("A1", "1 2 3|").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeAccountDay("A1", "1 2 3 4|0:x:1").status().code(), absl::StatusCode::kDataLoss);
  // A contract index past int32 is damage, not another contract (until 2026-12-07
  // 4294967296 read as contract 0).
  EXPECT_EQ(DecodeAccountDay("A1", "1 2 3 4|4294967296:5:0").status().code(),
            absl::StatusCode::kDataLoss);
}

DayRecord OneContractDay(common::Date date) {
  DayRecord r;
  r.date = date;
  r.contracts.push_back(ContractDay{"B200-GOLD-US-202703", PriceTicks(5000), PriceTier::kT1,
                                    std::nullopt, false, std::nullopt, MicroUsd(0)});
  r.accounts = 2;
  r.vm_paid = MicroUsd(10'000'000);
  return r;
}

TEST(LedgerTest, CommitDayIsReadBackAndVerifies) {
  TempDir dir;
  auto ledger = Ledger::Open(dir.path());
  ASSERT_TRUE(ledger.ok());
  std::vector<AccountDay> accounts = {Entry("A", {Line(0, 1, 10'000'000)}, 10'000'000),
                                      Entry("B", {Line(0, -1, -10'000'000)}, -10'000'000,
                                            /*call=*/10'000'000)};
  ASSERT_TRUE((*ledger)->CommitDay(OneContractDay(D("2027-03-01")), accounts, nullptr).ok());
  EXPECT_EQ(*(*ledger)->FirstSettledDate(), D("2027-03-01"));
  EXPECT_EQ(*(*ledger)->LastSettledDate(), D("2027-03-01"));
  auto day = (*ledger)->ReadDay(D("2027-03-01"));
  ASSERT_TRUE(day.ok() && day->has_value());
  EXPECT_EQ((*day)->contracts[0].sym, "B200-GOLD-US-202703");
  EXPECT_EQ((*day)->contracts[0].settle, PriceTicks(5000));
  EXPECT_EQ((*day)->vm_paid, MicroUsd(10'000'000));
  auto contracts = (*ledger)->Contracts();
  EXPECT_EQ(contracts->at("B200-GOLD-US-202703").last_settle, PriceTicks(5000));
  EXPECT_TRUE((*ledger)->Verify().ok());
  // A second commit of the same date is refused.
  EXPECT_EQ((*ledger)->CommitDay(OneContractDay(D("2027-03-01")), accounts, nullptr).code(),
            absl::StatusCode::kFailedPrecondition);
}

// The rows hold strong units; what is stored stays the bare integers of docs/formats.md.
TEST(LedgerTest, StoredRowsAreTheDocumentedBytes) {
  TempDir dir;
  DayRecord r;
  r.date = D("2027-03-31");
  r.contracts = {ContractDay{"B200-GOLD-US-202703", PriceTicks(5050), PriceTier::kT1,
                             PriceTicks(5000), true, PriceTicks(5101), MicroUsd(0)},
                 ContractDay{"B200-GOLD-US-202704", PriceTicks(5120), PriceTier::kT4, std::nullopt,
                             false, std::nullopt, MicroUsd(0)}};
  r.accounts = 1;
  r.vm_paid = MicroUsd(455'000'000);
  r.calls = 1;
  r.call_total = MicroUsd(20'000'000);
  AccountDay a{"L",
               {Line(0, 5, 200'000'000, 255'000'000), Line(1, -1, 0)},
               MicroUsd(455'000'000),
               MicroUsd(480'000'000),
               MicroUsd(500'000'000),
               MicroUsd(20'000'000)};
  {
    auto ledger = Ledger::Open(dir.path());
    ASSERT_TRUE(ledger.ok());
    ASSERT_TRUE((*ledger)->CommitDay(r, {a}, nullptr).ok());
  }
  auto store = storage::KvStore::Open(dir.path(), {.file = kLedgerFile});
  ASSERT_TRUE(store.ok()) << store.status();
  auto txn = (*store)->BeginRead();
  ASSERT_TRUE(txn.ok());
  auto get = [&](const char* table, const char* key) {
    auto value = (*txn)->Get(table, key);
    return value.ok() && value->has_value() ? **value : std::string("(absent)");
  };
  EXPECT_EQ(get("days", "2027-03-31"),
            R"({"accounts":1,"call_total":20000000,"calls":1,"clearing_vm_cum":0,)"
            R"("concentration_alert_e4":5000,"contracts":[)"
            R"({"clearing_vm":0,"expired":true,"fsp":5101,"prior_settle":5000,"settle":5050,)"
            R"("sym":"B200-GOLD-US-202703","tier":"T1"},)"
            R"({"clearing_vm":0,"expired":false,"fsp":null,"prior_settle":null,"settle":5120,)"
            R"("sym":"B200-GOLD-US-202704","tier":"T4"}],)"
            R"("date":"2027-03-31","fixes_available":true,"format":1,"margin_available":true,)"
            R"("surveillance":[],"vm_paid":455000000})");
  EXPECT_EQ(get("entries", "2027-03-31/L"),
            "455000000 480000000 500000000 20000000|0:5:200000000:255000000;1:-1:0");
  EXPECT_EQ(get("contracts", "B200-GOLD-US-202703"),
            R"({"expired":true,"fsp":5101,"last_date":"2027-03-31","last_settle":5050})");
  EXPECT_EQ(get("contracts", "B200-GOLD-US-202704"),
            R"({"expired":false,"fsp":null,"last_date":"2027-03-31","last_settle":5120})");
}

// A day record's account count, which the next run reserves room for, is refused when out of
// range (until 2026-12-07 -1 threw length_error out of that run: an abort).
TEST(LedgerTest, ADayRecordWithAnAccountCountOutOfRangeIsDataLoss) {
  for (const char* bad : {"-1", "1000000000000"}) {
    SCOPED_TRACE(bad);
    TempDir dir;
    {
      auto ledger = Ledger::Open(dir.path());
      ASSERT_TRUE(ledger.ok());
      ASSERT_TRUE((*ledger)->CommitDay(OneContractDay(D("2027-03-01")), {}, nullptr).ok());
    }
    {
      auto store = storage::KvStore::Open(dir.path(), {.file = kLedgerFile});
      ASSERT_TRUE(store.ok()) << store.status();
      auto txn = (*store)->BeginWrite();
      ASSERT_TRUE(txn.ok());
      auto text = (*txn)->Get("days", "2027-03-01");
      ASSERT_TRUE(text.ok() && text->has_value());
      std::string damaged = **text;
      const size_t at = damaged.find("\"accounts\":2");
      ASSERT_NE(at, std::string::npos) << damaged;
      damaged.replace(at, std::string("\"accounts\":2").size(), std::string("\"accounts\":") + bad);
      ASSERT_TRUE((*txn)->Put("days", "2027-03-01", damaged).ok());
      ASSERT_TRUE((*txn)->Commit().ok());
    }
    auto ledger = Ledger::Open(dir.path());
    ASSERT_TRUE(ledger.ok());
    EXPECT_EQ((*ledger)->ReadDay(D("2027-03-01")).status().code(), absl::StatusCode::kDataLoss);
  }
}

TEST(LedgerTest, FailureBeforeCommitLeavesNothing) {
  TempDir dir;
  auto ledger = Ledger::Open(dir.path());
  std::vector<AccountDay> accounts = {Entry("A", {}, 0)};
  for (const char* point : {"ledger_begin", "ledger_half", "ledger_before_commit"}) {
    absl::Status s =
        (*ledger)->CommitDay(OneContractDay(D("2027-03-01")), accounts, [&](std::string_view p) {
          return p == point ? absl::AbortedError("injected") : absl::OkStatus();
        });
    EXPECT_EQ(s.code(), absl::StatusCode::kAborted) << point;
    EXPECT_FALSE((*(*ledger)->LastSettledDate()).has_value()) << point;
    EXPECT_FALSE((*(*ledger)->ReadDay(D("2027-03-01"))).has_value()) << point;
  }
}

// Settlement's open (`create` false) of a data dir without a ledger reads as empty and
// creates nothing until the first date is committed; a failed commit creates only what
// the commit itself needed.
TEST(LedgerTest, ALedgerNotThereReadsAsEmptyAndTheFirstCommitCreatesIt) {
  TempDir dir;
  const std::filesystem::path store = std::filesystem::path(dir.path()) / kLedgerFile;
  auto ledger = Ledger::Open(dir.path(), /*create=*/false);
  ASSERT_TRUE(ledger.ok()) << ledger.status();
  EXPECT_FALSE((*(*ledger)->FirstSettledDate()).has_value());
  EXPECT_FALSE((*(*ledger)->LastSettledDate()).has_value());
  EXPECT_FALSE((*(*ledger)->ReadDay(D("2027-03-01"))).has_value());
  EXPECT_TRUE((*(*ledger)->Contracts()).empty());
  int accounts_seen = 0;
  EXPECT_TRUE((*ledger)
                  ->ForEachAccount(D("2027-03-01"),
                                   [&](AccountDay&&) {
                                     ++accounts_seen;
                                     return absl::OkStatus();
                                   })
                  .ok());
  EXPECT_EQ(accounts_seen, 0);
  EXPECT_TRUE((*ledger)->Verify().ok());
  EXPECT_FALSE(std::filesystem::exists(store));
  std::vector<AccountDay> accounts = {Entry("A", {}, 0)};
  ASSERT_TRUE((*ledger)->CommitDay(OneContractDay(D("2027-03-01")), accounts, nullptr).ok());
  EXPECT_TRUE(std::filesystem::exists(store / "data.mdb"));
  EXPECT_EQ(*(*ledger)->LastSettledDate(), D("2027-03-01"));
  // Another reader now opens the store that is there.
  auto again = Ledger::Open(dir.path(), /*create=*/false);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*(*again)->LastSettledDate(), D("2027-03-01"));
}

// Commits 2027-03-01 with `accounts` to a fresh ledger (CommitDay does not check the
// books) and returns what Verify finds.
absl::Status VerifyAfterCommitting(const std::vector<AccountDay>& accounts) {
  TempDir dir;
  auto ledger = Ledger::Open(dir.path());
  absl::Status s = (*ledger)->CommitDay(OneContractDay(D("2027-03-01")), accounts, nullptr);
  EXPECT_TRUE(s.ok()) << s;
  return (*ledger)->Verify();
}

TEST(LedgerTest, VerifyFindsPostingsThatDoNotSumToZero) {
  absl::Status s = VerifyAfterCommitting(
      {Entry("A", {Line(0, 1, 10'000'000)}, 10'000'000),
       Entry("B", {Line(0, -1, -9'000'000)}, -9'000'000, /*call=*/9'000'000)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("sum to zero"), std::string::npos) << s;
}

TEST(LedgerTest, VerifyFindsCashThatIsNotTheSumOfPostings) {
  absl::Status s = VerifyAfterCommitting(
      {Entry("A", {Line(0, 1, 10'000'000)}, 11'000'000),
       Entry("B", {Line(0, -1, -10'000'000)}, -10'000'000, /*call=*/10'000'000)});
  EXPECT_NE(s.message().find("vm_cum"), std::string::npos) << s;
}

}  // namespace
}  // namespace cfx::settlement
