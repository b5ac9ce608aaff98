// The explanation of a fix: built once at publication from ComputeFix's trace, stored as JSON,
// rendered as text on request. Every number is exact decimal text except the capped shares,
// which are rationals printed to 9 decimals (the exact rule is step 4; the decision was taken
// in exact arithmetic, methodology.h).
#include "cfx/reference/explain.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cfx/common/credentials.h"
#include "internal/text.h"
#include "nlohmann/json.hpp"

namespace cfx::reference {
namespace {

using ordered_json = nlohmann::ordered_json;

std::string Price(int64_t e6) { return internal::FormatTrimmed(e6, kInputScale); }
// A step-4 weight (half micro-GPU-hours) in GPU-hours.
std::string Weight(__int128 half_e6) { return internal::FormatTrimmed128(half_e6 * 5, 7); }
std::string Share(long double share) { return absl::StrFormat("%.9Lf", share); }
// Step-3 statistics (OutlierStats) as decimals.
std::string M(const OutlierStats& s) { return internal::FormatTrimmed128(s.m4_e6 * __int128{25}, 8); }
std::string Mad(const OutlierStats& s) {
  return internal::FormatTrimmed128(s.mad8_e6 * __int128{125}, 9);
}
std::string Threshold(const OutlierStats& s) {  // 4.4478 × MAD, exact
  return internal::FormatTrimmed128(s.mad8_e6 * __int128{125} * 44478, 13);
}
std::string Deviation(const OutlierStats& s, int64_t value_e6) {
  return internal::FormatTrimmed128(s.Deviation4(value_e6) * __int128{25}, 8);
}

const char* FateName(Fate f) {
  switch (f) {
    case Fate::kUsed:
      return "used";
    case Fate::kOutlier:
      return "outlier";
    case Fate::kNotAtLevel:
      return "not_at_level";
    case Fate::kNoLevel:
      return "no_level";
  }
  return "no_level";
}

ordered_json AttemptJson(const LevelAttempt& a, const std::map<int32_t, std::string>& names) {
  ordered_json j;
  j["level"] = a.level;
  j["set"] = a.level == 1 ? "trades" : "trades and quotes";
  j["n_obs"] = a.n_obs;
  j["n_providers"] = a.n_providers;
  j["meets"] = a.meets;
  if (!a.filtered) return j;
  ordered_json medians = ordered_json::array();
  for (const OutlierStats::ProviderMedian& p : a.stats.providers) {
    medians.push_back({{"provider", names.at(p.provider)},
                       {"median", internal::FormatTrimmed(p.twice_median_e6 * 5, 7)},
                       {"n_obs", p.n_points}});
  }
  j["provider_medians"] = std::move(medians);
  j["m"] = M(a.stats);
  j["mad"] = Mad(a.stats);
  j["threshold"] = a.stats.mad8_e6 > 0 ? ordered_json(Threshold(a.stats)) : ordered_json(nullptr);
  j["n_dropped"] = a.n_dropped;
  j["n_obs_after"] = a.n_obs_after;
  j["n_providers_after"] = a.n_providers_after;
  j["meets_after"] = a.meets_after;
  return j;
}

std::string Decision(const ExplainContext& c) {
  const FixRecord& r = *c.record;
  if (r.level && *r.level <= 2) {
    return absl::StrCat("level ", *r.level, ": ", r.n_obs, " observations from ", r.n_providers,
                        " providers after step 3 (at least ", kMinObservations, " from ",
                        kMinProviders, ")");
  }
  if (r.level) {
    return absl::StrCat("level 3: no level qualified; the record of ",
                        common::FormatDate(*c.carry.from), " is carried (stale day ",
                        c.carry.stale_days, " of at most ", kMaxStaleDays, ")");
  }
  return absl::StrCat("no fix: no level qualified and ", c.carry.reason);
}

}  // namespace

std::string InputsSha256(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  std::string text;
  for (const std::string& row : rows) absl::StrAppend(&text, row, "\n");
  return common::TokenSha256Hex(text);
}

std::string ExplainJson(const ExplainContext& c) {
  const FixRecord& r = *c.record;
  const FixTrace& t = *c.trace;
  std::map<int32_t, std::string> names;  // provider id -> name
  for (const ExplainedInput& in : c.inputs) {
    if (in.candidate >= 0) names[c.candidates[in.candidate].provider] = in.observation->provider;
  }
  ordered_json j;
  j["grade"] = r.grade;
  j["date"] = common::FormatDate(r.date);
  j["revision"] = c.revision;
  j["reason"] = c.reason;
  j["methodology"] = r.methodology;
  j["inputs_sha256"] = r.inputs_sha256 ? ordered_json(*r.inputs_sha256) : ordered_json(nullptr);
  j["record"] = ordered_json::parse(RecordToJson(r));
  j["window"] = {{"after", common::FormatTimestamp(c.window.after)},
                 {"until", common::FormatTimestamp(c.window.until)}};
  j["rules"] = {{"min_observations", kMinObservations},
                {"min_providers", kMinProviders},
                {"outlier_multiplier", "4.4478"},
                {"quote_weight", "0.5"},
                {"cap", "max(0.30, 1/n_providers)"},
                {"max_stale_days", kMaxStaleDays}};
  ordered_json levels = ordered_json::array();
  for (const LevelAttempt& a : t.attempts) levels.push_back(AttemptJson(a, names));
  j["levels"] = std::move(levels);
  j["level"] = r.level ? ordered_json(*r.level) : ordered_json(nullptr);
  j["decision"] = Decision(c);
  if (!r.level || *r.level == 3) {
    ordered_json carry;
    carry["from"] =
        c.carry.from ? ordered_json(common::FormatDate(*c.carry.from)) : ordered_json(nullptr);
    carry["stale_days"] = c.carry.stale_days;
    carry["reason"] = c.carry.reason;
    j["carry"] = std::move(carry);
  }

  // The chosen level: its step-3 statistics, the cap and the cumulative weights.
  const LevelAttempt* chosen = nullptr;
  for (const LevelAttempt& a : t.attempts) {
    if (r.level && a.level == *r.level && a.meets_after) chosen = &a;
  }
  std::vector<std::string> share_before(c.candidates.size()), share_after(c.candidates.size());
  if (chosen != nullptr && !t.used.empty()) {
    ProviderCap cap(t.used);
    __int128 total = 0;
    std::map<int32_t, __int128> weight;
    for (const PricePoint& p : t.used) {
      total += p.Weight();
      weight[p.provider] += p.Weight();
    }
    ordered_json providers = ordered_json::array();
    for (const auto& [id, w] : weight) {
      providers.push_back({{"provider", names.at(id)},
                           {"weight", Weight(w)},
                           {"share_before", Share(static_cast<long double>(w) / total)},
                           {"share_after", Share(cap.Share(id))},
                           {"capped", cap.IsCapped(id)}});
    }
    j["cap"] = {{"n_providers", cap.n_providers()},
                {"cap", cap.n_providers() <= 3 ? absl::StrCat("1/", cap.n_providers()) : "0.30"},
                {"total_weight", Weight(total)},
                {"providers", std::move(providers)}};
    ordered_json used = ordered_json::array();
    long double cumulative = 0;
    std::vector<long double> cum_at(t.used.size());
    for (size_t k = 0; k < t.used.size(); ++k) {
      const PricePoint& p = t.used[k];
      const long double share = cap.PointShare(p);
      cumulative += share;
      cum_at[k] = cumulative;
      share_before[t.used_index[k]] = Share(static_cast<long double>(p.Weight()) / total);
      share_after[t.used_index[k]] = Share(share);
      ordered_json row = {{"value", Price(p.value_e6)},
                          {"provider", names.at(p.provider)},
                          {"kind", p.is_trade ? "trade" : "quote"},
                          {"weight", Weight(p.Weight())},
                          {"share", Share(share)},
                          {"cumulative", Share(cumulative)}};
      std::vector<std::string> marks;
      if (k == t.p25_at) marks.push_back("p25");
      if (k == t.fix_at) marks.push_back("fix");
      if (k == t.p75_at) marks.push_back("p75");
      if (!marks.empty()) row["marks"] = marks;
      used.push_back(std::move(row));
    }
    j["used"] = std::move(used);
    ordered_json points = ordered_json::array();
    for (auto [name, target, at] : {std::tuple{"p25", "0.25", t.p25_at},
                                    std::tuple{"fix", "0.50", t.fix_at},
                                    std::tuple{"p75", "0.75", t.p75_at}}) {
      points.push_back({{"name", name},
                        {"target", target},
                        {"index", at},
                        {"value", Price(t.used[at].value_e6)},
                        {"cumulative_before", Share(at == 0 ? 0 : cum_at[at - 1])},
                        {"cumulative_at", Share(cum_at[at])}});
    }
    j["percentiles"] = std::move(points);
  }

  ordered_json observations = ordered_json::array();
  for (const ExplainedInput& in : c.inputs) {
    const Observation& o = *in.observation;
    ordered_json row = {{"ts", common::FormatTimestamp(o.ts)},
                        {"provider", o.provider},
                        {"gpu", o.gpu},
                        {"tier", common::TierName(o.tier)},
                        {"region", o.region},
                        {"lease", LeaseName(o.lease)},
                        {"kind", KindName(o.kind)},
                        {"price", Price(o.price_e6)},
                        {"gpu_hours", Price(o.gpu_hours_e6)}};
    if (c.market_wide) {
      row["theta"] = in.two_theta_e6
                         ? ordered_json(internal::FormatTrimmed(*in.two_theta_e6 * 5, 7))
                         : ordered_json(nullptr);
      if (in.candidate >= 0) row["value"] = Price(c.candidates[in.candidate].value_e6);
    }
    if (in.candidate < 0) {
      row["fate"] = "no_throughput";
    } else {
      const Fate fate = t.fates[in.candidate];
      row["fate"] = FateName(fate);
      if (fate == Fate::kUsed) {
        row["weight"] = Weight(c.candidates[in.candidate].Weight());
        row["share_before"] = share_before[in.candidate];
        row["share_after"] = share_after[in.candidate];
      } else if (fate == Fate::kOutlier && chosen != nullptr) {
        row["deviation"] = Deviation(chosen->stats, c.candidates[in.candidate].value_e6);
        row["threshold"] = Threshold(chosen->stats);
      }
    }
    observations.push_back(std::move(row));
  }
  j["observations"] = std::move(observations);
  return j.dump();
}

namespace {

std::string Text(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

absl::Status CheckExplanationJson(const std::string& text) {
  if (text.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError("explanation: holds a NUL byte");
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError("explanation: not a JSON object");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ExplanationText(const std::string& text) {
  if (absl::Status s = CheckExplanationJson(text); !s.ok()) return s;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.contains("record")) {
    return absl::InvalidArgumentError("explanation: not a JSON object with a record");
  }
  try {
    const nlohmann::json& r = j.at("record");
    std::string out = absl::StrFormat(
        "%s %s  fix %s  level %s  p25 %s  p75 %s\n", Text(j.at("grade")), Text(j.at("date")),
        Text(r.at("fix")), Text(r.at("level")), Text(r.at("p25")), Text(r.at("p75")));
    absl::StrAppendFormat(&out, "methodology %s  inputs_sha256 %s\nrevision %s%s\n",
                          Text(j.at("methodology")), Text(j.at("inputs_sha256")),
                          Text(j.at("revision")),
                          Text(j.at("reason")).empty() ? "" : "  reason: " + Text(j.at("reason")));
    absl::StrAppendFormat(&out, "window (%s, %s]: %d eligible observations\n",
                          Text(j.at("window").at("after")), Text(j.at("window").at("until")),
                          static_cast<int>(j.at("observations").size()));
    out += "\nlevel decision\n";
    for (const nlohmann::json& a : j.at("levels")) {
      absl::StrAppendFormat(&out, "  level %s (%s): %s observations from %s providers: %s\n",
                            Text(a.at("level")), Text(a.at("set")), Text(a.at("n_obs")),
                            Text(a.at("n_providers")),
                            a.at("meets").get<bool>() ? "meets the thresholds" : "too few");
      if (!a.contains("m")) continue;
      std::vector<std::string> medians;
      for (const nlohmann::json& p : a.at("provider_medians")) {
        medians.push_back(absl::StrCat(Text(p.at("provider")), " ", Text(p.at("median"))));
      }
      absl::StrAppendFormat(&out, "    provider medians: %s\n", absl::StrJoin(medians, ", "));
      absl::StrAppendFormat(&out, "    m = %s  MAD = %s  threshold = %s\n", Text(a.at("m")),
                            Text(a.at("mad")),
                            a.at("threshold").is_null() ? "none (MAD = 0)"
                                                        : "4.4478 x MAD = " + Text(a.at("threshold")));
      absl::StrAppendFormat(&out, "    dropped %s; %s observations from %s providers remain: %s\n",
                            Text(a.at("n_dropped")), Text(a.at("n_obs_after")),
                            Text(a.at("n_providers_after")),
                            a.at("meets_after").get<bool>() ? "meets the thresholds" : "too few");
    }
    absl::StrAppendFormat(&out, "  decision: %s\n", Text(j.at("decision")));
    if (j.contains("cap")) {
      const nlohmann::json& cap = j.at("cap");
      absl::StrAppendFormat(&out, "\nprovider cap %s (%s providers), total weight %s GPU-h\n",
                            Text(cap.at("cap")), Text(cap.at("n_providers")),
                            Text(cap.at("total_weight")));
      absl::StrAppendFormat(&out, "  %-20s %14s %12s %12s\n", "provider", "weight", "before",
                            "after");
      for (const nlohmann::json& p : cap.at("providers")) {
        absl::StrAppendFormat(&out, "  %-20s %14s %12s %12s%s\n", Text(p.at("provider")),
                              Text(p.at("weight")), Text(p.at("share_before")),
                              Text(p.at("share_after")),
                              p.at("capped").get<bool>() ? "  capped" : "");
      }
      out += "\nused observations by price (cumulative capped weight)\n";
      absl::StrAppendFormat(&out, "  %14s %-20s %-6s %14s %12s %12s\n", "value", "provider",
                            "kind", "weight", "share", "cumulative");
      for (const nlohmann::json& u : j.at("used")) {
        std::string marks;
        if (u.contains("marks")) {
          marks = "  <- " + absl::StrJoin(u.at("marks").get<std::vector<std::string>>(), ", ");
        }
        absl::StrAppendFormat(&out, "  %14s %-20s %-6s %14s %12s %12s%s\n", Text(u.at("value")),
                              Text(u.at("provider")), Text(u.at("kind")), Text(u.at("weight")),
                              Text(u.at("share")), Text(u.at("cumulative")), marks);
      }
      for (const nlohmann::json& p : j.at("percentiles")) {
        absl::StrAppendFormat(&out, "  %s: first reaching %s: %s (cumulative %s -> %s)\n",
                              Text(p.at("name")), Text(p.at("target")), Text(p.at("value")),
                              Text(p.at("cumulative_before")), Text(p.at("cumulative_at")));
      }
    }
    out += "\nobservations (canonical order)\n";
    for (const nlohmann::json& o : j.at("observations")) {
      std::string detail;
      const std::string fate = Text(o.at("fate"));
      if (fate == "used") {
        detail = absl::StrCat("weight ", Text(o.at("weight")), ", share ",
                              Text(o.at("share_before")), " -> ", Text(o.at("share_after")));
      } else if (fate == "outlier") {
        detail = absl::StrCat("|price - m| ", Text(o.at("deviation")), " > ",
                              Text(o.at("threshold")));
      } else if (fate == "not_at_level") {
        detail = "a quote at level 1";
      }
      absl::StrAppendFormat(&out, "  %s %s %s-%s-%s %s %s %s x %s  %s%s\n", Text(o.at("ts")),
                            Text(o.at("provider")), Text(o.at("gpu")), Text(o.at("tier")),
                            Text(o.at("region")), Text(o.at("lease")), Text(o.at("kind")),
                            Text(o.at("price")), Text(o.at("gpu_hours")), fate,
                            detail.empty() ? "" : "  (" + detail + ")");
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("explanation: ", e.what()));
  }
}

}  // namespace cfx::reference
