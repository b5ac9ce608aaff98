// The HTTP API over real data (ExchangeServer: core, ledger, reference store, margin
// engine) and `cfx serve` as a real process stopped by SIGTERM.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cfx/client/http_client.h"
#include "cfx/common/config.h"
#include "cfx/common/date.h"
#include "cfx/gateway/exchange_server.h"
#include "cfx/gateway/margin_answer.h"
#include "cfx/reference/fix_store.h"
#include "fresh_dir.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "remove_on_exit.h"
#include "run_cfx.h"
#include "serve_harness.h"

namespace cfx::gateway {
namespace {

using client::HttpClient;
using client::HttpClientResponse;

constexpr char kSym[] = "B200-GOLD-US-202703";

std::string FreshDir(const std::string& name) {
  return testsupport::FreshDir("cfx_serve_http_" + name);
}

engine::NewOrderCmd Order(const char* cl, const char* acct, engine::Side side, int64_t qty,
                          int64_t px) {
  engine::NewOrderCmd c;
  c.cl.Assign(cl);
  c.acct.Assign(acct);
  c.firm.Assign(acct[0] == 'A' ? "ALPHA" : "BETA");
  c.sym.Assign(kSym);
  c.side = side;
  c.qty = engine::Qty(qty);
  c.px = engine::PriceField::Ticks(engine::PriceTicks(px));
  return c;
}

class ServeHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    // A published fix and throughput, written before the server opens the store (LMDB
    // allows one environment handle per process).
    auto store = reference::FixStore::Open(dir_);
    ASSERT_TRUE(store.ok()) << store.status();
    reference::PublishItem item;
    item.record.grade = "B200-GOLD-US";
    item.record.date = *common::ParseDate("2027-02-26");
    item.record.fix_e4 = 50100;
    item.record.level = 1;
    item.record.n_obs = 5;
    item.record.n_providers = 3;
    item.record.methodology = "cfx-ref-2";
    item.record.inputs_sha256 = std::string(64, 'c');
    item.explanation = R"({"grade":"B200-GOLD-US","date":"2027-02-26","revision":0})";
    // A revision of the same day (same fix: the band tests read it), with its own explanation.
    reference::PublishItem revised = item;
    revised.record.n_obs = 6;
    revised.revision = 1;
    revised.reason = "late trade";
    revised.explanation = R"({"grade":"B200-GOLD-US","date":"2027-02-26","revision":1})";
    std::vector<reference::OperatorThroughput> ops = {
        {"g1", common::Tier::kGold, "B200", *common::ParseDate("2027-02-20"), 1000},
        {"g2", common::Tier::kGold, "B200", *common::ParseDate("2027-02-20"), 1500}};
    // A grade the benchmark covers that no configured product trades.
    reference::PublishItem unlisted = item;
    unlisted.record.grade = "H200-SILV-EU";
    unlisted.record.fix_e4 = 31200;
    unlisted.explanation = R"({"grade":"H200-SILV-EU","date":"2027-02-26","revision":0})";
    // Its day before, whose stored explanation is damaged (as a page of the store overwritten
    // leaves it): no JSON.
    reference::PublishItem damaged = unlisted;
    damaged.record.date = *common::ParseDate("2027-02-25");
    damaged.explanation = "{\"grade\":\"H200-SILV-EU\",\"da\x07\x07\x07";
    // And the day before that: a whole object, then a NUL and bytes (nlohmann alone would
    // read the object and stop at the NUL).
    reference::PublishItem cut = unlisted;
    cut.record.date = *common::ParseDate("2027-02-24");
    cut.explanation = std::string("{\"grade\":\"H200-SILV-EU\"}\0junk", 29);
    std::vector<reference::PublishItem> items = {item, revised, unlisted, damaged, cut};
    if (first_day_fix_e4_ != 0) {  // the fix of the first day, published at its close
      reference::PublishItem first_day = item;
      first_day.record.date = *common::ParseDate("2027-03-01");
      first_day.record.fix_e4 = first_day_fix_e4_;
      first_day.explanation = R"({"grade":"B200-GOLD-US","date":"2027-03-01","revision":0})";
      items.push_back(first_day);
    }
    ASSERT_TRUE((*store)->Publish(items, ops).ok());
    store->reset();
    auto config = common::ParseConfig(test::ServeConfigText(dir_), "serve-test");
    ASSERT_TRUE(config.ok()) << config.status();
    ExchangeServerOptions options;
    options.fix_port = 0;
    options.http_port = 0;
    options.manual_clock = true;
    options.start_time = *common::ParseTimestamp("2027-03-01T14:00:00Z") * 1000;
    options.pre_trade_risk = pre_trade_risk_;
    server_ = std::make_unique<ExchangeServer>(*config, options);
    absl::Status s = server_->Start();
    ASSERT_TRUE(s.ok()) << s;
  }
  void TearDown() override {
    if (server_) EXPECT_TRUE(server_->Stop().ok());
    server_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  nlohmann::json Get(const std::string& target, const std::string& token, int want = 200) {
    auto client = HttpClient::Connect("127.0.0.1", server_->http_port());
    EXPECT_TRUE(client.ok()) << client.status();
    if (!client.ok()) return nullptr;
    auto r = client->Get(target, token);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return nullptr;
    EXPECT_EQ(r->status, want) << target << ": " << r->body;
    return nlohmann::json::parse(r->body, nullptr, false);
  }
  // The band reference of `sym` once it is `ticks` (the server's margin refresher polls every
  // second), or as it stands after 15 s.
  std::optional<common::PriceTicks> BandRefOnceItIs(const std::string& sym, int64_t ticks) {
    std::optional<common::PriceTicks> ref;
    for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
         std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(std::chrono::milliseconds(50))) {
      ref = server_->core().FindContract(sym)->contract.band_ref;
      if (ref == common::PriceTicks(ticks)) break;
    }
    return ref;
  }
  // POST /v1/margin/whatif as ALPHA with `body`.
  absl::StatusOr<HttpClientResponse> WhatIf(const std::string& body) {
    auto client = HttpClient::Connect("127.0.0.1", server_->http_port());
    if (!client.ok()) return client.status();
    return client->Request("POST", "/v1/margin/whatif", "tok-alpha", body);
  }
  void Trade() {
    ExchangeServer& s = *server_;
    ASSERT_EQ(s.core().Submit(Order("h1", "A1", engine::Side::kBuy, 10, 5000), 0),
              exchange::OfferResult::kAccepted);
    ASSERT_EQ(s.core().Submit(Order("h2", "B1", engine::Side::kSell, 4, 5000), 0),
              exchange::OfferResult::kAccepted);
    ASSERT_TRUE(s.core().Flush().ok());
  }

  std::string dir_;
  std::unique_ptr<ExchangeServer> server_;
  bool pre_trade_risk_ = true;
  int64_t first_day_fix_e4_ = 0;  // not 0: a fix of 2027-03-01 is in the store too
};

// `cfx serve --no-risk`: no margin check, the same price band.
class ServeHttpNoRiskTest : public ServeHttpTest {
 protected:
  ServeHttpNoRiskTest() { pre_trade_risk_ = false; }
};

// The store holds the fix of 2027-03-01 too (5.400), as it does once the day's fix is built.
class ServeHttpFirstDayFixTest : public ServeHttpTest {
 protected:
  ServeHttpFirstDayFixTest() { first_day_fix_e4_ = 54000; }
};

// SPEC §3: the band reference is the grade's latest fix. Trading day 2027-03-02 begins at
// 2027-03-01 16:00Z, when the fix of 03-01 is the latest: the band moves to it then (5.400:
// [4.860, 5.940]), not at midnight UTC (until 2026-12-07 the basis was dated by the UTC
// calendar day, so for eight hours a contract never settled kept the day before's fix and
// its margin; a review).
TEST_F(ServeHttpFirstDayFixTest, TheBandMovesToTheDaysFixWhenTheNextTradingDayBegins) {
  ExchangeServer& s = *server_;
  ASSERT_EQ(s.core().FindContract(kSym)->contract.band_ref, common::PriceTicks(5010));
  ASSERT_EQ(s.core().AdvanceTime(*common::ParseTimestamp("2027-03-01T16:00:01Z") * 1000),
            exchange::OfferResult::kAccepted);
  ASSERT_TRUE(s.core().Flush().ok());
  EXPECT_EQ(BandRefOnceItIs(kSym, 5400), common::PriceTicks(5400))
      << "the band is not on the latest fix";
  ASSERT_EQ(s.core().Submit(Order("in", "A1", engine::Side::kBuy, 1, 5940), 0),
            exchange::OfferResult::kAccepted);
  ASSERT_EQ(s.core().Submit(Order("out", "A1", engine::Side::kBuy, 1, 5941), 0),
            exchange::OfferResult::kAccepted);
  ASSERT_TRUE(s.core().Flush().ok());
  EXPECT_TRUE(s.core().FindOrder("A1", "in").has_value());
  EXPECT_FALSE(s.core().FindOrder("A1", "out").has_value());
}

TEST_F(ServeHttpTest, BookAfterTradesIsThePublishedSnapshot) {
  Trade();
  nlohmann::json book = Get(std::string("/v1/book/") + kSym, "tok-risk");
  ASSERT_TRUE(book.is_object()) << book;
  ASSERT_EQ(book["bids"].size(), 1u) << book;
  EXPECT_EQ(book["bids"][0][0], "5.000");
  EXPECT_EQ(book["bids"][0][1], 6);
  EXPECT_EQ(book["asks"].size(), 0u);
  EXPECT_EQ(book["last_trade"]["px"], "5.000");
  EXPECT_EQ(book["last_trade"]["qty"], 4);
  Get("/v1/book/B200-GOLD-US-209912", "tok-risk", 404);
}

// SPEC §3: the band reference is the prior settlement, else the grade's latest fix; the
// config's `ref` (5.000 here) only stands in before either exists. The fix before
// 2027-03-01 is 5.010, so the band is [4.509, 5.511].
TEST_F(ServeHttpTest, PriceBandIsCentredOnTheLatestFixNotTheConfiguredRef) {
  ExchangeServer& s = *server_;
  ASSERT_EQ(s.core().Submit(Order("in1", "A1", engine::Side::kBuy, 1, 5511), 0),
            exchange::OfferResult::kAccepted);
  ASSERT_EQ(s.core().Submit(Order("in2", "A1", engine::Side::kBuy, 1, 4509), 0),
            exchange::OfferResult::kAccepted);
  ASSERT_EQ(s.core().Submit(Order("out1", "A1", engine::Side::kBuy, 1, 5512), 0),
            exchange::OfferResult::kAccepted);
  ASSERT_EQ(s.core().Submit(Order("out2", "A1", engine::Side::kBuy, 1, 4508), 0),
            exchange::OfferResult::kAccepted);
  ASSERT_TRUE(s.core().Flush().ok());
  EXPECT_TRUE(s.core().FindOrder("A1", "in1").has_value());
  EXPECT_TRUE(s.core().FindOrder("A1", "in2").has_value());
  EXPECT_FALSE(s.core().FindOrder("A1", "out1").has_value());  // outside [4.509, 5.511]
  EXPECT_FALSE(s.core().FindOrder("A1", "out2").has_value());  // inside the config's band
}

// The band reference is SPEC §3's with the margin check off too: it used to travel with the
// margins only, so `--no-risk` left the band on the config's `ref`.
TEST_F(ServeHttpNoRiskTest, PriceBandIsCentredOnTheLatestFixAlsoWithoutTheMarginCheck) {
  ExchangeServer& s = *server_;
  ASSERT_EQ(s.core().Submit(Order("in1", "A1", engine::Side::kBuy, 1, 5511), 0),
            exchange::OfferResult::kAccepted);
  ASSERT_EQ(s.core().Submit(Order("out1", "A1", engine::Side::kBuy, 1, 5512), 0),
            exchange::OfferResult::kAccepted);
  ASSERT_EQ(s.core().Submit(Order("out2", "A1", engine::Side::kBuy, 1, 4508), 0),
            exchange::OfferResult::kAccepted);
  // No margin check: an order far above any collateral is accepted.
  ASSERT_EQ(s.core().Submit(Order("huge", "A1", engine::Side::kBuy, 900, 5000), 0),
            exchange::OfferResult::kAccepted);
  ASSERT_TRUE(s.core().Flush().ok());
  EXPECT_TRUE(s.core().FindOrder("A1", "in1").has_value());
  EXPECT_FALSE(s.core().FindOrder("A1", "out1").has_value());
  EXPECT_FALSE(s.core().FindOrder("A1", "out2").has_value());
  EXPECT_TRUE(s.core().FindOrder("A1", "huge").has_value());
}

TEST_F(ServeHttpTest, PositionsAndMarginOfTheCallersFirmOnly) {
  Trade();
  nlohmann::json pos = Get("/v1/accounts/A1/positions", "tok-alpha");
  ASSERT_TRUE(pos.is_object()) << pos;
  ASSERT_EQ(pos["positions"].size(), 1u) << pos;
  EXPECT_EQ(pos["positions"][0]["sym"], kSym);
  EXPECT_EQ(pos["positions"][0]["qty"], 4);
  EXPECT_EQ(pos["positions"][0]["open_buy_qty"], 6);
  nlohmann::json margin = Get("/v1/accounts/A1/margin?method=span16", "tok-alpha");
  ASSERT_TRUE(margin.is_object()) << margin;
  EXPECT_NE(margin["margin"], "0.00") << margin;
  // Before any settlement the basis is the grade's latest fix, rounded to the tick.
  EXPECT_EQ(margin["positions"][0]["settle"], "5.010") << margin;
  // What valued it (docs/valuation.md: every answer says; no GPU in the tests' runs).
  EXPECT_TRUE(margin["backend"] == "cpu" || margin["backend"] == "cuda") << margin;
  // SPEC §10: TSR is per GPU and tier; the scenario shows the moves of each GPU valued, and
  // `tput_moves` is the first GPU's.
  const nlohmann::json& scenario = margin["scenario"];
  ASSERT_TRUE(scenario["tput_moves_by_gpu"].contains("B200")) << margin;
  EXPECT_EQ(scenario["tput_moves_by_gpu"]["B200"], scenario["tput_moves"]) << margin;
  EXPECT_EQ(scenario["tput_moves"].size(), 4u) << margin;
  // An account with no position values nothing: scenario 1 and no throughput moves.
  nlohmann::json empty = Get("/v1/accounts/A2/margin", "tok-alpha");
  EXPECT_EQ(empty["margin"], "0.00") << empty;
  EXPECT_EQ(empty["worst_scenario"], 1) << empty;
  EXPECT_TRUE(empty["scenario"]["tput_moves"].empty()) << empty;
  EXPECT_TRUE(empty["scenario"]["tput_moves_by_gpu"].empty()) << empty;
  nlohmann::json risk = Get("/v1/accounts/A1/margin", "tok-risk");
  EXPECT_EQ(risk["margin"], margin["margin"]);
  Get("/v1/accounts/A1/positions", "tok-beta", 403);
  Get("/v1/accounts/A1/margin", "tok-beta", 403);
  Get("/v1/accounts/B1/positions", "tok-alpha", 403);
}

TEST_F(ServeHttpTest, MarginLeavesOutAContractThatHasExpired) {
  Trade();  // A1 long 4 March
  ExchangeServer& s = *server_;
  engine::NewOrderCmd april = Order("h3", "A1", engine::Side::kBuy, 2, 5000);
  april.sym.Assign("B200-GOLD-US-202704");
  engine::NewOrderCmd april_sell = Order("h4", "B1", engine::Side::kSell, 2, 5000);
  april_sell.sym.Assign("B200-GOLD-US-202704");
  ASSERT_EQ(s.core().Submit(april, 0), exchange::OfferResult::kAccepted);
  ASSERT_EQ(s.core().Submit(april_sell, 0), exchange::OfferResult::kAccepted);
  ASSERT_TRUE(s.core().Flush().ok());
  nlohmann::json before = Get("/v1/accounts/A1/margin?method=span16", "tok-alpha");
  ASSERT_EQ(before["positions"].size(), 2u) << before;
  // March expires at the 16:00Z close of its last trading day.
  ASSERT_EQ(s.core().AdvanceTime(*common::ParseTimestamp("2027-03-31T16:00:01Z") * 1000),
            exchange::OfferResult::kAccepted);
  ASSERT_TRUE(s.core().Flush().ok());
  nlohmann::json after = Get("/v1/accounts/A1/margin?method=span16", "tok-alpha");
  ASSERT_TRUE(after.is_object()) << after;
  ASSERT_EQ(after["positions"].size(), 1u) << after;
  EXPECT_EQ(after["positions"][0]["sym"], "B200-GOLD-US-202704") << after;
  nlohmann::json pos = Get("/v1/accounts/A1/positions", "tok-alpha");
  EXPECT_EQ(pos["positions"].size(), 2u) << "positions still list what was traded: " << pos;
  // A what-if on the expired contract is a bad parameter (it was priced at the fix).
  auto whatif = WhatIf(R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":1}]})");
  ASSERT_TRUE(whatif.ok()) << whatif.status();
  EXPECT_EQ(whatif->status, 400) << whatif->body;
  EXPECT_NE(whatif->body.find("has expired"), std::string::npos) << whatif->body;
}

// SPEC §3 and §4 for a month listed while the exchange runs: at March's last close April
// 2027 .. March 2028 is the window, so 202803 is listed. It takes the grade's latest fix as
// its band reference (5.010: [4.509, 5.511], not the config's [4.500, 5.500]) and a margin
// (A2's 10.00 USD of collateral covers no lot), and HTTP prices it, within a poll of the
// refresher. Until 2026-12-06 the basis was rebuilt only at a new settlement: the new month
// traded on the config's band with a margin of 0 and HTTP said "no price" for it.
TEST_F(ServeHttpTest, AMonthListedAtTheRollIsPricedBandedAndMarginedAtOnce) {
  ExchangeServer& s = *server_;
  constexpr char kNew[] = "B200-GOLD-US-202803";
  ASSERT_FALSE(s.core().FindContract(kNew).has_value());
  ASSERT_EQ(s.core().AdvanceTime(*common::ParseTimestamp("2027-03-31T16:00:01Z") * 1000),
            exchange::OfferResult::kAccepted);
  ASSERT_TRUE(s.core().Flush().ok());
  ASSERT_TRUE(s.core().FindContract(kNew).has_value()) << "not listed at the roll";
  ASSERT_EQ(BandRefOnceItIs(kNew, 5010), common::PriceTicks(5010))
      << "the new month's band reference is not the fix";
  auto order = [&](const char* cl, const char* acct, int64_t px) {
    engine::NewOrderCmd c = Order(cl, acct, engine::Side::kBuy, 1, px);
    c.sym.Assign(kNew);
    EXPECT_EQ(s.core().Submit(c, 0), exchange::OfferResult::kAccepted);
  };
  order("roll-in", "A1", 5511);   // inside the fix's band, outside the config's
  order("roll-out", "A1", 5512);  // outside the fix's band
  order("roll-a2", "A2", 5000);   // one lot's margin is more than A2's collateral
  ASSERT_TRUE(s.core().Flush().ok());
  EXPECT_TRUE(s.core().FindOrder("A1", "roll-in").has_value());
  EXPECT_FALSE(s.core().FindOrder("A1", "roll-out").has_value());
  EXPECT_FALSE(s.core().FindOrder("A2", "roll-a2").has_value()) << "counted at a margin of 0";
  auto whatif = WhatIf(R"({"positions":[{"sym":"B200-GOLD-US-202803","qty":1}]})");
  ASSERT_TRUE(whatif.ok()) << whatif.status();
  EXPECT_EQ(whatif->status, 200) << whatif->body;
  nlohmann::json margin = nlohmann::json::parse(whatif->body, nullptr, false);
  EXPECT_NE(margin.value("margin", "0.00"), "0.00") << whatif->body;
}

// SPEC §7 `GET /v1/contracts`: the security master of the running exchange (the HTTP tests
// serve it from fakes): both products' 12 months, each banded by SPEC §3 (GOLD by its fix,
// PLAT, with no fix, by the config's ref); at March's close March is expired, listed no
// more, and its history says so.
TEST_F(ServeHttpTest, ContractsAreTheRunningExchangesSecurityMaster) {
  ExchangeServer& s = *server_;
  ASSERT_TRUE(s.core().Flush().ok());
  Get("/v1/contracts", "", 401);
  nlohmann::json all = Get("/v1/contracts", "tok-beta");
  ASSERT_TRUE(all.is_object()) << all;
  ASSERT_EQ(all["contracts"].size(), 24u) << all;
  std::vector<std::string> syms;
  for (const nlohmann::json& c : all["contracts"]) {
    syms.push_back(c["sym"].get<std::string>());
    EXPECT_EQ(c["state"], "listed") << c;
    EXPECT_EQ(c["band_ref"], c["grade"] == "B200-GOLD-US" ? "5.010" : "6.000") << c;
  }
  EXPECT_TRUE(std::is_sorted(syms.begin(), syms.end()));
  EXPECT_EQ(syms.front(), kSym);
  ASSERT_EQ(s.core().AdvanceTime(*common::ParseTimestamp("2027-03-31T16:00:01Z") * 1000),
            exchange::OfferResult::kAccepted);
  ASSERT_TRUE(s.core().Flush().ok());
  nlohmann::json expired = Get("/v1/contracts?state=expired", "tok-alpha");
  ASSERT_EQ(expired["contracts"].size(), 2u) << expired;
  EXPECT_EQ(expired["contracts"][0]["sym"], kSym);
  EXPECT_EQ(expired["contracts"][1]["sym"], "B200-PLAT-US-202703");
  nlohmann::json listed = Get("/v1/contracts?state=listed", "tok-alpha");
  EXPECT_EQ(listed["contracts"].size(), 24u) << "April 2027 .. March 2028 for each product";
  nlohmann::json march = Get(std::string("/v1/contracts/") + kSym, "tok-risk");
  EXPECT_EQ(march["state"], "expired") << march;
  ASSERT_FALSE(march["history"].empty()) << march;
  EXPECT_EQ(march["history"].front()["event"], "listed") << march;
  EXPECT_EQ(march["history"].back()["event"], "expired") << march;
  Get("/v1/contracts/B200-GOLD-US-209912", "tok-risk", 404);
}

TEST_F(ServeHttpTest, ReferenceFixesAndMetrics) {
  nlohmann::json fixes =
      Get("/v1/reference/B200-GOLD-US?from=2027-02-01&to=2027-03-01", "tok-alpha");
  ASSERT_TRUE(fixes.is_object()) << fixes;
  ASSERT_EQ(fixes["fixes"].size(), 1u) << fixes;
  EXPECT_EQ(fixes["fixes"][0]["fix"], "5.0100");
  EXPECT_EQ(fixes["fixes"][0]["date"], "2027-02-26");
  EXPECT_EQ(fixes["fixes"][0]["n_obs"], 6);
  EXPECT_EQ(fixes["fixes"][0]["methodology"], "cfx-ref-2");
  EXPECT_EQ(fixes["fixes"][0]["inputs_sha256"], std::string(64, 'c'));
  // Every revision, the earlier one kept.
  nlohmann::json all = Get("/v1/reference/B200-GOLD-US?from=2027-02-26&revisions=true", "tok-alpha");
  ASSERT_EQ(all["fixes"].size(), 2u) << all;
  EXPECT_EQ(all["fixes"][0]["revision"], 0);
  EXPECT_EQ(all["fixes"][0]["n_obs"], 5);
  EXPECT_EQ(all["fixes"][1]["reason"], "late trade");
  // The latest revision's stored explanation.
  EXPECT_EQ(Get("/v1/reference/B200-GOLD-US/2027-02-26/explain", "tok-alpha")["revision"], 1);
  Get("/v1/reference/B200-GOLD-US/2027-02-27/explain", "tok-alpha", 404);
  Get("/v1/reference/H100-GOLD-EU/2027-02-26/explain", "tok-alpha", 404);
  // A grade no product trades is served when the store holds its fixes; one it does not
  // hold either is unknown.
  nlohmann::json unlisted = Get("/v1/reference/H200-SILV-EU?from=2027-02-26", "tok-alpha");
  ASSERT_EQ(unlisted["fixes"].size(), 1u) << unlisted;
  EXPECT_EQ(unlisted["fixes"][0]["fix"], "3.1200");
  EXPECT_EQ(Get("/v1/reference/H200-SILV-EU/2027-02-26/explain", "tok-alpha")["grade"],
            "H200-SILV-EU");
  // A damaged explanation is a 500 (its bytes are not served as a 200 that is no JSON).
  Get("/v1/reference/H200-SILV-EU/2027-02-25/explain", "tok-alpha", 500);
  Get("/v1/reference/H200-SILV-EU/2027-02-24/explain", "tok-alpha", 500);
  Get("/v1/reference/H100-GOLD-EU?from=2027-02-26", "tok-alpha", 404);
  Trade();
  auto client = HttpClient::Connect("127.0.0.1", server_->http_port());
  ASSERT_TRUE(client.ok());
  auto metrics = client->Get("/metrics", "");
  ASSERT_TRUE(metrics.ok());
  EXPECT_NE(metrics->body.find("cfx_exchange_trades"), std::string::npos) << metrics->body;
}

// The API's margin_micro_usd is the exact margin; `margin` shows it in cents (it was the
// cents times 10,000: 1234.565 USD read back as 1234560000).
TEST(MarginAnswerTest, MicroUsdIsTheExactMargin) {
  gpu_valuation::MarginResult r;
  r.margin_micro = 1'234'565'000;
  r.margin_cents = 123'456;
  EXPECT_EQ(ToHttpMargin(r, 16).margin_micro_usd, 1'234'565'000);
}

// `cfx serve` as a process, started as SPEC §11 writes it (`cfx serve --config FILE`, no
// other flag) on a data dir that does not exist yet: starts a new exchange, answers
// /healthz, exits 0 on SIGTERM. Until 2026-12-07 it refused a new data dir without --init.
TEST(ServeProcessTest, StartsAndStopsCleanlyOnSigterm) {
  const std::string dir = FreshDir("process");
  const testsupport::RemoveOnExit cleanup(dir);
  const std::string config = dir + "/cfx.toml";
  std::ofstream(config) << test::ServeConfigText(dir + "/data");
  const std::string log = dir + "/serve.log";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    FILE* f = freopen(log.c_str(), "w", stderr);
    (void)f;
    const std::string bin = std::string(CFX_BINARY_DIR) + "/app/cfx";
    execl(bin.c_str(), bin.c_str(), "serve", "--config", config.c_str(), nullptr);
    _exit(127);
  }
  int http_port = 0;
  for (int i = 0; i < 200 && http_port == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t at = text.find("http=");
    if (at != std::string::npos) http_port = std::atoi(text.c_str() + at + 5);
  }
  ASSERT_GT(http_port, 0) << "no listening line in " << log;
  {
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("(fresh,"), std::string::npos) << text;
    EXPECT_NE(text.find("started a new exchange"), std::string::npos) << text;
  }
  auto client = HttpClient::Connect("127.0.0.1", http_port);
  ASSERT_TRUE(client.ok());
  auto health = client->Get("/healthz", "");
  ASSERT_TRUE(health.ok());
  EXPECT_EQ(health->status, 200);
  // A second serve on the same data dir, with other settlement terms, is refused before it
  // writes anything there: the running exchange's terms and audit log are as they were.
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string terms_before = read(dir + "/data/settlement_terms.toml");
  const std::string audit_before = read(dir + "/data/audit.log");
  ASSERT_FALSE(terms_before.empty());
  std::string other = test::ServeConfigText(dir + "/data");
  other.replace(other.find("psr = 0.15"), 10, "psr = 0.20");
  std::ofstream(dir + "/other.toml") << other;
  testsupport::CfxResult second = testsupport::RunCfx("serve --config " + dir + "/other.toml");
  EXPECT_NE(second.exit_code, 0);
  EXPECT_NE(second.output.find("in use by another cfx serve"), std::string::npos) << second.output;
  EXPECT_EQ(read(dir + "/data/settlement_terms.toml"), terms_before);
  EXPECT_EQ(read(dir + "/data/audit.log"), audit_before);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("stopped cleanly"), std::string::npos) << text;
}

// A data dir that is a file is said to be one (it used to read "holds no journal", as if an
// exchange's volume were missing), and nothing is written beside it.
TEST(ServeProcessTest, ADataDirThatIsAFileIsNamedAsSuch) {
  const std::string dir = FreshDir("data_dir_file");
  const testsupport::RemoveOnExit cleanup(dir);
  const std::string config = dir + "/cfx.toml";
  std::ofstream(config) << test::ServeConfigText(dir + "/data");
  std::ofstream(dir + "/afile") << "x";
  for (const char* init : {"", " --init", " --existing"}) {
    SCOPED_TRACE(init);
    testsupport::CfxResult r =
        testsupport::RunCfx("serve --config " + config + " --data-dir " + dir + "/afile" + init);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find(dir + "/afile: the data dir is not a folder"), std::string::npos)
        << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/data"));
}

}  // namespace
}  // namespace cfx::gateway
