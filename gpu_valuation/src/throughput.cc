#include "cfx/gpu_valuation/throughput.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <tuple>

namespace cfx::gpu_valuation {

std::vector<ThroughputRow> LatestPerOperator(const std::vector<ThroughputRow>& rows,
                                             std::optional<Date> as_of) {
  // Key (gpu, operator) -> index of the chosen row; a later row with the same date wins.
  std::map<std::pair<std::string, std::string>, size_t> chosen;
  for (size_t i = 0; i < rows.size(); ++i) {
    const ThroughputRow& r = rows[i];
    if (as_of.has_value() && r.date > *as_of) continue;
    auto [it, inserted] = chosen.try_emplace({r.gpu, r.operator_name}, i);
    if (!inserted && rows[it->second].date <= r.date) it->second = i;
  }
  std::vector<ThroughputRow> out;
  out.reserve(chosen.size());
  for (const auto& [key, index] : chosen) out.push_back(rows[index]);
  return out;
}

double Percentile(std::vector<double> values, double p) {
  assert(!values.empty());
  std::sort(values.begin(), values.end());
  const double h = static_cast<double>(values.size() - 1) * p;
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

namespace {
std::vector<double> TierValues(const std::vector<ThroughputRow>& latest, const std::string& gpu,
                               Tier tier) {
  std::vector<double> v;
  for (const ThroughputRow& r : latest) {
    if (r.gpu == gpu && r.tier == tier) v.push_back(r.output_tps_per_gpu);
  }
  return v;
}
}  // namespace

std::optional<double> GradeTheta(const std::vector<ThroughputRow>& latest,
                                 const std::string& gpu, Tier tier) {
  std::vector<double> v = TierValues(latest, gpu, tier);
  if (v.empty()) return std::nullopt;
  return Percentile(std::move(v), 0.5);  // an even count gives the mean of the middle two
}

double RawTsr(const std::vector<double>& values) {
  const double median = Percentile(values, 0.5);
  return (Percentile(values, 0.9) - Percentile(values, 0.1)) / (2.0 * median);
}

double TsrTable::Get(const std::string& gpu, Tier tier) const {
  auto it = by_gpu_.find(gpu);
  if (it == by_gpu_.end()) return kTsrUnmeasured;
  return it->second[static_cast<int>(tier)].value_or(kTsrUnmeasured);
}

bool TsrTable::Measured(const std::string& gpu, Tier tier) const {
  auto it = by_gpu_.find(gpu);
  return it != by_gpu_.end() && it->second[static_cast<int>(tier)].has_value();
}

void TsrTable::Set(const std::string& gpu, Tier tier, double tsr) {
  by_gpu_[gpu][static_cast<int>(tier)] = tsr;
}

TsrTable ComputeTsr(const std::vector<ThroughputRow>& latest) {
  TsrTable table;
  std::map<std::string, std::array<std::vector<double>, kNumTiers>> groups;
  for (const ThroughputRow& r : latest) {
    groups[r.gpu][static_cast<int>(r.tier)].push_back(r.output_tps_per_gpu);
  }
  for (const auto& [gpu, tiers] : groups) {
    for (int t = 0; t < kNumTiers; ++t) {
      if (tiers[t].empty()) continue;
      table.Set(gpu, static_cast<Tier>(t), std::clamp(RawTsr(tiers[t]), kTsrMin, kTsrMax));
    }
  }
  return table;
}

}  // namespace cfx::gpu_valuation
