// LMDB layout (docs/formats.md, "Reference store"):
//   table "fixes":      "<grade>/<YYYY-MM-DD>/<rev:04d>" ->
//   {"record":{...§12...},"revision":n,"reason":"..."} table "throughput":
//   "<gpu>/<operator>/<YYYY-MM-DD>"   -> {"operator","tier","gpu","date","output_tps_per_gpu"}
//   table "explain":    "<grade>/<YYYY-MM-DD>/<rev:04d>" -> the explain JSON (explain.h)
//   table "meta":       "schema"                          -> "1"
#include "cfx/reference/fix_store.h"

#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/storage/kv_store.h"
#include "nlohmann/json.hpp"

namespace cfx::reference {
namespace {

constexpr char kFixes[] = "fixes";
constexpr char kThroughput[] = "throughput";
constexpr char kMeta[] = "meta";
constexpr char kExplain[] = "explain";

std::string FixPrefix(const std::string& grade, common::Date date) {
  return absl::StrCat(grade, "/", common::FormatDate(date), "/");
}

absl::StatusOr<FixRevision> DecodeRevision(absl::string_view value) {
  nlohmann::json j = nlohmann::json::parse(value, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("record")) {
    return absl::DataLossError("reference store: malformed fix value");
  }
  absl::StatusOr<FixRecord> rec = RecordFromJson(j["record"].dump());
  if (!rec.ok())
    return absl::DataLossError(absl::StrCat("reference store: ", rec.status().message()));
  FixRevision out;
  out.record = std::move(*rec);
  out.revision = j.value("revision", 0);
  out.reason = j.value("reason", "");
  return out;
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

absl::StatusOr<std::vector<OperatorThroughput>> FixStore::LatestThroughput(common::Date date) {
  absl::StatusOr<std::unique_ptr<storage::KvTxn>> txn = kv_->BeginRead();
  if (!txn.ok()) return txn.status();
  std::vector<OperatorThroughput> rows;
  absl::Status decode_status;
  absl::Status s = (*txn)->Scan(kThroughput, "", [&](absl::string_view, absl::string_view value) {
    nlohmann::json j = nlohmann::json::parse(value, nullptr, false);
    OperatorThroughput row;
    std::optional<common::Tier> tier;
    absl::StatusOr<common::Date> d = absl::InvalidArgumentError("missing date");
    if (j.is_object() && j.contains("date") && j["date"].is_string()) {
      d = common::ParseDate(j["date"].get<std::string>());
      tier = common::ParseTier(j.value("tier", ""));
    }
    if (!d.ok() || !tier || !j["output_tps_per_gpu"].is_number()) {
      decode_status = absl::DataLossError("reference store: malformed throughput value");
      return false;
    }
    row.operator_name = j.value("operator", "");
    row.gpu = j.value("gpu", "");
    row.tier = *tier;
    row.date = *d;
    row.output_tps_per_gpu = j["output_tps_per_gpu"].get<double>();
    if (row.date <= date) rows.push_back(std::move(row));
    return true;
  });
  if (!s.ok()) return s;
  if (!decode_status.ok()) return decode_status;
  // One row per (gpu, operator, date) key, so "the later row" never has to break a tie.
  return LatestPerOperator(rows, date);
}

absl::Status FixStore::Publish(const std::vector<PublishItem>& items,
                               const std::vector<OperatorThroughput>& throughput) {
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
    nlohmann::ordered_json value;
    value["record"] = nlohmann::ordered_json::parse(RecordToJson(item.record));
    value["revision"] = item.revision;
    value["reason"] = item.reason;
    if (absl::Status s = (*txn)->Put(kFixes, key, value.dump()); !s.ok()) return s;
    if (!item.explanation.empty()) {
      if (absl::Status s = (*txn)->Put(kExplain, key, item.explanation); !s.ok()) return s;
    }
  }
  for (const OperatorThroughput& row : throughput) {
    const std::string key =
        absl::StrCat(row.gpu, "/", row.operator_name, "/", common::FormatDate(row.date));
    nlohmann::ordered_json value;
    value["operator"] = row.operator_name;
    value["tier"] = common::TierName(row.tier);
    value["gpu"] = row.gpu;
    value["date"] = common::FormatDate(row.date);
    value["output_tps_per_gpu"] = row.output_tps_per_gpu;
    const std::string text = value.dump();
    absl::StatusOr<std::optional<std::string>> existing = (*txn)->Get(kThroughput, key);
    if (!existing.ok()) return existing.status();
    if (existing->has_value() && **existing == text) continue;
    if (absl::Status s = (*txn)->Put(kThroughput, key, text); !s.ok()) return s;
    changed = true;
  }
  if (!changed) {
    (*txn)->Abort();
    return absl::OkStatus();
  }
  return (*txn)->Commit();
}

}  // namespace cfx::reference
