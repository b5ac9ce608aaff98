// The HTTP API's providers (http_providers.h) over real data: books and positions from the
// exchange core's published views, margin from gpu_valuation at the latest settlement
// prices, fixes from the reference store, gauges from the core's stats. `cfx serve`
// (ExchangeServer) owns one.
//
//   CoreHttpProviders data(&core, config, data_dir);
//   if (absl::Status s = data.Start(); !s.ok()) return s;   // after core.Start()
//   HttpServer http(config, data.Providers());
//   auto margins = data.PerContractMargins();               // for pre-trade risk
//
// Prices (the margin basis): per listed contract the latest settlement price from the
// ledger (`cfx settle`), else the grade's latest fix (rounded to the tick, half to even),
// else the product's configured reference; throughput from the reference store as of the
// exchange date. The basis is rebuilt when a newer settlement appears in the ledger.
#ifndef CFX_GATEWAY_CORE_HTTP_PROVIDERS_H_
#define CFX_GATEWAY_CORE_HTTP_PROVIDERS_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cfx/common/config.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/gateway/http_providers.h"

namespace cfx::gateway {

// Thread safety: every provider method may be called from any thread concurrently (the
// stores are behind one mutex; margin runs outside it on an immutable engine). Start from
// the controlling thread before the first call.
class CoreHttpProviders : public MarginProvider,
                          public PositionProvider,
                          public BookProvider,
                          public ReferenceProvider,
                          public MetricsProvider,
                          public ContractProvider {
 public:
  // `core` must outlive this object. `data_dir` holds ledger/ and reference/.
  CoreHttpProviders(exchange::ExchangeCore* core, const common::ExchangeConfig& config,
                    std::string data_dir);
  ~CoreHttpProviders() override;

  // Opens the ledger and the reference store and builds the margin basis. Errors name the
  // store that could not be opened.
  absl::Status Start();
  HttpProviders Providers();

  // Span16 initial margin of a one-lot position per listed contract that has a price, in
  // micro-USD (SPEC §4 pre-trade risk).
  absl::StatusOr<std::map<std::string, int64_t>> PerContractMargins();
  // Price-band reference per listed contract, in ticks (SPEC §3): its latest settlement,
  // else the grade's latest fix before today, else the product's configured `ref`.
  absl::StatusOr<std::map<std::string, int64_t>> BandReferences();

  absl::StatusOr<MarginResult> AccountMargin(const std::string& account,
                                             MarginMethod method) override;
  absl::StatusOr<MarginResult> WhatIf(const std::vector<WhatIfPosition>& positions,
                                      MarginMethod method) override;
  absl::StatusOr<std::vector<PositionLine>> Positions(const std::string& account) override;
  absl::StatusOr<BookSnapshot> Book(const std::string& sym, int depth) override;
  // The security master as the exchange core publishes it (ExchangeCore::Contracts).
  absl::StatusOr<std::vector<security_master::Contract>> Contracts() override;
  absl::StatusOr<security_master::ContractRecord> FindContract(const std::string& sym) override;
  absl::StatusOr<std::vector<FixRecord>> Fixes(const common::Grade& grade, common::Date from,
                                               common::Date to) override;
  absl::StatusOr<std::vector<FixRecord>> Revisions(const common::Grade& grade, common::Date from,
                                                   common::Date to) override;
  absl::StatusOr<std::string> Explain(const common::Grade& grade, common::Date date) override;
  std::vector<GaugeSample> Gauges() override;

  class Impl;

 private:
  // NotFound for a grade that is not a product; Unavailable before Start(). REQUIRES: the
  // store mutex held.
  absl::Status CheckGrade(const common::Grade& grade);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_CORE_HTTP_PROVIDERS_H_
