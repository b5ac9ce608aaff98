// The exchange's HTTP/JSON API server (SPEC §7, docs/http.md): HTTP/1.1 with keep-alive on
// a small pool of I/O threads, bearer-token auth from the config, per-token rate limits,
// request size limits and read timeouts. `cfx serve` owns one:
//
//   cfx::gateway::HttpProviders providers{&margin, &positions, &books, &fixes, &gauges};
//   cfx::gateway::HttpServer server(config, providers, {});
//   if (absl::Status s = server.Start(); !s.ok()) { std::cerr << s << "\n"; return 2; }
//   ...
//   server.Stop();  // answers what is in flight, closes idle connections, joins threads
#ifndef CFX_GATEWAY_HTTP_SERVER_H_
#define CFX_GATEWAY_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "cfx/common/config.h"
#include "cfx/common/failure_backoff.h"
#include "cfx/gateway/http_providers.h"

namespace cfx::gateway {

// Limits and tuning. The defaults are what `cfx serve` uses.
inline common::BackoffOptions UnauthorizedBackoffDefaults() {
  common::BackoffOptions o;
  o.free_failures = 100;  // as [limits] http_unauthorized_free
  return o;
}

struct HttpServerOptions {
  int threads = 2;                     // I/O threads running the handlers
  size_t max_body_bytes = 64 * 1024;   // larger bodies -> 413, connection closed
  size_t max_header_bytes = 8 * 1024;  // larger request line + headers -> 431, closed
  // Time allowed to receive one whole request, counted from when the server starts waiting
  // for it (so it is also the keep-alive idle limit). Slow clients (slowloris) are cut off.
  std::chrono::milliseconds read_timeout{15000};
  std::chrono::milliseconds write_timeout{15000};
  // Per-token token bucket: refill rate (requests/s) and capacity, as [limits]
  // http_requests_per_sec / http_request_burst. 0 rate disables it.
  double rate_limit_per_sec = 1000;
  double rate_limit_burst = 1000;
  // A peer address whose requests presented an unknown or malformed token (401) more than
  // free_failures (100) times in a row gets 429 for every /v1 request during its back-off:
  // 1 s, doubling to 60 s; only a quiet spell ends the count, not a request that
  // authenticates (docs/http.md); at most max_keys addresses held. initial_ms 0 disables it.
  common::BackoffOptions unauthorized_backoff = UnauthorizedBackoffDefaults();
  int max_connections = 1024;  // beyond: accepted and closed at once
  // Connections from one peer address (SPEC §7): one client cannot hold every slot.
  int max_connections_per_peer = 64;                   // beyond: accepted and closed at once
  std::chrono::milliseconds stop_drain_timeout{5000};  // Stop() waits this long for in-flight
  int default_book_depth = 10;
  int max_book_depth = 1000;
  int max_reference_days = 366;  // a longer ?from=&to= range -> 400
  size_t max_whatif_positions = 1000;
  // Account margin and what-if run on threads of their own, not the I/O threads (a large
  // portfolio under `mc` is milliseconds of CPU; docs/http.md, "Valuation requests"), the
  // tokens with requests waiting taking turns. At most valuation_waiting requests wait
  // (past it: 503 busy) and one token has at most valuation_per_token waiting or running
  // (past it: 429), each with Retry-After.
  int valuation_threads = 1;
  size_t valuation_waiting = 1024;
  size_t valuation_per_token = 64;
  int default_audit_limit = 100;  // GET /v1/audit events per page
  int max_audit_limit = 1000;
};

// The defaults above with the config's [limits] applied (what `cfx serve` runs with).
HttpServerOptions HttpServerOptionsFromConfig(const common::ExchangeConfig& config);

// Thread safety: Start(), Stop() and the destructor must be called from one controlling
// thread (not from a provider callback); port() may be called from any thread after Start().
class HttpServer {
 public:
  // Copies what it needs from `config` (listen_address, http_port, tokens, accounts).
  // `providers` must outlive the server. http_port 0 binds an ephemeral port (tests).
  HttpServer(const common::ExchangeConfig& config, HttpProviders providers,
             HttpServerOptions options = {});
  ~HttpServer();  // calls Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts the I/O threads. Returns InvalidArgument for a bad address,
  // Unavailable if the address cannot be bound, FailedPrecondition if already started.
  absl::Status Start();
  // The bound port (the ephemeral one when configured 0); 0 before Start().
  int port() const;
  // Stops accepting, closes idle connections, lets in-flight requests finish (their
  // responses carry `Connection: close`) for up to stop_drain_timeout, then joins the I/O
  // threads. Idempotent; a stopped server cannot be restarted.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_HTTP_SERVER_H_
