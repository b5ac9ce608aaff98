#include "http_test_util.h"

#include "cfx/demo/demo_config.h"

namespace cfx::gateway::testing {

common::ExchangeConfig TestConfig() {
  absl::StatusOr<common::ExchangeConfig> config =
      common::ParseConfig(demo::DemoConfigText(), "demo.toml");
  EXPECT_TRUE(config.ok()) << config.status();
  config->listen_address = "127.0.0.1";
  config->http_port = 0;
  return *config;
}

void FillProviders(InMemoryProviders* mem) {
  for (const char* acct : {"ALPHA-1", "ALPHA-2", "BETA-1", "GAMMA-1"}) {
    PositionLine line;
    line.sym = kSym;
    line.qty = 7;
    line.avg_price = "5.250";
    line.last_price = "5.300";
    line.settle = "5.280";
    line.vm_micro_usd = 210'000'000;
    // The account id in a field: any response carrying another account's data shows it.
    line.open_buy_qty = acct[0] == 'A' ? 1 : acct[0] == 'B' ? 2 : 3;
    mem->SetPositions(acct, {line});
    MarginResult m;
    m.margin_micro_usd = 1'234'565'000;  // 1234.565 -> "1234.56" (half to even)
    m.scenario_count = 16;
    m.worst_scenario.number = 13;
    m.worst_scenario.label = "13";
    m.worst_scenario.price_move = -0.15;
    m.worst_scenario.tput_moves = {0.1, 0.08, 0.12, 0.2};
    m.positions.push_back({kSym, 7, "5.280", "1200", "1.2222", 1'234'565'000});
    mem->SetMargin(acct, MarginMethod::kSpan16, m);
    m.worst_scenario.number = 4711;
    m.scenario_count = 10000;
    mem->SetMargin(acct, MarginMethod::kMc, m);
  }
  BookSnapshot book;
  book.sym = kSym;
  book.state = "open";
  book.seq = 42;
  book.bids = {{"5.250", 10, 2}, {"5.240", 5, 1}};
  book.asks = {{"5.260", 3, 1}};
  book.last_trade = LastTrade{"5.255", 4, "2027-03-01T15:45:00Z"};
  mem->SetBook(book);
  mem->SetListed("B200-PLAT-US-202703");
  FixRecord fix;
  fix.grade = "B200-GOLD-US";
  fix.date = "2027-03-01";
  fix.fix = "5.4123";
  fix.level = 1;
  fix.p25 = "5.3000";
  fix.p75 = "5.5000";
  fix.n_obs = 9;
  fix.n_dropped = 1;
  fix.n_providers = 4;
  fix.volume = "12000";
  fix.theta = "1100";
  fix.price_per_mtok = "1.3667";
  FixRecord none = fix;
  none.date = "2027-03-02";
  none.fix = none.p25 = none.p75 = none.price_per_mtok = std::nullopt;
  none.level = std::nullopt;
  none.flags = {"insufficient_data"};
  mem->SetFixes("B200-GOLD-US", {fix, none});
  mem->SetGauges(
      {{"cfx_engine_ring_depth", "Inputs queued for the matcher.", {{"shard", "0"}}, 3}});
}

void HttpServerTest::StartServer(HttpServerOptions options) {
  FillProviders(&mem_);
  server_ = std::make_unique<HttpServer>(TestConfig(), mem_.Providers(), options);
  absl::Status s = server_->Start();
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_GT(server_->port(), 0);
}

HttpClient HttpServerTest::Connect() {
  absl::StatusOr<HttpClient> c = HttpClient::Connect("127.0.0.1", server_->port());
  EXPECT_TRUE(c.ok()) << c.status();
  return *std::move(c);
}

HttpClientResponse HttpServerTest::Call(const std::string& method, const std::string& target,
                                        const std::string& token, const std::string& body) {
  HttpClient c = Connect();
  absl::StatusOr<HttpClientResponse> r = c.Request(method, target, token, body);
  EXPECT_TRUE(r.ok()) << method << " " << target << ": " << r.status();
  return r.ok() ? *r : HttpClientResponse{};
}

}  // namespace cfx::gateway::testing
