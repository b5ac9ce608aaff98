// Endpoints, authentication and authorisation, over a real server on loopback.
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http_test_util.h"
#include "nlohmann/json.hpp"

namespace cfx::gateway::testing {
namespace {

using nlohmann::json;

json Body(const HttpClientResponse& r) {
  json j = json::parse(r.body, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.body;
  return j;
}

class HttpApiTest : public HttpServerTest {
 protected:
  void SetUp() override { StartServer(); }
};

TEST_F(HttpApiTest, HealthzNeedsNoToken) {
  HttpClientResponse r = Call("GET", "/healthz", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(Body(r)["status"], "ok");
  EXPECT_EQ(r.Header("content-type"), "application/json");
  // Neither it nor /metrics takes a parameter: one given is 400, as on every route.
  for (const char* target : {"/healthz?x=1", "/metrics?x=1"}) {
    HttpClientResponse bad = Call("GET", target, "");
    EXPECT_EQ(bad.status, 400) << target;
    EXPECT_EQ(Body(bad)["error"], "invalid_parameter") << target;
  }
}

TEST_F(HttpApiTest, MarginRendersPartsAndRoundsCentsHalfToEven) {
  HttpClientResponse r = Call("GET", "/v1/accounts/ALPHA-1/margin", kAlpha);
  ASSERT_EQ(r.status, 200) << r.body;
  json j = Body(r);
  EXPECT_EQ(j["account"], "ALPHA-1");
  EXPECT_EQ(j["method"], "span16");
  EXPECT_EQ(j["margin"], "1234.56");
  EXPECT_EQ(j["margin_micro_usd"], 1234565000);
  EXPECT_EQ(j["worst_scenario"], 13);
  EXPECT_EQ(j["scenario"]["price_move"], -0.15);
  EXPECT_EQ(j["scenario"]["tput_moves"]["GOLD"], 0.08);
  EXPECT_EQ(j["scenario_count"], 16);
  ASSERT_EQ(j["positions"].size(), 1u);
  json p = j["positions"][0];
  EXPECT_EQ(p["sym"], kSym);
  EXPECT_EQ(p["qty"], 7);
  EXPECT_EQ(p["settle"], "5.280");
  EXPECT_EQ(p["theta"], 1200);  // a number, as `cfx margin` prints it (SPEC §12)
  EXPECT_EQ(p["price_per_mtok"], "1.2222");
  EXPECT_EQ(p["worst_loss"], "1234.56");
}

TEST_F(HttpApiTest, MarginMethodMcIsPassedToTheProvider) {
  HttpClientResponse r = Call("GET", "/v1/accounts/ALPHA-1/margin?method=mc", kRisk);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["method"], "mc");
  EXPECT_EQ(Body(r)["worst_scenario"], 4711);
}

TEST_F(HttpApiTest, MarginRejectsBadMethodAndUnknownParameter) {
  for (const char* target :
       {"/v1/accounts/ALPHA-1/margin?method=var",
        "/v1/accounts/ALPHA-1/margin?method=", "/v1/accounts/ALPHA-1/margin?methd=mc",
        "/v1/accounts/ALPHA-1/margin?method=mc&method=span16",
        "/v1/accounts/ALPHA-1/margin?method=%zz"}) {
    HttpClientResponse r = Call("GET", target, kAlpha);
    EXPECT_EQ(r.status, 400) << target;
    json j = Body(r);
    EXPECT_TRUE(j.contains("error") && j.contains("detail")) << r.body;
  }
  // Without a token it is 401 whatever the query (SPEC §7; the repeat was 400 first).
  EXPECT_EQ(Call("GET", "/v1/accounts/ALPHA-1/margin?method=mc&method=mc", "").status, 401);
}

TEST_F(HttpApiTest, PositionsOfOwnAccount) {
  HttpClientResponse r = Call("GET", "/v1/accounts/ALPHA-2/positions", kAlpha);
  ASSERT_EQ(r.status, 200) << r.body;
  json j = Body(r);
  EXPECT_EQ(j["account"], "ALPHA-2");
  ASSERT_EQ(j["positions"].size(), 1u);
  EXPECT_EQ(j["positions"][0]["qty"], 7);
  EXPECT_EQ(j["positions"][0]["avg_price"], "5.250");
  EXPECT_EQ(j["positions"][0]["vm"], "210.00");
}

TEST_F(HttpApiTest, BookIsPublicToAnyTokenAndHonoursDepth) {
  for (const char* tok : {kAlpha, kBeta, kRisk}) {
    HttpClientResponse r = Call("GET", std::string("/v1/book/") + kSym, tok);
    ASSERT_EQ(r.status, 200) << r.body;
    json j = Body(r);
    EXPECT_EQ(j["state"], "open");
    EXPECT_EQ(j["seq"], 42);
    EXPECT_EQ(j["bids"], json::parse(R"([["5.250",10,2],["5.240",5,1]])"));
    EXPECT_EQ(j["asks"], json::parse(R"([["5.260",3,1]])"));
    EXPECT_EQ(j["last_trade"]["px"], "5.255");
  }
  HttpClientResponse r = Call("GET", std::string("/v1/book/") + kSym + "?depth=1", kAlpha);
  EXPECT_EQ(Body(r)["bids"].size(), 1u);
  EXPECT_EQ(Call("GET", std::string("/v1/book/") + kSym + "?depth=0", kAlpha).status, 400);
  EXPECT_EQ(Call("GET", std::string("/v1/book/") + kSym + "?depth=x", kAlpha).status, 400);
  EXPECT_EQ(Call("GET", "/v1/book/B200-GOLD-US-209912", kAlpha).status, 404);
  EXPECT_EQ(Call("GET", "/v1/book/not-a-symbol", kAlpha).status, 400);
  // Listed, no published book yet: an empty book, not an error.
  EXPECT_EQ(Call("GET", "/v1/book/B200-PLAT-US-202703", kAlpha).status, 200);
}

// GET /v1/contracts and /v1/contracts/{sym} (SPEC §3, §7): the security master as stored,
// public to every token; a row's history under its symbol.
TEST_F(HttpApiTest, ContractsListTheSecurityMasterAndOneContractHasItsHistory) {
  security_master::ContractRecord march;
  march.contract.sym = "B200-GOLD-US-202703";
  march.contract.contract = *common::ParseSymbol(march.contract.sym);
  march.contract.band_ref = common::PriceTicks(5000);
  march.contract.listing_date = *common::ParseDate("2027-03-01");
  march.contract.last_trading_day = *common::ParseDate("2027-03-31");
  march.contract.state = security_master::ContractState::kExpired;
  march.history.push_back({2, std::nullopt, march.contract.sym, security_master::EventKind::kListed,
                           common::PriceTicks(5000), common::Qty(1000)});
  security_master::ContractRecord april = march;
  april.contract.sym = "B200-GOLD-US-202704";
  april.contract.state = security_master::ContractState::kListed;
  april.history.clear();
  mem_.SetContract(march);
  mem_.SetContract(april);
  for (const char* tok : {kAlpha, kRisk}) {
    HttpClientResponse r = Call("GET", "/v1/contracts", tok);
    ASSERT_EQ(r.status, 200) << r.body;
    json j = Body(r);
    ASSERT_EQ(j["contracts"].size(), 2u);
    EXPECT_EQ(j["contracts"][0],
              json::parse(security_master::FormatContractJson(march.contract)));
    EXPECT_EQ(j["contracts"][1]["state"], "listed");
  }
  json listed = Body(Call("GET", "/v1/contracts?state=listed", kBeta));
  ASSERT_EQ(listed["contracts"].size(), 1u);
  EXPECT_EQ(listed["contracts"][0]["sym"], "B200-GOLD-US-202704");
  EXPECT_EQ(Call("GET", "/v1/contracts?state=gone", kBeta).status, 400);
  EXPECT_EQ(Call("GET", "/v1/contracts?x=1", kBeta).status, 400);
  HttpClientResponse one = Call("GET", "/v1/contracts/B200-GOLD-US-202703", kBeta);
  ASSERT_EQ(one.status, 200) << one.body;
  json j = Body(one);
  EXPECT_EQ(j["last_trading_day"], "2027-03-31");
  ASSERT_EQ(j["history"].size(), 1u);
  EXPECT_EQ(j["history"][0]["event"], "listed");
  EXPECT_EQ(Call("GET", "/v1/contracts/B200-GOLD-US-209912", kBeta).status, 404);
  // A malformed symbol is a bad parameter, not an unknown contract (as for /v1/book/{sym}).
  for (const char* bad : {"B200-GOLD-US", "B200-GOLD-US-2027-03", "B200-GOLD-US-202713",
                          "b200-gold-us-202703", "B200-GOLD-US-202703X"}) {
    HttpClientResponse r = Call("GET", std::string("/v1/contracts/") + bad, kBeta);
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(Body(r)["error"], "invalid_parameter") << bad;
  }
  EXPECT_EQ(Call("GET", "/v1/contracts", "").status, 401);
}

TEST_F(HttpApiTest, ReferenceFixesInRange) {
  HttpClientResponse r =
      Call("GET", "/v1/reference/B200-GOLD-US?from=2027-03-01&to=2027-03-02", kBeta);
  ASSERT_EQ(r.status, 200) << r.body;
  json j = Body(r);
  ASSERT_EQ(j["fixes"].size(), 2u);
  EXPECT_EQ(j["fixes"][0]["fix"], "5.4123");
  EXPECT_EQ(j["fixes"][0]["level"], 1);
  EXPECT_EQ(j["fixes"][0]["n_obs"], 9);
  // θ and the volume are numbers, as `cfx reference build` prints them (SPEC §12).
  EXPECT_EQ(j["fixes"][0]["theta"], 1100);
  EXPECT_EQ(j["fixes"][0]["volume"], 12000);
  EXPECT_TRUE(j["fixes"][1]["fix"].is_null());
  EXPECT_EQ(j["fixes"][1]["flags"], json::parse(R"(["insufficient_data"])"));
  // `to` defaults to `from`.
  r = Call("GET", "/v1/reference/B200-GOLD-US?from=2027-03-02", kBeta);
  EXPECT_EQ(Body(r)["fixes"].size(), 1u);
}

TEST_F(HttpApiTest, ReferenceRecordsCarryTheMethodologyAndInputsHash) {
  FixRecord first;
  first.grade = "B200-GOLD-US";
  first.date = "2027-03-01";
  first.fix = "5.4123";
  first.level = 1;
  first.methodology = "cfx-ref-2";
  first.inputs_sha256 = std::string(64, 'b');
  first.theta = "1234.5678";
  first.volume = "0.25";
  FixRecord revised = first;
  revised.fix = "5.4200";
  revised.revision = 1;
  revised.reason = "late trade from Kite";
  mem_.SetFixes("B200-GOLD-US", {first, revised});
  json j = Body(Call("GET", "/v1/reference/B200-GOLD-US?from=2027-03-01", kBeta));
  ASSERT_EQ(j["fixes"].size(), 1u);  // the latest revision only
  EXPECT_EQ(j["fixes"][0]["fix"], "5.4200");
  EXPECT_EQ(j["fixes"][0]["methodology"], "cfx-ref-2");
  EXPECT_EQ(j["fixes"][0]["inputs_sha256"], std::string(64, 'b'));
  EXPECT_FALSE(j["fixes"][0].contains("revision"));
  // Fractional measures come back with the digits given, as JSON numbers.
  EXPECT_EQ(j["fixes"][0]["theta"].dump(), "1234.5678");
  EXPECT_EQ(j["fixes"][0]["volume"].dump(), "0.25");
  // revisions=true: the earlier record is kept and listed, each with its revision and reason.
  j = Body(Call("GET", "/v1/reference/B200-GOLD-US?from=2027-03-01&revisions=true", kBeta));
  ASSERT_EQ(j["fixes"].size(), 2u);
  EXPECT_EQ(j["fixes"][0]["fix"], "5.4123");
  EXPECT_EQ(j["fixes"][0]["revision"], 0);
  EXPECT_EQ(j["fixes"][0]["reason"], "");
  EXPECT_EQ(j["fixes"][1]["revision"], 1);
  EXPECT_EQ(j["fixes"][1]["reason"], "late trade from Kite");
  EXPECT_EQ(Call("GET", "/v1/reference/B200-GOLD-US?from=2027-03-01&revisions=1", kBeta).status,
            400);
}

TEST_F(HttpApiTest, ReferenceExplainAnswersTheStoredExplanation) {
  mem_.SetExplanation("B200-GOLD-US", "2027-03-01",
                      R"({"grade":"B200-GOLD-US","date":"2027-03-01","level":1})");
  HttpClientResponse r = Call("GET", "/v1/reference/B200-GOLD-US/2027-03-01/explain", kBeta);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["level"], 1);
  EXPECT_EQ(Call("GET", "/v1/reference/B200-GOLD-US/2027-03-02/explain", kBeta).status, 404);
  EXPECT_EQ(Call("GET", "/v1/reference/B200-GOLD-US/2027-3-1/explain", kBeta).status, 400);
  EXPECT_EQ(Call("GET", "/v1/reference/b200/2027-03-01/explain", kBeta).status, 400);
  EXPECT_EQ(Call("GET", "/v1/reference/B200-GOLD-US/2027-03-01/explain?x=1", kBeta).status, 400);
  EXPECT_EQ(Call("GET", "/v1/reference/B200-GOLD-US/2027-03-01/explain", "").status, 401);
}

TEST_F(HttpApiTest, ReferenceRejectsBadDatesAndGrades) {
  for (const char* target :
       {"/v1/reference/B200-GOLD-US", "/v1/reference/B200-GOLD-US?from=2027-02-30",
        "/v1/reference/B200-GOLD-US?from=20270301",
        "/v1/reference/B200-GOLD-US?from=2027-03-01&to=yesterday",
        "/v1/reference/B200-GOLD-US?from=2027-03-02&to=2027-03-01",
        "/v1/reference/B200-GOLD-US?from=2020-01-01&to=2027-03-01",
        "/v1/reference/B200-WOOD-US?from=2027-03-01", "/v1/reference/b200?from=2027-03-01"}) {
    EXPECT_EQ(Call("GET", target, kRisk).status, 400) << target;
  }
  EXPECT_EQ(Call("GET", "/v1/reference/H100-GOLD-EU?from=2027-03-01", kRisk).status, 404);
}

TEST_F(HttpApiTest, WhatIfForAFirmToken) {
  HttpClientResponse r = Call("POST", "/v1/margin/whatif", kGamma,
                              R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":-5}],)"
                              R"("method":"span16"})");
  ASSERT_EQ(r.status, 200) << r.body;
  json j = Body(r);
  EXPECT_FALSE(j.contains("account"));
  EXPECT_EQ(j["margin"], "5000.00");  // 5 x 1000 USD per contract in the fake
  EXPECT_EQ(j["positions"][0]["qty"], -5);
  // Method defaults to span16; an empty portfolio is margin 0.
  r = Call("POST", "/v1/margin/whatif", kRisk, R"({"positions":[]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["margin"], "0.00");
  EXPECT_EQ(Body(r)["method"], "span16");
}

TEST_F(HttpApiTest, WhatIfRejectsMalformedBodiesAndChangesNothing) {
  const std::vector<std::string> bodies = {
      "",
      "not json",
      "{\"positions\":[",
      "[1,2,3]",
      "42",
      "{}",
      R"({"positions":{}})",
      R"({"positions":[1]})",
      R"({"positions":[{"qty":-5}]})",
      R"({"positions":[{"sym":"B200-GOLD-US-202703"}]})",
      R"({"positions":[{"sym":5,"qty":-5}]})",
      R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":"5"}]})",
      R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":1.5}]})",
      R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":true}]})",
      R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":99999999999999999999}]})",
      R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":-1000000001}]})",
      R"({"positions":[{"sym":"NOT-A-SYMBOL","qty":1}]})",
      R"({"positions":[],"method":"var"})",
      R"({"positions":[],"method":16})",
      std::string(20000, '[') + std::string(20000, ']'),
      // A raw NUL ends nlohmann's input: what follows it went unread (an audit, 2026-12-06).
      std::string("{\"positions\":[]}\0garbage", 24),
      std::string("{\"positions\":[]}\0", 17),
  };
  for (const std::string& body : bodies) {
    int64_t calls = mem_.calls();
    HttpClientResponse r = Call("POST", "/v1/margin/whatif", kRisk, body);
    EXPECT_EQ(r.status, 400) << body.substr(0, 80) << " -> " << r.body;
    json j = Body(r);
    EXPECT_TRUE(j["error"].is_string() && j["detail"].is_string()) << r.body;
    if (body.find('\0') != std::string::npos) EXPECT_EQ(j["error"], "invalid_json") << r.body;
    EXPECT_EQ(mem_.calls(), calls) << "a malformed request reached a provider";
  }
  // A well-formed request naming an unlisted contract: the provider's InvalidArgument.
  HttpClientResponse r = Call("POST", "/v1/margin/whatif", kRisk,
                              R"({"positions":[{"sym":"B200-GOLD-US-209912","qty":1}]})");
  EXPECT_EQ(r.status, 400);
}

// SPEC §7: a JSON body with a duplicate key is malformed (nlohmann alone keeps the last).
TEST_F(HttpApiTest, WhatIfBodyWithADuplicateKeyIs400) {
  for (const std::string body :
       {R"({"positions":[],"positions":[{"sym":"B200-GOLD-US-202703","qty":1}]})",
        R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":1,"qty":-5}]})",
        R"({"method":"span16","positions":[],"method":"mc"})"}) {
    int64_t calls = mem_.calls();
    HttpClientResponse r = Call("POST", "/v1/margin/whatif", kRisk, body);
    EXPECT_EQ(r.status, 400) << body << " -> " << r.body;
    EXPECT_EQ(mem_.calls(), calls) << "a malformed request reached a provider";
  }
  // The same key in two different objects is fine.
  HttpClientResponse r = Call(
      "POST", "/v1/margin/whatif", kRisk,
      R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":1},{"sym":"B200-GOLD-US-202703","qty":2}]})");
  EXPECT_EQ(r.status, 200) << r.body;
}

// SPEC §7: more than one Authorization header is malformed, whichever token comes first.
TEST_F(HttpApiTest, TwoAuthorizationHeadersAre400EitherWay) {
  const std::string target = std::string("/v1/book/") + kSym;
  for (const auto& [first, second] :
       {std::pair{"tok-risk", "tok-nobody"}, std::pair{"tok-nobody", "tok-risk"},
        std::pair{"tok-risk", "tok-risk"}}) {
    HttpClient c = Connect();
    ASSERT_TRUE(c.SendRaw("GET " + target + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                          first + "\r\nAuthorization: Bearer " + second + "\r\n\r\n")
                    .ok());
    absl::StatusOr<HttpClientResponse> r = c.ReadResponse();
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, 400) << first << ", " << second << " -> " << r->body;
  }
  // One header still works.
  EXPECT_EQ(Call("GET", target, "tok-risk").status, 200);
}

// A body is read as sent: one declared compressed (or otherwise encoded) is 415, not parsed;
// `identity` is the body as sent.
TEST_F(HttpApiTest, AnEncodedBodyIs415AndIdentityIsServed) {
  const std::string body = R"({"positions":[{"sym":")" + std::string(kSym) + R"(","qty":-5}]})";
  for (const auto& [encoding, status] :
       {std::pair{"gzip", 415}, std::pair{"br", 415}, std::pair{"identity", 200}}) {
    HttpClient c = Connect();
    ASSERT_TRUE(c.SendRaw("POST /v1/margin/whatif HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                          "tok-alpha\r\nContent-Type: application/json\r\nContent-Encoding: " +
                          std::string(encoding) +
                          "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body)
                    .ok());
    absl::StatusOr<HttpClientResponse> r = c.ReadResponse();
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status, status) << encoding << " -> " << r->body;
    if (status == 415) {
      EXPECT_EQ(nlohmann::json::parse(r->body)["error"], "unsupported_media_type");
    }
  }
}

// The statuses the API reports to the audit log as refusals.
class RecordingAudit : public AuditProvider {
 public:
  absl::StatusOr<AuditEvents> Events(uint64_t, size_t) override { return AuditEvents{}; }
  void Refused(int status, const std::string&, const std::string&,
               const std::string&) override {
    std::lock_guard<std::mutex> lock(mu_);
    statuses_.push_back(status);
  }
  std::vector<int> statuses() {
    std::lock_guard<std::mutex> lock(mu_);
    return statuses_;
  }

 private:
  std::mutex mu_;
  std::vector<int> statuses_;
};

// Over a real socket: the back-off keys on the connection's peer address (docs/http.md),
// and its refusals are audited like the 401 that started it.
TEST(HttpBackoffTest, WrongTokenGets429UntilTheBackOffEnds) {
  InMemoryProviders mem;
  FillProviders(&mem);
  RecordingAudit audit;
  HttpProviders providers = mem.Providers();
  providers.audit = &audit;
  HttpServerOptions options;  // the default back-off's waits, after the 11th wrong token here
  options.unauthorized_backoff.free_failures = 10;
  options.rate_limit_per_sec = 0;
  HttpServer server(TestConfig(), providers, options);
  ASSERT_TRUE(server.Start().ok());
  absl::StatusOr<HttpClient> c = HttpClient::Connect("127.0.0.1", server.port());
  ASSERT_TRUE(c.ok()) << c.status();
  const std::string target = "/v1/accounts/ALPHA-1/positions";
  EXPECT_EQ(c->Get(target, kAlpha)->status, 200);
  // Ten wrong tokens cost no wait (a client fixing its configuration is not locked out):
  // each is a 401, and the right token is served between them, without ending the count (a
  // guesser holding one valid token would put it between every ten guesses).
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(c->Get(target, "tok-guess")->status, 401) << i;
    if (i == 4 || i == 9) EXPECT_EQ(c->Get(target, kAlpha)->status, 200) << i;
  }
  EXPECT_EQ(c->Get(target, "tok-guess")->status, 401);  // the 11th: the back-off starts
  // Every token from this address is now refused before it is looked up, the right one
  // included, on a new connection ...
  absl::StatusOr<HttpClient> fresh = HttpClient::Connect("127.0.0.1", server.port());
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  absl::StatusOr<HttpClientResponse> r = fresh->Get(target, kAlpha);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->Header("retry-after"), "1");
  // ... and on the guesser's own connection any token but the one it authenticated with
  // (another valid one included: no guess is looked up). Its own token is still served:
  // compared with that connection's token alone, it tells nothing, and a client sharing
  // the address with a guesser keeps its open connections (until 2026-12-06 it got 429s
  // too, up to a minute each time).
  EXPECT_EQ(c->Get(target, kBeta)->status, 429);
  EXPECT_EQ(c->Get(target, "tok-guess")->status, 429);
  EXPECT_EQ(c->Get(target, kAlpha)->status, 200);
  // No Authorization at all guesses nothing: 401, as SPEC §7 says (it was 429).
  EXPECT_EQ(fresh->Get(target, "")->status, 401);
  EXPECT_EQ(c->Get("/healthz", "")->status, 200);  // outside /v1: not refused
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(fresh->Get(target, kAlpha)->status, 200);
  server.Stop();
  std::vector<int> audited(11, 401);
  audited.insert(audited.end(), {429, 429, 429, 401});
  EXPECT_EQ(audit.statuses(), audited);
}

TEST_F(HttpApiTest, NoTokenOrUnknownTokenIs401) {
  const std::vector<std::string> targets = {
      "/v1/accounts/ALPHA-1/margin", "/v1/accounts/ALPHA-1/positions",
      std::string("/v1/book/") + kSym, "/v1/reference/B200-GOLD-US?from=2027-03-01",
      "/v1/nothing-here"};
  for (const std::string& t : targets) {
    EXPECT_EQ(Call("GET", t, "").status, 401) << t;
    EXPECT_EQ(Call("GET", t, "tok-nobody").status, 401) << t;
    HttpClientResponse r = Call("GET", t, "tok-alph");  // a prefix of a real token
    EXPECT_EQ(r.status, 401) << t;
    EXPECT_EQ(r.Header("www-authenticate"), "Bearer realm=\"cfx\"");
  }
  EXPECT_EQ(Call("POST", "/v1/margin/whatif", "", R"({"positions":[]})").status, 401);
  // Other schemes and a bare token are not bearer tokens.
  HttpClient c = Connect();
  ASSERT_TRUE(c.SendRaw("GET /v1/book/B200-GOLD-US-202703 HTTP/1.1\r\nHost: x\r\n"
                        "Authorization: Basic dG9rLXJpc2s6\r\n\r\n")
                  .ok());
  EXPECT_EQ(c.ReadResponse()->status, 401);
  ASSERT_TRUE(c.SendRaw("GET /v1/book/B200-GOLD-US-202703 HTTP/1.1\r\nHost: x\r\n"
                        "Authorization: tok-risk\r\n\r\n")
                  .ok());
  EXPECT_EQ(c.ReadResponse()->status, 401);
  ASSERT_TRUE(c.SendRaw("GET /v1/book/B200-GOLD-US-202703 HTTP/1.1\r\nHost: x\r\n"
                        "Authorization: bearer tok-risk\r\n\r\n")
                  .ok());
  EXPECT_EQ(c.ReadResponse()->status, 200);  // the scheme is case-insensitive
}

TEST_F(HttpApiTest, RiskDeskSeesEveryAccountAndGets404ForUnknown) {
  for (const char* acct : {"ALPHA-1", "ALPHA-2", "BETA-1", "GAMMA-1"}) {
    for (const char* what : {"margin", "positions"}) {
      std::string t = std::string("/v1/accounts/") + acct + "/" + what;
      EXPECT_EQ(Call("GET", t, kRisk).status, 200) << t;
    }
  }
  EXPECT_EQ(Call("GET", "/v1/accounts/NOPE-1/margin", kRisk).status, 404);
  EXPECT_EQ(Call("GET", "/v1/accounts/NOPE-1/positions", kRisk).status, 404);
}

// The isolation property: for every per-account endpoint and every firm token, another
// firm's account and a non-existent account get the same 403 answer, byte for byte, no
// provider is asked, and the firm's own accounts are served.
TEST_F(HttpApiTest, NoFirmCanReadAnotherFirmsAccountThroughAnyEndpoint) {
  struct Firm {
    const char* token;
    const char* firm;
  };
  const std::vector<Firm> firms = {{kAlpha, "ALPHA"}, {kBeta, "BETA"}, {kGamma, "GAMMA"}};
  const std::vector<std::string> accounts = {"ALPHA-1", "ALPHA-2", "BETA-1",     "GAMMA-1",
                                             "NOPE-1",  "alpha-1", "ALPHA-1%20", "ALPHA-1x"};
  // A repeated parameter too is looked at only after the access check (until 2026-12-07 it
  // was a 400 before it, and a probe of another firm's account left no 403 in the audit).
  const std::vector<std::string> suffixes = {
      "/margin",    "/margin?method=mc", "/margin?method=bogus", "/margin?method=mc&method=mc",
      "/positions", "/positions?x=1",    "/positions?x=1&x=1"};
  std::string forbidden_body;
  for (const Firm& f : firms) {
    for (const std::string& acct : accounts) {
      bool own = acct.rfind(std::string(f.firm) + "-", 0) == 0 &&
                 acct.find(' ') == std::string::npos && acct.find('%') == std::string::npos &&
                 acct.back() != 'x';
      for (const std::string& suffix : suffixes) {
        std::string target = "/v1/accounts/" + acct + suffix;
        int64_t calls = mem_.calls();
        HttpClientResponse r = Call("GET", target, f.token);
        if (own) {
          EXPECT_NE(r.status, 403) << f.token << " " << target;
          continue;
        }
        EXPECT_EQ(r.status, 403) << f.token << " " << target << " " << r.body;
        EXPECT_EQ(mem_.calls(), calls) << "a refused request reached a provider";
        if (forbidden_body.empty()) forbidden_body = r.body;
        EXPECT_EQ(r.body, forbidden_body) << "403 bodies differ: existence leaks";
        EXPECT_EQ(r.body.find(acct), std::string::npos);
      }
    }
  }
  // Endpoints without an account in the path show no account data to a firm token.
  for (const Firm& f : firms) {
    for (const std::string& t : {std::string("/v1/book/") + kSym,
                                 std::string("/v1/reference/B200-GOLD-US?from=2027-03-01")}) {
      HttpClientResponse r = Call("GET", t, f.token);
      EXPECT_EQ(r.status, 200);
      for (const char* acct : {"ALPHA", "BETA", "GAMMA"}) {
        EXPECT_EQ(r.body.find(acct), std::string::npos) << t;
      }
    }
    HttpClientResponse w = Call("POST", "/v1/margin/whatif", f.token,
                                R"({"positions":[{"sym":"B200-GOLD-US-202703","qty":1}]})");
    EXPECT_EQ(w.status, 200);
    for (const char* acct : {"ALPHA", "BETA", "GAMMA"}) {
      EXPECT_EQ(w.body.find(acct), std::string::npos);
    }
  }
}

// A repeated query parameter is a 400 once the request may be answered at all: after the
// token (401), the account's access (403, 404) and the audit log's role (403).
TEST_F(HttpApiTest, ARepeatedParameterIsDecidedAfterTheAccessCheck) {
  EXPECT_EQ(Call("GET", "/v1/accounts/ALPHA-1/positions?x=1&x=1", "").status, 401);
  EXPECT_EQ(Call("GET", "/v1/accounts/BETA-1/positions?x=1&x=1", kAlpha).status, 403);
  EXPECT_EQ(Call("GET", "/v1/accounts/ALPHA-1/positions?x=1&x=1", kAlpha).status, 400);
  EXPECT_EQ(Call("GET", "/v1/accounts/NOPE-1/positions?x=1&x=1", kRisk).status, 404);
  EXPECT_EQ(Call("GET", "/v1/accounts/NOPE-1/margin?method=mc&method=mc", kRisk).status, 404);
  EXPECT_EQ(Call("GET", "/v1/audit?after=1&after=1", kAlpha).status, 403);
  EXPECT_EQ(Call("GET", "/v1/audit?after=1&after=1", kRisk).status, 400);
  EXPECT_EQ(Call("GET", "/v1/book/" + std::string(kSym) + "?a=1&a=1", kAlpha).status, 400);
}

TEST_F(HttpApiTest, UnknownPathIs404AndWrongMethodIs405) {
  EXPECT_EQ(Call("GET", "/nothing", "").status, 404);
  EXPECT_EQ(Call("GET", "/v1/accounts/ALPHA-1", kAlpha).status, 404);
  EXPECT_EQ(Call("GET", "/v1/accounts/ALPHA-1/orders", kAlpha).status, 404);
  EXPECT_EQ(Call("GET", "/v2/book/x", "").status, 404);
  HttpClientResponse r = Call("POST", "/v1/accounts/ALPHA-1/margin", kAlpha, "{}");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.Header("allow"), "GET, HEAD");  // HEAD is served on every GET route
  r = Call("GET", "/v1/margin/whatif", kAlpha);
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.Header("allow"), "POST");
  EXPECT_EQ(Call("DELETE", std::string("/v1/book/") + kSym, kAlpha).status, 405);
  EXPECT_EQ(Call("POST", "/healthz", "", "{}").status, 405);
  EXPECT_EQ(Call("GET", "/v1//book", kAlpha).status, 400);
}

TEST_F(HttpApiTest, MetricsArePrometheusTextWithoutAccountData) {
  Call("GET", "/v1/accounts/ALPHA-1/margin", kAlpha);
  Call("GET", "/v1/accounts/BETA-1/margin", kAlpha);
  Call("GET", "/v1/accounts/NOPE/positions", kRisk);
  HttpClientResponse r = Call("GET", "/metrics", "");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& m = r.body;
  EXPECT_NE(m.find("# TYPE cfx_http_requests_total counter"), std::string::npos);
  EXPECT_NE(
      m.find("cfx_http_requests_total{endpoint=\"/v1/accounts/{acct}/margin\",code=\"200\"} 1"),
      std::string::npos)
      << m;
  EXPECT_NE(
      m.find("cfx_http_requests_total{endpoint=\"/v1/accounts/{acct}/margin\",code=\"403\"} 1"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("cfx_http_request_duration_seconds_bucket{endpoint=\"/v1/accounts/{acct}/"
                   "margin\",le=\"+Inf\"} 2"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("cfx_http_connections_active "), std::string::npos);
  EXPECT_NE(m.find("cfx_engine_ring_depth{shard=\"0\"} 3"), std::string::npos) << m;
  for (const char* secret : {"ALPHA", "BETA", "NOPE", "tok-"}) {
    EXPECT_EQ(m.find(secret), std::string::npos) << secret;
  }
}

TEST_F(HttpApiTest, MissingProviderAnswers503) {
  server_->Stop();
  HttpProviders partial;
  partial.book = &mem_;
  server_ = std::make_unique<HttpServer>(TestConfig(), partial, NoRateLimit());
  ASSERT_TRUE(server_->Start().ok());
  EXPECT_EQ(Call("GET", "/v1/accounts/ALPHA-1/margin", kAlpha).status, 503);
  EXPECT_EQ(Call("GET", "/v1/accounts/ALPHA-1/positions", kAlpha).status, 503);
  EXPECT_EQ(Call("GET", "/v1/reference/B200-GOLD-US?from=2027-03-01", kAlpha).status, 503);
  EXPECT_EQ(Call("GET", std::string("/v1/book/") + kSym, kAlpha).status, 200);
  EXPECT_EQ(Call("GET", "/metrics", "").status, 200);
}

}  // namespace
}  // namespace cfx::gateway::testing
