// Runs `cfx demo` once in a short mode (two trading days: fixes, FIX trading, settlement
// after each close, the HTTP risk desk, the reports) and checks what its report says
// against SPEC §9 and §7, `cfx margin` on the same positions, and the HTML report in
// headless Chromium.
#include <unistd.h>

#include <cmath>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "html_check.h"
#include "nlohmann/json.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kDays = 2;  // the short mode: two trading days

class DemoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out_ = new std::string(fs::temp_directory_path() / ("cfx_demo_test_" + std::to_string(getpid())));
    rc_ = std::system(Command(*out_).c_str());
    std::ifstream in(*out_ + "/report.json");
    report_ = new json(json::parse(in, nullptr, false));
    // The same flags once more: the same orders, trades and settlement.
    again_rc_ = std::system(Command(*out_ + "_again").c_str());
    std::ifstream again(*out_ + "_again/report.json");
    again_ = new json(json::parse(again, nullptr, false));
  }
  static std::string Command(const std::string& out) {
    return std::string(CFX_BINARY_DIR) + "/app/cfx demo --days " + std::to_string(kDays) +
           " --orders 600 --out " + out + " > " + out + ".log 2>&1";
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    for (const std::string& out : {*out_, *out_ + "_again"}) {
      fs::remove_all(out, ec);
      fs::remove(out + ".log", ec);
    }
    delete report_;
    delete again_;
    delete out_;
  }
  static std::string* out_;
  static json* report_;
  static json* again_;
  static int rc_;
  static int again_rc_;
};

// "-1234.56" -> -123456 (cents).
int64_t Cents(const std::string& usd) {
  const bool neg = !usd.empty() && usd[0] == '-';
  const std::string digits = neg ? usd.substr(1) : usd;
  const size_t dot = digits.find('.');
  int64_t whole = std::stoll(digits.substr(0, dot));
  int64_t frac = dot == std::string::npos ? 0 : std::stoll((digits.substr(dot + 1) + "00").substr(0, 2));
  return (neg ? -1 : 1) * (whole * 100 + frac);
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string* DemoTest::out_ = nullptr;
json* DemoTest::report_ = nullptr;
json* DemoTest::again_ = nullptr;
int DemoTest::rc_ = -1;
int DemoTest::again_rc_ = -1;

TEST_F(DemoTest, ExitsZeroAndWritesTheReports) {
  ASSERT_EQ(rc_, 0) << "see " << *out_ << ".log";
  EXPECT_TRUE(fs::exists(*out_ + "/report.md"));
  EXPECT_TRUE(fs::exists(*out_ + "/report.html"));
  ASSERT_FALSE(report_->is_discarded());
  EXPECT_TRUE(fs::exists(*out_ + "/inputs/observations.csv"));
  EXPECT_TRUE(fs::exists(*out_ + "/inputs/throughput.csv"));
  EXPECT_EQ((*report_)["dates"].size(), static_cast<size_t>(kDays));
}

// Same flags, same run: every order the firms send depends only on what they were told
// before the last barrier (docs/demo.md, "Determinism"); only DELTA's throttled count may
// differ, and its orders rest where nothing trades.
TEST_F(DemoTest, SameFlagsGiveTheSameTradesAndSettlement) {
  ASSERT_EQ(again_rc_, 0) << "see " << *out_ << "_again.log";
  ASSERT_FALSE(report_->is_discarded());
  ASSERT_FALSE(again_->is_discarded());
  const json& a = (*report_)["trading"];
  const json& b = (*again_)["trading"];
  ASSERT_EQ(a["by_day"].size(), b["by_day"].size());
  for (size_t i = 0; i < a["by_day"].size(); ++i) {
    EXPECT_EQ(a["by_day"][i]["trades"], b["by_day"][i]["trades"]) << i;
    EXPECT_EQ(a["by_day"][i]["volume"], b["by_day"][i]["volume"]) << i;
  }
  EXPECT_EQ(a["trades_by_symbol"], b["trades_by_symbol"]);
  EXPECT_EQ(a["cancel_rejects"], b["cancel_rejects"]);
  ASSERT_EQ((*report_)["settlement"].size(), (*again_)["settlement"].size());
  for (size_t i = 0; i < (*report_)["settlement"].size(); ++i) {
    EXPECT_EQ((*report_)["settlement"][i]["settlement_prices"],
              (*again_)["settlement"][i]["settlement_prices"]) << i;
    EXPECT_EQ((*report_)["settlement"][i]["accounts"], (*again_)["settlement"][i]["accounts"])
        << i;
  }
}

TEST_F(DemoTest, TradesOverFixEveryDay) {
  ASSERT_FALSE(report_->is_discarded());
  const json& t = (*report_)["trading"];
  EXPECT_GT(t["orders"].get<int64_t>(), 500);
  EXPECT_GT(t["quotes"].get<int64_t>(), 0);
  EXPECT_GT(t["trades"].get<int64_t>(), 0);
  EXPECT_GT(t["closing_window_trades"].get<int64_t>(), 0);
  ASSERT_EQ(t["by_day"].size(), static_cast<size_t>(kDays));
  int64_t trades = 0;
  for (const json& d : t["by_day"]) {
    EXPECT_GT(d["trades"].get<int64_t>(), 0) << d["date"];
    EXPECT_GT(d["volume"].get<int64_t>(), 0) << d["date"];
    trades += d["trades"].get<int64_t>();
  }
  EXPECT_EQ(trades, t["trades"].get<int64_t>());
  // The deliberate mistakes, once a day, are answered with their reasons.
  EXPECT_EQ(t["rejects"].value("price_outside_band", 0), kDays);
  EXPECT_EQ(t["rejects"].value("account_not_permitted", 0), kDays);
}

TEST_F(DemoTest, FirmsCancelOnlyTheirLiveOrders) {
  ASSERT_FALSE(report_->is_discarded());
  const json& t = (*report_)["trading"];
  EXPECT_GT(t["cancels"].get<int64_t>(), 50);
  // The only unknown_order answers are the deliberate ones: a cancel of an id never used
  // and a cancel of an order the firm knows has filled, once a day each.
  EXPECT_EQ(t["cancel_rejects"].value("unknown_order", 0),
            kDays + t["deliberate_late_cancels"].get<int64_t>());
  EXPECT_EQ(t["cancel_rejects"].size(), t["cancel_rejects"].contains("unknown_order") ? 1u : 0u)
      << t["cancel_rejects"].dump();
}

TEST_F(DemoTest, AFirmHitsItsThrottleAndItsOrdersAreCanceledOnDisconnect) {
  ASSERT_FALSE(report_->is_discarded());
  const json& t = (*report_)["trading"];
  EXPECT_GT(t["throttled"].get<int64_t>(), 0);
  EXPECT_GT(t["disconnect_cancels"].get<int64_t>(), 0);
  for (const json& d : t["by_day"]) {
    EXPECT_GT(d["throttled"].get<int64_t>(), 0) << d["date"];
    EXPECT_GT(d["disconnect_cancels"].get<int64_t>(), 0) << d["date"];
  }
  std::map<std::string, int> roles;
  for (const json& f : (*report_)["firms"]) ++roles[f["role"].get<std::string>()];
  EXPECT_EQ(roles["market maker"], 2);
  EXPECT_EQ(roles["taker"], 1);
  EXPECT_EQ(roles["throttled, disconnects"], 1);
  EXPECT_EQ(roles["drop copy"], 1);
}

TEST_F(DemoTest, DropCopyCountEqualsTheFirmsExecutionReports) {
  ASSERT_FALSE(report_->is_discarded());
  const json& d = (*report_)["drop_copy"];
  EXPECT_GT(d["copies"].get<int64_t>(), 0);
  EXPECT_EQ(d["copies"], d["firm_exec_reports"]);
}

TEST_F(DemoTest, MarketDataSnapshotThenIncrementals) {
  ASSERT_FALSE(report_->is_discarded());
  const json& md = (*report_)["market_data"];
  EXPECT_EQ(md["snapshots"].get<int64_t>(), kDays);  // one subscription a day
  EXPECT_GT(md["incrementals"].get<int64_t>(), 0);
  EXPECT_TRUE(md["rejects"].empty());
}

TEST_F(DemoTest, EveryAccountReconcilesEveryDay) {
  ASSERT_FALSE(report_->is_discarded());
  const json& days = (*report_)["settlement"];
  ASSERT_EQ(days.size(), static_cast<size_t>(kDays));
  std::map<std::string, int64_t> vm_total;
  for (const json& day : days) {
    int64_t sum = 0;
    for (const json& a : day["accounts"]) {
      const std::string acct = a["account"];
      vm_total[acct] += Cents(a["vm"]);
      sum += Cents(a["vm"]);
      // cash = collateral + every VM so far
      EXPECT_EQ(Cents(a["cash"]), Cents(a["collateral"]) + vm_total[acct])
          << acct << " on " << day["date"];
    }
    EXPECT_EQ(day["vm_sum_micro_usd"].get<int64_t>(), 0) << day["date"];
    // Cents are rounded per account; their sum is within a cent per account of 0.
    EXPECT_LE(std::abs(sum), static_cast<int64_t>(day["accounts"].size())) << day["date"];
  }
  // Positions carried over the week move VM on the later days.
  bool moved = false;
  for (const json& a : days.back()["accounts"]) moved |= Cents(a["vm"]) != 0;
  EXPECT_TRUE(moved);
}

TEST_F(DemoTest, SettlementPricesWithTiersAndZeroSumVm) {
  ASSERT_FALSE(report_->is_discarded());
  const json& day = (*report_)["settlement"].at(0);
  ASSERT_GT(day["settlement_prices"].size(), 0u);
  for (const json& p : day["settlement_prices"]) {
    EXPECT_FALSE(p["settle"].get<std::string>().empty());
    const std::string tier = p["tier"];
    EXPECT_TRUE(tier == "T1" || tier == "T2" || tier == "T3" || tier == "T4") << tier;
  }
  // Traded in the closing window: the traded contracts settle on VWAP.
  EXPECT_GT(day["tiers"].value("T1", 0), 0);
  EXPECT_EQ(day["vm_sum_micro_usd"].get<int64_t>(), 0);
  // One statement per account that traded, plus the prices.
  const std::string dir = *out_ + "/statements/" + day["date"].get<std::string>();
  for (const json& a : day["accounts"]) {
    EXPECT_TRUE(fs::exists(dir + "/" + a["account"].get<std::string>() + ".json"))
        << a["account"];
  }
  EXPECT_TRUE(fs::exists(dir + "/settlement_prices.json"));
}

TEST_F(DemoTest, RiskDeskGetsMarginAndFirmsAreKeptApart) {
  ASSERT_FALSE(report_->is_discarded());
  const json& r = (*report_)["risk"];
  ASSERT_EQ(r["margins"].size(), 5u);  // every account of the demo config
  for (const json& m : r["margins"]) {
    EXPECT_EQ(m["http_status"], 200) << m["account"];
    EXPECT_FALSE(m["margin"].get<std::string>().empty());
  }
  EXPECT_EQ(r["whatif"]["http_status"], 200);
  EXPECT_EQ(r["cross_firm_status"], 403);
  EXPECT_EQ(r["no_token_status"], 401);
}

// The risk desk's HTTP answers equal `cfx margin` on the same positions and prices.
TEST_F(DemoTest, MarginAnswersEqualCfxMarginOnTheSamePositions) {
  ASSERT_FALSE(report_->is_discarded());
  const json& r = (*report_)["risk"];
  const std::string positions = *out_ + "/check_positions.csv";
  const std::string prices = *out_ + "/check_prices.csv";
  std::map<std::string, std::string> settle;
  {
    std::ofstream p(positions);
    p << "account,sym,qty\n";
    for (const json& m : r["margins"]) {
      for (const json& line : m["positions_detail"]) {
        p << m["account"].get<std::string>() << "," << line["sym"].get<std::string>() << ","
          << line["qty"].get<int64_t>() << "\n";
        settle[line["sym"]] = line["settle"].get<std::string>();
      }
    }
  }
  ASSERT_FALSE(settle.empty()) << "no account holds a position";
  {
    std::ofstream p(prices);
    p << "sym,settle\n";
    for (const auto& [sym, px] : settle) p << sym << "," << px << "\n";
  }
  const std::string answer = *out_ + "/check_margin.out";
  const std::string cmd = std::string(CFX_BINARY_DIR) + "/app/cfx margin --positions " +
                          positions + " --prices " + prices + " --throughput " + *out_ +
                          "/inputs/throughput.csv --date " + r["as_of"].get<std::string>() +
                          " > " + answer + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << Slurp(answer);
  std::map<std::string, std::string> cli;
  std::istringstream lines(Slurp(answer));
  for (std::string line; std::getline(lines, line);) {
    const json j = json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << line;
    cli[j["account"]] = j["margin"];
  }
  for (const json& m : r["margins"]) {
    if (m["positions_detail"].empty()) continue;
    EXPECT_EQ(cli[m["account"]], m["margin"].get<std::string>()) << m["account"];
  }
}

// The HTML report opened in headless Chromium: it renders its charts with their data
// points and asks the network for nothing.
TEST_F(DemoTest, HtmlReportRendersItsChartsInChromiumWithoutTheNetwork) {
  ASSERT_EQ(rc_, 0);
  const std::string html = Slurp(*out_ + "/report.html");
  ASSERT_FALSE(html.empty());
  for (const char* banned : {"http://", "https://", "<script", "src=\"", "url("}) {
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  }
  const std::string work = *out_ + "/chromium";
  cfx::testsupport::HtmlCheckResult r = cfx::testsupport::CheckHtmlInChromium(*out_ + "/report.html", work);
  ASSERT_TRUE(r.ran) << r.error;
  EXPECT_EQ(r.network_requests, 0);
  ASSERT_FALSE(r.screenshot_path.empty()) << r.error;
  ASSERT_TRUE(fs::exists(r.screenshot_path)) << r.error;
  EXPECT_GT(fs::file_size(r.screenshot_path), 10000u);
  // Every chart is in the rendered DOM with its points.
  EXPECT_NE(r.dom.find("id=\"contracts\""), std::string::npos);
  for (const char* id : {"chart-mtok", "chart-book", "chart-vm", "chart-calls",
                         "chart-surveillance", "chart-explain"}) {
    EXPECT_NE(r.dom.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  for (const auto& [grade, fixes] : (*report_)["reference"]["grades"].items()) {
    EXPECT_NE(r.dom.find("id=\"chart-fix-" + grade + "\""), std::string::npos) << grade;
  }
  size_t points = 0;
  for (size_t at = r.dom.find("class=\"pt\""); at != std::string::npos;
       at = r.dom.find("class=\"pt\"", at + 1)) {
    ++points;
  }
  EXPECT_GT(points, 100u);
  // A settlement price of the last day is plotted with its value.
  const json& last = (*report_)["settlement"].back()["settlement_prices"].at(0);
  EXPECT_NE(r.dom.find("data-y=\"" + last["settle"].get<std::string>() + "\""), std::string::npos);
}

TEST_F(DemoTest, FixesCarryThePricePerMillionTokens) {
  ASSERT_FALSE(report_->is_discarded());
  for (const json& f : (*report_)["fixes"]) {
    if (!f["fix"].is_null()) EXPECT_FALSE(f["price_per_mtok"].is_null()) << f["grade"];
  }
}

}  // namespace
