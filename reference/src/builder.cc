#include "cfx/reference/builder.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <unordered_map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cfx/common/credentials.h"
#include "cfx/common/csv.h"
#include "cfx/reference/explain.h"
#include "cfx/reference/methodology.h"
#include "cfx/reference/throughput.h"
#include "internal/canonical_row.h"
#include "internal/text.h"

namespace cfx::reference {
namespace {

// Observations of one published series (a grade, or a region for the market-wide series),
// eligible leases only, sorted by time so a day's window is a binary search.
struct SeriesRow {
  common::TimestampUs ts;
  int32_t grade;     // index into the run's grade list (for θ, market-wide)
  int32_t row;       // index into the observations (the audit trail's canonical row)
  PricePoint point;  // value_e6 is the USD/GPU-hour price
};

// One series-day's inputs: the methodology's points and the audit trail's rows.
struct DayInputs {
  std::vector<PricePoint> candidates;
  std::vector<ExplainedInput> inputs;  // every eligible observation, sorted by row
};
struct Series {
  std::string key;
  bool market_wide = false;
  std::vector<SeriesRow> rows;  // compact copies: the day loop never touches Observation
};

class Builder {
 public:
  Builder(const std::vector<Observation>& obs, const std::vector<ThroughputRow>& tput,
          const BuildOptions& options, FixStore* store)
      : obs_(obs), tput_(&tput), options_(options), store_(store) {}

  absl::StatusOr<BuildResult> Run();

 private:
  // Sorts the run's throughput against the store's into new measurements, revisions and
  // those already stored; a differing one not revised keeps the stored value, for θ too.
  // InvalidArgument naming the row when its operator is stored under another tier.
  absl::Status ReconcileThroughput();
  DayInputs Inputs(const Series& s, const Window& w,
                   const std::vector<std::optional<int64_t>>& grade_theta);
  // The canonical row of observation `i`, written on first use.
  std::string_view Row(int32_t i);
  // inputs_sha256 of a series-day (explain.h); `grade_hash` holds the day's grade hashes
  // (set for each grade with inputs as the grades are computed, read by the market-wide ones).
  std::string InputsHash(const Series& s, const DayInputs& in,
                         std::vector<std::optional<std::string>>& grade_hash);
  // 2θ × 10^6 of (gpu, tier) on `date`, cached: every day asks once per grade.
  std::optional<int64_t> TwiceTheta(const std::string& gpu, common::Tier tier, common::Date date);
  absl::StatusOr<std::optional<FixRecord>> Lookup(const std::string& key, common::Date date);
  absl::StatusOr<FixRecord> Level3(const Series& s, common::Date date,
                                   std::optional<int64_t> theta, CarryInfo* carry);
  // `explain(revision, reason)` makes the record's explain JSON (called only when needed).
  absl::Status Publish(FixRecord computed,
                       const std::function<std::string(int, const std::string&)>& explain);
  bool Explaining() const { return store_ != nullptr || options_.explain; }
  // Builds the grade and market-wide series (compact rows, time-ordered) from obs_.
  void IndexSeries(const std::vector<common::Date>& days);
  // With a store: the grades and market-wide series it published for the business day
  // before `first` that the run's file does not name, added (carried, SPEC §8 level 3).
  absl::Status AddStoredSeries(common::Date first);

  const std::vector<Observation>& obs_;
  const std::vector<ThroughputRow>* tput_;     // the run's rows, or effective_tput_
  // With a store: the stored rows the run has no row for, then the run's, with stored values
  // where a differing one was not revised (ReconcileThroughput).
  std::vector<ThroughputRow> effective_tput_;
  std::vector<OperatorThroughput> new_throughput_;
  std::vector<ThroughputRevision> throughput_revisions_;
  const BuildOptions& options_;
  FixStore* store_;
  std::vector<int32_t> provider_id_;        // per observation row
  std::vector<int32_t> day_providers_;      // Inputs' scratch: the day's provider ids, sorted
  // The canonical rows of the eligible observations in the run's windows, one after the
  // other (row i is [row_begin_[i], row_begin_[i + 1]) of rows_; empty for the others).
  std::string rows_;
  std::vector<size_t> row_begin_;
  std::string hash_text_;                   // InputsHash's buffer, reused
  std::vector<Series> grade_list_;          // in order of first appearance
  std::vector<common::Grade> grade_parts_;  // parallel to grade_list_
  std::vector<int> grade_order_;            // grade_list_ indices sorted by key (output order)
  std::unordered_map<std::string, int32_t> grade_ids_;  // key -> grade_list_ index
  std::vector<int32_t> grade_of_row_;                   // per observation row
  std::map<std::string, Series> regions_;   // market-wide series by region
  std::map<std::tuple<std::string, common::Tier, common::Date>, std::optional<int64_t>>
      theta_cache_;
  std::map<std::pair<std::string, common::Date>, FixRecord> run_records_;
  std::vector<PublishItem> items_;
  BuildResult result_;
};

void AddThroughputFields(FixRecord& r, std::optional<int64_t> two_theta_e6) {
  if (two_theta_e6) {
    r.theta = static_cast<double>(*two_theta_e6) / 2e6;
    if (r.fix_e4) r.price_per_mtok_e4 = PricePerMtokE4(*r.fix_e4, *two_theta_e6);
  } else {
    r.flags.push_back(kFlagNoThroughput);
  }
}

// A level-1/2 record from the methodology's result.
FixRecord FromComputation(const Series& s, common::Date day, const FixComputation& fix,
                          std::optional<int64_t> theta) {
  FixRecord r;
  r.grade = s.key;
  r.date = day;
  r.level = fix.level;
  r.fix_e4 = fix.fix_e4;
  r.p25_e4 = fix.p25_e4;
  r.p75_e4 = fix.p75_e4;
  r.n_obs = fix.n_obs;
  r.n_dropped = fix.n_dropped;
  r.n_providers = fix.n_providers;
  r.volume_e6 = fix.volume_e6;
  if (s.market_wide) {
    r.price_per_mtok_e4 = r.fix_e4;  // market-wide prices are already per 1M tokens
  } else {
    AddThroughputFields(r, theta);
  }
  return r;
}

}  // namespace

std::optional<int64_t> Builder::TwiceTheta(const std::string& gpu, common::Tier tier,
                                           common::Date date) {
  auto key = std::make_tuple(gpu, tier, date);
  auto it = theta_cache_.find(key);
  if (it != theta_cache_.end()) return it->second;
  std::optional<Theta> theta = GradeTheta(*tput_, gpu, tier, date);
  return theta_cache_[key] = theta ? std::optional<int64_t>(theta->two_theta_e6()) : std::nullopt;
}

DayInputs Builder::Inputs(const Series& s, const Window& w,
                          const std::vector<std::optional<int64_t>>& grade_theta) {
  auto first = std::upper_bound(s.rows.begin(), s.rows.end(), w.after,
                                [](common::TimestampUs t, const SeriesRow& r) { return t < r.ts; });
  auto last = std::upper_bound(first, s.rows.end(), w.until,
                               [](common::TimestampUs t, const SeriesRow& r) { return t < r.ts; });
  DayInputs out;
  out.candidates.reserve(last - first);
  out.inputs.reserve(last - first);
  // Bytewise order of the canonical rows. The series is in time order, and a row starts with
  // its time to the second in fixed width ("YYYY-MM-DDTHH:MM:SS"), so rows of different
  // seconds are already in order: only each second's rows need sorting.
  auto by_row = [](const ExplainedInput& a, const ExplainedInput& b) { return a.row < b.row; };
  size_t group = 0;
  common::TimestampUs group_second = 0;
  for (auto it = first; it != last; ++it) {
    const common::TimestampUs second = it->ts / 1'000'000;
    if (second != group_second || out.inputs.empty()) {
      if (out.inputs.size() - group > 1) {
        std::sort(out.inputs.begin() + group, out.inputs.end(), by_row);
      }
      group = out.inputs.size();
      group_second = second;
    }
    ExplainedInput in{&obs_[it->row], Row(it->row), -1, std::nullopt};
    PricePoint p = it->point;
    if (s.market_wide) {
      in.two_theta_e6 = grade_theta[it->grade];
      if (in.two_theta_e6) {  // without θ a price cannot be expressed per token
        p.value_e6 = PricePerMtokE6(p.value_e6, *in.two_theta_e6);
        in.candidate = static_cast<int>(out.candidates.size());
        out.candidates.push_back(p);
      }
    } else {
      in.candidate = static_cast<int>(out.candidates.size());
      out.candidates.push_back(p);
    }
    out.inputs.push_back(std::move(in));
  }
  if (out.inputs.size() - group > 1) std::sort(out.inputs.begin() + group, out.inputs.end(), by_row);
  // Provider ids are dense over the whole file, and the methodology sizes its per-provider
  // arrays by the largest id it is given: a day of six points among a file of two million
  // providers scanned arrays of two million, some ten times a series-day (a review,
  // 2026-12-07). The day's own ids are renumbered 0..k-1 in the same order.
  day_providers_.clear();
  for (const PricePoint& p : out.candidates) day_providers_.push_back(p.provider);
  std::sort(day_providers_.begin(), day_providers_.end());
  day_providers_.erase(std::unique(day_providers_.begin(), day_providers_.end()),
                       day_providers_.end());
  for (PricePoint& p : out.candidates) {
    p.provider = static_cast<int32_t>(
        std::lower_bound(day_providers_.begin(), day_providers_.end(), p.provider) -
        day_providers_.begin());
  }
  return out;
}

std::string_view Builder::Row(int32_t i) {
  return std::string_view(rows_).substr(row_begin_[i], row_begin_[i + 1] - row_begin_[i]);
}

std::string Builder::InputsHash(const Series& s, const DayInputs& in,
                                std::vector<std::optional<std::string>>& grade_hash) {
  if (s.market_wide) {
    std::vector<std::string> rows;
    std::vector<char> seen(grade_list_.size(), 0);
    for (const ExplainedInput& e : in.inputs) {
      const int32_t g = grade_of_row_[e.observation - obs_.data()];
      if (seen[g]) continue;
      seen[g] = 1;
      rows.push_back(absl::StrCat(grade_list_[g].key, ",", *grade_hash[g]));
    }
    return InputsSha256(std::move(rows));
  }
  // The inputs are sorted already (Inputs): hash them as they are.
  hash_text_.clear();
  for (const ExplainedInput& e : in.inputs) {
    hash_text_.append(e.row);
    hash_text_.push_back('\n');
  }
  std::string hash = common::TokenSha256Hex(hash_text_);
  if (!in.inputs.empty()) grade_hash[grade_ids_.at(s.key)] = hash;
  return hash;
}

absl::StatusOr<std::optional<FixRecord>> Builder::Lookup(const std::string& key,
                                                         common::Date date) {
  auto it = run_records_.find({key, date});
  if (it != run_records_.end()) return std::optional<FixRecord>(it->second);
  if (store_ == nullptr) return std::optional<FixRecord>();
  return store_->Get(key, date);
}

absl::StatusOr<FixRecord> Builder::Level3(const Series& s, common::Date date,
                                          std::optional<int64_t> theta, CarryInfo* carry) {
  FixRecord r;
  r.grade = s.key;
  r.date = date;
  // Consecutive stale days ending yesterday; the carry may extend the run to at most
  // kMaxStaleDays. The walk needs at most kMaxStaleDays + 1 look-ups.
  common::Date d = options_.calendar.PreviousBusinessDay(date);
  absl::StatusOr<std::optional<FixRecord>> prev = Lookup(s.key, d);
  if (!prev.ok()) return prev.status();
  int stale_run = 0;
  std::optional<FixRecord> cur = *prev;
  while (cur && cur->fix_e4 && cur->level == 3 && stale_run <= kMaxStaleDays) {
    ++stale_run;
    d = options_.calendar.PreviousBusinessDay(d);
    absl::StatusOr<std::optional<FixRecord>> earlier = Lookup(s.key, d);
    if (!earlier.ok()) return earlier.status();
    cur = *earlier;
  }
  if (*prev && (*prev)->fix_e4 && stale_run + 1 <= kMaxStaleDays) {
    r.level = 3;
    r.fix_e4 = (*prev)->fix_e4;
    r.p25_e4 = (*prev)->p25_e4;
    r.p75_e4 = (*prev)->p75_e4;
    r.flags.push_back(kFlagStale);
    carry->from = options_.calendar.PreviousBusinessDay(date);
    carry->stale_days = stale_run + 1;
  } else {
    r.flags.push_back(kFlagInsufficientData);
    carry->stale_days = 0;
    carry->reason = !*prev ? "the previous business day has no record"
                    : !(*prev)->fix_e4
                        ? "the previous business day has no fix"
                        : absl::StrCat("the previous fix has already been carried ", stale_run,
                                       " consecutive business days (at most ", kMaxStaleDays, ")");
  }
  if (s.market_wide) {
    r.price_per_mtok_e4 = r.fix_e4;
  } else {
    AddThroughputFields(r, theta);
  }
  return r;
}

absl::Status Builder::Publish(FixRecord computed,
                              const std::function<std::string(int, const std::string&)>& explain) {
  FixRecord final_record = computed;
  std::string explanation;
  if (store_ != nullptr) {
    absl::StatusOr<std::vector<FixRevision>> history =
        store_->History(computed.grade, computed.date);
    if (!history.ok()) return history.status();
    const bool same =
        !history->empty() && RecordToJson(history->back().record) == RecordToJson(computed);
    if (history->empty()) {
      explanation = explain(0, "");
      items_.push_back({computed, 0, "", explanation});
      ++result_.published;
    } else if (options_.revise && !same) {
      const int revision = history->back().revision + 1;
      explanation = explain(revision, options_.reason);
      items_.push_back({computed, revision, options_.reason, explanation});
      ++result_.revised;
    } else {
      final_record = history->back().record;
      absl::StatusOr<std::optional<std::string>> stored = store_->Explanation(
          computed.grade, computed.date, history->back().revision);
      if (!stored.ok()) return stored.status();
      explanation = stored->value_or("");
      if (!same) {
        result_.warnings.push_back(absl::StrCat(
            computed.grade, " ", common::FormatDate(computed.date),
            ": already published; the recomputed record differs and was not stored "
            "(use --revise --reason to publish a correction)"));
      }
    }
  } else if (options_.explain) {
    explanation = explain(0, "");
  }
  run_records_[{final_record.grade, final_record.date}] = final_record;
  result_.records.push_back(std::move(final_record));
  if (Explaining()) result_.explanations.push_back(std::move(explanation));
  return absl::OkStatus();
}

absl::Status Builder::ReconcileThroughput() {
  absl::StatusOr<std::vector<ThroughputRevision>> stored = store_->Throughput();
  if (!stored.ok()) return stored.status();
  using Key = std::tuple<std::string_view, std::string_view, common::Date>;  // gpu, operator, date
  std::map<std::string_view, const OperatorThroughput*> stored_tier;  // operator -> a stored row
  std::map<Key, const ThroughputRevision*> stored_row;
  for (const ThroughputRevision& t : *stored) {
    stored_tier.emplace(t.row.operator_name, &t.row);
    stored_row.emplace(Key{t.row.gpu, t.row.operator_name, t.row.date}, &t);
  }
  // SPEC §8 step 6: an operator listed under two tiers is an input error, across runs as
  // within a file (keyed by operator alone, as the reader and valuation key it): a store
  // holding both makes every later `cfx settle` fail in valuation.
  for (const ThroughputRow& r : *tput_) {
    auto it = stored_tier.find(r.operator_name);
    if (it == stored_tier.end() || it->second->tier == r.tier) continue;
    const std::string reason = absl::StrCat(
        "operator '", r.operator_name, "' is listed under ", common::TierName(r.tier),
        " here and under ", common::TierName(it->second->tier), " in the reference store (",
        it->second->gpu, ", ", common::FormatDate(it->second->date), ")");
    if (r.line > 0) return common::CsvError(options_.throughput_file, r.line, "tier", reason);
    return absl::InvalidArgumentError(absl::StrCat(options_.throughput_file, ": ", reason));
  }
  // One row per key: the later row of the run wins, as for θ.
  std::map<Key, size_t> latest;
  for (size_t i = 0; i < tput_->size(); ++i) {
    const ThroughputRow& r = (*tput_)[i];
    latest[Key{r.gpu, r.operator_name, r.date}] = i;
  }
  std::map<Key, int64_t> kept;  // tps_e6 of the stored rows a differing run row did not replace
  for (const auto& [key, i] : latest) {
    const ThroughputRow& r = (*tput_)[i];
    auto it = stored_row.find(key);
    if (it == stored_row.end()) {
      new_throughput_.push_back(ToOperatorThroughput(r));
      continue;
    }
    const ThroughputRevision& s = *it->second;
    const int64_t stored_e6 = TpsE6(s.row);
    if (stored_e6 == r.tps_e6) continue;
    // A published measurement is changed only by a revision, like a published fix (SPEC §8).
    if (options_.revise) {
      throughput_revisions_.push_back({ToOperatorThroughput(r), s.revision + 1, options_.reason});
      result_.throughput_revised.push_back({throughput_revisions_.back(), s.row});
      continue;
    }
    kept[key] = stored_e6;
    result_.warnings.push_back(absl::StrCat(
        "throughput ", r.gpu, " ", r.operator_name, " ", common::FormatDate(r.date),
        r.line > 0 ? absl::StrCat(" (", options_.throughput_file, ":", r.line, ")") : "",
        ": already stored as ", internal::FormatTrimmed(stored_e6, kInputScale),
        "; the new measurement ", internal::FormatTrimmed(r.tps_e6, kInputScale),
        " differs and was not stored, the stored one is used (use --revise --reason to publish "
        "a correction)"));
  }
  // SPEC §8 step 6: θ is over each operator's latest measurement dated <= D, and §9.4 has
  // margin and settlement read the measurements as stored. So θ takes the stored rows as
  // well as the run's: an operator measured in an earlier run and absent from this one's
  // file still counts, as it does for margin (FixStore::LatestThroughput). Until 2026-12-07
  // θ took only the run's file, and a day built from a file of one new measurement
  // published a θ the margin of that day did not use (a review).
  std::vector<ThroughputRow> effective;
  effective.reserve(stored->size() + tput_->size());
  for (const ThroughputRevision& t : *stored) {
    const OperatorThroughput& o = t.row;
    if (latest.count(Key{o.gpu, o.operator_name, o.date}) != 0) continue;  // the run's row
    effective.push_back(ThroughputRow{.date = o.date,
                                      .operator_name = o.operator_name,
                                      .tier = o.tier,
                                      .gpu = o.gpu,
                                      .tps_e6 = TpsE6(o)});
  }
  for (ThroughputRow r : *tput_) {
    auto it = kept.find(Key{r.gpu, r.operator_name, r.date});
    if (it != kept.end()) r.tps_e6 = it->second;
    effective.push_back(std::move(r));
  }
  effective_tput_ = std::move(effective);
  tput_ = &effective_tput_;
  return absl::OkStatus();
}

void Builder::IndexSeries(const std::vector<common::Date>& days) {
  // Series: every grade in any row (eligible or not), then each region's market-wide series.
  // Rows are visited in time order so every series' row list comes out sorted.
  std::vector<int> order(obs_.size());
  std::iota(order.begin(), order.end(), 0);
  auto by_time = [&](int a, int b) { return obs_[a].ts < obs_[b].ts; };
  if (!std::is_sorted(order.begin(), order.end(), by_time)) {
    std::stable_sort(order.begin(), order.end(), by_time);
  }
  std::unordered_map<std::string_view, int32_t> providers;
  provider_id_.resize(obs_.size());
  row_begin_.assign(obs_.size() + 1, 0);
  // Rows are written for the observations the run's windows can hold: one arena, written in
  // index order before any view of it is taken.
  const common::TimestampUs after = FixWindow(days.front(), options_.calendar).after;
  const common::TimestampUs until = FixWindow(days.back(), options_.calendar).until;
  internal::CanonicalRowWriter writer;
  rows_.reserve(obs_.size() * 72);
  for (size_t i = 0; i < obs_.size(); ++i) {
    const Observation& o = obs_[i];
    if (IsEligibleLease(o.lease) && o.ts > after && o.ts <= until) writer.Append(o, &rows_);
    row_begin_[i + 1] = rows_.size();
  }
  grade_of_row_.resize(obs_.size());
  std::string key;
  for (int i : order) {
    const Observation& o = obs_[i];
    provider_id_[i] =
        providers.try_emplace(std::string_view(o.provider), providers.size()).first->second;
    key.assign(o.gpu).append("-").append(common::TierName(o.tier)).append("-").append(o.region);
    auto [it, inserted] = grade_ids_.try_emplace(key, grade_list_.size());
    grade_of_row_[i] = it->second;
    if (inserted) {
      grade_list_.push_back(Series{key, false, {}});
      grade_parts_.push_back(common::Grade{o.gpu, o.tier, o.region});
    }
    auto region_it = regions_.find(o.region);
    if (region_it == regions_.end()) {
      region_it =
          regions_.emplace(o.region, Series{absl::StrCat(kMarketWidePrefix, o.region), true, {}})
              .first;
    }
    Series& r = region_it->second;
    if (!IsEligibleLease(o.lease)) continue;
    const SeriesRow row{
        o.ts, it->second, i,
        PricePoint{provider_id_[i], o.price_e6, o.gpu_hours_e6, o.kind == Kind::kTrade}};
    grade_list_[it->second].rows.push_back(row);
    r.rows.push_back(row);
  }
  // Output order: grades sorted by key.
  grade_order_.resize(grade_list_.size());
  std::iota(grade_order_.begin(), grade_order_.end(), 0);
  std::sort(grade_order_.begin(), grade_order_.end(),
            [&](int a, int b) { return grade_list_[a].key < grade_list_[b].key; });
}

absl::Status Builder::AddStoredSeries(common::Date first) {
  // SPEC §8: level 3 carries a grade's fix across runs for up to five business days, and a
  // grade that goes quiet shows `stale` (docs/methodology.md §7), never silently absent. A
  // grade (or market-wide series) the store published for the business day before the run
  // that the run's file does not name is built too: until 2026-12-07 it got no record, its
  // carry chain broke and settlement found no fix for it that day (a review).
  absl::StatusOr<std::vector<std::string>> stored = store_->Grades();
  if (!stored.ok()) return stored.status();
  const common::Date before = options_.calendar.PreviousBusinessDay(first);
  bool added = false;
  for (const std::string& key : *stored) {
    const bool market_wide = absl::StartsWith(key, kMarketWidePrefix);
    if (market_wide) {
      const std::string region = key.substr(std::strlen(kMarketWidePrefix));
      if (!options_.market_wide || regions_.contains(region)) continue;
      absl::StatusOr<std::optional<FixRecord>> prev = Lookup(key, before);
      if (!prev.ok()) return prev.status();
      if (*prev) regions_.emplace(region, Series{key, true, {}});
      continue;
    }
    if (grade_ids_.contains(key)) continue;
    absl::StatusOr<common::Grade> grade = common::ParseGrade(key);
    if (!grade.ok()) continue;  // not a grade this build could have written
    absl::StatusOr<std::optional<FixRecord>> prev = Lookup(key, before);
    if (!prev.ok()) return prev.status();
    if (!*prev) continue;
    grade_ids_.emplace(key, grade_list_.size());
    grade_list_.push_back(Series{key, false, {}});
    grade_parts_.push_back(*grade);
    added = true;
  }
  if (added) {
    grade_order_.resize(grade_list_.size());
    std::iota(grade_order_.begin(), grade_order_.end(), 0);
    std::sort(grade_order_.begin(), grade_order_.end(),
              [&](int a, int b) { return grade_list_[a].key < grade_list_[b].key; });
  }
  return absl::OkStatus();
}

absl::StatusOr<BuildResult> Builder::Run() {
  if (options_.to < options_.from) return absl::InvalidArgumentError("--to is before --date");
  if (options_.revise && options_.reason.empty()) {
    return absl::InvalidArgumentError("--revise needs a non-empty --reason");
  }
  if (options_.revise && store_ == nullptr) {
    return absl::InvalidArgumentError("--revise needs --data-dir (revisions are stored)");
  }
  std::vector<common::Date> days = options_.calendar.BusinessDays(options_.from, options_.to);
  if (days.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("no business day in ",
                                                   common::FormatDate(options_.from), "..",
                                                   common::FormatDate(options_.to)));
  }
  if (store_ != nullptr) {
    if (absl::Status st = ReconcileThroughput(); !st.ok()) return st;
  }
  IndexSeries(days);
  if (store_ != nullptr) {
    if (absl::Status st = AddStoredSeries(days.front()); !st.ok()) return st;
  }
  // A record per grade (and market-wide series) per business day (SPEC §8), all held until
  // printed: ten thousand GPU names in a 700 KB file over ten years came to 26 M records and
  // tens of GB before anything was written (a review, 2026-12-07). Bounded, with a message
  // saying what to split.
  const uint64_t series = grade_list_.size() + (options_.market_wide ? regions_.size() : 0);
  if (series * days.size() > kMaxRecordsPerRun) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the observations name ", grade_list_.size(), " grades, which over ", days.size(),
        " business days make ", series * days.size(), " records, more than ", kMaxRecordsPerRun,
        " in one run: build fewer days at a time"));
  }

  for (common::Date day : days) {
    const Window window = FixWindow(day, options_.calendar);
    std::vector<std::optional<int64_t>> grade_theta(grade_list_.size());
    for (size_t g = 0; g < grade_list_.size(); ++g) {
      grade_theta[g] = TwiceTheta(grade_parts_[g].gpu, grade_parts_[g].tier, day);
    }
    std::vector<std::optional<std::string>> grade_hash(grade_list_.size());
    std::vector<std::pair<const Series*, std::optional<int64_t>>> todo;
    for (int g : grade_order_) todo.emplace_back(&grade_list_[g], grade_theta[g]);
    if (options_.market_wide) {
      for (const auto& [region, s] : regions_) todo.emplace_back(&s, std::nullopt);
    }
    for (const auto& [series, theta] : todo) {
      const Series& s = *series;
      DayInputs day_inputs = Inputs(s, window, grade_theta);
      FixTrace trace;
      FixComputation fix = ComputeFix(day_inputs.candidates, Explaining() ? &trace : nullptr);
      FixRecord r;
      CarryInfo carry;
      if (fix.level == 0) {
        absl::StatusOr<FixRecord> carried = Level3(s, day, theta, &carry);
        if (!carried.ok()) return carried.status();
        r = std::move(*carried);
      } else {
        r = FromComputation(s, day, fix, theta);
      }
      if (s.market_wide) r.flags.push_back(kFlagMarketWide);
      r.methodology = kMethodologyVersion;
      r.inputs_sha256 = InputsHash(s, day_inputs, grade_hash);
      auto explain = [&](int revision, const std::string& reason) {
        ExplainContext c;
        c.record = &r;
        c.revision = revision;
        c.reason = reason;
        c.window = window;
        c.market_wide = s.market_wide;
        c.inputs = day_inputs.inputs;
        c.candidates = day_inputs.candidates;
        c.trace = &trace;
        c.carry = carry;
        return ExplainJson(c);
      };
      if (absl::Status st = Publish(r, explain); !st.ok()) return st;
    }
  }
  if (store_ != nullptr) {
    if (absl::Status st = store_->Publish(items_, new_throughput_, throughput_revisions_);
        !st.ok()) {
      return st;
    }
    result_.stored = std::move(items_);
    result_.throughput_published = static_cast<int>(new_throughput_.size());
    result_.throughput_stored = std::move(new_throughput_);
  }
  return std::move(result_);
}

absl::StatusOr<BuildResult> BuildFixes(const std::vector<Observation>& observations,
                                       const std::vector<ThroughputRow>& throughput,
                                       const BuildOptions& options, FixStore* store) {
  Builder builder(observations, throughput, options, store);
  return builder.Run();
}

}  // namespace cfx::reference
