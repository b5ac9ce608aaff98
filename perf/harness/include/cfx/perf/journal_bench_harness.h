// Shared harness of `cfx bench pipeline` and `cfx bench journal`: producers offer 64-byte
// counter commands (the size of an encoded order) to a Pipeline over the toy counter
// machine — or, with `--engine`, engine orders (new / cancel / replace on one contract,
// crossing prices) to the real EngineMatcher with the EngineCodec — and the publisher
// measures offer-to-ack latency (src/pipeline_bench.cc); journal_bench.h runs it over a
// journal.
#ifndef CFX_PERF_JOURNAL_BENCH_HARNESS_H_
#define CFX_PERF_JOURNAL_BENCH_HARNESS_H_

#include <cstdint>

#include "cfx/journal/pipeline.h"
#include "nlohmann/json.hpp"

namespace cfx::perf {

struct HarnessConfig {
  int producers = 1;
  uint64_t messages = 5'000'000;
  uint64_t rate = 0;  // total offers per second; 0: as fast as the rings take them
  journal::PipelineOptions pipeline;
  journal::Journal* journal = nullptr;
  bool engine = false;  // the real engine (EngineMatcher + EngineCodec) instead of the toy
};

// Runs the pipeline with `config` (the toy counter machine, or the engine with
// `config.engine`) and returns the figures; "error" is set when the pipeline failed.
nlohmann::json RunHarness(const HarnessConfig& config);

// `cfx bench pipeline`: RunHarness, and with `config.engine` the same pipeline and load with
// the toy matcher in the same run as its yardstick (`yardstick_toy`, `ratio_to_toy`), and
// the engine alone on the same inputs, one thread and no rings: the most the pipeline with
// the engine could do (`engine_alone`, `engine_alone_ratio_to_toy`).
nlohmann::json RunPipelineBench(const HarnessConfig& config);

}  // namespace cfx::perf

#endif  // CFX_PERF_JOURNAL_BENCH_HARNESS_H_
