// `cfx bench journal`: the durable order path — every input group-committed to the LMDB
// journal and synced before it is matched and acknowledged. Reports throughput, offer-to-ack
// latency and the group sizes seen. Thin: flags -> perf::RunJournalBench
// (perf/harness/include/cfx/perf/journal_bench.h). The last line is one JSON object.
#include <iostream>

#include "CLI/CLI.hpp"
#include "cfx/perf/journal_bench.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

ExitCode RunBenchJournal(const perf::JournalBenchOptions& options) {
  absl::StatusOr<nlohmann::json> out = perf::RunJournalBench(options);
  if (!out.ok()) return Fail("bench journal", out.status());
  (*out)["bench"] = "journal";
  std::cout << out->dump() << std::endl;
  return out->contains("error") ? 1 : 0;
}

void SetupBenchJournal(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<perf::JournalBenchOptions>(
      parent, rc, "journal",
      "Durable order path: group commit to LMDB, ack after the synced commit", RunBenchJournal);
  cmd->add_option("--data-dir", flags->data_dir, "Data dir (default: a fresh temp dir)");
  cmd->add_flag("--engine", flags->harness.engine,
                "Run the real engine (EngineMatcher + EngineCodec) instead of the toy matcher");
  cmd->add_option("--producers", flags->harness.producers, "Producer threads (default 1)");
  cmd->add_option("--messages", flags->harness.messages, "Inputs to send (default 3000000)");
  cmd->add_option("--rate", flags->harness.rate,
                  "Offers per second in total (default 1000000); 0: flat out");
  cmd->add_option("--max-batch", flags->harness.pipeline.max_batch,
                  "Most inputs per group commit (default 8192)");
  cmd->add_option("--map-size-gib", flags->map_size_gib, "LMDB map size (default 16)");
  cmd->add_flag("--replicated", flags->replicated,
                "Also run the load through a NATS JetStream stream (R3) as a primary, beside the "
                "unreplicated figures and a raw publish-ack yardstick (docs/replication.md)");
  cmd->add_option("--nats", flags->nats_servers,
                  "NATS servers for --replicated (default: a 3-server cluster on loopback, with "
                  "its own credentials); given servers are connected to without credentials, "
                  "so give them in the URL (nats://user:password@host:port) if they need them");
  cmd->add_flag("--two-flush-commits{false}", flags->defer_commit_sync,
                "Commit as LMDB does by default (data, then meta page, each synced) instead of "
                "one flush per commit with the ack after the next (docs/durability.md)");
  cmd->add_flag("--no-commit-log{false}", flags->commit_log,
                "Each group commit an LMDB commit, without the journal's commit log in front "
                "(docs/durability.md, \"The commit log\")");
  cmd->add_option("--commit-log-copy-ms", flags->commit_log_copy_every_ms,
                  "How often the journal copies its commit log into LMDB (default 10)");
  cmd->add_flag("--publisher-thread{false}", flags->harness.pipeline.publish_on_matcher,
                "Outcomes delivered by a publisher thread instead of the matcher's (A/B)");
  cmd->add_option("--sequencer-matches", flags->harness.pipeline.sequencer_matches_up_to,
                  "Largest batch the sequencer matches itself while the matcher is idle; 0: "
                  "never (default 4)");
  cmd->add_flag("--unsafe-no-sync", flags->unsafe_no_sync,
                "UNSAFE: do not sync commits (a power loss may lose acknowledged inputs)");
}

CFX_REGISTER_COMMAND("bench", SetupBenchJournal);

}  // namespace
}  // namespace cfx::app
