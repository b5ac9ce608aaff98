#include "http_api.h"

#include <chrono>
#include <exception>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cfx/common/credentials.h"
#include "http_target.h"

namespace cfx::gateway::internal {
namespace {

RouteMatch Match(const std::vector<std::string>& s) {
  RouteMatch r;
  if (s.size() == 1 && s[0] == "healthz") {
    r.endpoint = Endpoint::kHealthz;
  } else if (s.size() == 1 && s[0] == "metrics") {
    r.endpoint = Endpoint::kMetrics;
  } else if (s.size() == 4 && s[0] == "v1" && s[1] == "accounts" && s[3] == "margin") {
    r = {Endpoint::kMargin, "GET", s[2], ""};
  } else if (s.size() == 4 && s[0] == "v1" && s[1] == "accounts" && s[3] == "positions") {
    r = {Endpoint::kPositions, "GET", s[2], ""};
  } else if (s.size() == 3 && s[0] == "v1" && s[1] == "margin" && s[2] == "whatif") {
    r = {Endpoint::kWhatIf, "POST", "", ""};
  } else if (s.size() == 3 && s[0] == "v1" && s[1] == "book") {
    r = {Endpoint::kBook, "GET", s[2], ""};
  } else if (s.size() == 3 && s[0] == "v1" && s[1] == "reference") {
    r = {Endpoint::kReference, "GET", s[2], ""};
  } else if (s.size() == 5 && s[0] == "v1" && s[1] == "reference" && s[4] == "explain") {
    r = {Endpoint::kReferenceExplain, "GET", s[2], s[3]};
  } else if (s.size() == 2 && s[0] == "v1" && s[1] == "contracts") {
    r = {Endpoint::kContracts, "GET", "", ""};
  } else if (s.size() == 3 && s[0] == "v1" && s[1] == "contracts") {
    r = {Endpoint::kContract, "GET", s[2], ""};
  } else if (s.size() == 2 && s[0] == "v1" && s[1] == "audit") {
    r = {Endpoint::kAudit, "GET", "", ""};
  }
  return r;
}

// The credential of an Authorization value: what follows the scheme ("" when none).
std::string Credential(const std::string& authorization) {
  const size_t space = authorization.find(' ');
  if (space == std::string::npos) return authorization;
  const size_t start = authorization.find_first_not_of(' ', space);
  return start == std::string::npos ? "" : authorization.substr(start);
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

HttpApi::HttpApi(const common::ExchangeConfig& config, HttpProviders providers,
                 HttpServerOptions options, HttpMetrics* metrics, RateLimiter::Clock clock)
    : options_(std::move(options)),
      providers_(providers),
      auth_(config),
      limiter_(auth_.Tokens(), options_.rate_limit_per_sec, options_.rate_limit_burst, clock),
      unauthorized_(options_.unauthorized_backoff, clock),
      metrics_(metrics),
      ctx_{&auth_, providers_, &options_} {}

Admission HttpApi::Admit(const HttpRequest& request) {
  Admission a;
  a.start_ns = NowNs();
  try {
    a.answer = Check(request, &a);
  } catch (const std::exception&) {
    a.answer = ErrorResponse(500, "internal", "internal error");
  }
  if (!a.answer && a.endpoint == Endpoint::kMargin) {
    // Decided before the request waits for a valuation thread: a refusal never queues.
    a.answer = CheckAccess(ctx_, *a.who, a.route.param);
  }
  // A repeated query parameter is malformed (400), decided after authentication (no token
  // or an unknown one is 401 whatever the query, SPEC §7) and after the access check, as
  // every other parameter is (a foreign account is 403, audited, whatever the query): until
  // 2026-12-07 it was decided before, and a probe of a foreign account left no trace.
  if (!a.answer && a.target.duplicate_query_key) {
    if (a.endpoint == Endpoint::kPositions) a.answer = CheckAccess(ctx_, *a.who, a.route.param);
    if (a.endpoint == Endpoint::kAudit) a.answer = CheckAuditAccess(*a.who);
    if (!a.answer) {
      a.answer = ErrorResponse(400, "invalid_parameter", "a query parameter is repeated");
    }
  }
  if (!a.answer) {
    a.valuation = a.endpoint == Endpoint::kMargin || a.endpoint == Endpoint::kWhatIf;
    if (a.who) a.owner = a.who->token_sha256;
  }
  return a;
}

HttpResponse HttpApi::Serve(const HttpRequest& request, const Admission& admission) {
  HttpResponse response;
  if (admission.answer) {
    response = *admission.answer;
  } else {
    try {
      response = Work(request, admission);
    } catch (const std::exception&) {
      // A provider threw. Its text may name internals, so it is not shown.
      response = ErrorResponse(500, "internal", "internal error");
    }
  }
  Record(request, admission, response);
  return response;
}

void HttpApi::RecordRefused(const Admission& admission, const HttpResponse& response) {
  metrics_->RecordRequest(admission.endpoint, response.status, NowNs() - admission.start_ns);
}

void HttpApi::Record(const HttpRequest& request, const Admission& a, const HttpResponse& response) {
  metrics_->RecordRequest(a.endpoint, response.status, NowNs() - a.start_ns);
  // Every refusal of a credential is an access decision: 401, 403 and the back-off's 429.
  if ((response.status == 401 || response.status == 403 || a.backed_off) &&
      providers_.audit != nullptr) {
    providers_.audit->Refused(response.status, EndpointLabel(a.endpoint), request.peer,
                              Credential(request.authorization));
  }
}

std::optional<HttpResponse> HttpApi::Check(const HttpRequest& request, Admission* a) {
  absl::StatusOr<ParsedTarget> target = ParseTarget(request.target);
  if (!target.ok()) {
    return ErrorResponse(400, "invalid_target", std::string(target.status().message()));
  }
  // SPEC §7: which of two credentials counts would be a guess, so neither does.
  if (request.authorization_headers > 1) {
    return ErrorResponse(400, "bad_request", "more than one Authorization header");
  }
  const std::vector<std::string>& seg = target->segments;
  bool versioned = !seg.empty() && seg[0] == "v1";

  // Matched first only to label the metrics; 404/405 come after authentication so that
  // an anonymous caller gets 401 for anything under /v1.
  a->route = Match(seg);
  a->endpoint = a->route.endpoint;

  if (versioned) {
    // A peer backing off after a wrong token is refused before any token is looked up, so
    // guessing goes no faster than the back-off allows (docs/http.md). Two requests guess
    // nothing and are not refused: one with no Authorization (401, SPEC §7), and one on a
    // connection that authenticated before with the very token it presents now (compared
    // with that connection's own token only, so it tells a guesser nothing): a client on an
    // address shared with a guesser keeps its open connections.
    if (int64_t wait_ms = unauthorized_.RemainingMs(PeerKey(request.peer));
        wait_ms > 0 && !request.authorization.empty()) {
      std::optional<std::string> presented;
      if (!request.connection_token_sha256.empty()) {
        presented = Authenticator::PresentedDigest(request.authorization);
      }
      if (!presented || !common::ConstantTimeEquals(*presented, request.connection_token_sha256)) {
        HttpResponse r = ErrorResponse(
            429, "rate_limited", "an unknown bearer token came from this address: retry later");
        r.headers.emplace_back("Retry-After", std::to_string((wait_ms + 999) / 1000));
        a->backed_off = true;
        return r;
      }
    }
    a->who = auth_.Authenticate(request.authorization);
    if (!a->who) {
      // A missing header guesses nothing: only a presented credential starts a back-off.
      if (!request.authorization.empty()) unauthorized_.Failed(PeerKey(request.peer));
      HttpResponse r =
          ErrorResponse(401, "unauthorized",
                        request.authorization.empty() ? "missing Authorization: Bearer <token>"
                                                      : "unknown or malformed bearer token");
      r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"cfx\"");
      return r;
    }
    // A success does not end the address's streak of wrong tokens (only a quiet spell does):
    // a caller holding one valid token could otherwise put it between every ten guesses at
    // another firm's and never wait (docs/http.md).
    if (int64_t retry = limiter_.TryAcquire(a->who->token_sha256); retry > 0) {
      HttpResponse r = ErrorResponse(
          429, "rate_limited",
          absl::StrCat("more than ", options_.rate_limit_per_sec, " requests/s for this token"));
      r.headers.emplace_back("Retry-After", std::to_string(retry));
      return r;
    }
  }

  if (a->route.endpoint == Endpoint::kUnmatched) {
    return ErrorResponse(404, "not_found", "no such endpoint");
  }
  // HEAD is GET without the body (RFC 9110 §9.3.2: every general-purpose server supports
  // it); the transport leaves the body out.
  const bool head_of_get = request.method == "HEAD" && std::string(a->route.method) == "GET";
  if (request.method != a->route.method && !head_of_get) {
    HttpResponse r =
        ErrorResponse(405, "method_not_allowed", absl::StrCat("use ", a->route.method));
    // HEAD is served on every GET route (above), so the Allow header names it too.
    r.headers.emplace_back("Allow", std::string(a->route.method) == "GET"
                                        ? std::string("GET, HEAD")
                                        : std::string(a->route.method));
    return r;
  }

  // A body is read as sent: one the client says it compressed (or encoded any other way) is
  // refused 415 rather than parsed as JSON and answered a misleading invalid_json.
  if (!request.content_encoding.empty() &&
      !absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(request.content_encoding), "identity")) {
    return ErrorResponse(415, "unsupported_media_type",
                         "Content-Encoding " + request.content_encoding +
                             ": only an unencoded (identity) body is accepted");
  }
  a->target = *std::move(target);
  return std::nullopt;
}

namespace {

// The answer every route gives a query parameter it does not take.
HttpResponse UnknownParameter(const std::string& key) {
  return ErrorResponse(400, "invalid_parameter", "unknown query parameter '" + key + "'");
}

}  // namespace

HttpResponse HttpApi::Work(const HttpRequest& request, const Admission& a) {
  const Query& query = a.target.query;
  const RouteMatch& route = a.route;
  switch (route.endpoint) {
    case Endpoint::kHealthz:
      // Neither takes a parameter: one given is refused as on every route (SPEC §7).
      if (!query.empty()) return UnknownParameter(query.begin()->first);
      return JsonResponse(200, "{\"status\":\"ok\"}");
    case Endpoint::kMetrics: {
      if (!query.empty()) return UnknownParameter(query.begin()->first);
      std::vector<GaugeSample> extra;
      if (providers_.metrics != nullptr) extra = providers_.metrics->Gauges();
      HttpResponse r;
      r.content_type = "text/plain; version=0.0.4; charset=utf-8";
      r.body = metrics_->Render(extra);
      return r;
    }
    case Endpoint::kMargin:
      return HandleMargin(ctx_, *a.who, route.param, query);
    case Endpoint::kWhatIf:
      return HandleWhatIf(ctx_, query, request.body);
    case Endpoint::kPositions:
      return HandlePositions(ctx_, *a.who, route.param, query);
    case Endpoint::kBook:
      return HandleBook(ctx_, route.param, query);
    case Endpoint::kReference:
      return HandleReference(ctx_, route.param, query);
    case Endpoint::kReferenceExplain:
      return HandleReferenceExplain(ctx_, route.param, route.param2, query);
    case Endpoint::kAudit:
      return HandleAudit(ctx_, *a.who, query);
    case Endpoint::kContracts:
      return HandleContracts(ctx_, query);
    case Endpoint::kContract:
      return HandleContract(ctx_, route.param, query);
    case Endpoint::kUnmatched:
      break;
  }
  return ErrorResponse(404, "not_found", "no such endpoint");
}

}  // namespace cfx::gateway::internal
