// Span16 margin for the demo, from the stores of the data dir: settlement prices from the
// ledger (or the batch's own prices) and operator throughput from the reference store.
// Two faces: the settlement batch's MarginSource, and the HTTP API's MarginProvider.
#ifndef CFX_GATEWAY_DEMO_MARGIN_H_
#define CFX_GATEWAY_DEMO_MARGIN_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cfx/common/config.h"
#include "cfx/gpu_valuation/margin_engine.h"
#include "cfx/settlement/sources.h"

namespace cfx::gateway::demo {

// Throughput rows stored by `cfx reference build` in `data_dir`, dated <= `date`.
absl::StatusOr<std::vector<gpu_valuation::ThroughputRow>> StoredThroughput(
    const std::string& data_dir, Date date);

// Thread safety: serialised by mu_ (the batch calls from one thread anyway).
class SettleMargin : public settlement::MarginSource {
 public:
  SettleMargin(std::vector<gpu_valuation::ThroughputRow> throughput, double psr)
      : throughput_(std::move(throughput)), psr_(psr) {}
  absl::StatusOr<int64_t> InitialMarginMicroUsd(std::string_view account,
                                                const std::vector<settlement::SymQty>& positions,
                                                const settlement::SettlePrices& prices) override;

 private:
  std::vector<gpu_valuation::ThroughputRow> throughput_;
  double psr_;
  std::mutex mu_;
  settlement::SettlePrices cached_prices_;
  std::unique_ptr<gpu_valuation::MarginEngine> engine_;
};

// The HTTP API (SPEC §7) serving margin over the ledger's latest settled date: positions
// and prices from the ledger, throughput from the reference store. Margin answers 503
// until Load() has run. (Kept apart from the FIX headers: both name a `BookLevel`.)
class LedgerHttp {
 public:
  // Listens on an ephemeral loopback port.
  static absl::StatusOr<std::unique_ptr<LedgerHttp>> Start(const ExchangeConfig& config);
  ~LedgerHttp();
  absl::Status Load(const std::string& data_dir, Date date, double psr);
  int port() const;
  void Stop();

  struct Impl;

 private:
  explicit LedgerHttp(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cfx::gateway::demo

#endif  // CFX_GATEWAY_DEMO_MARGIN_H_
