// The HTTP half of ExchangeServer behind a small interface: exchange_server.cc starts and
// stops it without the HTTP server's headers.
#ifndef CFX_GATEWAY_SERVE_HTTP_H_
#define CFX_GATEWAY_SERVE_HTTP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cfx/audit/audit_log.h"
#include "cfx/common/config.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/gateway/http_providers.h"

namespace cfx::gateway::internal {

// Thread safety: Start/Stop from the controlling thread; PerContractMargins any thread.
class ServeHttp {
 public:
  virtual ~ServeHttp() = default;
  // Opens the ledger and reference store and builds the margin basis.
  virtual absl::Status StartProviders() = 0;
  virtual absl::StatusOr<std::map<std::string, int64_t>> PerContractMargins() = 0;
  virtual absl::StatusOr<std::map<std::string, int64_t>> BandReferences() = 0;
  // Binds config.http_port (0: ephemeral) and serves.
  virtual absl::Status StartServer() = 0;
  virtual int port() const = 0;
  virtual void Stop() = 0;
};

// Gauges that are not the core's (the FIX gateway's logon counts), added to GET /metrics;
// called on an HTTP thread.
using MoreGauges = std::function<std::vector<GaugeSample>()>;

// `core` and `audit` must outlive the result; `config` is copied. GET /v1/audit reads
// `audit`, and the API's 401/403 are recorded in it (null: neither).
std::unique_ptr<ServeHttp> MakeServeHttp(exchange::ExchangeCore* core,
                                         const common::ExchangeConfig& config,
                                         audit::AuditLog* audit, MoreGauges more_gauges = {});

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_SERVE_HTTP_H_
