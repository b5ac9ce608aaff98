// `cfx bench margin`: position-scenario evaluations per second of the margin evaluator on
// synthetic portfolios (docs/performance.md). Seeded: the same options give the same
// portfolios, so runs differ only in their timings.
//
//   MarginBenchOptions options;  // 100000 accounts x 10 positions, span16, best backend
//   absl::StatusOr<MarginBenchResult> result = RunMarginBench(options);
//   if (result.ok()) PrintMarginBench(*result, std::cout);  // the last line is JSON
#ifndef CFX_PERF_MARGIN_BENCH_H_
#define CFX_PERF_MARGIN_BENCH_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "cfx/gpu_valuation/evaluator.h"

namespace cfx::perf {

struct MarginBenchOptions {
  int64_t accounts = 100000;  // portfolios in the batch
  int positions = 10;         // distinct contracts per portfolio (at most the 144 listed)
  int32_t scenarios = 16;     // 16: span16; otherwise Monte Carlo with this many
  int iterations = 5;         // timed batches; the median is reported
  uint64_t seed = 1;          // prices and portfolios
  gpu_valuation::BackendChoice backend = gpu_valuation::BackendChoice::kAuto;
  bool verify = false;  // also check every answer against the CPU evaluator
  // Also time the plain-loop yardstick (margin_floor.h) on the same resident batch, with as
  // many threads as the CPU evaluator, each timed batch alternated with the evaluator's.
  bool floor = false;
  // > 0: the large-book mode instead. The book is generated and margined through
  // MarginEngine::ComputeStream in batches of this many accounts, never held whole; the
  // report is the end-to-end time and the process's peak resident memory.
  int64_t stream_batch = 0;
};

struct MarginBenchResult {
  int64_t accounts = 0;
  int positions = 0;      // per portfolio, as generated
  int32_t scenarios = 0;  // in the U table
  int32_t rank = 0;       // of the loss that sets the margin
  std::string method;     // "span16" or "mc"
  std::string backend;    // the evaluator timed: "cpu" or "cuda"
  int iterations = 0;
  double evals = 0;                  // position-scenario evaluations per batch
  double seconds = 0;                // median batch, resident portfolios
  double cpu_seconds_per_batch = 0;  // process CPU time (all threads) per timed batch
  double setup_seconds = 0;          // MarginEngine::Create
  double load_seconds = 0;           // table and portfolios onto the evaluator
  double compute_many_seconds = 0;   // one ComputeMany: netting, evaluation, answers
  std::optional<bool> verified;      // set with `verify`: identical to the CPU evaluator
  // FNV-1a over every answer (loss, scenario) of the timed batch in account order: equal
  // checksums on the same options mean the same answers, across builds and backends.
  uint64_t answers_checksum = 0;
  // With `floor`: the plain loop's median batch on the same batch and its thread count;
  // floor_agrees (rank 1 only) is whether its maxima equal the evaluator's losses.
  double floor_seconds = 0;
  int floor_threads = 0;
  std::optional<bool> floor_agrees;
  // Large-book mode (stream_batch > 0): seconds for the whole book end to end, the
  // process's peak resident set (getrusage ru_maxrss), and what holding every loss of the
  // book at once would take (accounts x scenarios x 8 bytes), for comparison.
  // Bytes of one batch: `streamed_bytes` = evals x 8 (one int64 U entry read per
  // position-scenario, as the plain loop reads them), `resident_bytes` = the U table, the
  // portfolios and the answers once each (the least any evaluator must move).
  double streamed_bytes = 0;
  double resident_bytes = 0;
  // Timed on CUDA: the device and its peak memory bandwidth (bytes/s), so the report can
  // give the bandwidth floor of both byte counts.
  std::string device;
  double peak_memory_bytes_per_sec = 0;
  int64_t stream_batch = 0;
  double stream_seconds = 0;
  int64_t peak_rss_bytes = 0;
  double all_losses_bytes = 0;
};

// Runs the bench. InvalidArgument when a count is below 1; otherwise the margin engine's or
// the evaluator's error (Unavailable for `kCuda` without a usable device).
absl::StatusOr<MarginBenchResult> RunMarginBench(const MarginBenchOptions& options);

// Writes the report: the verification (when run), a summary, then one JSON object.
void PrintMarginBench(const MarginBenchResult& result, std::ostream& out);

}  // namespace cfx::perf

#endif  // CFX_PERF_MARGIN_BENCH_H_
