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

int64_t TwiceMedian(std::vector<int64_t> values) {
  assert(!values.empty());
  const size_t n = values.size();
  const size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const int64_t upper = values[mid];
  if (n % 2 == 1) return 2 * upper;
  const int64_t lower = *std::max_element(values.begin(), values.begin() + mid);
  return lower + upper;
}

OutlierResult DropOutliers(std::vector<PricePoint> points) {
  OutlierResult out;
  if (points.empty()) return out;
  std::vector<int64_t> values;
  values.reserve(points.size());
  for (const PricePoint& p : points) values.push_back(p.value_e6);
  const int64_t m2 = TwiceMedian(values);  // 2m
  // d_i = 2|v − m|; MAD4 = 2 × median(d_i) = 4 × MAD. All integers, so the test
  // |v − m| > 4.4478 × MAD  <=>  d_i / 2 > 4.4478 × MAD4 / 4  <=>  20000 d_i > 44478 MAD4
  // is exact (3 × 1.4826 = 4.4478).
  std::vector<int64_t> dev(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const int64_t d = 2 * points[i].value_e6 - m2;
    dev[i] = d < 0 ? -d : d;
  }
  const int64_t mad4 = TwiceMedian(dev);
  if (mad4 == 0) {
    out.kept = std::move(points);
    return out;
  }
  out.kept.reserve(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    if (static_cast<__int128>(dev[i]) * 20000 > static_cast<__int128>(mad4) * 44478) {
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
  assert(!sorted.empty());
  if (!cap.binding()) {
    // Weights are the raw integers: cum / W >= q  <=>  q_den · cum >= q_num · W, exactly.
    __int128 total = 0;
    for (const PricePoint& p : sorted) total += p.Weight();
    __int128 cum = 0;
    for (const PricePoint& p : sorted) {
      cum += p.Weight();
      if (cum * q_den >= total * q_num) return p.value_e6;
    }
    return sorted.back().value_e6;
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
  for (const PricePoint& p : sorted) {
    if (cap.IsCapped(p.provider)) {
      raw_cum[p.provider] += p.Weight();
    } else {
      uncapped += p.Weight();
    }
    approx += share_per_unit[p.provider] * p.Weight();
    if (approx >= target && cap.Reaches(raw_cum, uncapped, q_num, q_den)) return p.value_e6;
  }
  return sorted.back().value_e6;  // unreachable with exact arithmetic: the total reaches 100%
}

int64_t RoundE6ToE4(int64_t value_e6) { return common::DivRoundHalfEven(value_e6, 100); }

FixComputation ComputeFix(std::span<const PricePoint> candidates) {
  std::vector<PricePoint> trades;
  for (const PricePoint& p : candidates) {
    if (p.is_trade) trades.push_back(p);
  }
  for (int level = 1; level <= 2; ++level) {
    std::span<const PricePoint> set = level == 1 ? std::span<const PricePoint>(trades) : candidates;
    if (!MeetsThresholds(set)) continue;
    OutlierResult filtered = DropOutliers(std::vector<PricePoint>(set.begin(), set.end()));
    if (!MeetsThresholds(filtered.kept)) continue;
    std::vector<PricePoint>& used = filtered.kept;
    std::sort(used.begin(), used.end(),
              [](const PricePoint& a, const PricePoint& b) { return a.value_e6 < b.value_e6; });
    ProviderCap cap(used);
    FixComputation out;
    out.level = level;
    out.fix_e4 = RoundE6ToE4(WeightedPercentile(used, cap, 1, 2));
    out.p25_e4 = RoundE6ToE4(WeightedPercentile(used, cap, 1, 4));
    out.p75_e4 = RoundE6ToE4(WeightedPercentile(used, cap, 3, 4));
    out.n_obs = static_cast<int>(used.size());
    out.n_dropped = filtered.n_dropped;
    out.n_providers = cap.n_providers();
    for (const PricePoint& p : used) out.volume_e6 += p.hours_e6;
    return out;
  }
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
