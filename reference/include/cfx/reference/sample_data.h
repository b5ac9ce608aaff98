// A seeded, reproducible generator of realistic benchmark inputs (observations and operator
// throughput), for `cfx reference sample`, `cfx demo`, tests and `cfx bench reference`.
//
//   SampleOptions opt{.from = *ParseDate("2027-03-01"), .to = *ParseDate("2027-03-31")};
//   SampleData data = GenerateSample(opt);            // same options -> same rows
//   absl::Status s = WriteSampleFiles(data, "/tmp/sample");
//
// The market it draws: B200 on-demand roughly 3.5-7 USD/GPU-hour, tiers PLAT > GOLD > SILV >
// BRNZ in ~14% steps, regions priced apart, a daily random walk per grade, providers of very
// different sizes (Zipf-like), 65% trades / 35% quotes, every lease type (only on_demand and
// reserved_1m are eligible), ~1.5% fat-finger outliers, and quiet grade-days that fall to
// level 2 or 3. Throughput 150-350 output tokens/s/GPU, best operators ~1.5× the worst,
// re-measured every two weeks. Random numbers come from a fixed algorithm (splitmix64 and
// Box-Muller), so the output is the same on every platform.
#ifndef CFX_REFERENCE_SAMPLE_DATA_H_
#define CFX_REFERENCE_SAMPLE_DATA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cfx/common/date.h"
#include "cfx/reference/inputs.h"

namespace cfx::reference {

struct SampleOptions {
  common::Date from;
  common::Date to;  // inclusive; observations are drawn for each business day's window
  uint64_t seed = 1;
  std::vector<std::string> gpus = {"B200"};
  std::vector<std::string> regions = {"US", "EU"};  // 4 tiers × 2 regions = 8 grades
  int providers = 30;
  int observations_per_grade_day = 40;  // mean; quiet days have far fewer
  double count_jitter = 0.4;            // a day's count is mean × (1 ± jitter), uniform
  double quiet_day_probability = 0.08;  // level 2 likely
  double dead_day_probability = 0.03;   // level 3 likely
  double outlier_probability = 0.015;
  common::BusinessCalendar calendar;
};

struct SampleData {
  std::vector<Observation> observations;  // sorted by time
  std::vector<ThroughputRow> throughput;  // sorted by date
};

SampleData GenerateSample(const SampleOptions& options);

// Writes <dir>/observations.csv and <dir>/throughput.csv (0600; dir made 0700 when missing),
// each through a temporary file and a rename. AlreadyExists naming the file when either is
// already there (nothing written); Unavailable naming the path on other errors, with neither
// file left behind.
absl::Status WriteSampleFiles(const SampleData& data, const std::string& dir);

}  // namespace cfx::reference

#endif  // CFX_REFERENCE_SAMPLE_DATA_H_
