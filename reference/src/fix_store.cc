// LMDB layout (docs/formats.md, "Reference store"):
//   table "fixes":      "<grade>/<YYYY-MM-DD>/<rev:04d>" ->
//                       {"record":{...§12...},"revision":n,"reason":"..."}
//   table "throughput": "<gpu>/<operator>/<YYYY-MM-DD>"  ->
//                       {"operator","tier","gpu","date","output_tps_per_gpu"[,"revision","reason"]}
//   table "throughput_history": "<gpu>/<operator>/<YYYY-MM-DD>/<rev:04d>" -> a replaced value
//   table "explain":    "<grade>/<YYYY-MM-DD>/<rev:04d>" -> the explain JSON (explain.h)
//   table "meta":       "schema"                          -> "1"
#include "cfx/reference/fix_store.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/json/strict_json.h"
#include "cfx/storage/kv_store.h"
#include "internal/record_json.h"
#include "nlohmann/json.hpp"

namespace cfx::reference {
namespace {

constexpr char kFixes[] = "fixes";
constexpr char kThroughput[] = "throughput";
constexpr char kThroughputHistory[] = "throughput_history";
constexpr char kMeta[] = "meta";
constexpr char kExplain[] = "explain";

std::string FixPrefix(const std::string& grade, common::Date date) {
  return absl::StrCat(grade, "/", common::FormatDate(date), "/");
}

absl::StatusOr<FixRevision> DecodeRevision(absl::string_view value) {
  nlohmann::json j =
      cfx::json::ParseStored({value.data(), value.size()});  // a raw NUL is damage too
  if (j.is_discarded() || !j.is_object() || !j.contains("record")) {
    return absl::DataLossError("reference store: malformed fix value");
  }
  // Not j["record"].dump(): that writes the volume back through a double.
  absl::StatusOr<FixRecord> rec =
      internal::RecordFromJsonValue(j["record"], internal::NumberText(value, {"record", "volume"}));
  if (!rec.ok())
    return absl::DataLossError(absl::StrCat("reference store: ", rec.status().message()));
  FixRevision out;
  out.record = std::move(*rec);
  out.revision = j.value("revision", 0);
  out.reason = j.value("reason", "");
  return out;
}

std::string ThroughputKey(const OperatorThroughput& row) {
  return absl::StrCat(row.gpu, "/", row.operator_name, "/", common::FormatDate(row.date));
}

absl::StatusOr<ThroughputRevision> DecodeThroughput(absl::string_view value) {
  nlohmann::json j = cfx::json::ParseStored({value.data(), value.size()});
  ThroughputRevision out;
  std::optional<common::Tier> tier;
  absl::StatusOr<common::Date> d = absl::InvalidArgumentError("missing date");
  if (j.is_object() && j.contains("date") && j["date"].is_string()) {
    d = common::ParseDate(j["date"].get<std::string>());
    tier = common::ParseTier(j.value("tier", ""));
  }
  // The readers' range (TpsE6's contract): anything else was not written by cfx.
  if (!d.ok() || !tier || !j["output_tps_per_gpu"].is_number() ||
      !(j["output_tps_per_gpu"].get<double>() >= kMinTps) ||
      !(j["output_tps_per_gpu"].get<double>() <= kMaxTps) ||
      !j.value("revision", nlohmann::json(0)).is_number_integer() ||
      !j.value("reason", nlohmann::json("")).is_string()) {
    return absl::DataLossError("reference store: malformed throughput value");
  }
  out.row.operator_name = j.value("operator", "");
  out.row.gpu = j.value("gpu", "");
  out.row.tier = *tier;
  out.row.date = *d;
  out.row.output_tps_per_gpu = j["output_tps_per_gpu"].get<double>();
  out.revision = j.value("revision", 0);
  out.reason = j.value("reason", "");
  return out;
}

// Revision 0 is written as it was before revisions existed (no "revision" or "reason").
std::string EncodeThroughput(const ThroughputRevision& t) {
  nlohmann::ordered_json value;
  value["operator"] = t.row.operator_name;
  value["tier"] = common::TierName(t.row.tier);
  value["gpu"] = t.row.gpu;
  value["date"] = common::FormatDate(t.row.date);
  value["output_tps_per_gpu"] = t.row.output_tps_per_gpu;
  if (t.revision > 0) {
    value["revision"] = t.revision;
    value["reason"] = t.reason;
  }
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

FixStore::FixStore(std::unique_ptr<storage::KvStore> kv) : kv_(std::move(kv)) {}
FixStore::~FixStore() = default;

absl::StatusOr<std::unique_ptr<FixStore>> FixStore::Open(const std::string& data_dir, bool create) {
  absl::StatusOr<std::unique_ptr<storage::KvStore>> kv =
      storage::KvStore::Open(data_dir, storage::KvOptions{.file = "reference", .create = create});
  if (!kv.ok()) return kv.status();
  return std::unique_ptr<FixStore>(new FixStore(std::move(*kv)));
}

absl::StatusOr<std::vector<FixRevision>> FixStore::ScanRevisions(
    absl::string_view prefix, const std::function<bool(absl::string_view key)>& wanted) {
  absl::StatusOr<std::unique_ptr<storage::KvTxn>> txn = kv_->BeginRead();
  if (!txn.ok()) return txn.status();
  std::vector<FixRevision> out;
  absl::Status decode_status;
  absl::Status s =
      (*txn)->Scan(kFixes, prefix, [&](absl::string_view key, absl::string_view value) {
        if (!wanted(key)) return true;
        absl::StatusOr<FixRevision> rev = DecodeRevision(value);
        if (!rev.ok()) {
          decode_status = rev.status();
          return false;
        }
        out.push_back(std::move(*rev));
        return true;
      });
  if (!s.ok()) return s;
  if (!decode_status.ok()) return decode_status;
  return out;
}

absl::StatusOr<std::vector<FixRevision>> FixStore::History(const std::string& grade,
                                                           common::Date date) {
  return ScanRevisions(FixPrefix(grade, date), [](absl::string_view) { return true; });
}

absl::StatusOr<std::vector<FixRevision>> FixStore::RangeHistory(const std::string& grade,
                                                                common::Date from,
                                                                common::Date to) {
  const std::string prefix = absl::StrCat(grade, "/");
  return ScanRevisions(prefix, [&](absl::string_view key) {
    absl::StatusOr<common::Date> date = common::ParseDate(key.substr(prefix.size(), 10));
    return date.ok() && *date >= from && *date <= to;
  });
}

absl::StatusOr<std::optional<std::string>> FixStore::Explanation(const std::string& grade,
                                                                 common::Date date,
                                                                 std::optional<int> revision) {
  if (!revision) {
    absl::StatusOr<std::vector<FixRevision>> history = History(grade, date);
    if (!history.ok()) return history.status();
    if (history->empty()) return std::optional<std::string>();
    revision = history->back().revision;
  }
  absl::StatusOr<std::unique_ptr<storage::KvTxn>> txn = kv_->BeginRead();
  if (!txn.ok()) return txn.status();
  return (*txn)->Get(kExplain,
                     absl::StrCat(FixPrefix(grade, date), absl::StrFormat("%04d", *revision)));
}

absl::StatusOr<std::optional<FixRecord>> FixStore::Get(const std::string& grade,
                                                       common::Date date) {
  absl::StatusOr<std::vector<FixRevision>> history = History(grade, date);
  if (!history.ok()) return history.status();
  if (history->empty()) return std::optional<FixRecord>();
  return std::optional<FixRecord>(std::move(history->back().record));
}

absl::StatusOr<std::vector<FixRecord>> FixStore::Range(const std::string& grade, common::Date from,
                                                       common::Date to) {
  absl::StatusOr<std::vector<FixRevision>> all = RangeHistory(grade, from, to);
  if (!all.ok()) return all.status();
  // Revisions come by date then revision, so the last one of a date is its latest.
  std::vector<FixRecord> out;
  for (FixRevision& rev : *all) {
    if (!out.empty() && out.back().date == rev.record.date) out.pop_back();
    out.push_back(std::move(rev.record));
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> FixStore::Grades() {
  absl::StatusOr<std::unique_ptr<storage::KvTxn>> txn = kv_->BeginRead();
  if (!txn.ok()) return txn.status();
  std::vector<std::string> out;
  absl::Status s = (*txn)->Scan(kFixes, "", [&](absl::string_view key, absl::string_view) {
    std::string grade(key.substr(0, key.find('/')));
    if (out.empty() || out.back() != grade) out.push_back(std::move(grade));
    return true;
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<common::Date>> FixStore::Dates() {
  absl::StatusOr<std::unique_ptr<storage::KvTxn>> txn = kv_->BeginRead();
  if (!txn.ok()) return txn.status();
  std::vector<common::Date> out;
  absl::Status bad;
  absl::Status s = (*txn)->Scan(kFixes, "", [&](absl::string_view key, absl::string_view) {
    // <grade>/<YYYY-MM-DD>/<rev>
    const size_t first = key.find('/');
    const size_t second = first == absl::string_view::npos ? first : key.find('/', first + 1);
    absl::StatusOr<common::Date> date =
        second == absl::string_view::npos
            ? absl::InvalidArgumentError("no date")
            : common::ParseDate(key.substr(first + 1, second - first - 1));
    if (!date.ok()) {
      bad = absl::DataLossError(absl::StrCat(kv_->path(), ": fixes/", std::string(key),
                                             ": not a <grade>/<date>/<rev> key"));
      return false;
    }
    out.push_back(*date);
    return true;
  });
  if (!s.ok()) return s;
  if (!bad.ok()) return bad;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

absl::StatusOr<bool> FixStore::HasGrade(const std::string& grade) {
  absl::StatusOr<std::unique_ptr<storage::KvTxn>> txn = kv_->BeginRead();
  if (!txn.ok()) return txn.status();
  bool found = false;
  absl::Status s =
      (*txn)->Scan(kFixes, absl::StrCat(grade, "/"), [&](absl::string_view, absl::string_view) {
        found = true;
        return false;
      });
  if (!s.ok()) return s;
  return found;
}

namespace {

// Every stored throughput row, decoded; the first row that does not decode is the error.
absl::Status ForEachThroughput(storage::KvTxn& txn,
                               const std::function<void(ThroughputRevision&&)>& visit) {
  absl::Status decode_status;
  absl::Status s = txn.Scan(kThroughput, "", [&](absl::string_view, absl::string_view value) {
    absl::StatusOr<ThroughputRevision> row = DecodeThroughput(value);
    if (!row.ok()) {
      decode_status = row.status();
      return false;
    }
    visit(std::move(*row));
    return true;
  });
  if (!s.ok()) return s;
  return decode_status;
}

}  // namespace

absl::StatusOr<std::vector<ThroughputRevision>> FixStore::Throughput() {
  absl::StatusOr<std::unique_ptr<storage::KvTxn>> txn = kv_->BeginRead();
  if (!txn.ok()) return txn.status();
  std::vector<ThroughputRevision> rows;
  absl::Status s =
      ForEachThroughput(**txn, [&](ThroughputRevision&& row) { rows.push_back(std::move(row)); });
  if (!s.ok()) return s;
  return rows;
}

absl::StatusOr<std::vector<OperatorThroughput>> FixStore::LatestThroughput(common::Date date) {
  absl::StatusOr<std::vector<ThroughputRevision>> stored = Throughput();
  if (!stored.ok()) return stored.status();
  std::vector<OperatorThroughput> rows;
  for (ThroughputRevision& t : *stored) {
    if (t.row.date <= date) rows.push_back(std::move(t.row));
  }
  // One row per (gpu, operator, date) key, so "the later row" never has to break a tie.
  return LatestPerOperator(rows, date);
}

absl::Status FixStore::Publish(const std::vector<PublishItem>& items,
                               const std::vector<OperatorThroughput>& throughput,
                               const std::vector<ThroughputRevision>& throughput_revisions) {
  absl::StatusOr<std::unique_ptr<storage::KvTxn>> txn = kv_->BeginWrite();
  if (!txn.ok()) return txn.status();
  // A rerun that publishes nothing new must not write at all (not even identical bytes), so
  // unchanged values are skipped and an empty transaction is aborted.
  bool changed = !items.empty();
  if (!items.empty()) {
    if (absl::Status s = (*txn)->Put(kMeta, "schema", "1"); !s.ok()) return s;
  }
  for (const PublishItem& item : items) {
    const std::string key = absl::StrCat(FixPrefix(item.record.grade, item.record.date),
                                         absl::StrFormat("%04d", item.revision));
    absl::StatusOr<std::optional<std::string>> existing = (*txn)->Get(kFixes, key);
    if (!existing.ok()) return existing.status();
    if (existing->has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("reference store: revision already stored: ", key));
    }
    // The record's own text, not re-serialized by nlohmann (which writes the volume through a
    // double); the reason is escaped by nlohmann, invalid UTF-8 replaced.
    const std::string value = absl::StrCat(
        "{\"record\":", RecordToJson(item.record), ",\"revision\":", item.revision, ",\"reason\":",
        nlohmann::json(item.reason).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
        "}");
    if (absl::Status s = (*txn)->Put(kFixes, key, value); !s.ok()) return s;
    if (!item.explanation.empty()) {
      if (absl::Status s = (*txn)->Put(kExplain, key, item.explanation); !s.ok()) return s;
    }
  }
  if (!throughput.empty() || !throughput_revisions.empty()) {
    // Every operator's stored tier: the whole table is small (one row per measurement).
    std::map<std::string, common::Tier, std::less<>> operator_tier;
    absl::Status s = ForEachThroughput(**txn, [&](ThroughputRevision&& row) {
      operator_tier.emplace(row.row.operator_name, row.row.tier);
    });
    if (!s.ok()) return s;
    auto check_tier = [&](const OperatorThroughput& row) -> absl::Status {
      auto [it, inserted] = operator_tier.emplace(row.operator_name, row.tier);
      if (!inserted && it->second != row.tier) {
        return absl::FailedPreconditionError(
            absl::StrCat("reference store: operator ", row.operator_name, " is stored under ",
                         common::TierName(it->second), ", not ", common::TierName(row.tier)));
      }
      return absl::OkStatus();
    };
    std::set<std::string> written;  // keys first published by this call: a later row wins
    for (const OperatorThroughput& row : throughput) {
      if (absl::Status st = check_tier(row); !st.ok()) return st;
      const std::string key = ThroughputKey(row);
      absl::StatusOr<std::optional<std::string>> existing = (*txn)->Get(kThroughput, key);
      if (!existing.ok()) return existing.status();
      if (existing->has_value() && !written.contains(key)) {
        absl::StatusOr<ThroughputRevision> stored = DecodeThroughput(**existing);
        if (!stored.ok()) return stored.status();
        if (TpsE6(stored->row) == TpsE6(row)) continue;  // the tier is checked above
        return absl::FailedPreconditionError(
            absl::StrCat("reference store: throughput ", key,
                         " is stored with another value (a correction is "
                         "a revision)"));
      }
      if (absl::Status st = (*txn)->Put(kThroughput, key, EncodeThroughput({row, 0, ""}));
          !st.ok()) {
        return st;
      }
      written.insert(key);
      changed = true;
    }
    for (const ThroughputRevision& t : throughput_revisions) {
      if (absl::Status st = check_tier(t.row); !st.ok()) return st;
      const std::string key = ThroughputKey(t.row);
      absl::StatusOr<std::optional<std::string>> existing = (*txn)->Get(kThroughput, key);
      if (!existing.ok()) return existing.status();
      absl::StatusOr<ThroughputRevision> stored =
          existing->has_value() ? DecodeThroughput(**existing) : absl::NotFoundError("not stored");
      if (!stored.ok() || stored->revision + 1 != t.revision) {
        return absl::FailedPreconditionError(absl::StrCat(
            "reference store: throughput ", key, " revision ", t.revision, " is not the next one"));
      }
      // The replaced value is kept: revisions are never lost (SPEC §8).
      const std::string history_key = absl::StrCat(key, absl::StrFormat("/%04d", stored->revision));
      if (absl::Status st = (*txn)->Put(kThroughputHistory, history_key, **existing); !st.ok()) {
        return st;
      }
      if (absl::Status st = (*txn)->Put(kThroughput, key, EncodeThroughput(t)); !st.ok()) {
        return st;
      }
      changed = true;
    }
  }
  if (!changed) {
    (*txn)->Abort();
    return absl::OkStatus();
  }
  return (*txn)->Commit();
}

}  // namespace cfx::reference
