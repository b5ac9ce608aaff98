#include "serve_http.h"

#include "cfx/gateway/core_http_providers.h"
#include "cfx/gateway/http_server.h"

namespace cfx::gateway::internal {
namespace {

class ServeHttpImpl : public ServeHttp {
 public:
  ServeHttpImpl(exchange::ExchangeCore* core, const common::ExchangeConfig& config)
      : config_(config), providers_(core, config, config.data_dir) {}

  absl::Status StartProviders() override { return providers_.Start(); }
  absl::StatusOr<std::map<std::string, int64_t>> PerContractMargins() override {
    return providers_.PerContractMargins();
  }
  absl::StatusOr<std::map<std::string, int64_t>> BandReferences() override {
    return providers_.BandReferences();
  }
  absl::Status StartServer() override {
    server_ = std::make_unique<HttpServer>(config_, providers_.Providers(),
                                           HttpServerOptionsFromConfig(config_));
    return server_->Start();
  }
  int port() const override { return server_ ? server_->port() : 0; }
  void Stop() override {
    if (server_) server_->Stop();
  }

 private:
  common::ExchangeConfig config_;
  CoreHttpProviders providers_;
  std::unique_ptr<HttpServer> server_;  // declared last: stopped before the providers go
};

}  // namespace

std::unique_ptr<ServeHttp> MakeServeHttp(exchange::ExchangeCore* core,
                                         const common::ExchangeConfig& config) {
  return std::make_unique<ServeHttpImpl>(core, config);
}

}  // namespace cfx::gateway::internal
