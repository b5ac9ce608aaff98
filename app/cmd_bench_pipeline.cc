// `cfx bench pipeline`: the order path with the journal off — producers -> MPSC ring ->
// sequencer -> SPSC -> toy matcher -> SPSC -> publisher — to measure the rings and threads
// alone. The last line is one JSON object.
#include <iostream>

#include "cfx/perf/journal_bench_harness.h"
#include "registry.h"

namespace cfx::app {
namespace {

void SetupBenchPipeline(CLI::App& parent, ExitCode* rc) {
  CLI::App* cmd = parent.add_subcommand(
      "pipeline", "Rings and threads of the order path, journal off (toy matcher)");
  static perf::HarnessConfig config;
  cmd->add_flag("--engine", config.engine,
                "Run the real engine (EngineMatcher + EngineCodec) instead of the toy matcher, "
                "then the toy and the engine alone (one thread, no rings) in the same run as "
                "the yardsticks");
  cmd->add_option("--producers", config.producers, "Producer threads (default 1)");
  cmd->add_option("--messages", config.messages, "Inputs to send (default 5000000)");
  cmd->add_option("--rate", config.rate, "Offers per second in total; 0: flat out (default)");
  cmd->add_flag("--trace-stages", config.pipeline.trace_stages,
                "Time each input's stages (a few clock reads an input) and print them");
  cmd->add_flag("--publisher-thread{false}", config.pipeline.publish_on_matcher,
                "Outcomes delivered by a publisher thread instead of the matcher's (A/B)");
  cmd->add_option("--sequencer-matches", config.pipeline.sequencer_matches_up_to,
                  "Largest batch the sequencer matches itself while the matcher is idle; 0: "
                  "never (default 4)");
  cmd->callback([rc] {
    nlohmann::json out = perf::RunPipelineBench(config);
    out["bench"] = "pipeline";
    out["journal"] = false;
    std::cout << out.dump() << std::endl;
    *rc = out.contains("error") ? 1 : 0;
  });
}
CFX_REGISTER_COMMAND("bench", SetupBenchPipeline);

}  // namespace
}  // namespace cfx::app
