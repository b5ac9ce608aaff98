// `cfx reference build`: sequences the methodology steps over a range of business days,
// applies the level-3 carry across runs, and publishes idempotently to a FixStore.
//
//   BuildOptions opt{.from = d, .to = d, .calendar = cal};
//   absl::StatusOr<BuildResult> r = BuildFixes(observations, throughput, opt, store.get());
//
// Publication rules (docs/methodology.md): a (grade, date) already stored is never changed
// by a plain rerun — its stored record is returned, and a differing recomputation is reported
// in `warnings`; with `revise`, a differing recomputation is stored as a new revision with
// `reason`. A throughput measurement (gpu, operator, date) already stored is treated the same
// way: a differing one is reported and not stored (the stored one gives θ), or with `revise`
// stored as a revision. An operator whose stored measurements are under another tier is an
// input error. Nothing is stored unless the whole run succeeds.
#ifndef CFX_REFERENCE_BUILDER_H_
#define CFX_REFERENCE_BUILDER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/reference/fix_store.h"
#include "cfx/reference/inputs.h"

namespace cfx::reference {

// The most records one run computes (grades and market-wide series × business days): 10 GPU
// models' 120 grades over 30 years, each held until printed.
inline constexpr uint64_t kMaxRecordsPerRun = 1'000'000;

struct BuildOptions {
  common::Date from;
  common::Date to;  // inclusive; only business days in [from, to] are published
  common::BusinessCalendar calendar;
  bool revise = false;
  std::string reason;       // required with `revise`
  bool market_wide = true;  // also compute the ALL-<REGION> series
  // Also return the explanations without a store (with a store they are always made and
  // stored beside each new record).
  bool explain = false;
  // Names the throughput file in input errors ("<file>:<line>: column tier: ...").
  std::string throughput_file = "throughput.csv";
};

// A stored throughput measurement that a `revise` run replaced, for the audit log.
struct ThroughputCorrection {
  ThroughputRevision stored;    // the new value, with its revision and reason
  OperatorThroughput previous;  // the value it replaced (kept in the store's history)
};

struct BuildResult {
  // Per date in order: the grade records sorted by grade, then the market-wide records.
  std::vector<FixRecord> records;
  // Parallel to `records` when explanations are made (a store, or `explain`): the explain
  // JSON (explain.h) of each record; for a record already published, the stored one ("" for a
  // record stored before explanations existed).
  std::vector<std::string> explanations;
  int published = 0;  // new (grade, date) records stored
  int revised = 0;    // new revisions stored
  std::vector<PublishItem> stored;  // what was stored, in order (revision 0: first publication)
  int throughput_published = 0;     // new throughput measurements stored
  std::vector<OperatorThroughput> throughput_stored;     // those measurements, first published
  std::vector<ThroughputCorrection> throughput_revised;  // stored measurements revised
  std::vector<std::string> warnings;
};

// `store` may be null: nothing is read or written, and level 3 can only carry records of
// earlier days of the same run. InvalidArgument for a bad range, a revise without reason, or
// a throughput row whose operator the store holds under another tier.
absl::StatusOr<BuildResult> BuildFixes(const std::vector<Observation>& observations,
                                       const std::vector<ThroughputRow>& throughput,
                                       const BuildOptions& options, FixStore* store);

}  // namespace cfx::reference

#endif  // CFX_REFERENCE_BUILDER_H_
