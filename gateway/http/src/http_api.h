// The transport-free HTTP API: one request in, one response out. Order of checks (each a
// fixed answer, so a caller learns nothing from a later step it may not reach):
//   target parse (400) -> peer's 401 back-off (429) -> /v1 authentication (401)
//   -> per-token rate limit (429)
//   -> route (404) -> method (405) -> account access (403/404) -> parameters (400)
//   -> provider.
// /healthz and /metrics need no token (Prometheus scrapers) and show no per-firm data.
#ifndef CFX_GATEWAY_HTTP_API_H_
#define CFX_GATEWAY_HTTP_API_H_

#include <optional>
#include <string>

#include "cfx/common/config.h"
#include "cfx/common/failure_backoff.h"
#include "cfx/gateway/http_providers.h"
#include "cfx/gateway/http_server.h"
#include "http_auth.h"
#include "http_handlers.h"
#include "http_message.h"
#include "http_metrics.h"
#include "http_rate_limiter.h"
#include "http_target.h"

namespace cfx::gateway::internal {

using common::PeerKey;  // the per-peer bounds' key (cfx/common/failure_backoff.h)

// Where a request's route points ({acct}, {sym} or {grade} in param, {date} in param2).
struct RouteMatch {
  Endpoint endpoint = Endpoint::kUnmatched;
  const char* method = "GET";  // the one method the route accepts
  std::string param;
  std::string param2;
};

// A request past the checks that come before its endpoint's own work (HttpApi::Admit):
// either answered already, or admitted with what the endpoint needs. Cheap to get; the work
// (Serve) may then run elsewhere: valuation off the I/O threads (docs/http.md, "Valuation
// requests").
struct Admission {
  std::optional<HttpResponse> answer;  // decided: an error, or the answer of /healthz
  // Valuation (margin, what-if): milliseconds of CPU for a large portfolio under `mc`.
  bool valuation = false;
  // Whose work it is: the token's digest (the fairness key of the valuation queue).
  std::string owner;
  // What Serve needs and what Handle records.
  Endpoint endpoint = Endpoint::kUnmatched;
  bool backed_off = false;
  RouteMatch route;
  ParsedTarget target;
  std::optional<Principal> who;
  int64_t start_ns = 0;
};

// Thread safety: Handle() may run on many threads at once; all state is immutable or
// thread-safe (rate limiter, metrics).
class HttpApi {
 public:
  // `metrics` must outlive the API. `clock` (monotonic ns, for the rate limiter and the 401
  // back-off) may be null (steady clock).
  HttpApi(const common::ExchangeConfig& config, HttpProviders providers, HttpServerOptions options,
          HttpMetrics* metrics, RateLimiter::Clock clock = nullptr);

  // Never throws: an exception from a provider becomes a 500. Admit and then Serve.
  HttpResponse Handle(const HttpRequest& request) { return Serve(request, Admit(request)); }

  // Every check that comes before the endpoint's own work (see the file comment); never
  // throws.
  Admission Admit(const HttpRequest& request);
  // The endpoint's work for an admitted request (or the answer decided at admission), with
  // its metrics and audit recorded. Never throws: an exception from a provider becomes a 500.
  HttpResponse Serve(const HttpRequest& request, const Admission& admission);
  // Records a request refused by the valuation queue (its 429 or 503 `response`).
  void RecordRefused(const Admission& admission, const HttpResponse& response);

  // Records a response produced by the transport itself (413, 431, 400 on a bad request).
  void RecordTransportError(int status) {
    metrics_->RecordRequest(Endpoint::kUnmatched, status, 0);
  }

 private:
  // The checks of Admit; an answer when one of them decides the request.
  std::optional<HttpResponse> Check(const HttpRequest& request, Admission* a);
  // The endpoint's own work.
  HttpResponse Work(const HttpRequest& request, const Admission& a);
  // Metrics and, for a refused credential, the audit.
  void Record(const HttpRequest& request, const Admission& a, const HttpResponse& response);

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
