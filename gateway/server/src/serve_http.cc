#include "serve_http.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <utility>

#include "cfx/audit/refusal_throttle.h"
#include "cfx/gateway/core_http_providers.h"
#include "cfx/gateway/http_server.h"

namespace cfx::gateway::internal {
namespace {

// GET /v1/audit and the API's refusals, over the audit log. A request without a token
// starts no back-off, so a flood of them could fill the disk with refusals: they go
// through a RefusalThrottle (100 a second, bursts of 1000; the next line written says how
// many were dropped).
class AuditLogProvider : public AuditProvider {
 public:
  explicit AuditLogProvider(audit::AuditLog* log) : log_(log) {}
  absl::StatusOr<AuditEvents> Events(uint64_t after, size_t limit) override {
    absl::StatusOr<audit::AuditPage> page = log_->Read(after, limit);
    if (!page.ok()) return page.status();
    return AuditEvents{std::move(page->events), page->next_after, page->more};
  }
  void Refused(int status, const std::string& route, const std::string& peer,
               const std::string& credential) override {
    uint64_t suppressed = 0;
    if (!throttle_.Admit(&suppressed)) return;
    const std::string fingerprint = credential.empty() ? "" : audit::TokenFingerprint(credential);
    log_->Record(status == 401   ? "http_unauthorized"
                 : status == 403 ? "http_forbidden"
                                 : "http_backoff",
                 {{"status", std::to_string(status)},
                  {"route", route},
                  {"peer", peer},
                  {"token_fp", fingerprint},
                  {"suppressed", std::to_string(suppressed)}});
  }

 private:
  audit::AuditLog* log_;
  audit::RefusalThrottle throttle_;
};

// The core's gauges and the ones the server adds.
class AllGauges : public MetricsProvider {
 public:
  AllGauges(MetricsProvider* core, MoreGauges more) : core_(core), more_(std::move(more)) {}
  std::vector<GaugeSample> Gauges() override {
    std::vector<GaugeSample> g = core_->Gauges();
    if (more_) {
      std::vector<GaugeSample> m = more_();
      g.insert(g.end(), std::make_move_iterator(m.begin()), std::make_move_iterator(m.end()));
    }
    return g;
  }

 private:
  MetricsProvider* core_;
  MoreGauges more_;
};

class ServeHttpImpl : public ServeHttp {
 public:
  ServeHttpImpl(exchange::ExchangeCore* core, const common::ExchangeConfig& config,
                audit::AuditLog* audit, MoreGauges more_gauges)
      : config_(config),
        providers_(core, config, config.data_dir),
        gauges_(&providers_, std::move(more_gauges)) {
    if (audit != nullptr) audit_.emplace(audit);
  }

  absl::Status StartProviders() override { return providers_.Start(); }
  absl::StatusOr<std::map<std::string, int64_t>> PerContractMargins() override {
    return providers_.PerContractMargins();
  }
  absl::StatusOr<std::map<std::string, int64_t>> BandReferences() override {
    return providers_.BandReferences();
  }
  absl::Status StartServer() override {
    HttpProviders providers = providers_.Providers();
    providers.metrics = &gauges_;
    if (audit_.has_value()) providers.audit = &*audit_;
    server_ = std::make_unique<HttpServer>(config_, providers, HttpServerOptionsFromConfig(config_));
    return server_->Start();
  }
  int port() const override { return server_ ? server_->port() : 0; }
  void Stop() override {
    if (server_) server_->Stop();
  }

 private:
  common::ExchangeConfig config_;
  CoreHttpProviders providers_;
  AllGauges gauges_;
  std::optional<AuditLogProvider> audit_;
  std::unique_ptr<HttpServer> server_;  // declared last: stopped before the providers go
};

}  // namespace

std::unique_ptr<ServeHttp> MakeServeHttp(exchange::ExchangeCore* core,
                                         const common::ExchangeConfig& config,
                                         audit::AuditLog* audit, MoreGauges more_gauges) {
  return std::make_unique<ServeHttpImpl>(core, config, audit, std::move(more_gauges));
}

}  // namespace cfx::gateway::internal
