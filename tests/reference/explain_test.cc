// The audit trail (SPEC §8): every record's inputs_sha256 can be recomputed from the
// observation file, and every fix re-derived from its stored explanation alone.
#include "cfx/reference/explain.h"

#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"

#include "cfx/common/decimal.h"
#include "cfx/reference/builder.h"
#include "cfx/reference/sample_data.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test_util.h"

namespace cfx::reference {
namespace {

using nlohmann::json;
using testing::kMon;
using testing::Ob;
using testing::TempDir;

int64_t E6(const json& v) { return *common::ParseScaled(v.get<std::string>(), 6); }

SampleData Sample() {
  SampleOptions opt;
  opt.from = kMon;
  opt.to = common::DateFromYmd(2027, 3, 12);
  opt.seed = 7;
  opt.quiet_day_probability = 0.2;
  opt.dead_day_probability = 0.1;
  return GenerateSample(opt);
}

absl::StatusOr<BuildResult> BuildExplained(const SampleData& data) {
  BuildOptions opt;
  opt.from = kMon;
  opt.to = common::DateFromYmd(2027, 3, 12);
  opt.explain = true;
  return BuildFixes(data.observations, data.throughput, opt, nullptr);
}

TEST(ExplainTest, InputsHashIsTheSortedCanonicalRowsOfTheEligibleObservations) {
  const SampleData data = Sample();
  auto built = BuildExplained(data);
  ASSERT_TRUE(built.ok()) << built.status();
  const common::BusinessCalendar calendar;
  int checked = 0;
  std::map<std::pair<std::string, common::Date>, std::string> grade_hash;
  for (const FixRecord& r : built->records) {
    ASSERT_EQ(r.methodology, kMethodologyVersion);
    ASSERT_TRUE(r.inputs_sha256.has_value());
    if (r.HasFlag(kFlagMarketWide)) {
      // ALL-<R>: the rows "<grade>,<inputs_sha256>" of the region's grades with inputs.
      const std::string region = r.grade.substr(4);
      std::vector<std::string> rows;
      const Window w = FixWindow(r.date, calendar);
      std::set<std::string> grades;
      for (const Observation& o : data.observations) {
        if (o.region == region && w.Contains(o.ts) && IsEligibleLease(o.lease)) {
          grades.insert(o.GradeKey());
        }
      }
      for (const std::string& g : grades) {
        rows.push_back(absl::StrCat(g, ",", grade_hash.at({g, r.date})));
      }
      ASSERT_EQ(*r.inputs_sha256, InputsSha256(rows)) << r.grade;
      ++checked;
      continue;
    }
    grade_hash[{r.grade, r.date}] = *r.inputs_sha256;
    // Recomputed here from the file's rows, independently of the builder's series.
    const Window w = FixWindow(r.date, calendar);
    std::vector<std::string> rows;
    for (const Observation& o : data.observations) {
      if (o.GradeKey() == r.grade && w.Contains(o.ts) && IsEligibleLease(o.lease)) {
        rows.push_back(ObservationCsvRow(o));
      }
    }
    ASSERT_EQ(*r.inputs_sha256, InputsSha256(rows)) << r.grade << " " << common::FormatDate(r.date);
    ++checked;
  }
  EXPECT_GT(checked, 50);
  // Order does not matter; content does.
  EXPECT_EQ(InputsSha256({"b", "a"}), InputsSha256({"a", "b"}));
  EXPECT_NE(InputsSha256({"a"}), InputsSha256({"a", "a"}));
  EXPECT_EQ(InputsSha256({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(ExplainTest, EveryFixIsReDerivedFromItsExplanationAlone) {
  auto built = BuildExplained(Sample());
  ASSERT_TRUE(built.ok()) << built.status();
  ASSERT_EQ(built->explanations.size(), built->records.size());
  int levels[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < built->records.size(); ++i) {
    const FixRecord& r = built->records[i];
    const json e = json::parse(built->explanations[i]);
    ASSERT_EQ(e["record"].dump(), json::parse(RecordToJson(r)).dump());
    ASSERT_EQ(e["inputs_sha256"], *r.inputs_sha256);
    // The hash from the explanation's own rows.
    std::vector<std::string> rows;
    std::vector<PricePoint> candidates;
    std::map<std::string, int32_t> ids;
    int used = 0, outliers = 0;
    for (const json& o : e["observations"]) {
      rows.push_back(absl::StrCat(o["ts"].get<std::string>(), ",", o["provider"].get<std::string>(),
                                  ",", o["gpu"].get<std::string>(), ",",
                                  o["tier"].get<std::string>(), ",", o["region"].get<std::string>(),
                                  ",", o["lease"].get<std::string>(), ",",
                                  o["kind"].get<std::string>(), ",", o["price"].get<std::string>(),
                                  ",", o["gpu_hours"].get<std::string>()));
      if (o["fate"] == "no_throughput") continue;
      const int32_t id =
          ids.try_emplace(o["provider"].get<std::string>(), ids.size()).first->second;
      candidates.push_back({id, E6(o.contains("value") ? o["value"] : o["price"]),
                            E6(o["gpu_hours"]), o["kind"] == "trade"});
      used += o["fate"] == "used";
      if (o["fate"] == "outlier") {
        ++outliers;
        ASSERT_GT(std::stold(o["deviation"].get<std::string>()),
                  std::stold(o["threshold"].get<std::string>()));
      }
    }
    if (r.HasFlag(kFlagMarketWide)) {  // per grade, then the grades' hashes
      std::map<std::string, std::vector<std::string>> by_grade;
      for (size_t k = 0; k < rows.size(); ++k) {
        const json& o = e["observations"][k];
        by_grade[absl::StrCat(o["gpu"].get<std::string>(), "-", o["tier"].get<std::string>(), "-",
                              o["region"].get<std::string>())]
            .push_back(rows[k]);
      }
      rows.clear();
      for (auto& [grade, grade_rows] : by_grade) {
        rows.push_back(absl::StrCat(grade, ",", InputsSha256(grade_rows)));
      }
    }
    ASSERT_EQ(InputsSha256(rows), *r.inputs_sha256);
    // Steps 2-5 on the listed observations give the published numbers.
    const FixComputation f = ComputeFix(candidates);
    if (r.level && *r.level <= 2) {
      ASSERT_EQ(f.level, *r.level);
      ASSERT_EQ(f.fix_e4, *r.fix_e4);
      ASSERT_EQ(f.p25_e4, *r.p25_e4);
      ASSERT_EQ(f.p75_e4, *r.p75_e4);
      ASSERT_EQ(used, r.n_obs);
      ASSERT_EQ(outliers, r.n_dropped);
      long double total = 0;
      for (const json& p : e["cap"]["providers"]) {
        total += std::stold(p["share_after"].get<std::string>());
      }
      ASSERT_NEAR(static_cast<double>(total), 1.0, 1e-8);
      ASSERT_EQ(e["percentiles"][1]["name"], "fix");
      ASSERT_EQ(RoundE6ToE4(E6(e["percentiles"][1]["value"])), *r.fix_e4);
      ASSERT_GE(std::stold(e["percentiles"][1]["cumulative_at"].get<std::string>()), 0.5L - 1e-9L);
      ASSERT_LT(std::stold(e["percentiles"][1]["cumulative_before"].get<std::string>()),
                0.5L + 1e-9L);
    } else {
      ASSERT_EQ(f.level, 0);
      ASSERT_EQ(used, 0);
      ASSERT_TRUE(e.contains("carry"));
      ASSERT_EQ(e["carry"]["from"].is_null(), !r.level.has_value());
    }
    ++levels[r.level.value_or(0)];
  }
  // The sample reaches every outcome.
  EXPECT_GT(levels[1], 0);
  EXPECT_GT(levels[2], 0);
  EXPECT_GT(levels[3], 0);
}

// Five B200-GOLD-US trades of 100 GPU-hours in Monday's window: A 5.00 and `a2` cents,
// B 5.10 and 5.40, C 5.20.
std::vector<Observation> GoldMondayTrades(int64_t a2) {
  return {Ob("2027-02-26T17:00:00Z", "A", "B200-GOLD-US", Kind::kTrade, 500, 100),
          Ob("2027-02-27T10:00:00Z", "B", "B200-GOLD-US", Kind::kTrade, 510, 100),
          Ob("2027-02-28T10:00:00Z", "C", "B200-GOLD-US", Kind::kTrade, 520, 100),
          Ob("2027-03-01T09:00:00Z", "A", "B200-GOLD-US", Kind::kTrade, a2, 100),
          Ob("2027-03-01T11:00:00Z", "B", "B200-GOLD-US", Kind::kTrade, 540, 100)};
}

TEST(ExplainTest, TextNamesEveryDecision) {
  std::vector<Observation> obs = GoldMondayTrades(510);
  obs.push_back(Ob("2027-03-01T10:00:00Z", "D", "B200-GOLD-US", Kind::kTrade, 990, 100));
  obs.push_back(Ob("2027-03-01T12:00:00Z", "E", "B200-GOLD-US", Kind::kQuote, 515, 100));
  BuildOptions opt;
  opt.from = opt.to = kMon;
  opt.explain = true;
  opt.market_wide = false;
  auto built = BuildFixes(obs, {}, opt, nullptr);
  ASSERT_TRUE(built.ok());
  absl::StatusOr<std::string> text = ExplanationText(built->explanations[0]);
  ASSERT_TRUE(text.ok()) << text.status();
  for (const char* want :
       // Medians A 5.05, B 5.25, C 5.2, D 9.9: m = 5.225, MAD = (0.025 + 0.175) / 2 = 0.1.
      {"B200-GOLD-US 2027-03-01  fix 5.1000  level 1  p25 5.1000  p75 5.2000",
       "methodology cfx-ref-2",
       "level 1 (trades): 6 observations from 4 providers: meets the thresholds",
       "provider medians: A 5.05, B 5.25, C 5.2, D 9.9", "m = 5.225  MAD = 0.1",
       "threshold = 4.4478 x MAD = 0.44478",
       "dropped 1; 5 observations from 3 providers remain: meets the thresholds",
       "D B200-GOLD-US on_demand trade 9.9 x 100  outlier  (|price - m| 4.675 > 0.44478)",
       "not_at_level  (a quote at level 1)",
       "5.1 A                    trade             100  0.166666667  0.500000000  <- fix",
       "A                               200  0.400000000  0.333333333  capped"}) {
    EXPECT_NE(text->find(want), std::string::npos) << want << "\n" << *text;
  }
  EXPECT_FALSE(ExplanationText("[]").ok());
  EXPECT_FALSE(ExplanationText("{\"record\":{}}").ok());
}

TEST(ExplainTest, StoredWithEachRevisionAndReturnedOnRerun) {
  const std::string dir = TempDir("explain_store");
  std::vector<Observation> obs = GoldMondayTrades(530);
  BuildOptions opt;
  opt.from = opt.to = kMon;
  opt.market_wide = false;
  {
    auto store = FixStore::Open(dir);
    ASSERT_TRUE(store.ok());
    auto first = BuildFixes(obs, {}, opt, store->get());
    ASSERT_TRUE(first.ok());
    ASSERT_EQ(first->stored.size(), 1u);
    auto again = BuildFixes(obs, {}, opt, store->get());
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->stored.empty());
    EXPECT_EQ(again->explanations, first->explanations);
    // A late trade, revised with a reason: both revisions keep their own explanation.
    obs.push_back(Ob("2027-03-01T12:00:00Z", "C", "B200-GOLD-US", Kind::kTrade, 560, 300));
    opt.revise = true;
    opt.reason = "late trade from C";
    auto revised = BuildFixes(obs, {}, opt, store->get());
    ASSERT_TRUE(revised.ok()) << revised.status();
    ASSERT_EQ(revised->revised, 1);
    auto e0 = (*store)->Explanation("B200-GOLD-US", kMon, 0);
    auto e1 = (*store)->Explanation("B200-GOLD-US", kMon, std::nullopt);
    ASSERT_TRUE(e0.ok() && e0->has_value() && e1.ok() && e1->has_value());
    EXPECT_EQ(**e0, first->explanations[0]);
    const json j1 = json::parse(**e1);
    EXPECT_EQ(j1["revision"], 1);
    EXPECT_EQ(j1["reason"], "late trade from C");
    EXPECT_EQ(j1["observations"].size(), 6u);
    EXPECT_NE(j1["inputs_sha256"], json::parse(**e0)["inputs_sha256"]);
    auto history = (*store)->History("B200-GOLD-US", kMon);
    ASSERT_EQ(history->size(), 2u);
    EXPECT_EQ((*history)[0].record.inputs_sha256, json::parse(**e0)["inputs_sha256"]);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cfx::reference
