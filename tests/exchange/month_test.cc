// Issue #7 end to end: a month of trading replayed with `cfx replay --data-dir`, fixes from
// `cfx reference sample` + `cfx reference build --data-dir`, then `cfx settle` day by day:
// every run succeeds, statements exist, VM is zero-sum each day and each account's cash is
// the sum of its VM.
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "cfx/common/date.h"
#include "cfx/settlement/trade_store.h"
#include "core_test_util.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace cfx::exchange {
namespace {

const std::string kCfx = std::string(CFX_BINARY_DIR) + "/app/cfx";

int RunCfx(const std::string& args) {
  return std::system((kCfx + " " + args + " >/dev/null 2>&1").c_str());
}

int64_t Cents(const nlohmann::json& money) {
  const std::string s = money.get<std::string>();
  const bool neg = !s.empty() && s[0] == '-';
  const std::string digits = neg ? s.substr(1) : s;
  const size_t dot = digits.find('.');
  int64_t v = std::stoll(digits.substr(0, dot)) * 100 + std::stoll(digits.substr(dot + 1));
  return neg ? -v : v;
}

TEST(MonthEndToEndTest, ReplayReferenceAndSettleAMonth) {
  testing::TempDir dir;
  const std::string sym = "B200-GOLD-US-202704";
  const std::vector<std::string> accts = {"A1", "A2", "A3", "A4"};
  std::ofstream cmds(dir.path() + "/cmds.jsonl");
  cmds << R"({"op":"time","ts":"2027-03-01T09:00:00Z"})"
       << "\n";
  cmds << R"({"op":"product","sym":")" << sym << R"(","ref":"5.200"})"
       << "\n";
  std::mt19937_64 rng(7);
  common::BusinessCalendar cal;
  std::vector<common::Date> days =
      cal.BusinessDays(common::DateFromYmd(2027, 3, 1), common::DateFromYmd(2027, 3, 31));
  int n = 0;
  for (common::Date d : days) {
    const std::string ds = common::FormatDate(d);
    // A morning session and the closing window [15:30Z, 16:00Z) (T1 VWAP), then the close.
    for (const char* hhmm : {"10:00", "15:40"}) {
      cmds << R"({"op":"time","ts":")" << ds << "T" << hhmm << R"(:00Z"})"
           << "\n";
      for (int k = 0; k < 4; ++k) {
        const std::string px = absl::StrCat("5.", 150 + 10 * static_cast<int>(rng() % 10));
        const std::string& buyer = accts[rng() % 4];
        std::string seller = accts[rng() % 4];
        if (seller == buyer)
          seller = accts[(std::find(accts.begin(), accts.end(), buyer) - accts.begin() + 1) % 4];
        for (int side = 0; side < 2; ++side) {
          cmds << R"({"op":"new","cl":"o)" << ++n << R"(","acct":")" << (side ? seller : buyer)
               << R"(","sym":")" << sym << R"(","side":")" << (side ? "sell" : "buy")
               << R"(","type":"limit","px":")" << px << R"(","qty":)" << 1 + rng() % 5
               << R"(,"tif":"day"})"
               << "\n";
        }
      }
    }
    cmds << R"({"op":"time","ts":")" << ds << R"(T16:01:00Z"})"
         << "\n";
    cmds << R"({"op":"close","sym":")" << sym << R"("})"
         << "\n";
    cmds << R"({"op":"state","sym":")" << sym << R"(","state":"open"})"
         << "\n";
  }
  cmds.close();
  const std::string data = dir.path() + "/data";
  ASSERT_EQ(RunCfx("replay --input " + dir.path() + "/cmds.jsonl --output " + dir.path() +
                   "/events.jsonl --data-dir " + data),
            0);
  // Re-running is idempotent: nothing is recorded twice.
  ASSERT_EQ(
      RunCfx("replay --input " + dir.path() + "/cmds.jsonl --output /dev/null --data-dir " + data),
      0);
  int replay_trades = 0;
  {
    std::ifstream ev(dir.path() + "/events.jsonl");
    std::string line;
    while (std::getline(ev, line))
      replay_trades += line.find(R"("ev":"trade")") != std::string::npos;
  }
  {
    auto src = settlement::OpenLmdbTradeSource(data);
    ASSERT_TRUE(src.ok());
    int stored = 0;
    ASSERT_TRUE((*src)
                    ->ForEachTrade(INT64_MIN, INT64_MAX,
                                   [&](const settlement::Trade& t) {
                                     ++stored;
                                     return absl::OkStatus();
                                   })
                    .ok());
    EXPECT_EQ(stored, replay_trades);
    EXPECT_GT(stored, 100);
    auto close = (*src)->Close(sym, days.front());
    ASSERT_TRUE(close.ok() && close->has_value());
  }
  ASSERT_EQ(
      RunCfx("reference sample --out " + dir.path() + "/ref --from 2027-02-26 --to 2027-03-31"), 0);
  ASSERT_EQ(RunCfx("reference build --observations " + dir.path() +
                   "/ref/observations.csv --throughput " + dir.path() +
                   "/ref/throughput.csv --date 2027-02-26 --to 2027-03-31 --data-dir " + data),
            0);
  std::map<std::string, int64_t> vm_sum;
  int t1_days = 0;
  for (common::Date d : days) {
    const std::string ds = common::FormatDate(d);
    ASSERT_EQ(
        RunCfx("settle --date " + ds + " --data-dir " + data + " --out " + dir.path() + "/st"), 0)
        << ds;
    int64_t day_total = 0;
    for (const std::string& a : accts) {
      std::ifstream f(dir.path() + "/st/" + ds + "/" + a + ".json");
      ASSERT_TRUE(f.good()) << ds << " " << a;
      nlohmann::json j = nlohmann::json::parse(f);
      const int64_t vm = Cents(j["vm_total"]);
      day_total += vm;
      vm_sum[a] += vm;
      EXPECT_EQ(Cents(j["cash"]), vm_sum[a]) << ds << " " << a;  // no collateral configured
    }
    EXPECT_EQ(day_total, 0) << ds;  // zero-sum
    std::ifstream p(dir.path() + "/st/" + ds + "/settlement_prices.json");
    nlohmann::json prices = nlohmann::json::parse(p);
    for (const auto& row : prices) {
      if (row["sym"] == sym && row["tier"] == "T1") ++t1_days;
    }
  }
  EXPECT_EQ(t1_days, static_cast<int>(days.size()));  // every day traded in the closing window
  // A rerun of a settled date changes nothing and exits 0.
  EXPECT_EQ(RunCfx("settle --date " + common::FormatDate(days.back()) + " --data-dir " + data +
                   " --out " + dir.path() + "/st"),
            0);
}

}  // namespace
}  // namespace cfx::exchange
