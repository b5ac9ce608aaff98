// Scenario sets of SPEC §10: span16 (default), seeded Monte Carlo (mc) and scenario files.
//
// A scenario moves the common price-per-token factor by `a` and each tier's throughput by
// b. Per gpu the throughput move is b = tput_factor[tier] * TputScale(gpu)[tier]: span16
// stores ±1 factors scaled by the measured TSR of that gpu and tier, mc stores standard
// normal draws / 3 scaled the same way, and a file stores the moves themselves (scale 1).
//
//   absl::StatusOr<ScenarioSet> set = BuildSpan16(0.15, ComputeTsr(latest));
//   double b = set->TputMove(set->scenarios[0], "B200", Tier::kGold);   // +TSR
#ifndef CFX_GPU_VALUATION_SCENARIOS_H_
#define CFX_GPU_VALUATION_SCENARIOS_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cfx/common/grade.h"
#include "cfx/gpu_valuation/throughput.h"

namespace cfx::gpu_valuation {

enum class ScenarioMethod { kSpan16, kMonteCarlo, kFile };
const char* MethodName(ScenarioMethod m);  // "span16", "mc", "file"

struct Scenario {
  std::string label;  // "1".."16", "1".."N", or the file's `scenario` field
  double weight = 1.0;
  double price_move = 0.0;                              // a_s
  std::array<double, common::kNumTiers> tput_factor{};  // see the file comment
};

struct ScenarioSet {
  ScenarioMethod method = ScenarioMethod::kSpan16;
  std::vector<Scenario> scenarios;
  // Margin is the rank-th largest scenario loss (1 = the worst; mc uses floor(0.01 N)).
  int32_t rank = 1;
  std::map<std::string, std::array<double, common::kNumTiers>> tput_scale_by_gpu;
  std::array<double, common::kNumTiers> default_tput_scale{1.0, 1.0, 1.0, 1.0};

  const std::array<double, common::kNumTiers>& TputScale(const std::string& gpu) const;
  double TputMove(const Scenario& s, const std::string& gpu, common::Tier tier) const {
    return s.tput_factor[static_cast<int>(tier)] * TputScale(gpu)[static_cast<int>(tier)];
  }
};

// Largest accepted PSR: 3 x PSR (scenarios 15/16) must not take a price below zero.
inline constexpr double kMaxPsr = 1.0 / 3.0;
inline constexpr double kDefaultPsr = 0.15;
inline constexpr int32_t kDefaultMcScenarios = 10000;
inline constexpr int32_t kMaxScenarios = 1'000'000;
inline constexpr uint64_t kDefaultMcSeed = 20270301;

// The 16 scenarios of SPEC §10, numbered as there. InvalidArgument unless 0 < psr <= 1/3.
absl::StatusOr<ScenarioSet> BuildSpan16(double psr, const TsrTable& tsr);

// N seeded scenarios (docs/valuation.md): a = psr/3 * z_a, tier factors = z_tier / 3 with
// z_tier = sqrt(rho) f + sqrt(1-rho) e_tier, rho = kMcTierCorrelation, all z clamped to
// ±kMcZClamp. rank = max(1, floor(0.01 N)). Same (psr, tsr, n, seed) -> same set, bitwise.
inline constexpr double kMcTierCorrelation = 0.5;
inline constexpr double kMcZClamp = 6.0;
absl::StatusOr<ScenarioSet> BuildMonteCarlo(double psr, const TsrTable& tsr, int32_t n,
                                            uint64_t seed);

// Parses a scenario file (header scenario,weight,price_move,tput_PLAT,tput_GOLD,tput_SILV,
// tput_BRNZ) under the strict CSV rules of cfx/common/csv.h. `file_name` is used in
// messages, which name the file, the line (the header is line 1) and the column
// (`s.csv:4: column weight: weight must be in (0, 1], got 1.5`). InvalidArgument on any
// malformed content.
absl::StatusOr<ScenarioSet> ParseScenarioCsv(absl::string_view text, absl::string_view file_name);
// Reads and parses `path`; NotFound if it cannot be read.
absl::StatusOr<ScenarioSet> ReadScenarioFile(const std::string& path);

}  // namespace cfx::gpu_valuation

#endif  // CFX_GPU_VALUATION_SCENARIOS_H_
