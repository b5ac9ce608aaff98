// Span16 margin for the demo, from the stores of the data dir: settlement prices from the
// ledger (or the batch's own prices) and operator throughput from the reference store.
// Used by the stand-in venue (CFX_DEMO_STAND_IN=1) for the HTTP API's margin.
#ifndef CFX_GATEWAY_DEMO_MARGIN_H_
#define CFX_GATEWAY_DEMO_MARGIN_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cfx/common/config.h"
#include "cfx/gpu_valuation/margin_engine.h"

namespace cfx::gateway::demo {

// Throughput rows stored by `cfx reference build` in `data_dir`, dated <= `date`.
absl::StatusOr<std::vector<gpu_valuation::ThroughputRow>> StoredThroughput(
    const std::string& data_dir, Date date);

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
