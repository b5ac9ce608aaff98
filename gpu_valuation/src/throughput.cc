#include "cfx/gpu_valuation/throughput.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace cfx::gpu_valuation {

double Percentile(std::vector<double> values, double p) {
  assert(!values.empty());
  std::sort(values.begin(), values.end());
  const double h = static_cast<double>(values.size() - 1) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

double RawTsr(const std::vector<double>& values) {
  const double median = Percentile(values, 0.5);
  return (Percentile(values, 0.9) - Percentile(values, 0.1)) / (2.0 * median);
}

double TsrTable::Get(const std::string& gpu, common::Tier tier) const {
  auto it = by_gpu_.find(gpu);
  if (it == by_gpu_.end()) return kTsrUnmeasured;
  return it->second[static_cast<int>(tier)].value_or(kTsrUnmeasured);
}

bool TsrTable::Measured(const std::string& gpu, common::Tier tier) const {
  auto it = by_gpu_.find(gpu);
  return it != by_gpu_.end() && it->second[static_cast<int>(tier)].has_value();
}

void TsrTable::Set(const std::string& gpu, common::Tier tier, double tsr) {
  by_gpu_[gpu][static_cast<int>(tier)] = tsr;
}

TsrTable ComputeTsr(const std::vector<ThroughputRow>& latest) {
  TsrTable table;
  std::map<std::string, std::array<std::vector<double>, common::kNumTiers>> groups;
  for (const ThroughputRow& r : latest) {
    groups[r.gpu][static_cast<int>(r.tier)].push_back(r.output_tps_per_gpu);
  }
  for (const auto& [gpu, tiers] : groups) {
    for (int t = 0; t < common::kNumTiers; ++t) {
      if (tiers[t].empty()) continue;
      table.Set(gpu, static_cast<common::Tier>(t), std::clamp(RawTsr(tiers[t]), kTsrMin, kTsrMax));
    }
  }
  return table;
}

}  // namespace cfx::gpu_valuation
