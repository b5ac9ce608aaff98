// `cfx bench reference`: times one day's fixes over many observations (docs/performance.md).
// Generates the day in memory (seeded), then times (a) parsing it back from CSV text and
// (b) computing every grade's fix, separately. Last line: one JSON object.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "absl/strings/str_format.h"
#include "cfx/reference/builder.h"
#include "cfx/reference/inputs.h"
#include "cfx/reference/sample_data.h"
#include "registry.h"

namespace cfx::app {
namespace {

struct BenchFlags {
  int64_t observations = 1'000'000;
  int grades = 48;
  uint64_t seed = 1;
  int repeat = 3;
};

int RunBench(const BenchFlags& f) {
  // Grades = 4 tiers × 3 regions × k gpus; k from --grades (48 -> 4 gpus).
  static const char* kGpus[] = {"B200", "H100", "H200", "B300", "B100", "GB200", "MI300", "MI355"};
  const int n_gpus = std::clamp(f.grades / 12, 1, 8);
  reference::SampleOptions opt;
  opt.from = opt.to = DateFromYmd(2027, 3, 3);
  opt.seed = f.seed;
  opt.gpus.assign(kGpus, kGpus + n_gpus);
  opt.regions = {"US", "EU", "APAC"};
  opt.providers = 40;
  const int64_t n_grades = n_gpus * 12;
  opt.observations_per_grade_day = static_cast<int>((f.observations + n_grades - 1) / n_grades);
  opt.count_jitter = 0;
  opt.quiet_day_probability = 0;
  opt.dead_day_probability = 0;
  reference::SampleData data = reference::GenerateSample(opt);
  if (static_cast<int64_t>(data.observations.size()) > f.observations) {
    data.observations.resize(f.observations);  // exactly the requested count
  }

  const std::string csv = reference::ObservationsToCsv(data.observations);
  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<reference::Observation>> parsed =
      reference::ParseObservationsCsv(csv, "bench.csv");
  auto t1 = std::chrono::steady_clock::now();
  if (!parsed.ok()) {
    std::cerr << "cfx bench reference: " << parsed.status().message() << "\n";
    return 1;
  }
  reference::BuildOptions build;
  build.from = build.to = opt.from;
  // The machine is shared: report the best of `repeat` runs of the computation.
  double compute_s = 1e100;
  absl::StatusOr<reference::BuildResult> result;
  for (int i = 0; i < std::max(1, f.repeat); ++i) {
    auto t2 = std::chrono::steady_clock::now();
    result = reference::BuildFixes(*parsed, data.throughput, build, nullptr);
    auto t3 = std::chrono::steady_clock::now();
    if (!result.ok()) {
      std::cerr << "cfx bench reference: " << result.status().message() << "\n";
      return 1;
    }
    compute_s = std::min(compute_s, std::chrono::duration<double>(t3 - t2).count());
  }
  const double parse_s = std::chrono::duration<double>(t1 - t0).count();
  std::cerr << absl::StrFormat(
      "parsed %d observations (%.1f MB CSV) in %.3f s; %d records in %.3f s\n", parsed->size(),
      csv.size() / 1e6, parse_s, result->records.size(), compute_s);
  std::cout << absl::StrFormat(
      "{\"bench\":\"reference\",\"seconds\":%.4f,\"parse_seconds\":%.4f,\"observations\":%d,"
      "\"grades\":%d,\"records\":%d}\n",
      compute_s, parse_s, parsed->size(), n_gpus * 12, result->records.size());
  return 0;
}

void SetupBenchReference(CLI::App& parent, ExitCode* rc) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "reference", "One day's reference fixes over N observations (parse and compute timed apart)");
  cmd->add_option("--observations", flags->observations,
                  "Observations in the day (default 1000000)");
  cmd->add_option("--grades", flags->grades, "Grades, a multiple of 12 (default 48)");
  cmd->add_option("--seed", flags->seed, "Generator seed (default 1)");
  cmd->add_option("--repeat", flags->repeat, "Compute runs; the best is reported (default 3)");
  cmd->callback([flags, rc] { *rc = RunBench(*flags); });
}

}  // namespace
CFX_REGISTER_COMMAND("bench", SetupBenchReference);
}  // namespace cfx::app
