// The order path's stage figures (journal::StageLatencies, PipelineOptions::trace_stages) as
// the benches print them: per stage its p50 / p99 / p99.9 in µs and how many it counted.
#ifndef CFX_PERF_HARNESS_STAGES_JSON_H_
#define CFX_PERF_HARNESS_STAGES_JSON_H_

#include "cfx/journal/stage_latency.h"
#include "nlohmann/json.hpp"

namespace cfx::perf::internal {

inline nlohmann::json StagesJson(const journal::StageLatencies& s) {
  nlohmann::json j = nlohmann::json::object();
  for (int i = 0; i < journal::kStages; ++i) {
    const journal::LatencyCounts& c = s.stage[i];
    j[journal::StageName(static_cast<journal::Stage>(i))] = {
        {"p50_us", c.PercentileNs(0.5) / 1e3},
        {"p99_us", c.PercentileNs(0.99) / 1e3},
        {"p999_us", c.PercentileNs(0.999) / 1e3},
        {"count", c.count()}};
  }
  return j;
}

}  // namespace cfx::perf::internal

#endif  // CFX_PERF_HARNESS_STAGES_JSON_H_
