// Unit tests of the transport-free pieces: target parsing, token auth and its back-off, rate limiter,
// money rendering and the metrics exposition.
#include <string>

#include "cfx/gateway/http_memory_providers.h"
#include "cfx/gateway/http_server.h"
#include "gtest/gtest.h"
#include "http_api.h"
#include "http_auth.h"
#include "http_json.h"
#include "http_metrics.h"
#include "http_rate_limiter.h"
#include "http_target.h"
#include "http_test_util.h"

namespace cfx::gateway::internal {
namespace {

TEST(HttpTargetTest, SplitsSegmentsAndDecodesQuery) {
  absl::StatusOr<ParsedTarget> t =
      ParseTarget("/v1/reference/B200-GOLD-US?from=2027-03-01&to=2027%2D03%2D02");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->segments, (std::vector<std::string>{"v1", "reference", "B200-GOLD-US"}));
  EXPECT_EQ(t->query.at("from"), "2027-03-01");
  EXPECT_EQ(t->query.at("to"), "2027-03-02");
  EXPECT_FALSE(t->duplicate_query_key);
}

TEST(HttpTargetTest, RejectsMalformedTargets) {
  for (const char* bad :
       {"", "v1/book", "/v1//book", "/v1/a%2Fb", "/v1/%zz", "/v1/%4", "/a%00b", "/x?k=%g1"}) {
    EXPECT_FALSE(ParseTarget(bad).ok()) << bad;
  }
  EXPECT_TRUE(ParseTarget("/x?a=1&a=2")->duplicate_query_key);
  EXPECT_EQ(ParseTarget("/healthz/")->segments.size(), 1u);
}

// RFC 9112 §3.2.2: a server must accept the absolute form (until 2026-12-06 it was 400).
TEST(HttpTargetTest, AcceptsTheAbsoluteForm) {
  absl::StatusOr<ParsedTarget> t =
      ParseTarget("http://127.0.0.1:8080/v1/reference/B200-GOLD-US?from=2027-03-01");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->segments, (std::vector<std::string>{"v1", "reference", "B200-GOLD-US"}));
  EXPECT_EQ(t->query.at("from"), "2027-03-01");
  ASSERT_TRUE(ParseTarget("HTTPS://x/healthz").ok());
  EXPECT_EQ(ParseTarget("HTTPS://x/healthz")->segments, (std::vector<std::string>{"healthz"}));
  EXPECT_TRUE(ParseTarget("http://x")->segments.empty());
  EXPECT_EQ(ParseTarget("http://x?a=1")->query.at("a"), "1");
  for (const char* bad : {"http:///healthz", "http://x//a", "ftp://x/healthz", "http:/x/a"}) {
    EXPECT_FALSE(ParseTarget(bad).ok()) << bad;
  }
}

TEST(HttpAuthTest, FirmSeesOwnAccountsOnlyAndCannotTellForeignFromUnknown) {
  Authenticator auth(testing::TestConfig());
  std::optional<Principal> alpha = auth.Authenticate("Bearer tok-alpha");
  ASSERT_TRUE(alpha.has_value());
  EXPECT_EQ(alpha->firm, "ALPHA");
  EXPECT_EQ(auth.CheckAccount(*alpha, "ALPHA-1"), AccountAccess::kAllowed);
  EXPECT_EQ(auth.CheckAccount(*alpha, "BETA-1"), AccountAccess::kDenied);
  EXPECT_EQ(auth.CheckAccount(*alpha, "NOPE"), AccountAccess::kDenied);
  std::optional<Principal> risk = auth.Authenticate("BEARER  tok-risk ");
  ASSERT_TRUE(risk.has_value());
  EXPECT_EQ(risk->role, common::TokenRole::kRiskDesk);
  EXPECT_EQ(auth.CheckAccount(*risk, "BETA-1"), AccountAccess::kAllowed);
  EXPECT_EQ(auth.CheckAccount(*risk, "NOPE"), AccountAccess::kUnknownAccount);
  for (const char* bad : {"", "Bearer", "Bearer ", "Bearer tok-alph", "Bearer tok-alphaa",
                          "Basic tok-alpha", "tok-alpha", "Bearertok-alpha"}) {
    EXPECT_FALSE(auth.Authenticate(bad).has_value()) << bad;
  }
}

// The 401 back-off per peer address (docs/http.md): a peer that presented a wrong token
// gets 429 for every /v1 request during its wait, the right token included; other peers are
// served; a success resets it; a request without any token starts none.
TEST(HttpAuthTest, WrongTokenBacksOffItsPeerOnly) {
  int64_t now = 1'000'000'000'000;
  InMemoryProviders memory;
  HttpServerOptions options;
  options.rate_limit_per_sec = 0;
  options.unauthorized_backoff.free_failures = 0;  // the waits from the first 401 on
  HttpMetrics metrics;
  HttpApi api(testing::TestConfig(), memory.Providers(), options, &metrics, [&] { return now; });
  auto get = [&](const std::string& peer, const std::string& token) {
    HttpRequest r;
    r.method = "GET";
    r.target = "/v1/accounts/ALPHA-1/positions";
    r.authorization = token.empty() ? "" : "Bearer " + token;
    r.authorization_headers = token.empty() ? 0 : 1;
    r.peer = peer;
    return api.Handle(r);
  };
  EXPECT_EQ(get("10.0.0.1", "").status, 401);  // no token: nothing guessed, no back-off
  EXPECT_EQ(get("10.0.0.1", "tok-alpha").status, 200);
  EXPECT_EQ(get("10.0.0.1", "tok-guess").status, 401);
  HttpResponse refused = get("10.0.0.1", "tok-alpha");
  EXPECT_EQ(refused.status, 429);
  ASSERT_EQ(refused.headers.size(), 1u);
  EXPECT_EQ(refused.headers[0], (std::pair<std::string, std::string>{"Retry-After", "1"}));
  EXPECT_EQ(get("10.0.0.1", "tok-guess").status, 429);  // guesses wait too, unchecked
  EXPECT_EQ(get("10.0.0.2", "tok-alpha").status, 200);  // other peers are served
  now += 1'000'000'000;
  EXPECT_EQ(get("10.0.0.1", "tok-guess").status, 401);  // the second failure: 2 s
  now += 1'999'000'000;
  EXPECT_EQ(get("10.0.0.1", "tok-alpha").status, 429);
  now += 1'000'000;
  EXPECT_EQ(get("10.0.0.1", "tok-alpha").status, 200);  // served, and the count goes on:
  EXPECT_EQ(get("10.0.0.1", "tok-guess").status, 401);
  now += 3'999'000'000;  // the third failure waits 4 s, not 1 s again
  EXPECT_EQ(get("10.0.0.1", "tok-alpha").status, 429);
  now += 1'000'000;
  EXPECT_EQ(get("10.0.0.1", "tok-alpha").status, 200);
  // A quiet spell of the cap (60 s) past the wait's end ends the count: 1 s again.
  now += 60'000'000'000;
  EXPECT_EQ(get("10.0.0.1", "tok-guess").status, 401);
  now += 1'000'000'000;
  EXPECT_EQ(get("10.0.0.1", "tok-alpha").status, 200);
}

TEST(HttpRateLimiterTest, TokenBucketRefillsAtTheConfiguredRate) {
  int64_t now = 0;
  RateLimiter limiter({"a", "b"}, /*rate_per_sec=*/2, /*burst=*/3, [&] { return now; });
  EXPECT_EQ(limiter.TryAcquire("a"), 0);
  EXPECT_EQ(limiter.TryAcquire("a"), 0);
  EXPECT_EQ(limiter.TryAcquire("a"), 0);
  EXPECT_EQ(limiter.TryAcquire("a"), 1);  // empty: 0.5 s to the next token -> 1 s
  EXPECT_EQ(limiter.TryAcquire("b"), 0);  // buckets are independent
  now += 500'000'000;                     // +0.5 s: one token back
  EXPECT_EQ(limiter.TryAcquire("a"), 0);
  EXPECT_EQ(limiter.TryAcquire("a"), 1);
  now += 60'000'000'000;  // a long pause refills to the burst, not beyond
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.TryAcquire("a"), 0);
  EXPECT_GT(limiter.TryAcquire("a"), 0);
  RateLimiter slow({"a"}, 0.1, 1, [&] { return now; });
  EXPECT_EQ(slow.TryAcquire("a"), 0);
  EXPECT_EQ(slow.TryAcquire("a"), 10);  // Retry-After rounds up to whole seconds
  RateLimiter off({"a"}, 0, 1, [&] { return now; });
  for (int i = 0; i < 100; ++i) EXPECT_EQ(off.TryAcquire("a"), 0);
}

// The server's limits come from [limits] (docs/config.md): the per-token rate and burst, and
// the 401s an address may have before its back-off.
TEST(HttpServerOptionsTest, TheConfigsLimitsReachTheServer) {
  common::ExchangeConfig config = testing::TestConfig();
  HttpServerOptions defaults = HttpServerOptionsFromConfig(config);
  EXPECT_EQ(defaults.rate_limit_per_sec, 1000);
  EXPECT_EQ(defaults.rate_limit_burst, 1000);
  EXPECT_EQ(defaults.unauthorized_backoff.free_failures, 100);
  config.limits.http_requests_per_sec = 0;
  config.limits.http_request_burst = 3;
  config.limits.http_unauthorized_free = 2;
  HttpServerOptions set = HttpServerOptionsFromConfig(config);
  EXPECT_EQ(set.rate_limit_per_sec, 0);
  EXPECT_EQ(set.rate_limit_burst, 3);
  EXPECT_EQ(set.unauthorized_backoff.free_failures, 2);
}

TEST(HttpJsonTest, UsdRoundsHalfToEvenOnTheCent) {
  EXPECT_EQ(UsdFromMicro(0), "0.00");
  EXPECT_EQ(UsdFromMicro(1'234'565'000), "1234.56");
  EXPECT_EQ(UsdFromMicro(1'234'575'000), "1234.58");
  EXPECT_EQ(UsdFromMicro(1'234'565'001), "1234.57");

  EXPECT_EQ(UsdFromMicro(-15'000), "-0.02");
}

TEST(HttpJsonTest, ErrorBodyEscapesAndSurvivesInvalidUtf8) {
  std::string j = ErrorJson("invalid_field", "bad \"x\"\n\xff");
  EXPECT_NE(j.find("\\\"x\\\""), std::string::npos) << j;
  EXPECT_EQ(j.find('\xff'), std::string::npos);
}

TEST(HttpMetricsTest, RendersCountersHistogramAndValidGaugesOnly) {
  HttpMetrics m;
  m.RecordRequest(Endpoint::kBook, 200, 30'000);     // 30 us
  m.RecordRequest(Endpoint::kBook, 200, 2'000'000);  // 2 ms
  m.RecordRequest(Endpoint::kBook, 418, 1'000);
  std::string text = m.Render({{"cfx_ok", "fine", {{"shard", "a\"b"}}, 1.5},
                               {"bad name", "x", {}, 1},
                               {"9bad", "x", {}, 1}});
  EXPECT_NE(text.find("cfx_http_requests_total{endpoint=\"/v1/book/{sym}\",code=\"200\"} 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("code=\"other\"} 1"), std::string::npos);
  EXPECT_NE(
      text.find(
          "cfx_http_request_duration_seconds_bucket{endpoint=\"/v1/book/{sym}\",le=\"5e-05\"} 2"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("le=\"+Inf\"} 3"), std::string::npos);
  EXPECT_NE(text.find("cfx_http_request_duration_seconds_count{endpoint=\"/v1/book/{sym}\"} 3"),
            std::string::npos);
  EXPECT_NE(text.find("cfx_ok{shard=\"a\\\"b\"} 1.5"), std::string::npos) << text;
  EXPECT_EQ(text.find("bad name"), std::string::npos);
  EXPECT_EQ(text.find("9bad"), std::string::npos);
  EXPECT_NE(text.find("# TYPE cfx_ok gauge"), std::string::npos) << text;
}

// A provider count that only goes up is typed counter; the transport's 417 has its own code.
TEST(HttpMetricsTest, ProviderCountersAreTypedCounterAnd417IsItsOwnCode) {
  HttpMetrics m;
  m.RecordRequest(Endpoint::kUnmatched, 417, 0);
  GaugeSample trades{"cfx_exchange_trades", "Trades since start", {}, 42};
  trades.counter = true;
  std::string text = m.Render({trades, {"cfx_depth", "now", {}, 3}});
  EXPECT_NE(text.find("# TYPE cfx_exchange_trades counter\ncfx_exchange_trades 42\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE cfx_depth gauge"), std::string::npos) << text;
  EXPECT_NE(text.find("code=\"417\"} 1"), std::string::npos) << text;
}

}  // namespace
}  // namespace cfx::gateway::internal
