// Synthetic valuation inputs shared by the margin and HTTP benches: a seeded contract
// universe, its throughput and a stream of portfolios.
#ifndef CFX_PERF_HARNESS_SRC_MARGIN_INPUTS_H_
#define CFX_PERF_HARNESS_SRC_MARGIN_INPUTS_H_

#include <cstdint>
#include <random>
#include <vector>

#include "cfx/gpu_valuation/margin_engine.h"

namespace cfx::perf::internal {

// B200 in 4 tiers x 3 regions x 12 months of 2027 = 144 contracts, settlement prices
// 2.000-7.999 USD drawn from `rng`.
std::vector<gpu_valuation::ContractPrice> SyntheticPrices(std::mt19937_64& rng);

// Five B200 operators per tier, all measured on 2027-03-01.
std::vector<gpu_valuation::ThroughputRow> SyntheticThroughput();

// Portfolios of `per` distinct contracts each, quantities in [-100, 99] but 0, one after
// another from one seeded stream: generating a book in pieces gives the same accounts as
// generating it at once. REQUIRES: per <= prices.size().
class AccountGenerator {
 public:
  // `prices` and `rng` must outlive the generator.
  AccountGenerator(const std::vector<gpu_valuation::ContractPrice>& prices, int per,
                   std::mt19937_64* rng);

  // The next account, "ACC<n>" with n counting from 0.
  void Next(gpu_valuation::AccountPositions* out);

 private:
  const std::vector<gpu_valuation::ContractPrice>& prices_;
  const int per_;
  std::mt19937_64& rng_;
  std::vector<int32_t> pick_;
  int64_t count_ = 0;
};

}  // namespace cfx::perf::internal

#endif  // CFX_PERF_HARNESS_SRC_MARGIN_INPUTS_H_
