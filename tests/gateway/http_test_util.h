// Shared fixture of the gateway tests: a config with three firms' tokens and a risk desk
// token, in-memory providers filled with recognisable data, and a real HttpServer on an
// ephemeral loopback port.
#ifndef CFX_TESTS_GATEWAY_HTTP_TEST_UTIL_H_
#define CFX_TESTS_GATEWAY_HTTP_TEST_UTIL_H_

#include <memory>
#include <string>

#include "cfx/client/http_client.h"
#include "cfx/common/config.h"
#include "cfx/gateway/http_memory_providers.h"
#include "cfx/gateway/http_server.h"
#include "gtest/gtest.h"

namespace cfx::gateway::testing {

using client::HttpClient;
using client::HttpClientResponse;

inline constexpr char kAlpha[] = "tok-alpha";  // firm ALPHA: ALPHA-1, ALPHA-2
inline constexpr char kBeta[] = "tok-beta";    // firm BETA: BETA-1
inline constexpr char kGamma[] = "tok-gamma";  // firm GAMMA: GAMMA-1
inline constexpr char kRisk[] = "tok-risk";    // risk desk
inline constexpr char kSym[] = "B200-GOLD-US-202703";

// Loopback, port 0, the demo's firms/accounts/tokens.
common::ExchangeConfig TestConfig();
// Fills positions/margins per account (each account's data carries its own id, so a leak
// is visible), one book, fixes for B200-GOLD-US and one gauge.
void FillProviders(InMemoryProviders* mem);

class HttpServerTest : public ::testing::Test {
 protected:
  // Starts a server with `options` (rate limiting and the 401 back-off off unless set).
  void StartServer(HttpServerOptions options = NoRateLimit());
  static HttpServerOptions NoRateLimit() {
    HttpServerOptions o;
    o.rate_limit_per_sec = 0;
    o.unauthorized_backoff.initial_ms = 0;  // the tests of 401s send many in a row
    return o;
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }
  HttpClient Connect();
  // Sends `raw` bytes on `c` as they are and reads one response.
  static absl::StatusOr<HttpClientResponse> SendRawAndRead(HttpClient& c, const std::string& raw) {
    if (absl::Status s = c.SendRaw(raw); !s.ok()) return s;
    return c.ReadResponse();
  }
  // One request on a fresh connection; fails the test on a transport error.
  HttpClientResponse Call(const std::string& method, const std::string& target,
                          const std::string& token, const std::string& body = "");

  InMemoryProviders mem_;
  std::unique_ptr<HttpServer> server_;
};

}  // namespace cfx::gateway::testing

#endif  // CFX_TESTS_GATEWAY_HTTP_TEST_UTIL_H_
