#include "cfx/perf/reference_bench.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cfx/common/date.h"
#include "cfx/reference/builder.h"
#include "cfx/reference/inputs.h"
#include "cfx/reference/sample_data.h"
#include "timing.h"

namespace cfx::perf {
namespace {

using Clock = std::chrono::steady_clock;
using internal::SecondsSince;

// The day generated and fixed.
common::Date BenchDay() { return common::DateFromYmd(2027, 3, 3); }

// Grades = 4 tiers x 3 regions x k gpus; k from `grades` (48 -> 4 gpus).
int GpuCount(int grades) { return std::clamp(grades / 12, 1, 8); }

// One business day of exactly `observations` observations (fewer only if the
// generator cannot make that many), spread evenly over the grades, every day lively.
reference::SampleData GenerateDay(const ReferenceBenchOptions& options) {
  static const char* kGpus[] = {"B200", "H100", "H200", "B300", "B100", "GB200", "MI300", "MI355"};
  const int n_gpus = GpuCount(options.grades);
  reference::SampleOptions opt;
  opt.from = opt.to = BenchDay();
  opt.seed = options.seed;
  opt.gpus.assign(kGpus, kGpus + n_gpus);
  opt.regions = {"US", "EU", "APAC"};
  opt.providers = 40;
  const int64_t n_grades = n_gpus * 12;
  opt.observations_per_grade_day =
      static_cast<int>((options.observations + n_grades - 1) / n_grades);
  opt.count_jitter = 0;
  opt.quiet_day_probability = 0;
  opt.dead_day_probability = 0;
  reference::SampleData data = reference::GenerateSample(opt);
  if (static_cast<int64_t>(data.observations.size()) > options.observations) {
    data.observations.resize(options.observations);  // exactly the requested count
  }
  return data;
}

// The best of `repeat` (at least one) runs of the day's computation; `records` gets the
// number of fixes.
absl::StatusOr<double> TimeBuild(const std::vector<reference::Observation>& observations,
                                 const reference::SampleData& data, int repeat, size_t* records) {
  reference::BuildOptions build;
  build.from = build.to = BenchDay();
  double best = 1e100;
  for (int i = 0; i < std::max(1, repeat); ++i) {
    const Clock::time_point t0 = Clock::now();
    absl::StatusOr<reference::BuildResult> result =
        reference::BuildFixes(observations, data.throughput, build, nullptr);
    const double seconds = SecondsSince(t0);
    if (!result.ok()) return result.status();
    *records = result->records.size();
    best = std::min(best, seconds);
  }
  return best;
}

}  // namespace

absl::StatusOr<ReferenceBenchResult> RunReferenceBench(const ReferenceBenchOptions& options) {
  const reference::SampleData data = GenerateDay(options);
  ReferenceBenchResult result;
  const std::string csv = reference::ObservationsToCsv(data.observations);
  result.csv_bytes = csv.size();
  const Clock::time_point t0 = Clock::now();
  absl::StatusOr<std::vector<reference::Observation>> parsed =
      reference::ParseObservationsCsv(csv, "bench.csv");
  result.parse_seconds = SecondsSince(t0);
  if (!parsed.ok()) return parsed.status();
  result.observations = parsed->size();
  result.grades = GpuCount(options.grades) * 12;
  absl::StatusOr<double> compute = TimeBuild(*parsed, data, options.repeat, &result.records);
  if (!compute.ok()) return compute.status();
  result.compute_seconds = *compute;
  return result;
}

void PrintReferenceBench(const ReferenceBenchResult& r, std::ostream& out, std::ostream& log) {
  log << absl::StrFormat("parsed %d observations (%.1f MB CSV) in %.3f s; %d records in %.3f s\n",
                         r.observations, r.csv_bytes / 1e6, r.parse_seconds, r.records,
                         r.compute_seconds);
  out << absl::StrFormat(
      "{\"bench\":\"reference\",\"seconds\":%.4f,\"parse_seconds\":%.4f,\"observations\":%d,"
      "\"grades\":%d,\"records\":%d}\n",
      r.compute_seconds, r.parse_seconds, r.observations, r.grades, r.records);
}

}  // namespace cfx::perf
