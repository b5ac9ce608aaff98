// The fix methodology of SPEC §8, one small function per step, pure and store-free, so each
// step is tested by hand-computed examples (tests/reference/methodology_test.cc) and the
// builder (builder.h) only sequences them.
//
//   std::vector<PricePoint> candidates = ...;     // step 1: eligible points in the window
//   FixComputation fix = ComputeFix(candidates);   // steps 2-5 (level 1 or 2, or level 0)
//
// All arithmetic is exact: prices are int64 scaled by 10^6, weights are integers in half
// micro-GPU-hours (a trade weighs 2 × gpu_hours_e6, a quote 1 ×), and the weighted-median
// comparison after the provider cap is done on exact rationals.
#ifndef CFX_REFERENCE_METHODOLOGY_H_
#define CFX_REFERENCE_METHODOLOGY_H_

#include <cstdint>
#include <span>
#include <vector>

#include "cfx/common/date.h"
#include "cfx/reference/inputs.h"

namespace cfx::reference {

// The methodology version stamped on every record (`methodology`, SPEC §8 audit trail).
// cfx-ref-2: step 3 with one value per provider. cfx-ref-1: the earlier rule (median and MAD
// over observations); records stored before versioning read back as cfx-ref-1.
inline constexpr char kMethodologyVersion[] = "cfx-ref-2";
inline constexpr char kLegacyMethodologyVersion[] = "cfx-ref-1";

inline constexpr int kMinObservations = 5;
inline constexpr int kMinProviders = 3;
inline constexpr int kMaxStaleDays = 5;
inline constexpr int kFixHourUtc = 16;

// One observation as the methodology sees it.
struct PricePoint {
  int32_t provider = 0;  // dense id, >= 0
  int64_t value_e6 = 0;  // price × 10^6 (USD/GPU-hour, or USD per 1M tokens market-wide)
  int64_t hours_e6 = 0;  // raw gpu_hours × 10^6
  bool is_trade = true;
  // Step 4 base weight, in half micro-GPU-hours: a quote counts 0.5 × gpu_hours.
  int64_t Weight() const { return is_trade ? 2 * hours_e6 : hours_e6; }
};

// Step 1: the observation window (after, until] = (D−1 16:00Z, D 16:00Z], D−1 the previous
// business day.
struct Window {
  common::TimestampUs after = 0;
  common::TimestampUs until = 0;
  bool Contains(common::TimestampUs ts) const { return ts > after && ts <= until; }
};
Window FixWindow(common::Date d, const common::BusinessCalendar& calendar);
// Step 1: on_demand and reserved_1m leases only.
bool IsEligibleLease(Lease lease);

// Step 2 thresholds: >= 5 points from >= 3 providers.
int CountProviders(std::span<const PricePoint> points);
bool MeetsThresholds(std::span<const PricePoint> points);

// Twice the unweighted median (exact: an even count gives the sum of the two middle values).
// REQUIRES: !values.empty().
int64_t TwiceMedian(std::vector<int64_t> values);

// Step 3: the one-vote-per-provider median/MAD filter. Each provider's median price p̃ over
// its points; m = median of the p̃ (one value per provider), MAD = median over providers of
// |p̃ − m|, both unweighted. Points with |v − m| > 3 × 1.4826 × MAD (strictly) are dropped;
// nothing is dropped when MAD == 0. Exact: the statistics are kept as integer multiples.
struct OutlierStats {
  struct ProviderMedian {
    int32_t provider = 0;
    int64_t twice_median_e6 = 0;  // 2 p̃ × 10^6
    int n_points = 0;
  };
  std::vector<ProviderMedian> providers;  // ascending by provider id
  int64_t m4_e6 = 0;    // 4 m × 10^6
  int64_t mad8_e6 = 0;  // 8 MAD × 10^6
  // 4 |v − m| × 10^6.
  int64_t Deviation4(int64_t value_e6) const;
  // |v − m| > 4.4478 × MAD, i.e. 20000 × 4|v − m| > 44478 × 8 MAD / 2 (false when MAD == 0).
  bool Drops(int64_t value_e6) const;
};
OutlierStats ComputeOutlierStats(std::span<const PricePoint> points);

struct OutlierResult {
  std::vector<PricePoint> kept;  // in input order
  int n_dropped = 0;
  OutlierStats stats;
  std::vector<char> dropped;  // per input point
};
OutlierResult DropOutliers(std::vector<PricePoint> points);

// Step 4: iterative provider cap. cap = max(0.30, 1/n_providers). A provider's capped share is
// exact: capped providers hold cap × W; the others hold W_p × (1 − k·cap) × W / U, where k is
// the number capped and U the raw weight of the others.
class ProviderCap {
 public:
  // REQUIRES: every point has Weight() > 0.
  explicit ProviderCap(std::span<const PricePoint> points);
  int n_providers() const { return n_providers_; }
  int n_capped() const { return n_capped_; }
  bool binding() const { return n_capped_ > 0; }
  bool IsCapped(int32_t provider) const { return capped_[provider]; }
  // Share of the total weight held by a provider after capping (for reports and tests).
  long double Share(int32_t provider) const;
  // Capped weight of one point as a fraction of the total (for tests; not used for the fix).
  long double PointShare(const PricePoint& p) const;
  // True when the points' cumulative capped weight `raw_cum` (per provider raw weight
  // sums, indexed by provider) reaches >= q_num/q_den of the total. Exact.
  bool Reaches(const std::vector<__int128>& raw_cum, __int128 raw_cum_uncapped, int q_num,
               int q_den) const;
  __int128 ProviderWeight(int32_t provider) const { return weight_[provider]; }

 private:
  std::vector<__int128> weight_;  // raw weight per provider id
  std::vector<char> capped_;
  std::vector<int32_t> capped_ids_;
  __int128 total_ = 0;
  __int128 uncapped_total_ = 0;
  int64_t cap_num_ = 3, cap_den_ = 10;
  int n_providers_ = 0;
  int n_capped_ = 0;
};

// Step 5: weighted percentile: the value of the first point (sorted ascending by value) at
// which the cumulative capped weight reaches >= q_num/q_den of the total.
// REQUIRES: `sorted` non-empty and sorted by value_e6.
int64_t WeightedPercentile(std::span<const PricePoint> sorted, const ProviderCap& cap, int q_num,
                           int q_den);
// The same, as the index in `sorted` of that point.
size_t WeightedPercentileIndex(std::span<const PricePoint> sorted, const ProviderCap& cap,
                               int q_num, int q_den);

// Rounds a 10^-6 value to 4 decimals, half to even.
int64_t RoundE6ToE4(int64_t value_e6);

// Steps 2-5 together. level 0 means neither level 1 nor level 2 qualified (step 2 level 3).
struct FixComputation {
  int level = 0;
  int64_t fix_e4 = 0, p25_e4 = 0, p75_e4 = 0;
  int n_obs = 0, n_dropped = 0, n_providers = 0;
  int64_t volume_e6 = 0;  // Σ raw gpu_hours of the points used
};

// What ComputeFix decided and why, for the audit trail (explain.h).
enum class Fate {
  kUsed,        // in the fix (weights before and after the cap in the trace)
  kOutlier,     // dropped by step 3 at the chosen level
  kNotAtLevel,  // a quote at level 1
  kNoLevel,     // no level qualified (the record is carried or has no fix)
};
struct LevelAttempt {
  int level = 0;
  int n_obs = 0, n_providers = 0;  // the level's set, before step 3
  bool meets = false;
  // Step 3 and the second threshold check; set only when `meets`.
  bool filtered = false;
  OutlierStats stats;
  int n_dropped = 0;
  int n_obs_after = 0, n_providers_after = 0;
  bool meets_after = false;
};
struct FixTrace {
  std::vector<LevelAttempt> attempts;  // level 1, then level 2 if it was tried
  std::vector<Fate> fates;             // per candidate
  // The chosen level's used points, sorted ascending by value (ties: candidate order), with
  // their candidate indices; empty at level 0.
  std::vector<PricePoint> used;
  std::vector<int> used_index;
  size_t p25_at = 0, fix_at = 0, p75_at = 0;  // indices into `used`
};

// `trace`, when given, receives the decision (its previous contents are replaced).
FixComputation ComputeFix(std::span<const PricePoint> candidates, FixTrace* trace = nullptr);

// Step 6 publication: (rounded fix) / (θ × 3600) × 10^6, with θ given as 2θ × 10^6 (exact
// median), rounded to 4 decimals half to even.
int64_t PricePerMtokE4(int64_t fix_e4, int64_t two_theta_e6);
// Market-wide conversion of one observation: price / (θ × 3600) × 10^6 in 10^-6 units.
int64_t PricePerMtokE6(int64_t price_e6, int64_t two_theta_e6);

// Exact test Σ num_i/den_i >= rhs for non-negative terms (den_i > 0). Internal helper of
// ProviderCap::Reaches, exposed for tests.
bool SumOfFractionsAtLeast(const std::vector<std::pair<__int128, __int128>>& terms, __int128 rhs);

}  // namespace cfx::reference

#endif  // CFX_REFERENCE_METHODOLOGY_H_
