// Runs `cfx demo` once (the whole day: fixes, FIX trading, settlement, HTTP risk desk) and
// checks what its report says against SPEC §9 and §7.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class DemoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out_ = new std::string(fs::temp_directory_path() / ("cfx_demo_test_" + std::to_string(getpid())));
    const std::string cmd = std::string(CFX_BINARY_DIR) + "/app/cfx demo --orders 2000 --out " +
                            *out_ + " > " + *out_ + ".log 2>&1";
    rc_ = std::system(cmd.c_str());
    std::ifstream in(*out_ + "/report.json");
    report_ = new json(json::parse(in, nullptr, false));
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*out_, ec);
    fs::remove(*out_ + ".log", ec);
    delete report_;
    delete out_;
  }
  static std::string* out_;
  static json* report_;
  static int rc_;
};

std::string* DemoTest::out_ = nullptr;
json* DemoTest::report_ = nullptr;
int DemoTest::rc_ = -1;

TEST_F(DemoTest, ExitsZeroAndWritesBothReports) {
  ASSERT_EQ(rc_, 0) << "see " << *out_ << ".log";
  EXPECT_TRUE(fs::exists(*out_ + "/report.md"));
  ASSERT_FALSE(report_->is_discarded());
  EXPECT_TRUE(fs::exists(*out_ + "/inputs/observations.csv"));
  EXPECT_TRUE(fs::exists(*out_ + "/inputs/throughput.csv"));
}

TEST_F(DemoTest, TradesOverFix) {
  ASSERT_FALSE(report_->is_discarded());
  const json& t = (*report_)["trading"];
  EXPECT_GT(t["orders"].get<int64_t>(), 500);
  EXPECT_GT(t["trades"].get<int64_t>(), 0);
  EXPECT_GT(t["volume"].get<int64_t>(), 0);
  EXPECT_GT(t["closing_window_trades"].get<int64_t>(), 0);
  // The deliberate mistakes are answered with their reasons.
  EXPECT_EQ(t["rejects"].value("price_outside_band", 0), 1);
  EXPECT_EQ(t["rejects"].value("account_not_permitted", 0), 1);
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
  EXPECT_EQ(md["snapshots"].get<int64_t>(), 1);
  EXPECT_GT(md["incrementals"].get<int64_t>(), 0);
  EXPECT_TRUE(md["rejects"].empty());
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
  ASSERT_EQ(r["margins"].size(), 4u);  // every account of the demo config
  for (const json& m : r["margins"]) {
    EXPECT_EQ(m["http_status"], 200) << m["account"];
    EXPECT_FALSE(m["margin"].get<std::string>().empty());
  }
  EXPECT_EQ(r["whatif"]["http_status"], 200);
  EXPECT_EQ(r["cross_firm_status"], 403);
  EXPECT_EQ(r["no_token_status"], 401);
}

TEST_F(DemoTest, FixesCarryThePricePerMillionTokens) {
  ASSERT_FALSE(report_->is_discarded());
  for (const json& f : (*report_)["fixes"]) {
    if (!f["fix"].is_null()) EXPECT_FALSE(f["price_per_mtok"].is_null()) << f["grade"];
  }
}

}  // namespace
