#include "margin_inputs.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"

namespace cfx::perf::internal {

namespace gv = cfx::gpu_valuation;

std::vector<gv::ContractPrice> SyntheticPrices(std::mt19937_64& rng) {
  std::vector<gv::ContractPrice> prices;
  for (const char* tier : common::kTierNames) {
    for (const char* region : common::kRegionNames) {
      for (int m = 1; m <= 12; ++m) {
        prices.push_back({absl::StrCat("B200-", tier, "-", region, "-2027", m < 10 ? "0" : "", m),
                          static_cast<int64_t>(2000 + rng() % 6000)});
      }
    }
  }
  return prices;
}

std::vector<gv::ThroughputRow> SyntheticThroughput() {
  std::vector<gv::ThroughputRow> throughput;
  for (int t = 0; t < common::kNumTiers; ++t) {
    for (int op = 0; op < 5; ++op) {
      throughput.push_back({absl::StrCat("op", t, "_", op), static_cast<common::Tier>(t), "B200",
                            common::DateFromYmd(2027, 3, 1), 800.0 + 40.0 * op + 100.0 * t});
    }
  }
  return throughput;
}

AccountGenerator::AccountGenerator(const std::vector<gv::ContractPrice>& prices, int per,
                                   std::mt19937_64* rng)
    : prices_(prices), per_(per), rng_(*rng), pick_(prices.size()) {
  for (size_t i = 0; i < pick_.size(); ++i) pick_[i] = static_cast<int32_t>(i);
}

void AccountGenerator::Next(gv::AccountPositions* out) {
  out->account = absl::StrCat("ACC", count_++);
  out->positions.clear();
  for (int p = 0; p < per_; ++p) {  // distinct contracts: partial Fisher-Yates
    std::swap(pick_[p], pick_[p + rng_() % (pick_.size() - p)]);
    const int64_t qty = static_cast<int64_t>(rng_() % 200) - 100;
    const int64_t q = qty == 0 ? 1 : qty;
    out->positions.push_back({prices_[pick_[p]].sym, q});
  }
}

}  // namespace cfx::perf::internal
