#include "cfx/reference/methodology.h"

#include <algorithm>
#include <cassert>

#include "cfx/common/decimal.h"

namespace cfx::reference {

Window FixWindow(common::Date d, const common::BusinessCalendar& calendar) {
  return Window{common::AtHour(calendar.PreviousBusinessDay(d), kFixHourUtc),
                common::AtHour(d, kFixHourUtc)};
}

bool IsEligibleLease(Lease lease) {
  return lease == Lease::kOnDemand || lease == Lease::kReserved1m;
}

int CountProviders(std::span<const PricePoint> points) {
  int32_t max_id = -1;
  for (const PricePoint& p : points) max_id = std::max(max_id, p.provider);
  std::vector<char> seen(max_id + 1, 0);
  int n = 0;
  for (const PricePoint& p : points) {
    n += !seen[p.provider];
    seen[p.provider] = 1;
  }
  return n;
}

bool MeetsThresholds(std::span<const PricePoint> points) {
  return static_cast<int>(points.size()) >= kMinObservations &&
         CountProviders(points) >= kMinProviders;
}

namespace {

// TwiceMedian, reordering `values` in place.
int64_t TwiceMedianInPlace(std::span<int64_t> values) {
  assert(!values.empty());
  const size_t n = values.size();
  const size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const int64_t upper = values[mid];
  if (n % 2 == 1) return 2 * upper;
  const int64_t lower = *std::max_element(values.begin(), values.begin() + mid);
  return lower + upper;
}

}  // namespace

int64_t TwiceMedian(std::vector<int64_t> values) { return TwiceMedianInPlace(values); }

int64_t OutlierStats::Deviation4(int64_t value_e6) const {
  const int64_t d = 4 * value_e6 - m4_e6;
  return d < 0 ? -d : d;
}

bool OutlierStats::Drops(int64_t value_e6) const {
  // |v − m| > 4.4478 MAD  <=>  Deviation4 / 4 > 4.4478 × mad8 / 8  <=>
  // 20000 × Deviation4 > 44478 × mad8 (3 × 1.4826 = 4.4478). Prices are <= 10^15, so
  // 4v fits int64 and the products fit __int128.
  return mad8_e6 > 0 &&
         static_cast<__int128>(Deviation4(value_e6)) * 20000 > static_cast<__int128>(mad8_e6) * 44478;
}

OutlierStats ComputeOutlierStats(std::span<const PricePoint> points) {
  OutlierStats stats;
  if (points.empty()) return stats;
  // Group the values by provider (ids are dense: a counting sort), then one value per
  // provider: 2 p̃ (exact for an even count: the sum of the middle two).
  int32_t max_id = 0;
  for (const PricePoint& p : points) max_id = std::max(max_id, p.provider);
  std::vector<size_t> begin(max_id + 2, 0);
  for (const PricePoint& p : points) ++begin[p.provider + 1];
  for (int32_t id = 0; id <= max_id; ++id) begin[id + 1] += begin[id];
  std::vector<int64_t> grouped(points.size());
  std::vector<size_t> fill(begin.begin(), begin.end() - 1);
  for (const PricePoint& p : points) grouped[fill[p.provider]++] = p.value_e6;
  std::vector<int64_t> twice_medians;
  for (int32_t id = 0; id <= max_id; ++id) {
    const size_t n = begin[id + 1] - begin[id];
    if (n == 0) continue;
    const int64_t tp =
        TwiceMedianInPlace(std::span<int64_t>(grouped.data() + begin[id], n));
    stats.providers.push_back({id, tp, static_cast<int>(n)});
    twice_medians.push_back(tp);
  }
  stats.m4_e6 = TwiceMedian(twice_medians);  // 2 × median(2 p̃) = 4m
  // |4 p̃ − 4m| = |2 (2 p̃) − 4m|; twice its median is 8 MAD.
  std::vector<int64_t> dev4;
  dev4.reserve(twice_medians.size());
  for (int64_t tp : twice_medians) {
    const int64_t d = 2 * tp - stats.m4_e6;
    dev4.push_back(d < 0 ? -d : d);
  }
  stats.mad8_e6 = TwiceMedian(std::move(dev4));
  return stats;
}

OutlierResult DropOutliers(std::vector<PricePoint> points) {
  OutlierResult out;
  out.stats = ComputeOutlierStats(points);
  out.dropped.assign(points.size(), 0);
  if (out.stats.mad8_e6 == 0) {
    out.kept = std::move(points);
    return out;
  }
  out.kept.reserve(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    if (out.stats.Drops(points[i].value_e6)) {
      out.dropped[i] = 1;
      ++out.n_dropped;
    } else {
      out.kept.push_back(points[i]);
    }
  }
  return out;
}

ProviderCap::ProviderCap(std::span<const PricePoint> points) {
  int32_t max_id = -1;
  for (const PricePoint& p : points) max_id = std::max(max_id, p.provider);
  weight_.assign(max_id + 1, 0);
  capped_.assign(max_id + 1, 0);
  for (const PricePoint& p : points) {
    assert(p.Weight() > 0);
    weight_[p.provider] += p.Weight();
    total_ += p.Weight();
  }
  for (__int128 w : weight_) n_providers_ += w > 0;
  if (n_providers_ <= 3) {  // 1/n >= 1/3 > 0.30
    cap_num_ = 1;
    cap_den_ = std::max(n_providers_, 1);
  }
  uncapped_total_ = total_;
  // Each pass caps every provider above the cap given the current remainder; a provider
  // W_p is above when W_p × (1 − k·c) × W / U > c × W  <=>  W_p (cd − k·cn) > cn · U.
  for (bool changed = true; changed;) {
    changed = false;
    const __int128 free_num = cap_den_ - static_cast<__int128>(n_capped_) * cap_num_;
    std::vector<int32_t> newly;
    for (size_t id = 0; id < weight_.size(); ++id) {
      if (weight_[id] == 0 || capped_[id]) continue;
      if (weight_[id] * free_num > cap_num_ * uncapped_total_) newly.push_back(id);
    }
    for (int32_t id : newly) {
      capped_[id] = 1;
      capped_ids_.push_back(id);
      uncapped_total_ -= weight_[id];
      ++n_capped_;
      changed = true;
    }
  }
}

long double ProviderCap::Share(int32_t provider) const {
  if (provider < 0 || provider >= static_cast<int32_t>(weight_.size()) || weight_[provider] == 0) {
    return 0;
  }
  const long double c = static_cast<long double>(cap_num_) / cap_den_;
  if (capped_[provider]) return c;
  const long double free = 1.0L - n_capped_ * c;
  return free * static_cast<long double>(weight_[provider]) /
         static_cast<long double>(uncapped_total_);
}

long double ProviderCap::PointShare(const PricePoint& p) const {
  return Share(p.provider) * p.Weight() / static_cast<long double>(weight_[p.provider]);
}

bool ProviderCap::Reaches(const std::vector<__int128>& raw_cum, __int128 raw_cum_uncapped,
                          int q_num, int q_den) const {
  if (n_capped_ == 0) return raw_cum_uncapped * q_den >= total_ * q_num;
  // cum / W = Σ_capped (cn/cd) A_p / W_p + ((cd − k cn)/cd) A_U / U >= qn/qd, times cd·qd.
  std::vector<std::pair<__int128, __int128>> terms;
  for (int32_t id : capped_ids_) {
    terms.emplace_back(static_cast<__int128>(cap_num_) * q_den * raw_cum[id], weight_[id]);
  }
  const __int128 free_num = cap_den_ - static_cast<__int128>(n_capped_) * cap_num_;
  if (uncapped_total_ > 0 && free_num > 0) {
    terms.emplace_back(free_num * q_den * raw_cum_uncapped, uncapped_total_);
  }
  return SumOfFractionsAtLeast(terms, static_cast<__int128>(q_num) * cap_den_);
}

int64_t WeightedPercentile(std::span<const PricePoint> sorted, const ProviderCap& cap, int q_num,
                           int q_den) {
  return sorted[WeightedPercentileIndex(sorted, cap, q_num, q_den)].value_e6;
}

size_t WeightedPercentileIndex(std::span<const PricePoint> sorted, const ProviderCap& cap,
                               int q_num, int q_den) {
  assert(!sorted.empty());
  if (!cap.binding()) {
    // Weights are the raw integers: cum / W >= q  <=>  q_den · cum >= q_num · W, exactly.
    __int128 total = 0;
    for (const PricePoint& p : sorted) total += p.Weight();
    __int128 cum = 0;
    for (size_t i = 0; i < sorted.size(); ++i) {
      cum += sorted[i].Weight();
      if (cum * q_den >= total * q_num) return i;
    }
    return sorted.size() - 1;
  }
  // Capped: a long double running share screens the points; only those within 1e-9 of the
  // target are decided by the exact rational test (Reaches).
  int32_t max_id = 0;
  for (const PricePoint& p : sorted) max_id = std::max(max_id, p.provider);
  std::vector<__int128> raw_cum(max_id + 1, 0);
  std::vector<long double> share_per_unit(max_id + 1, 0);
  for (int32_t id = 0; id <= max_id; ++id) {
    if (cap.ProviderWeight(id) > 0) {
      share_per_unit[id] = cap.Share(id) / static_cast<long double>(cap.ProviderWeight(id));
    }
  }
  const long double target = static_cast<long double>(q_num) / q_den - 1e-9L;
  long double approx = 0;
  __int128 uncapped = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const PricePoint& p = sorted[i];
    if (cap.IsCapped(p.provider)) {
      raw_cum[p.provider] += p.Weight();
    } else {
      uncapped += p.Weight();
    }
    approx += share_per_unit[p.provider] * p.Weight();
    if (approx >= target && cap.Reaches(raw_cum, uncapped, q_num, q_den)) return i;
  }
  return sorted.size() - 1;  // unreachable with exact arithmetic: the total reaches 100%
}

int64_t RoundE6ToE4(int64_t value_e6) { return common::DivRoundHalfEven(value_e6, 100); }

FixComputation ComputeFix(std::span<const PricePoint> candidates, FixTrace* trace) {
  std::vector<int> trade_index, all_index(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    all_index[i] = static_cast<int>(i);
    if (candidates[i].is_trade) trade_index.push_back(static_cast<int>(i));
  }
  if (trace != nullptr) *trace = FixTrace{};
  for (int level = 1; level <= 2; ++level) {
    const std::vector<int>& index = level == 1 ? trade_index : all_index;
    std::vector<PricePoint> set;
    set.reserve(index.size());
    for (int i : index) set.push_back(candidates[i]);
    LevelAttempt attempt;
    attempt.level = level;
    attempt.n_obs = static_cast<int>(set.size());
    attempt.n_providers = CountProviders(set);
    attempt.meets = MeetsThresholds(set);
    if (!attempt.meets) {
      if (trace != nullptr) trace->attempts.push_back(std::move(attempt));
      continue;
    }
    OutlierResult filtered = DropOutliers(std::move(set));
    attempt.filtered = true;
    attempt.stats = filtered.stats;
    attempt.n_dropped = filtered.n_dropped;
    attempt.n_obs_after = static_cast<int>(filtered.kept.size());
    attempt.n_providers_after = CountProviders(filtered.kept);
    attempt.meets_after = MeetsThresholds(filtered.kept);
    if (trace != nullptr) trace->attempts.push_back(attempt);
    if (!attempt.meets_after) continue;
    // Used points sorted by value; ties in candidate order, so a trace is deterministic.
    std::vector<std::pair<int64_t, int>> order;
    order.reserve(index.size());
    for (size_t k = 0; k < index.size(); ++k) {
      if (!filtered.dropped[k]) order.emplace_back(candidates[index[k]].value_e6, index[k]);
    }
    std::sort(order.begin(), order.end());
    std::vector<int> used_index;
    std::vector<PricePoint> used;
    used_index.reserve(order.size());
    used.reserve(order.size());
    for (const auto& [value, i] : order) {
      used_index.push_back(i);
      used.push_back(candidates[i]);
    }
    ProviderCap cap(used);
    const size_t fix_at = WeightedPercentileIndex(used, cap, 1, 2);
    const size_t p25_at = WeightedPercentileIndex(used, cap, 1, 4);
    const size_t p75_at = WeightedPercentileIndex(used, cap, 3, 4);
    FixComputation out;
    out.level = level;
    out.fix_e4 = RoundE6ToE4(used[fix_at].value_e6);
    out.p25_e4 = RoundE6ToE4(used[p25_at].value_e6);
    out.p75_e4 = RoundE6ToE4(used[p75_at].value_e6);
    out.n_obs = static_cast<int>(used.size());
    out.n_dropped = filtered.n_dropped;
    out.n_providers = cap.n_providers();
    for (const PricePoint& p : used) out.volume_e6 += p.hours_e6;
    if (trace != nullptr) {
      trace->fates.assign(candidates.size(), Fate::kNotAtLevel);
      for (size_t k = 0; k < index.size(); ++k) {
        trace->fates[index[k]] = filtered.dropped[k] ? Fate::kOutlier : Fate::kUsed;
      }
      trace->used = std::move(used);
      trace->used_index = std::move(used_index);
      trace->p25_at = p25_at;
      trace->fix_at = fix_at;
      trace->p75_at = p75_at;
    }
    return out;
  }
  if (trace != nullptr) trace->fates.assign(candidates.size(), Fate::kNoLevel);
  return FixComputation{};
}

int64_t PricePerMtokE4(int64_t fix_e4, int64_t two_theta_e6) {
  // fix / (θ·3600) · 10^6 · 10^4 = fix_e4 · 10^6 · 2·10^6 / (2θ_e6 · 3600)
  return common::DivRoundHalfEven(static_cast<__int128>(fix_e4) * 2'000'000'000'000LL,
                                  static_cast<__int128>(two_theta_e6) * 3600);
}

int64_t PricePerMtokE6(int64_t price_e6, int64_t two_theta_e6) {
  return common::DivRoundHalfEven(static_cast<__int128>(price_e6) * 2'000'000'000'000LL,
                                  static_cast<__int128>(two_theta_e6) * 3600);
}

}  // namespace cfx::reference
