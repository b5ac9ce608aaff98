// The audit trail of a fix (SPEC §8 "Audit trail", IOSCO Principles 9 and 17): the hash of its
// inputs and the explanation of every decision, stored beside the record when it is published
// and printed by `cfx reference explain` / `GET /v1/reference/{grade}/{date}/explain`.
//
//   std::string sha = InputsSha256(rows);          // rows: canonical CSV rows, any order
//   std::string json = ExplainJson(context);       // at publication (builder.cc)
//   absl::StatusOr<std::string> text = ExplanationText(json);   // for people
//
// The explanation lists every eligible observation of the series and window with its fate
// (`used`, `outlier`, `not_at_level`, `no_level`, `no_throughput`), the level decision and
// its counts, the step-3 statistics (provider medians, m, MAD, threshold) of each level
// tried, each provider's weight before and after the cap, and the cumulative capped weight of
// every used observation around the 25/50/75% points: enough to recompute the fix by hand.
// The format is documented in docs/methodology.md ("Audit trail").
#ifndef CFX_REFERENCE_EXPLAIN_H_
#define CFX_REFERENCE_EXPLAIN_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/reference/fix_store.h"
#include "cfx/reference/inputs.h"
#include "cfx/reference/methodology.h"

namespace cfx::reference {

// SHA-256 (64 lowercase hex digits) of `rows` (canonical CSV rows, ObservationCsvRow, without
// line ends) sorted bytewise, each followed by "\n"; no header. No rows: the SHA-256 of "".
// A market-wide series' inputs_sha256 is this function over the rows "<grade>,<that grade's
// inputs_sha256>" of every grade with an eligible observation in the window.
std::string InputsSha256(std::vector<std::string> rows);

// One eligible observation of the series and window.
struct ExplainedInput {
  const Observation* observation = nullptr;  // never null
  std::string_view row;  // ObservationCsvRow(*observation); owned by the caller
  int candidate = -1;  // index into ExplainContext::candidates; -1: left out (no θ)
  // Market-wide only: the grade's 2θ × 10^6 used to convert the price (nullopt: no θ).
  std::optional<int64_t> two_theta_e6;
};

// Level 3: where the carry came from, or why there is no fix.
struct CarryInfo {
  std::optional<common::Date> from;  // the previous business day whose record was carried
  int stale_days = 0;                // consecutive stale days including this one
  std::string reason;                // set when there is no fix
};

struct ExplainContext {
  const FixRecord* record = nullptr;  // the published record (methodology, inputs_sha256 set)
  int revision = 0;
  std::string reason;
  Window window;
  bool market_wide = false;
  std::vector<ExplainedInput> inputs;      // sorted by row
  std::span<const PricePoint> candidates;  // what ComputeFix saw
  const FixTrace* trace = nullptr;         // ComputeFix's trace of `candidates`
  CarryInfo carry;
};

// The explanation as one JSON object (no newline).
std::string ExplainJson(const ExplainContext& context);

// OK when `json` can be served as a stored explanation is (HTTP, `reference explain --format
// json`): one JSON object and no raw NUL (nlohmann reads a NUL as the end of the input, so
// `{...}\0junk` would pass). InvalidArgument saying what is wrong otherwise.
absl::Status CheckExplanationJson(const std::string& json);

// A readable rendering of an ExplainJson object. InvalidArgument when `json` is not one
// (CheckExplanationJson, then every field the rendering reads).
absl::StatusOr<std::string> ExplanationText(const std::string& json);

}  // namespace cfx::reference

#endif  // CFX_REFERENCE_EXPLAIN_H_
