// HTTP requests as raw bytes through Beast's parser (with the server's limits) and the API
// router, with JSON bodies: every input gives a response or a parse error, never a crash.
// The first byte picks a bearer token (none, a firm's, the risk desk's) so that the fuzzer
// reaches the authenticated routes and the what-if JSON parser.
#include <cstdlib>
#include <string>

#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "cfx/common/config.h"
#include "cfx/demo/demo_config.h"
#include "cfx/gateway/http_memory_providers.h"
#include "http_api.h"
#include "http_metrics.h"

namespace {

namespace bhttp = boost::beast::http;
using cfx::gateway::internal::HttpApi;

struct Fixture {
  cfx::common::ExchangeConfig config =
      *cfx::common::ParseConfig(cfx::demo::DemoConfigText(), "demo.toml");
  cfx::gateway::InMemoryProviders memory;
  cfx::gateway::HttpServerOptions options;
  cfx::gateway::internal::HttpMetrics metrics;
  std::unique_ptr<HttpApi> api;
  Fixture() {
    options.rate_limit_per_sec = 0;
    options.unauthorized_backoff.initial_ms = 0;  // each input on its own, as if from its own peer
    memory.SetListed("B200-GOLD-US-202703");
    api = std::make_unique<HttpApi>(config, memory.Providers(), options, &metrics);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* f = new Fixture();
  if (size == 0) return 0;
  static const char* const kTokens[] = {"", "tok-alpha", "tok-risk", "tok-beta"};
  const std::string token = kTokens[data[0] % 4];
  boost::beast::error_code ec;
  bhttp::request_parser<bhttp::string_body> parser;
  parser.body_limit(f->options.max_body_bytes);
  parser.header_limit(static_cast<uint32_t>(f->options.max_header_bytes));
  parser.eager(true);
  try {
    parser.put(boost::asio::buffer(data + 1, size - 1), ec);
  } catch (const std::length_error&) {
    return 0;  // Beast's field limit; the server drops the connection (http_server.cc, RunLoop)
  }
  if (ec || !parser.is_done()) return 0;
  bhttp::request<bhttp::string_body> req = parser.release();
  cfx::gateway::internal::HttpRequest request;
  request.method = std::string(req.method_string());
  request.target = std::string(req.target());
  if (auto it = req.find(bhttp::field::authorization); it != req.end()) {
    request.authorization = std::string(it->value());
  } else if (!token.empty()) {
    request.authorization = "Bearer " + token;
  }
  request.body = req.body();
  cfx::gateway::internal::HttpResponse r = f->api->Handle(request);
  if (r.status < 100 || r.status > 599) abort();
  return 0;
}
