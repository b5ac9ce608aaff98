// Input rows of the benchmark (SPEC §8) and their strict CSV readers.
//
//   absl::StatusOr<std::vector<Observation>> obs = ReadObservationsFile("observations.csv");
//   if (!obs.ok()) { /* message: "observations.csv:12: column price: must be > 0 ('0')" */ }
//
// A reader validates every row in full, eligible for a fix or not, and stops at the first bad
// row. The text follows the strict CSV rules of cfx/common/csv.h: exact header (line 1, a
// UTF-8 byte order mark before it is dropped), no quoting, no surrounding spaces, no empty
// field, exact field count, CRLF accepted, blank lines skipped but counted.
#ifndef CFX_REFERENCE_INPUTS_H_
#define CFX_REFERENCE_INPUTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"

namespace cfx::reference {

enum class Lease { kOnDemand, kReserved1m, kReserved3m, kReserved1y, kSpot };
enum class Kind { kTrade, kQuote };
std::optional<Lease> ParseLease(absl::string_view s);
const char* LeaseName(Lease l);
std::optional<Kind> ParseKind(absl::string_view s);
const char* KindName(Kind k);

// Prices and volumes are exact: scaled by 10^6 (at most 6 decimals are accepted).
inline constexpr int kInputScale = 6;

struct Observation {
  common::TimestampUs ts = 0;
  std::string provider;
  std::string gpu;
  common::Tier tier = common::Tier::kGold;
  std::string region;
  Lease lease = Lease::kOnDemand;
  Kind kind = Kind::kTrade;
  int64_t price_e6 = 0;          // USD per GPU-hour × 10^6, > 0
  int64_t gpu_hours_e6 = 0;      // volume × 10^6, > 0
  std::string GradeKey() const;  // "B200-GOLD-US"
};

struct ThroughputRow {
  common::Date date;
  std::string operator_name;
  common::Tier tier = common::Tier::kGold;
  std::string gpu;
  std::string model;
  int64_t isl = 0;
  int64_t osl = 0;
  int64_t tps_e6 = 0;  // output tokens/s per GPU × 10^6, > 0
  int64_t line = 0;    // its line in the file (the header is line 1); 0 when not read from one
};

inline constexpr absl::string_view kObservationsHeader =
    "ts,provider,gpu,tier,region,lease,kind,price,gpu_hours";
inline constexpr absl::string_view kThroughputHeader =
    "date,operator,tier,gpu,model,isl,osl,output_tps_per_gpu";

// Parse CSV text; `file` names the source in error messages. InvalidArgument on the first
// bad row, naming file, line, column and reason.
absl::StatusOr<std::vector<Observation>> ParseObservationsCsv(absl::string_view text,
                                                              absl::string_view file);
// Also rejects an operator listed under two tiers, and an operator name that is not
// IsPlainName (1-64 printable ASCII characters, no space: it keys the store and JSON).
absl::StatusOr<std::vector<ThroughputRow>> ParseThroughputCsv(absl::string_view text,
                                                              absl::string_view file);
// Read a file and parse it. NotFound when the file cannot be read.
absl::StatusOr<std::vector<Observation>> ReadObservationsFile(const std::string& path);
absl::StatusOr<std::vector<ThroughputRow>> ReadThroughputFile(const std::string& path);

// One observation as a canonical observations.csv row, without a line end: UTC timestamp as
// FormatTimestamp writes it, decimals without trailing zeros. The rows of inputs_sha256.
std::string ObservationCsvRow(const Observation& o);

// Writers (used by the sample generator and tests); output parses back to the same rows.
std::string ObservationsToCsv(const std::vector<Observation>& rows);
std::string ThroughputToCsv(const std::vector<ThroughputRow>& rows);

}  // namespace cfx::reference

#endif  // CFX_REFERENCE_INPUTS_H_
