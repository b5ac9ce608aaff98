// Throughput scan range TSR per gpu and tier (SPEC §10), from operator throughput. The rows,
// the latest-per-operator rule and θ are the reference's (cfx/reference/throughput.h).
//
//   std::vector<ThroughputRow> rows = ...;   // ReadThroughputCsv, or FixStore::LatestThroughput
//   std::vector<ThroughputRow> latest = reference::LatestPerOperator(rows, as_of);
//   TsrTable tsr = ComputeTsr(latest);         // tsr.Get("B200", Tier::kGold)
#ifndef CFX_GPU_VALUATION_THROUGHPUT_H_
#define CFX_GPU_VALUATION_THROUGHPUT_H_

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cfx/common/grade.h"
#include "cfx/reference/throughput.h"

namespace cfx::gpu_valuation {

// One throughput measurement: the reference's row, tokens/s as a double.
using ThroughputRow = reference::OperatorThroughput;

// TSR bounds of SPEC §10, and the value used for a gpu/tier with no measurement at all
// (conservative: an unmeasured tier is scanned as widely as the most dispersed one).
inline constexpr double kTsrMin = 0.05;
inline constexpr double kTsrMax = 0.50;
inline constexpr double kTsrUnmeasured = kTsrMax;

// Percentile p in [0,1] of `values` (need not be sorted) by linear interpolation between
// closest ranks, h = (n-1)p, 0-based. REQUIRES: values non-empty.
double Percentile(std::vector<double> values, double p);

// Raw TSR before clamping: (p90 - p10) / (2 * median).
double RawTsr(const std::vector<double>& values);

// TSR per gpu and tier. Thread safety: immutable after construction.
class TsrTable {
 public:
  // Get returns the clamped TSR, or kTsrUnmeasured for a gpu/tier without measurements.
  double Get(const std::string& gpu, common::Tier tier) const;
  bool Measured(const std::string& gpu, common::Tier tier) const;
  void Set(const std::string& gpu, common::Tier tier, double tsr);
  const std::map<std::string, std::array<std::optional<double>, common::kNumTiers>>& by_gpu()
      const {
    return by_gpu_;
  }

 private:
  std::map<std::string, std::array<std::optional<double>, common::kNumTiers>> by_gpu_;
};

// TSR for every gpu/tier present in `latest` (output of reference::LatestPerOperator),
// clamped to [kTsrMin, kTsrMax].
TsrTable ComputeTsr(const std::vector<ThroughputRow>& latest);

}  // namespace cfx::gpu_valuation

#endif  // CFX_GPU_VALUATION_THROUGHPUT_H_
