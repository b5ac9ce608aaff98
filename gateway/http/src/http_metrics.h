// The HTTP server's own Prometheus metrics (docs/http.md lists the names): request counts by
// endpoint and status, a latency histogram by endpoint, and connection counters.
#ifndef CFX_GATEWAY_HTTP_METRICS_H_
#define CFX_GATEWAY_HTTP_METRICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "cfx/gateway/http_providers.h"

namespace cfx::gateway::internal {

// Route templates, used as the `endpoint` label; never the raw path, so that no account
// id reaches /metrics (which is unauthenticated).
enum class Endpoint {
  kHealthz,
  kMetrics,
  kMargin,
  kWhatIf,
  kPositions,
  kBook,
  kReference,
  kReferenceExplain,
  kAudit,
  kContracts,
  kContract,
  kUnmatched,  // 404s, 401s before routing, transport-level errors
};
inline constexpr int kNumEndpoints = 12;
const char* EndpointLabel(Endpoint e);

// Thread safety: every method is thread-safe; counters are relaxed atomics (a scrape may
// see a count and a histogram from slightly different instants, as Prometheus allows).
class HttpMetrics {
 public:
  // Every status the API answers (others would count as "other"; 415, 501 and 505 did
  // until 2026-12-07).
  static constexpr std::array<int, 15> kStatuses = {200, 400, 401, 403, 404, 405, 413, 415,
                                                    417, 429, 431, 500, 501, 503, 505};
  static constexpr std::array<double, 14> kBucketsSeconds = {
      0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
      0.01,    0.025,  0.05,    0.1,    0.25,  1.0,    5.0};

  void RecordRequest(Endpoint endpoint, int status, int64_t latency_ns);
  void ConnectionOpened() {
    connections_total_.fetch_add(1, std::memory_order_relaxed);
    connections_active_.fetch_add(1, std::memory_order_relaxed);
  }
  void ConnectionClosed() { connections_active_.fetch_sub(1, std::memory_order_relaxed); }
  void ConnectionRefused() { connections_refused_.fetch_add(1, std::memory_order_relaxed); }
  void ConnectionEvicted() { connections_evicted_.fetch_add(1, std::memory_order_relaxed); }
  void HandlerException() { handler_exceptions_.fetch_add(1, std::memory_order_relaxed); }
  void ReadTimeout() { read_timeouts_.fetch_add(1, std::memory_order_relaxed); }

  // Prometheus text exposition format 0.0.4, with `extra` gauges appended (invalid names
  // skipped).
  std::string Render(const std::vector<GaugeSample>& extra) const;

 private:
  static constexpr int kNumStatusSlots = kStatuses.size() + 1;  // + "other"
  static constexpr int kNumBuckets = kBucketsSeconds.size() + 1;  // + "+Inf"
  struct PerEndpoint {
    std::array<std::atomic<uint64_t>, kNumStatusSlots> by_status{};
    std::array<std::atomic<uint64_t>, kNumBuckets> buckets{};  // non-cumulative
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> sum_ns{0};
  };
  std::array<PerEndpoint, kNumEndpoints> endpoints_{};
  std::atomic<int64_t> connections_active_{0};
  std::atomic<uint64_t> connections_total_{0};
  std::atomic<uint64_t> connections_refused_{0};
  std::atomic<uint64_t> connections_evicted_{0};
  std::atomic<uint64_t> handler_exceptions_{0};
  std::atomic<uint64_t> read_timeouts_{0};
};

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_HTTP_METRICS_H_
