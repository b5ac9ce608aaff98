#include "cfx/gpu_valuation/scenarios.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "prng.h"

namespace cfx::gpu_valuation {

const char* MethodName(ScenarioMethod m) {
  switch (m) {
    case ScenarioMethod::kSpan16:
      return "span16";
    case ScenarioMethod::kMonteCarlo:
      return "mc";
    case ScenarioMethod::kFile:
      return "file";
  }
  return "?";
}

const std::array<double, common::kNumTiers>& ScenarioSet::TputScale(const std::string& gpu) const {
  auto it = tput_scale_by_gpu.find(gpu);
  return it == tput_scale_by_gpu.end() ? default_tput_scale : it->second;
}

namespace {

absl::Status CheckPsr(double psr) {
  if (!(psr > 0.0 && psr <= kMaxPsr)) {
    return absl::InvalidArgumentError(absl::StrCat("psr must be in (0, 1/3], got ", psr));
  }
  return absl::OkStatus();
}

// Span16 and mc scale the tier factors by the measured TSR of each gpu; a gpu with no
// measurement at all is scanned at kTsrUnmeasured.
void SetTsrScales(const TsrTable& tsr, ScenarioSet* set) {
  for (const auto& [gpu, tiers] : tsr.by_gpu()) {
    std::array<double, common::kNumTiers> scale;
    for (int t = 0; t < common::kNumTiers; ++t)
      scale[t] = tsr.Get(gpu, static_cast<common::Tier>(t));
    set->tput_scale_by_gpu[gpu] = scale;
  }
  set->default_tput_scale.fill(kTsrUnmeasured);
}

}  // namespace

absl::StatusOr<ScenarioSet> BuildSpan16(double psr, const TsrTable& tsr) {
  if (absl::Status s = CheckPsr(psr); !s.ok()) return s;
  ScenarioSet set;
  set.method = ScenarioMethod::kSpan16;
  set.rank = 1;
  SetTsrScales(tsr, &set);
  // Price moves in thirds of the PSR, in the order of SPEC §10; each with b = +TSR, -TSR.
  constexpr int kThirds[] = {0, 1, -1, 2, -2, 3, -3};
  int number = 1;
  for (int thirds : kThirds) {
    for (double sign : {1.0, -1.0}) {
      Scenario s;
      s.label = absl::StrCat(number++);
      s.weight = 1.0;
      // Whole multiples exactly (psr * 3 / 3.0 is one ulp off psr for some psr, 0.1 say).
      s.price_move = thirds % 3 == 0 ? psr * (thirds / 3) : psr * thirds / 3.0;
      s.tput_factor.fill(sign);
      set.scenarios.push_back(s);
    }
  }
  for (double sign : {3.0, -3.0}) {  // extreme price moves, partially weighted
    Scenario s;
    s.label = absl::StrCat(number++);
    s.weight = 0.35;
    s.price_move = sign * psr;
    s.tput_factor.fill(0.0);
    set.scenarios.push_back(s);
  }
  return set;
}

absl::StatusOr<ScenarioSet> BuildMonteCarlo(double psr, const TsrTable& tsr, int32_t n,
                                            uint64_t seed) {
  if (absl::Status s = CheckPsr(psr); !s.ok()) return s;
  if (n < 1 || n > kMaxScenarios) {
    return absl::InvalidArgumentError(
        absl::StrCat("mc scenario count must be in [1, ", kMaxScenarios, "], got ", n));
  }
  ScenarioSet set;
  set.method = ScenarioMethod::kMonteCarlo;
  set.rank = std::max<int32_t>(1, n / 100);
  SetTsrScales(tsr, &set);
  internal::Xoshiro256 rng(seed);
  const double load = std::sqrt(kMcTierCorrelation);
  const double idio = std::sqrt(1.0 - kMcTierCorrelation);
  auto clamp = [](double z) { return std::clamp(z, -kMcZClamp, kMcZClamp); };
  set.scenarios.reserve(n);
  for (int32_t i = 0; i < n; ++i) {
    // Six normals per scenario, always drawn in this order: z_a, f, e_PLAT..e_BRNZ.
    double z[6];
    for (int k = 0; k < 6; k += 2) rng.NormalPair(&z[k], &z[k + 1]);
    Scenario s;
    s.label = absl::StrCat(i + 1);
    s.weight = 1.0;
    s.price_move = psr * clamp(z[0]) / 3.0;
    for (int t = 0; t < common::kNumTiers; ++t) {
      s.tput_factor[t] = clamp(load * z[1] + idio * z[2 + t]) / 3.0;
    }
    set.scenarios.push_back(s);
  }
  return set;
}

}  // namespace cfx::gpu_valuation
