// `cfx bench reference`: one day's fixes over many observations (docs/performance.md).
// Generates the day in memory (seeded), then times (a) parsing it back from CSV text and
// (b) computing every grade's fix, separately.
//
//   ReferenceBenchOptions options;  // 1,000,000 observations over 48 grades
//   absl::StatusOr<ReferenceBenchResult> result = RunReferenceBench(options);
//   if (result.ok()) PrintReferenceBench(*result, std::cout, std::cerr);
#ifndef CFX_PERF_REFERENCE_BENCH_H_
#define CFX_PERF_REFERENCE_BENCH_H_

#include <cstddef>
#include <cstdint>
#include <ostream>

#include "absl/status/statusor.h"

namespace cfx::perf {

struct ReferenceBenchOptions {
  int64_t observations = 1'000'000;  // in the day, over all grades
  int grades = 48;                   // 4 tiers x 3 regions x (grades / 12, 1..8) gpus
  uint64_t seed = 1;
  int repeat = 3;  // compute runs; the machine is shared, so the best is reported
};

struct ReferenceBenchResult {
  size_t observations = 0;  // parsed back from the CSV
  int grades = 0;
  size_t records = 0;  // fixes computed
  size_t csv_bytes = 0;
  double parse_seconds = 0;
  double compute_seconds = 0;  // the best of `repeat`
};

// Runs the bench. Returns the parser's or the builder's error (neither is expected on the
// generated day).
absl::StatusOr<ReferenceBenchResult> RunReferenceBench(const ReferenceBenchOptions& options);

// Writes a summary line to `log`, then one JSON object on one line to `out`.
void PrintReferenceBench(const ReferenceBenchResult& result, std::ostream& out, std::ostream& log);

}  // namespace cfx::perf

#endif  // CFX_PERF_REFERENCE_BENCH_H_
