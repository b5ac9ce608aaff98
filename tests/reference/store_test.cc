#include "cfx/reference/fix_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace cfx::reference {
namespace {

using testing::TempDir;

FixRecord Rec(const std::string& grade, common::Date date, int64_t fix_e4) {
  FixRecord r;
  r.grade = grade;
  r.date = date;
  r.fix_e4 = fix_e4;
  r.p25_e4 = fix_e4 - 1000;
  r.p75_e4 = fix_e4 + 1000;
  r.level = 1;
  r.n_obs = 7;
  r.n_dropped = 1;
  r.n_providers = 4;
  r.volume_e6 = 1'234'500'000;
  r.theta = 251.25;
  r.price_per_mtok_e4 = 57489;
  r.methodology = "cfx-ref-2";
  r.inputs_sha256 = std::string(64, 'a');
  return r;
}

TEST(RecordFormatTest, JsonRoundTripsAndCsvHasTheSameFields) {
  FixRecord r = Rec("B200-GOLD-US", common::DateFromYmd(2027, 3, 1), 52000);
  r.flags = {"stale"};
  const std::string json = RecordToJson(r);
  EXPECT_EQ(
      json,
      "{\"grade\":\"B200-GOLD-US\",\"date\":\"2027-03-01\",\"fix\":\"5.2000\",\"level\":1,"
      "\"p25\":\"5.1000\",\"p75\":\"5.3000\",\"n_obs\":7,\"n_dropped\":1,\"n_providers\":4,"
      "\"volume\":1234.5,\"theta\":251.25,\"price_per_mtok\":\"5.7489\",\"flags\":[\"stale\"],"
      "\"methodology\":\"cfx-ref-2\",\"inputs_sha256\":\"" +
          std::string(64, 'a') + "\"}");
  auto back = RecordFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, r);
  // The whole record, then a NUL and bytes (a damaged value): not read as the record.
  EXPECT_FALSE(RecordFromJson(json + std::string(1, '\0') + "junk").ok());
  EXPECT_EQ(RecordCsvHeader(),
            "grade,date,fix,level,p25,p75,n_obs,n_dropped,n_providers,volume,theta,price_per_mtok,"
            "flags,methodology,inputs_sha256");
  EXPECT_EQ(RecordToCsv(r),
            "B200-GOLD-US,2027-03-01,5.2000,1,5.1000,5.3000,7,1,4,1234.5,251.25,"
            "5.7489,stale,cfx-ref-2," +
                std::string(64, 'a'));
  EXPECT_FALSE(RecordFromJson("{\"grade\":1}").ok());
  EXPECT_FALSE(RecordFromJson("nope").ok());
}

TEST(FixStoreTest, GetRangeHistoryAndGrades) {
  auto store = FixStore::Open(TempDir("store_basic"));
  ASSERT_TRUE(store.ok()) << store.status();
  const common::Date d1 = common::DateFromYmd(2027, 3, 1), d2 = common::DateFromYmd(2027, 3, 2);
  ASSERT_TRUE((*store)
                  ->Publish({{Rec("B200-GOLD-US", d1, 52000), 0, "", ""},
                             {Rec("B200-GOLD-US", d2, 53000), 0, "", ""},
                             {Rec("B200-GOLD-USX", d1, 1), 0, "", ""}},
                            {})
                  .ok());
  ASSERT_TRUE((*store)->Publish({{Rec("B200-GOLD-US", d1, 52500), 1, "late trade", "{\"x\":1}"}}, {}).ok());
  // Taking a used revision number fails and writes nothing.
  absl::Status dup = (*store)->Publish({{Rec("B200-GOLD-US", d2, 1), 0, "", ""}}, {});
  EXPECT_EQ(dup.code(), absl::StatusCode::kFailedPrecondition);

  EXPECT_EQ((*(*store)->Get("B200-GOLD-US", d1))->fix_e4, 52500);
  EXPECT_FALSE((*store)->Get("B200-GOLD-US", common::DateFromYmd(2027, 3, 3))->has_value());
  auto range = (*store)->Range("B200-GOLD-US", d1, d2);
  ASSERT_TRUE(range.ok());
  ASSERT_EQ(range->size(), 2u);  // the USX grade is not mixed in
  EXPECT_EQ((*range)[0].fix_e4, 52500);
  EXPECT_EQ((*range)[1].fix_e4, 53000);
  EXPECT_EQ((*store)->Range("B200-GOLD-US", d2, d2)->size(), 1u);
  auto history = (*store)->History("B200-GOLD-US", d1);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[1].reason, "late trade");
  EXPECT_THAT(*(*store)->Grades(), ::testing::ElementsAre("B200-GOLD-US", "B200-GOLD-USX"));
  // Every revision of the range, by date then revision; the explanation beside each.
  auto all = (*store)->RangeHistory("B200-GOLD-US", d1, d2);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].record.fix_e4, 52000);
  EXPECT_EQ((*all)[1].revision, 1);
  EXPECT_EQ((*all)[2].record.date, d2);
  EXPECT_EQ(**(*store)->Explanation("B200-GOLD-US", d1, std::nullopt), "{\"x\":1}");
  EXPECT_FALSE((*store)->Explanation("B200-GOLD-US", d1, 0)->has_value());  // none given
  EXPECT_FALSE((*store)->Explanation("B200-GOLD-US", d1, 7)->has_value());
  std::filesystem::remove_all(TempDir("store_basic"));
}

TEST(RecordFormatTest, RecordStoredBeforeTheAuditTrailReadsAsMethodologyOne) {
  auto back = RecordFromJson(
      "{\"grade\":\"B200-GOLD-US\",\"date\":\"2027-03-01\",\"fix\":\"5.2000\",\"level\":1,"
      "\"p25\":\"5.1000\",\"p75\":\"5.3000\",\"n_obs\":5,\"n_dropped\":0,\"n_providers\":3,"
      "\"volume\":500,\"theta\":260,\"price_per_mtok\":\"5.5556\",\"flags\":[]}");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->methodology, "cfx-ref-1");
  EXPECT_FALSE(back->inputs_sha256.has_value());
  EXPECT_NE(RecordToJson(*back).find("\"methodology\":\"cfx-ref-1\",\"inputs_sha256\":null"),
            std::string::npos);
}

// Volumes are exact (fix_store.h); a record written before, through a double (17 digits,
// or an exponent), reads back rounded to the micro-unit.
TEST(RecordFormatTest, VolumeReadsBackExactly) {
  FixRecord r = Rec("B200-GOLD-US", common::DateFromYmd(2027, 3, 1), 52000);
  r.volume_e6 = 4'999'999'999'999'995;
  const std::string json = RecordToJson(r);
  ASSERT_NE(json.find("\"volume\":4999999999.999995,"), std::string::npos) << json;
  EXPECT_EQ(RecordFromJson(json)->volume_e6, 4'999'999'999'999'995);
  auto with_volume = [&](const std::string& text) {
    std::string j = json;
    j.replace(j.find("4999999999.999995"), 17, text);
    return RecordFromJson(j);
  };
  EXPECT_EQ(with_volume("4999999999.9999952")->volume_e6, 4'999'999'999'999'995);
  EXPECT_EQ(with_volume("1.5e3")->volume_e6, 1'500'000'000);
  EXPECT_EQ(with_volume("12")->volume_e6, 12'000'000);
  EXPECT_FALSE(with_volume("-1").ok());
  EXPECT_FALSE(with_volume("\"1\"").ok());
}

// SPEC §8: a stored measurement changes only by a revision, and an operator is under one tier
// (valuation refuses a store with two): the store refuses both even if a caller does not.
TEST(FixStoreTest, ThroughputIsRevisedNotReplacedAndAnOperatorHasOneTier) {
  const std::string dir = TempDir("store_throughput");
  auto store = FixStore::Open(dir);
  ASSERT_TRUE(store.ok());
  const common::Date feb = common::DateFromYmd(2027, 2, 1);
  const OperatorThroughput op{"Op", common::Tier::kGold, "B200", feb, 250.5};
  ASSERT_TRUE((*store)->Publish({}, {op}).ok());
  EXPECT_TRUE((*store)->Publish({}, {op}).ok());  // already stored: nothing to do
  OperatorThroughput changed = op;
  changed.output_tps_per_gpu = 251;
  EXPECT_EQ((*store)->Publish({}, {changed}).code(), absl::StatusCode::kFailedPrecondition);
  const OperatorThroughput other_tier{"Op", common::Tier::kSilv, "H100", feb, 100};
  EXPECT_EQ((*store)->Publish({}, {other_tier}).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ((*store)->Publish({}, {}, {{changed, 2, "skips one"}}).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE((*store)->Publish({}, {}, {{changed, 1, "re-measured"}}).ok());
  auto rows = (*store)->Throughput();
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].row.output_tps_per_gpu, 251.0);
  EXPECT_EQ((*rows)[0].revision, 1);
  EXPECT_EQ((*rows)[0].reason, "re-measured");
  EXPECT_EQ((*store)->LatestThroughput(feb)->at(0).output_tps_per_gpu, 251.0);
  std::filesystem::remove_all(dir);
}

TEST(FixStoreTest, ReopenSeesCommittedData) {
  const std::string dir = TempDir("store_reopen");
  {
    auto store = FixStore::Open(dir);
    ASSERT_TRUE(
        (*store)
            ->Publish({{Rec("B200-PLAT-EU", common::DateFromYmd(2027, 3, 1), 60000), 0, "", ""}},
                      {{"Op", common::Tier::kPlat, "B200", common::DateFromYmd(2027, 2, 1), 301.5}})
            .ok());
  }
  auto store = FixStore::Open(dir);
  EXPECT_EQ((*(*store)->Get("B200-PLAT-EU", common::DateFromYmd(2027, 3, 1)))->fix_e4, 60000);
  auto ops = (*store)->LatestThroughput(common::DateFromYmd(2027, 3, 1));
  ASSERT_EQ(ops->size(), 1u);
  EXPECT_EQ((*ops)[0].output_tps_per_gpu, 301.5);
  EXPECT_EQ((*ops)[0].tier, common::Tier::kPlat);
  EXPECT_TRUE((*store)->LatestThroughput(common::DateFromYmd(2027, 1, 1))->empty());
}

}  // namespace
}  // namespace cfx::reference
