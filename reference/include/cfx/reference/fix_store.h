// Published reference fixes (SPEC §8, §12) and the read API other modules use.
//
//   auto store = FixStore::Open(data_dir);                  // <data_dir>/reference (LMDB)
//   auto rec = (*store)->Get("B200-GOLD-US", date);         // latest revision, or nullopt
//   if (rec.ok() && *rec && (*rec)->fix_e4) { int64_t fix = *(*rec)->fix_e4; ... }
//   auto ops = (*store)->LatestThroughput(date);             // for TSR (valuation)
//   std::optional<Theta> theta = GradeTheta(*ops, "B200", Tier::kGold, date);  // throughput.h
//
// Settlement reads fixes (a stale fix is still a fix: `fix_e4` set, flag "stale"); valuation
// reads per-operator throughput. The store layout is documented in docs/formats.md.
#ifndef CFX_REFERENCE_FIX_STORE_H_
#define CFX_REFERENCE_FIX_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/reference/throughput.h"

namespace cfx::storage {
class KvStore;
}

namespace cfx::reference {

// Flags a record may carry.
inline constexpr char kFlagStale[] = "stale";
inline constexpr char kFlagInsufficientData[] = "insufficient_data";
inline constexpr char kFlagNoThroughput[] = "no_throughput";
inline constexpr char kFlagMarketWide[] = "market_wide";
// Market-wide series are stored and printed under the pseudo-grade "ALL-<REGION>"; their
// prices are USD per 1M output tokens (fix, p25, p75 and price_per_mtok alike).
inline constexpr char kMarketWidePrefix[] = "ALL-";

// One published record (SPEC §8).
struct FixRecord {
  std::string grade;
  cfx::common::Date date;
  std::optional<int64_t> fix_e4, p25_e4, p75_e4;  // price × 10^4 (4 decimals)
  std::optional<int> level;                       // 1, 2, 3 (stale); null without a fix
  int n_obs = 0, n_dropped = 0, n_providers = 0;
  // Σ raw gpu_hours used (quotes at full size) × 10^6, exact: a double lost the last digits
  // of a large volume (5 × 999999999.999999 printed as 4999999999.9999952).
  int64_t volume_e6 = 0;
  std::optional<double> theta;
  std::optional<int64_t> price_per_mtok_e4;
  std::vector<std::string> flags;  // "stale", "insufficient_data", "no_throughput", ...
  // The methodology version (methodology.h kMethodologyVersion) and the SHA-256 (64
  // lowercase hex digits) of the eligible observations of the series and window as sorted
  // canonical CSV rows (explain.h InputsSha256). A record stored before the audit trail
  // reads back with methodology "cfx-ref-1" and no inputs_sha256.
  std::string methodology;
  std::optional<std::string> inputs_sha256;
  bool HasFlag(const std::string& flag) const;
  friend bool operator==(const FixRecord&, const FixRecord&) = default;
};

// The published text of a volume: exact, trailing zeros and a trailing point dropped
// ("1234.5", "1000", "0"), as FormatMeasure writes measures. JSON, CSV and the HTTP API.
std::string FormatVolume(int64_t volume_e6);

// The §12 JSON line (no trailing newline); prices as 4-decimal strings, nulls as null.
std::string RecordToJson(const FixRecord& record);
// CSV: header (no newline) and one row per record; flags joined by ';'.
std::string RecordCsvHeader();
std::string RecordToCsv(const FixRecord& record);
// Parses a RecordToJson line back (`volume` exactly, from its text). InvalidArgument on
// malformed input.
absl::StatusOr<FixRecord> RecordFromJson(const std::string& json);

// A stored revision of one record.
struct FixRevision {
  FixRecord record;
  int revision = 0;    // 0 = first publication
  std::string reason;  // empty for revision 0
};

// One record to publish: `revision` must be the next free number for (grade, date).
struct PublishItem {
  FixRecord record;
  int revision = 0;
  std::string reason;
  std::string explanation;  // the explain JSON (explain.h), stored beside the record
};

// A stored operator throughput measurement, keyed by (gpu, operator, date), with its revision:
// 0 for the first publication; a correction (`cfx reference build --revise`) replaces the
// stored value with the next revision and its reason, keeping the replaced one.
struct ThroughputRevision {
  OperatorThroughput row;
  int revision = 0;
  std::string reason;  // empty for revision 0
};

// Thread safety: not thread-safe; one per thread (LMDB allows several readers, in one
// process or several, beside the single writer).
class FixStore {
 public:
  // Opens or creates <data_dir>/reference. Returns an error naming the path on failure.
  // `create` false (a reader): NotFound when no fix was ever stored there, nothing created.
  static absl::StatusOr<std::unique_ptr<FixStore>> Open(const std::string& data_dir,
                                                        bool create = true);
  ~FixStore();

  // Latest revision of the record for (grade, date); nullopt when never published.
  absl::StatusOr<std::optional<FixRecord>> Get(const std::string& grade, cfx::common::Date date);
  // Latest revisions for from <= date <= to, in date order (dates never published are absent).
  absl::StatusOr<std::vector<FixRecord>> Range(const std::string& grade, cfx::common::Date from,
                                               cfx::common::Date to);
  // Latest measurement per (operator, gpu) dated <= date (as stored by `cfx reference build`),
  // sorted by gpu then operator.
  absl::StatusOr<std::vector<OperatorThroughput>> LatestThroughput(cfx::common::Date date);
  // Every stored measurement (each key's latest revision), sorted by (gpu, operator, date).
  absl::StatusOr<std::vector<ThroughputRevision>> Throughput();
  // Every revision of one record, oldest first.
  absl::StatusOr<std::vector<FixRevision>> History(const std::string& grade,
                                                   cfx::common::Date date);
  // Every revision of every record for from <= date <= to, by date then revision.
  absl::StatusOr<std::vector<FixRevision>> RangeHistory(const std::string& grade,
                                                        cfx::common::Date from,
                                                        cfx::common::Date to);
  // The explain JSON stored with a revision (the latest when `revision` is nullopt);
  // nullopt when the record, or its explanation (records stored before cfx-ref-2), is absent.
  absl::StatusOr<std::optional<std::string>> Explanation(const std::string& grade,
                                                         cfx::common::Date date,
                                                         std::optional<int> revision);
  // Grades (and market-wide keys) with at least one record, sorted.
  absl::StatusOr<std::vector<std::string>> Grades();
  // The dates with at least one record (of any grade or market-wide key), sorted: the days
  // a `cfx reference build` published. Reads every key once.
  absl::StatusOr<std::vector<cfx::common::Date>> Dates();
  // Whether at least one record of `grade` is stored (reads one key at most).
  absl::StatusOr<bool> HasGrade(const std::string& grade);

  // Writes all items and throughput measurements in one durable transaction; nothing is
  // written on error, and nothing at all when every value is already stored.
  // `throughput` are first publications: a row already stored with the same value is skipped,
  // and of two rows with one (gpu, operator, date) the later wins. `throughput_revisions`
  // replace stored measurements (the replaced value is kept, docs/formats.md).
  // FailedPrecondition (e.g. a concurrent build) if an item's revision is already taken, a
  // throughput row is stored with another value, a throughput revision is not the next one
  // of its key, or an operator would be stored under two tiers (SPEC §8 step 6: valuation
  // refuses such a store).
  absl::Status Publish(const std::vector<PublishItem>& items,
                       const std::vector<OperatorThroughput>& throughput,
                       const std::vector<ThroughputRevision>& throughput_revisions = {});

 private:
  explicit FixStore(std::unique_ptr<storage::KvStore> kv);
  // Every revision under `prefix` whose key `wanted` accepts, in key order.
  absl::StatusOr<std::vector<FixRevision>> ScanRevisions(
      absl::string_view prefix, const std::function<bool(absl::string_view key)>& wanted);
  std::unique_ptr<storage::KvStore> kv_;
};

}  // namespace cfx::reference

#endif  // CFX_REFERENCE_FIX_STORE_H_
