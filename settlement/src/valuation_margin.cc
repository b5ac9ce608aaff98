// Compiled only when cfx_reference and cfx_gpu_valuation exist (settlement/CMakeLists.txt).
#include "cfx/settlement/valuation_margin.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/gpu_valuation/margin_engine.h"
#include "cfx/reference/fix_store.h"

namespace cfx::settlement {
namespace {

namespace gv = cfx::gpu_valuation;

// Thread safety: one thread at a time (the batch's).
class ValuationMarginSource : public MarginSource {
 public:
  ValuationMarginSource(std::vector<gv::ThroughputRow> throughput, common::Date date, double psr)
      : throughput_(std::move(throughput)), date_(date), psr_(psr) {}

  absl::StatusOr<common::MicroUsd> InitialMargin(std::string_view account,
                                                 const std::vector<SymQty>& positions,
                                                 const SettlePrices& prices) override {
    if (absl::Status s = EngineFor(prices); !s.ok()) return s;
    std::vector<gv::Position> book;
    book.reserve(positions.size());
    for (const SymQty& p : positions)
      book.push_back(gv::Position{std::string(p.sym), p.qty.value()});
    auto result = engine_->ComputeAccount(std::string(account), book);
    if (!result.ok()) return result.status();
    // Statements and `cfx margin` show margin in cents (half to even); the call is computed
    // from the same rounded figure so that both agree to the cent.
    return common::MicroUsd(result->margin_cents * 10'000);
  }

 private:
  // Builds the engine once per price map. The batch passes one map for the whole run, so
  // the content comparison runs only if a caller ever passes another map.
  absl::Status EngineFor(const SettlePrices& prices) {
    if (engine_ != nullptr && (&prices == prices_seen_ || prices == prices_)) {
      prices_seen_ = &prices;
      return absl::OkStatus();
    }
    std::vector<gv::ContractPrice> contracts;
    contracts.reserve(prices.size());
    for (const auto& [sym, ticks] : prices)
      contracts.push_back(gv::ContractPrice{sym, gv::ValuedTicks(ticks.value())});
    gv::MarginOptions options;
    options.method = gv::ScenarioMethod::kSpan16;
    options.psr = psr_;
    options.as_of = date_;
    auto engine = gv::MarginEngine::Create(std::move(contracts), throughput_, options);
    if (!engine.ok()) {
      return absl::Status(engine.status().code(),
                          absl::StrCat("margin engine: ", engine.status().message()));
    }
    engine_ = *std::move(engine);
    prices_ = prices;
    prices_seen_ = &prices;
    return absl::OkStatus();
  }

  std::vector<gv::ThroughputRow> throughput_;
  common::Date date_;
  double psr_;
  std::unique_ptr<gv::MarginEngine> engine_;
  SettlePrices prices_;                        // the map engine_ was built from
  const SettlePrices* prices_seen_ = nullptr;  // identity of the caller's map, a fast path
};

}  // namespace

absl::StatusOr<std::unique_ptr<MarginSource>> OpenValuationMarginSource(const std::string& data_dir,
                                                                        common::Date date,
                                                                        double psr) {
  auto store = reference::FixStore::Open(data_dir, /*create=*/false);
  if (!store.ok()) return store.status();
  auto ops = (*store)->LatestThroughput(date);  // valuation's rows are the reference's
  if (!ops.ok()) return ops.status();
  return std::unique_ptr<MarginSource>(new ValuationMarginSource(*std::move(ops), date, psr));
}

std::unique_ptr<MarginSource> ValuationMarginWithoutThroughput(common::Date date, double psr) {
  return std::unique_ptr<MarginSource>(new ValuationMarginSource({}, date, psr));
}

}  // namespace cfx::settlement
