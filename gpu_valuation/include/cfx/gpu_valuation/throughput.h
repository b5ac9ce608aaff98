// Operator throughput (SPEC §8 step 6, §10): grade throughput θ and the throughput scan
// range TSR per gpu and tier.
//
//   std::vector<ThroughputRow> rows = ...;              // e.g. read from throughput.csv
//   std::vector<ThroughputRow> latest = LatestPerOperator(rows, as_of);
//   std::optional<double> theta = GradeTheta(latest, "B200", Tier::kGold);
//   TsrTable tsr = ComputeTsr(latest);                   // tsr.Get("B200", Tier::kGold)
#ifndef CFX_GPU_VALUATION_THROUGHPUT_H_
#define CFX_GPU_VALUATION_THROUGHPUT_H_

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cfx/common/date.h"
#include "cfx/common/grade.h"

namespace cfx::gpu_valuation {

// One throughput measurement. Mirrors cfx::reference::OperatorThroughput field for field so
// the integrator can adapt without a dependency between the modules.
struct ThroughputRow {
  std::string operator_name;
  Tier tier = Tier::kGold;
  std::string gpu;  // "B200"
  Date date;
  double output_tps_per_gpu = 0;  // > 0
};

// TSR bounds of SPEC §10, and the value used for a gpu/tier with no measurement at all
// (conservative: an unmeasured tier is scanned as widely as the most dispersed one).
inline constexpr double kTsrMin = 0.05;
inline constexpr double kTsrMax = 0.50;
inline constexpr double kTsrUnmeasured = kTsrMax;

// Keeps, per (operator, gpu), the latest row dated <= as_of (latest by date, then the later
// row in `rows`). Without as_of every row counts. Output sorted by (gpu, operator).
std::vector<ThroughputRow> LatestPerOperator(const std::vector<ThroughputRow>& rows,
                                             std::optional<Date> as_of);

// Percentile p in [0,1] of `values` (need not be sorted) by linear interpolation between
// closest ranks, h = (n-1)p, 0-based. REQUIRES: values non-empty.
double Percentile(std::vector<double> values, double p);

// Median over the tier's operators of `latest` (output of LatestPerOperator) for `gpu`;
// nullopt when no operator of that tier measured that gpu.
std::optional<double> GradeTheta(const std::vector<ThroughputRow>& latest,
                                 const std::string& gpu, Tier tier);

// Raw TSR before clamping: (p90 - p10) / (2 * median).
double RawTsr(const std::vector<double>& values);

// TSR per gpu and tier. Thread safety: immutable after construction.
class TsrTable {
 public:
  // Get returns the clamped TSR, or kTsrUnmeasured for a gpu/tier without measurements.
  double Get(const std::string& gpu, Tier tier) const;
  bool Measured(const std::string& gpu, Tier tier) const;
  void Set(const std::string& gpu, Tier tier, double tsr);
  const std::map<std::string, std::array<std::optional<double>, kNumTiers>>& by_gpu() const {
    return by_gpu_;
  }

 private:
  std::map<std::string, std::array<std::optional<double>, kNumTiers>> by_gpu_;
};

// TSR for every gpu/tier present in `latest`, clamped to [kTsrMin, kTsrMax].
TsrTable ComputeTsr(const std::vector<ThroughputRow>& latest);

}  // namespace cfx::gpu_valuation

#endif  // CFX_GPU_VALUATION_THROUGHPUT_H_
