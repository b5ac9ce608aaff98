// The transport-free HTTP API: one request in, one response out. Order of checks (each a
// fixed answer, so a caller learns nothing from a later step it may not reach):
//   target parse (400) -> peer's 401 back-off (429) -> /v1 authentication (401)
//   -> per-token rate limit (429)
//   -> route (404) -> method (405) -> account access (403/404) -> parameters (400)
//   -> provider.
// /healthz and /metrics need no token (Prometheus scrapers) and show no per-firm data.
#ifndef CFX_GATEWAY_HTTP_API_H_
#define CFX_GATEWAY_HTTP_API_H_

#include "cfx/common/config.h"
#include "cfx/common/failure_backoff.h"
#include "cfx/gateway/http_providers.h"
#include "cfx/gateway/http_server.h"
#include "http_auth.h"
#include "http_handlers.h"
#include "http_message.h"
#include "http_metrics.h"
#include "http_rate_limiter.h"

namespace cfx::gateway::internal {

// Thread safety: Handle() may run on many threads at once; all state is immutable or
// thread-safe (rate limiter, metrics).
class HttpApi {
 public:
  // `metrics` must outlive the API. `clock` (monotonic ns, for the rate limiter and the 401
  // back-off) may be null (steady clock).
  HttpApi(const common::ExchangeConfig& config, HttpProviders providers, HttpServerOptions options,
          HttpMetrics* metrics, RateLimiter::Clock clock = nullptr);

  // Never throws: an exception from a provider becomes a 500.
  HttpResponse Handle(const HttpRequest& request);

  // Records a response produced by the transport itself (413, 431, 400 on a bad request).
  void RecordTransportError(int status) {
    metrics_->RecordRequest(Endpoint::kUnmatched, status, 0);
  }

 private:
  // Sets *backed_off when the request was refused (429) for its peer's back-off.
  HttpResponse Route(const HttpRequest& request, Endpoint* endpoint, bool* backed_off);

  HttpServerOptions options_;
  HttpProviders providers_;
  Authenticator auth_;
  RateLimiter limiter_;
  common::FailureBackoff unauthorized_;  // per peer address, after a 401 for a presented token
  HttpMetrics* metrics_;
  HandlerContext ctx_;
};

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_HTTP_API_H_
