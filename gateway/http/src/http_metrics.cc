#include "http_metrics.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "absl/strings/str_cat.h"

namespace cfx::gateway::internal {
namespace {

bool ValidMetricName(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

bool ValidLabelName(const std::string& name) {
  return ValidMetricName(name) && name.find(':') == std::string::npos;
}

std::string EscapeLabelValue(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out.push_back(c);
  }
  return out;
}

std::string EscapeHelp(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out.push_back(c);
  }
  return out;
}

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Shortest text that reads back as the same double ("5e-05", not 5.0000000000000002e-05).
  char buf[64];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace

const char* EndpointLabel(Endpoint e) {
  switch (e) {
    case Endpoint::kHealthz: return "/healthz";
    case Endpoint::kMetrics: return "/metrics";
    case Endpoint::kMargin: return "/v1/accounts/{acct}/margin";
    case Endpoint::kWhatIf: return "/v1/margin/whatif";
    case Endpoint::kPositions: return "/v1/accounts/{acct}/positions";
    case Endpoint::kBook: return "/v1/book/{sym}";
    case Endpoint::kReference: return "/v1/reference/{grade}";
    case Endpoint::kReferenceExplain: return "/v1/reference/{grade}/{date}/explain";
    case Endpoint::kAudit: return "/v1/audit";
    case Endpoint::kContracts: return "/v1/contracts";
    case Endpoint::kContract: return "/v1/contracts/{sym}";
    case Endpoint::kUnmatched: return "unmatched";
  }
  return "unmatched";
}

void HttpMetrics::RecordRequest(Endpoint endpoint, int status, int64_t latency_ns) {
  PerEndpoint& e = endpoints_[static_cast<int>(endpoint)];
  int slot = kStatuses.size();
  for (size_t i = 0; i < kStatuses.size(); ++i) {
    if (kStatuses[i] == status) slot = i;
  }
  e.by_status[slot].fetch_add(1, std::memory_order_relaxed);
  double seconds = latency_ns * 1e-9;
  int bucket = kBucketsSeconds.size();
  for (size_t i = 0; i < kBucketsSeconds.size(); ++i) {
    if (seconds <= kBucketsSeconds[i]) {
      bucket = i;
      break;
    }
  }
  e.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  e.count.fetch_add(1, std::memory_order_relaxed);
  e.sum_ns.fetch_add(latency_ns > 0 ? latency_ns : 0, std::memory_order_relaxed);
}

std::string HttpMetrics::Render(const std::vector<GaugeSample>& extra) const {
  std::string out;
  out +=
      "# HELP cfx_http_requests_total HTTP requests answered, by route template and status.\n"
      "# TYPE cfx_http_requests_total counter\n";
  for (int ep = 0; ep < kNumEndpoints; ++ep) {
    const char* label = EndpointLabel(static_cast<Endpoint>(ep));
    for (int s = 0; s < kNumStatusSlots; ++s) {
      uint64_t n = endpoints_[ep].by_status[s].load(std::memory_order_relaxed);
      if (n == 0) continue;
      std::string code = s < static_cast<int>(kStatuses.size()) ? std::to_string(kStatuses[s])
                                                                 : std::string("other");
      absl::StrAppend(&out, "cfx_http_requests_total{endpoint=\"", label, "\",code=\"", code,
                      "\"} ", n, "\n");
    }
  }
  out +=
      "# HELP cfx_http_request_duration_seconds Time from a parsed request to its response "
      "being ready (handler time).\n"
      "# TYPE cfx_http_request_duration_seconds histogram\n";
  for (int ep = 0; ep < kNumEndpoints; ++ep) {
    const PerEndpoint& e = endpoints_[ep];
    uint64_t count = e.count.load(std::memory_order_relaxed);
    if (count == 0) continue;
    const char* label = EndpointLabel(static_cast<Endpoint>(ep));
    uint64_t cumulative = 0;
    for (int b = 0; b < kNumBuckets; ++b) {
      cumulative += e.buckets[b].load(std::memory_order_relaxed);
      std::string le = b < static_cast<int>(kBucketsSeconds.size())
                           ? FormatDouble(kBucketsSeconds[b])
                           : std::string("+Inf");
      absl::StrAppend(&out, "cfx_http_request_duration_seconds_bucket{endpoint=\"", label,
                      "\",le=\"", le, "\"} ", cumulative, "\n");
    }
    absl::StrAppend(&out, "cfx_http_request_duration_seconds_sum{endpoint=\"", label, "\"} ",
                    FormatDouble(e.sum_ns.load(std::memory_order_relaxed) * 1e-9), "\n");
    absl::StrAppend(&out, "cfx_http_request_duration_seconds_count{endpoint=\"", label, "\"} ",
                    cumulative, "\n");
  }
  absl::StrAppend(
      &out,
      "# HELP cfx_http_connections_active Open HTTP connections.\n"
      "# TYPE cfx_http_connections_active gauge\n"
      "cfx_http_connections_active ",
      connections_active_.load(std::memory_order_relaxed), "\n",
      "# HELP cfx_http_connections_total HTTP connections accepted.\n"
      "# TYPE cfx_http_connections_total counter\n"
      "cfx_http_connections_total ",
      connections_total_.load(std::memory_order_relaxed), "\n",
      "# HELP cfx_http_connections_refused_total Connections closed at once: max_connections "
      "or max_connections_per_peer reached.\n"
      "# TYPE cfx_http_connections_refused_total counter\n"
      "cfx_http_connections_refused_total ",
      connections_refused_.load(std::memory_order_relaxed), "\n",
      "# HELP cfx_http_connections_evicted_total Idle connections closed to make room for a "
      "new one when max_connections was reached.\n"
      "# TYPE cfx_http_connections_evicted_total counter\n"
      "cfx_http_connections_evicted_total ",
      connections_evicted_.load(std::memory_order_relaxed), "\n",
      "# HELP cfx_http_read_timeouts_total Connections closed because a request did not "
      "arrive in time.\n"
      "# TYPE cfx_http_read_timeouts_total counter\n"
      "cfx_http_read_timeouts_total ",
      read_timeouts_.load(std::memory_order_relaxed), "\n",
      "# HELP cfx_http_handler_exceptions_total Connections dropped because Beast threw while "
      "reading their request.\n"
      "# TYPE cfx_http_handler_exceptions_total counter\n"
      "cfx_http_handler_exceptions_total ",
      handler_exceptions_.load(std::memory_order_relaxed), "\n");

  // Provider gauges, grouped by name so each name has one HELP/TYPE header.
  std::map<std::string, std::vector<const GaugeSample*>> by_name;
  for (const GaugeSample& g : extra) {
    if (!ValidMetricName(g.name)) continue;
    by_name[g.name].push_back(&g);
  }
  for (const auto& [name, samples] : by_name) {
    absl::StrAppend(&out, "# HELP ", name, " ", EscapeHelp(samples.front()->help), "\n", "# TYPE ",
                    name, samples.front()->counter ? " counter\n" : " gauge\n");
    for (const GaugeSample* g : samples) {
      out += name;
      bool first = true;
      for (const auto& [k, v] : g->labels) {
        if (!ValidLabelName(k)) continue;
        absl::StrAppend(&out, first ? "{" : ",", k, "=\"", EscapeLabelValue(v), "\"");
        first = false;
      }
      if (!first) out += "}";
      absl::StrAppend(&out, " ", FormatDouble(g->value), "\n");
    }
  }
  return out;
}

}  // namespace cfx::gateway::internal
