// Operator throughput and the grade throughput θ_g (SPEC §8 step 6): the one definition,
// used by `cfx reference build`, by the fix store and by valuation (`cfx margin`, `cfx settle`,
// `cfx serve`).
//
//   std::vector<OperatorThroughput> rows = ToOperatorThroughput(*ReadThroughputFile(path));
//   std::vector<OperatorThroughput> latest = LatestPerOperator(rows, date);
//   std::optional<Theta> theta = GradeTheta(latest, "B200", Tier::kGold, date);
//   if (theta) { int64_t exact = theta->two_theta_e6(); double published = theta->Value(); }
//
// θ is exact: the median of integers (tokens/s × 10^6), kept as its two middle values.
#ifndef CFX_REFERENCE_THROUGHPUT_H_
#define CFX_REFERENCE_THROUGHPUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/reference/inputs.h"

namespace cfx::reference {

// One operator's throughput measurement as the store and valuation hold it: a row of
// throughput.csv without model, isl and osl, tokens/s as a double.
struct OperatorThroughput {
  std::string operator_name;
  cfx::common::Tier tier = cfx::common::Tier::kGold;
  std::string gpu;  // "B200"
  cfx::common::Date date;
  double output_tps_per_gpu = 0;  // > 0
};

// The largest accepted tokens/s per GPU (the readers' bound, SPEC §8 inputs).
inline constexpr double kMaxTps = 1e9;
// The smallest: below one token a second a GPU serves nothing (a unit mistake: tokens a
// millisecond, an hour). The bound keeps the price per 1M tokens of every accepted price
// (at most 10^9 USD) inside the methodology's integers: at most 2.8 · 10^11 USD, so its
// micro-USD value times 4 fits int64 (docs/methodology.md, §11). Until
// 2026-12-07 the bound was 10^-6 and such a price wrapped past int64.
inline constexpr double kMinTps = 1;

// tps = tps_e6 / 10^6, correctly rounded: the same double as parsing the decimal text.
OperatorThroughput ToOperatorThroughput(const ThroughputRow& row);
std::vector<OperatorThroughput> ToOperatorThroughput(const std::vector<ThroughputRow>& rows);

// Tokens/s × 10^6 of a measurement, rounded to the nearest integer: exactly the tps_e6 of a
// row made by ToOperatorThroughput (every accepted value survives the double, JSON too).
// REQUIRES: 0 < output_tps_per_gpu <= kMaxTps.
int64_t TpsE6(const OperatorThroughput& row);

// Keeps, per (gpu, operator), the latest row dated <= as_of (latest by date, then the later
// row in `rows`). Without as_of every row counts. Output sorted by (gpu, operator).
std::vector<OperatorThroughput> LatestPerOperator(const std::vector<OperatorThroughput>& rows,
                                                  std::optional<common::Date> as_of);

// θ_g: the median (an even count gives the mean of the middle two) of one grade's
// latest-per-operator measurements, as its two middle values (equal for an odd count).
struct Theta {
  int64_t lower_e6 = 0;
  int64_t upper_e6 = 0;
  // 2θ × 10^6, exact.
  int64_t two_theta_e6() const { return lower_e6 + upper_e6; }
  // θ, correctly rounded: what `cfx reference build` publishes and `cfx margin` prints.
  double Value() const { return static_cast<double>(two_theta_e6()) / 2e6; }
  friend bool operator==(const Theta&, const Theta&) = default;
};

// θ_g(D) for (gpu, tier): each of the tier's operators' latest measurement for `gpu` dated
// <= as_of (every row without as_of), latest by date then the later row. nullopt when no
// operator qualifies. `rows` need not be reduced by LatestPerOperator first.
std::optional<Theta> GradeTheta(const std::vector<OperatorThroughput>& rows, const std::string& gpu,
                                cfx::common::Tier tier, std::optional<common::Date> as_of);
// The same on parsed rows (exact tps_e6), as `cfx reference build` computes it.
std::optional<Theta> GradeTheta(const std::vector<ThroughputRow>& rows, const std::string& gpu,
                                cfx::common::Tier tier, std::optional<common::Date> as_of);

}  // namespace cfx::reference

#endif  // CFX_REFERENCE_THROUGHPUT_H_
