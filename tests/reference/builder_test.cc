#include "cfx/reference/builder.h"

#include <fstream>
#include <iterator>

#include "cfx/reference/methodology.h"
#include "cfx/reference/throughput.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace cfx::reference {
namespace {

using ::testing::ElementsAre;
using testing::Ob;
using testing::TempDir;
using testing::Tp;
using testing::kMon;

// Five trades from three providers in Monday's window: a level-1 fix of 5.20.
std::vector<Observation> MondayTrades(const std::string& grade = "B200-GOLD-US") {
  return {Ob("2027-02-26T17:00:00Z", "A", grade, Kind::kTrade, 500, 100),
          Ob("2027-02-27T10:00:00Z", "B", grade, Kind::kTrade, 510, 100),
          Ob("2027-02-28T10:00:00Z", "C", grade, Kind::kTrade, 520, 100),
          Ob("2027-03-01T09:00:00Z", "A", grade, Kind::kTrade, 530, 100),
          Ob("2027-03-01T16:00:00Z", "B", grade, Kind::kTrade, 540, 100)};
}

std::vector<ThroughputRow> GoldThroughput() {
  return {Tp("2027-02-01", "A", common::Tier::kGold, 2500),
          Tp("2027-02-01", "B", common::Tier::kGold, 2600),
          Tp("2027-02-01", "C", common::Tier::kGold, 2400),
          Tp("2027-02-10", "A", common::Tier::kGold, 2700),
          Tp("2027-03-05", "C", common::Tier::kGold, 9990)};  // future for Monday: ignored
}

BuildOptions Days(common::Date from, common::Date to) {
  BuildOptions o;
  o.from = from;
  o.to = to;
  return o;
}

TEST(BuilderTest, LevelOneRecordWithThetaAndPricePerToken) {
  auto r = BuildFixes(MondayTrades(), GoldThroughput(), Days(kMon, kMon), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->records.size(), 2u);  // the grade and ALL-US
  const FixRecord& f = r->records[0];
  EXPECT_EQ(f.grade, "B200-GOLD-US");
  EXPECT_EQ(f.level, 1);
  EXPECT_EQ(f.fix_e4, 52000);
  EXPECT_EQ(f.p25_e4, 51000);
  EXPECT_EQ(f.p75_e4, 53000);
  EXPECT_EQ(f.n_obs, 5);
  EXPECT_EQ(f.n_providers, 3);
  EXPECT_EQ(f.volume_e6, 500'000'000);
  // θ: latest per operator dated <= Monday: A 270.0 (Feb 10), B 260.0, C 240.0 → 260.
  EXPECT_EQ(f.theta, 260.0);
  // 5.2 / (260 × 3600) × 1e6 = 5.5555… → 5.5556
  EXPECT_EQ(f.price_per_mtok_e4, 55556);
  EXPECT_TRUE(f.flags.empty());
  EXPECT_EQ(RecordToJson(f),
            "{\"grade\":\"B200-GOLD-US\",\"date\":\"2027-03-01\",\"fix\":\"5.2000\",\"level\":1,"
            "\"p25\":\"5.1000\",\"p75\":\"5.3000\",\"n_obs\":5,\"n_dropped\":0,\"n_providers\":3,"
            "\"volume\":500,\"theta\":260,\"price_per_mtok\":\"5.5556\",\"flags\":[],"
            "\"methodology\":\"cfx-ref-2\",\"inputs_sha256\":"
            // sha256sum of the five canonical rows, sorted, each ending in "\n" (checked with
            // Python's hashlib).
            "\"7506d48ebb153b5e9583387b24ae0461c34fa6880e5e01f15502eb2cebb09d83\"}");
}

TEST(BuilderTest, MarketWideSeriesConvertsEachObservationWithItsTiersTheta) {
  auto r = BuildFixes(MondayTrades(), GoldThroughput(), Days(kMon, kMon), nullptr);
  ASSERT_TRUE(r.ok());
  const FixRecord& m = r->records[1];
  EXPECT_EQ(m.grade, "ALL-US");
  EXPECT_THAT(m.flags, ElementsAre("market_wide"));
  EXPECT_EQ(m.level, 1);
  EXPECT_FALSE(m.theta.has_value());
  // One grade: the same median observation (5.20), converted unrounded: 5.2e6/936000.
  EXPECT_EQ(m.fix_e4, RoundE6ToE4(PricePerMtokE6(5'200'000, 520'000'000)));
  EXPECT_EQ(m.price_per_mtok_e4, m.fix_e4);
}

// The extremes the inputs accept: prices of 10^9 USD and a throughput of 1 token/s. The
// price per 1M tokens, the grade's and the market-wide series' (whose outlier test takes four
// times each per-token price), is exact; with the former least throughput (10^-6 tokens/s)
// both wrapped past int64.
TEST(BuilderTest, TheLargestPriceAtTheLeastThroughputKeepsItsPricePerToken) {
  constexpr int64_t kMaxCents = 100'000'000'000;  // 10^9 USD
  std::vector<Observation> obs = MondayTrades();
  for (Observation& o : obs) o.price_e6 = kMaxCents * 10'000;
  std::vector<ThroughputRow> tps = {Tp("2027-02-01", "A", common::Tier::kGold, 10)};  // 1.0
  auto r = BuildFixes(obs, tps, Days(kMon, kMon), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->records.size(), 2u);
  const FixRecord& f = r->records[0];
  EXPECT_EQ(f.fix_e4, 10'000'000'000'000);
  EXPECT_EQ(f.theta, 1.0);
  // 10^9 / (1 × 3600) × 10^6 = 277,777,777,777.777… USD → 277777777777.7778
  EXPECT_EQ(f.price_per_mtok_e4, 2'777'777'777'777'778);
  const FixRecord& m = r->records[1];
  EXPECT_THAT(m.flags, ElementsAre("market_wide"));
  EXPECT_EQ(m.fix_e4, 2'777'777'777'777'778);
  EXPECT_EQ(m.price_per_mtok_e4, m.fix_e4);
}

TEST(BuilderTest, NoThroughputFlag) {
  auto r = BuildFixes(MondayTrades(), {}, Days(kMon, kMon), nullptr);
  ASSERT_TRUE(r.ok());
  const FixRecord& f = r->records[0];
  EXPECT_EQ(f.fix_e4, 52000);
  EXPECT_FALSE(f.theta.has_value());
  EXPECT_FALSE(f.price_per_mtok_e4.has_value());
  EXPECT_THAT(f.flags, ElementsAre("no_throughput"));
  // Market-wide has nothing convertible: insufficient data.
  EXPECT_THAT(r->records[1].flags, ElementsAre("insufficient_data", "market_wide"));
}

TEST(BuilderTest, EveryGradeInAnyRowGetsARecordEvenIfNeverEligible) {
  std::vector<Observation> obs = MondayTrades();
  obs.push_back(
      Ob("2027-01-05T10:00:00Z", "Z", "H100-PLAT-EU", Kind::kTrade, 200, 1, Lease::kSpot));
  BuildOptions opt = Days(kMon, kMon);
  opt.market_wide = false;
  auto r = BuildFixes(obs, GoldThroughput(), opt, nullptr);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->records.size(), 2u);
  EXPECT_EQ(r->records[0].grade, "B200-GOLD-US");
  const FixRecord& h = r->records[1];
  EXPECT_EQ(h.grade, "H100-PLAT-EU");
  EXPECT_FALSE(h.fix_e4 || h.p25_e4 || h.p75_e4 || h.level || h.price_per_mtok_e4);
  EXPECT_THAT(h.flags, ElementsAre("insufficient_data", "no_throughput"));
  EXPECT_EQ(RecordToJson(h),
            "{\"grade\":\"H100-PLAT-EU\",\"date\":\"2027-03-01\",\"fix\":null,\"level\":null,"
            "\"p25\":null,\"p75\":null,\"n_obs\":0,\"n_dropped\":0,\"n_providers\":0,"
            "\"volume\":0,\"theta\":null,\"price_per_mtok\":null,"
            "\"flags\":[\"insufficient_data\",\"no_throughput\"],"
            // No eligible observation: the SHA-256 of the empty text.
            "\"methodology\":\"cfx-ref-2\",\"inputs_sha256\":"
            "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}");
}

TEST(BuilderTest, LevelThreeCarriesAtMostFiveBusinessDaysInOneRun) {
  // Fix on Mon 1 March; nothing after. Stale Tue..Mon 8 (5 business days), then none.
  auto r = BuildFixes(MondayTrades(), GoldThroughput(),
                      Days(kMon, common::DateFromYmd(2027, 3, 10)), nullptr);
  ASSERT_TRUE(r.ok());
  std::vector<FixRecord> grade;
  for (const FixRecord& f : r->records) {
    if (f.grade == "B200-GOLD-US") grade.push_back(f);
  }
  ASSERT_EQ(grade.size(), 8u);  // Mon 1 .. Wed 10, business days only
  EXPECT_EQ(grade[0].level, 1);
  for (int i = 1; i <= 5; ++i) {
    EXPECT_EQ(grade[i].level, 3) << i;
    EXPECT_EQ(grade[i].fix_e4, 52000);
    EXPECT_EQ(grade[i].p25_e4, 51000);
    EXPECT_EQ(grade[i].n_obs, 0);
    EXPECT_EQ(grade[i].volume_e6, 0);
    EXPECT_THAT(grade[i].flags, ElementsAre("stale"));
  }
  // Friday 5 March: θ uses C's new 999.0 → median of 270, 260, 999 = 270 (today's θ).
  EXPECT_EQ(grade[4].date, common::DateFromYmd(2027, 3, 5));
  EXPECT_EQ(grade[4].theta, 270.0);
  EXPECT_EQ(grade[4].price_per_mtok_e4, PricePerMtokE4(52000, 540'000'000));
  EXPECT_EQ(grade[6].date, common::DateFromYmd(2027, 3, 9));
  EXPECT_FALSE(grade[6].fix_e4.has_value());
  EXPECT_THAT(grade[6].flags, ElementsAre("insufficient_data"));
  EXPECT_FALSE(grade[7].fix_e4.has_value());
}

TEST(BuilderTest, CarryLimitCountsAcrossRunsThroughTheStore) {
  const std::string dir = TempDir("carry_runs");
  auto store = FixStore::Open(dir);
  ASSERT_TRUE(store.ok());
  std::vector<Observation> obs = MondayTrades();
  std::vector<std::optional<int>> levels;
  for (common::Date d :
       common::BusinessCalendar().BusinessDays(kMon, common::DateFromYmd(2027, 3, 9))) {
    BuildOptions opt = Days(d, d);
    auto r = BuildFixes(obs, GoldThroughput(), opt, store->get());
    ASSERT_TRUE(r.ok()) << r.status();
    levels.push_back(r->records[0].level);
  }
  EXPECT_THAT(levels, ElementsAre(1, 3, 3, 3, 3, 3, std::nullopt));
  // A fresh fix restarts the count.
  auto again = (*store)->Get("B200-GOLD-US", common::DateFromYmd(2027, 3, 8));
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_TRUE((*again)->HasFlag("stale"));
}

// SPEC §8: the carry counts business days across runs, and a quiet grade shows `stale`,
// never silently absent. A run whose file does not name a grade the store published the
// business day before (here Tuesday's file holds SILV rows only) still builds that grade,
// carried; and the market-wide series of a region the file does not name, likewise. Until
// 2026-12-07 GOLD got no Tuesday record, its chain broke, and settlement found no fix for it
// that day (a review).
TEST(BuilderTest, AGradeTheRunsFileDoesNotNameIsCarriedFromTheStore) {
  const std::string dir = TempDir("carry_unnamed");
  auto store = FixStore::Open(dir);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(BuildFixes(MondayTrades(), GoldThroughput(), Days(kMon, kMon), store->get()).ok());
  const common::Date tue = common::DateFromYmd(2027, 3, 2);
  const std::vector<Observation> silver = {
      Ob("2027-03-01T17:00:00Z", "A", "B200-SILV-EU", Kind::kTrade, 400, 100)};
  auto r = BuildFixes(silver, {}, Days(tue, tue), store->get());
  ASSERT_TRUE(r.ok()) << r.status();
  const FixRecord* gold = nullptr;
  const FixRecord* all_us = nullptr;
  for (const FixRecord& f : r->records) {
    if (f.grade == "B200-GOLD-US") gold = &f;
    if (f.grade == "ALL-US") all_us = &f;
  }
  ASSERT_NE(gold, nullptr) << "no record for the grade the file does not name";
  EXPECT_EQ(gold->level, 3);
  EXPECT_EQ(gold->fix_e4, 52000);
  EXPECT_TRUE(gold->HasFlag("stale"));
  ASSERT_NE(all_us, nullptr) << "no record for the region the file does not name";
  EXPECT_TRUE(all_us->HasFlag("stale") || all_us->HasFlag("insufficient_data"));
  // Wednesday, again without GOLD: the chain goes on (two stale days), not broken.
  const common::Date wed = common::DateFromYmd(2027, 3, 3);
  auto w = BuildFixes(silver, {}, Days(wed, wed), store->get());
  ASSERT_TRUE(w.ok()) << w.status();
  auto stored = (*store)->Get("B200-GOLD-US", wed);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->level, 3);
  EXPECT_EQ((*stored)->fix_e4, 52000);
}

// SPEC §8 step 6: θ is over each operator's latest measurement dated <= D. With a store, the
// measurements of earlier runs count though the day's file does not list them, as they count
// for margin (FixStore::LatestThroughput); θ used to be the file's alone (400 here).
TEST(BuilderTest, ThetaCountsStoredMeasurementsTheRunsFileDoesNotList) {
  const std::string dir = TempDir("theta_stored");
  auto store = FixStore::Open(dir);
  ASSERT_TRUE(store.ok());
  auto monday = BuildFixes(MondayTrades(), GoldThroughput(), Days(kMon, kMon), store->get());
  ASSERT_TRUE(monday.ok()) << monday.status();
  EXPECT_EQ(monday->records[0].theta, 260.0);  // A 270, B 260, C 240
  const common::Date tue = common::DateFromYmd(2027, 3, 2);
  const std::vector<ThroughputRow> only_d = {Tp("2027-03-02", "D", common::Tier::kGold, 4000)};
  auto tuesday = BuildFixes(MondayTrades(), only_d, Days(tue, tue), store->get());
  ASSERT_TRUE(tuesday.ok()) << tuesday.status();
  ASSERT_EQ(tuesday->records[0].grade, "B200-GOLD-US");
  EXPECT_EQ(tuesday->records[0].theta, 265.0);  // A 270, B 260, C 240, D 400
  auto stored = (*store)->LatestThroughput(tue);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(GradeTheta(*stored, "B200", common::Tier::kGold, tue)->Value(), 265.0);
  // Without a store, the file's alone.
  auto alone = BuildFixes(MondayTrades(), only_d, Days(tue, tue), nullptr);
  ASSERT_TRUE(alone.ok()) << alone.status();
  EXPECT_EQ(alone->records[0].theta, 400.0);
}

TEST(BuilderTest, FirstRunWithoutHistoryHasNoCarry) {
  auto r =
      BuildFixes(MondayTrades(), GoldThroughput(),
                 Days(common::DateFromYmd(2027, 3, 2), common::DateFromYmd(2027, 3, 2)), nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r->records[0].flags, ElementsAre("insufficient_data"));
}

TEST(BuilderTest, RangeSkipsWeekendsAndHolidays) {
  BuildOptions opt = Days(common::DateFromYmd(2027, 2, 26), common::DateFromYmd(2027, 3, 2));
  opt.calendar = common::BusinessCalendar({kMon});
  opt.market_wide = false;
  auto r = BuildFixes(MondayTrades(), GoldThroughput(), opt, nullptr);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->records.size(), 2u);
  EXPECT_EQ(r->records[0].date, common::DateFromYmd(2027, 2, 26));
  EXPECT_EQ(r->records[1].date, common::DateFromYmd(2027, 3, 2));
  // Tuesday's window now opens Friday 16:00 and holds all five trades.
  EXPECT_EQ(r->records[1].level, 1);
}

TEST(BuilderTest, RejectsEmptyRangeAndReviseWithoutReason) {
  EXPECT_FALSE(BuildFixes(MondayTrades(), {},
                          Days(common::DateFromYmd(2027, 2, 27), common::DateFromYmd(2027, 2, 28)),
                          nullptr)
                   .ok());
  EXPECT_FALSE(
      BuildFixes(MondayTrades(), {}, Days(kMon, common::DateFromYmd(2027, 2, 1)), nullptr).ok());
  BuildOptions opt = Days(kMon, kMon);
  opt.revise = true;
  EXPECT_FALSE(BuildFixes(MondayTrades(), {}, opt, nullptr).ok());
}

TEST(BuilderTest, RerunIsIdempotentAndRevisionKeepsHistory) {
  const std::string dir = TempDir("idempotent");
  auto store = FixStore::Open(dir);
  ASSERT_TRUE(store.ok());
  auto first = BuildFixes(MondayTrades(), GoldThroughput(), Days(kMon, kMon), store->get());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->published, 2);
  auto data_file = [&] {
    std::ifstream f(dir + "/reference/data.mdb", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  const std::string before = data_file();
  ASSERT_FALSE(before.empty());
  auto second = BuildFixes(MondayTrades(), GoldThroughput(), Days(kMon, kMon), store->get());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(data_file(), before);  // not a byte written
  EXPECT_EQ(second->published, 0);
  EXPECT_EQ(second->records, first->records);

  // A late trade changes the computation; a plain rerun keeps the published record.
  std::vector<Observation> late = MondayTrades();
  late.push_back(Ob("2027-03-01T12:00:00Z", "C", "B200-GOLD-US", Kind::kTrade, 560, 1000));
  auto plain = BuildFixes(late, GoldThroughput(), Days(kMon, kMon), store->get());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->records, first->records);
  EXPECT_EQ(plain->warnings.size(), 2u);
  auto history = (*store)->History("B200-GOLD-US", kMon);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->size(), 1u);

  BuildOptions revise = Days(kMon, kMon);
  revise.revise = true;
  revise.reason = "late trade from C";
  auto revised = BuildFixes(late, GoldThroughput(), revise, store->get());
  ASSERT_TRUE(revised.ok()) << revised.status();
  EXPECT_EQ(revised->revised, 2);
  EXPECT_NE(revised->records[0].fix_e4, first->records[0].fix_e4);
  history = (*store)->History("B200-GOLD-US", kMon);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].record, first->records[0]);
  EXPECT_EQ((*history)[1].revision, 1);
  EXPECT_EQ((*history)[1].reason, "late trade from C");
  auto latest = (*store)->Get("B200-GOLD-US", kMon);
  EXPECT_EQ(**latest, revised->records[0]);
  // Revising again with the same inputs changes nothing.
  auto noop = BuildFixes(late, GoldThroughput(), revise, store->get());
  ASSERT_TRUE(noop.ok());
  EXPECT_EQ(noop->revised, 0);
  EXPECT_EQ((*store)->History("B200-GOLD-US", kMon)->size(), 2u);
}

// SPEC §8: volume is the Σ of raw gpu_hours, and inputs have six decimals: five rows at the
// largest gpu_hours sum past what a double holds to the micro-unit (it printed
// 4999999999.9999952). Printed and stored exactly.
TEST(BuilderTest, VolumeIsExactAtTheLargestInputs) {
  std::vector<Observation> obs = MondayTrades();
  for (Observation& o : obs) o.gpu_hours_e6 = 999'999'999'999'999;
  const std::string dir = TempDir("volume");
  auto store = FixStore::Open(dir);
  ASSERT_TRUE(store.ok());
  auto r = BuildFixes(obs, GoldThroughput(), Days(kMon, kMon), store->get());
  ASSERT_TRUE(r.ok()) << r.status();
  const FixRecord& f = r->records[0];
  EXPECT_EQ(f.volume_e6, 4'999'999'999'999'995);
  EXPECT_THAT(RecordToJson(f), ::testing::HasSubstr(",\"volume\":4999999999.999995,"));
  EXPECT_THAT(RecordToCsv(f), ::testing::HasSubstr(",4999999999.999995,"));
  // Read back exactly: a rerun finds the published record unchanged.
  EXPECT_EQ(**(*store)->Get("B200-GOLD-US", kMon), f);
  auto again = BuildFixes(obs, GoldThroughput(), Days(kMon, kMon), store->get());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->warnings.empty());
  EXPECT_EQ(again->records, r->records);
}

TEST(BuilderTest, StoresThroughputForValuation) {
  const std::string dir = TempDir("throughput");
  auto store = FixStore::Open(dir);
  ASSERT_TRUE(BuildFixes(MondayTrades(), GoldThroughput(), Days(kMon, kMon), store->get()).ok());
  auto ops = (*store)->LatestThroughput(kMon);
  ASSERT_TRUE(ops.ok());
  ASSERT_EQ(ops->size(), 3u);  // A (Feb 10), B, C (Feb 1; Mar 5 is later than Monday)
  EXPECT_EQ((*ops)[0].operator_name, "A");
  EXPECT_EQ((*ops)[0].output_tps_per_gpu, 270.0);
  EXPECT_EQ((*ops)[2].output_tps_per_gpu, 240.0);
  EXPECT_EQ(GradeTheta(*ops, "B200", common::Tier::kGold, kMon)->Value(), 260.0);
  EXPECT_EQ((*store)->LatestThroughput(common::DateFromYmd(2027, 3, 5))->at(2).output_tps_per_gpu,
            999.0);
}

// A record per grade per business day, all held until printed: a run that would make more than
// kMaxRecordsPerRun is refused before computing one, saying how many and what to split (a
// review found ten thousand GPU names over ten years made 26 M records and tens of GB).
TEST(BuilderTest, ARunOfMoreRecordsThanTheBoundIsRefusedBeforeComputing) {
  std::vector<Observation> obs;
  for (int g = 0; g < 999; ++g) {
    obs.push_back(Ob("2027-02-26T17:00:00Z", "A", "G" + std::to_string(g) + "-GOLD-US",
                     Kind::kTrade, 500, 100));
  }
  // 999 grades + 1 market-wide series (ALL-US) = 1,000 series; 1,001 business days.
  BuildOptions o = Days(kMon, kMon);
  for (int days = 1; days < 1001; ++days) o.to = o.calendar.NextBusinessDay(o.to);
  auto over = BuildFixes(obs, GoldThroughput(), o, nullptr);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("999 grades, which over 1001 business days make "
                                         "1001000 records, more than 1000000"),
            std::string::npos)
      << over.status();
}

}  // namespace
}  // namespace cfx::reference
