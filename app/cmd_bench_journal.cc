// `cfx bench journal`: the durable order path — every input group-committed to the LMDB
// journal and synced before it is matched and acknowledged. Reports throughput, offer-to-ack
// latency and the group sizes seen. The last line is one JSON object.
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cfx/perf/journal_bench_harness.h"
#include "registry.h"

namespace cfx::app {
namespace {

perf::HarnessConfig DefaultHarness() {
  perf::HarnessConfig config;
  config.messages = 3'000'000;
  config.rate = 1'000'000;
  return config;
}

struct JournalBenchFlags {
  std::string data_dir;  // empty: a fresh temp dir, removed afterwards
  bool unsafe_no_sync = false;
  uint64_t map_size_gib = 16;
  perf::HarnessConfig harness = DefaultHarness();
};

int RunBenchJournal(JournalBenchFlags& flags) {
  namespace fs = std::filesystem;
  std::string dir = flags.data_dir;
  const bool temporary = dir.empty();
  if (temporary) {
    std::string pattern = (fs::temp_directory_path() / "cfx_bench_journal_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      std::cerr << "cfx bench journal: cannot create a temp dir in "
                << fs::temp_directory_path() << "\n";
      return 1;
    }
    dir = pattern;
  }
  int rc = 0;
  {
    auto journal = journal::Journal::Open({.data_dir = dir,
                                           .map_size_bytes = flags.map_size_gib << 30,
                                           .unsafe_no_sync = flags.unsafe_no_sync});
    if (!journal.ok()) {
      std::cerr << "cfx bench journal: " << journal.status().message() << "\n";
      return 1;
    }
    if ((*journal)->LastSeq() != 0) {
      std::cerr << "cfx bench journal: " << (*journal)->path()
                << " already holds records; use an empty data dir\n";
      return 1;
    }
    flags.harness.journal = journal->get();
    nlohmann::json out = perf::RunHarness(flags.harness);
    out["bench"] = "journal";
    out["journal"] = true;
    out["synced"] = !flags.unsafe_no_sync;
    out["data_dir"] = dir;
    std::cout << out.dump() << std::endl;
    rc = out.contains("error") ? 1 : 0;
  }
  if (temporary) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  return rc;
}

void SetupBenchJournal(CLI::App& parent, ExitCode* rc) {
  CLI::App* cmd = parent.add_subcommand(
      "journal", "Durable order path: group commit to LMDB, ack after the synced commit");
  static JournalBenchFlags flags;
  cmd->add_option("--data-dir", flags.data_dir, "Data dir (default: a fresh temp dir)");
  cmd->add_flag("--engine", flags.harness.engine,
                "Run the real engine (EngineMatcher + EngineCodec) instead of the toy matcher");
  cmd->add_option("--producers", flags.harness.producers, "Producer threads (default 1)");
  cmd->add_option("--messages", flags.harness.messages, "Inputs to send (default 3000000)");
  cmd->add_option("--rate", flags.harness.rate,
                  "Offers per second in total (default 1000000); 0: flat out");
  cmd->add_option("--max-batch", flags.harness.pipeline.max_batch,
                  "Most inputs per group commit (default 8192)");
  cmd->add_option("--map-size-gib", flags.map_size_gib, "LMDB map size (default 16)");
  cmd->add_flag("--unsafe-no-sync", flags.unsafe_no_sync,
                "UNSAFE: do not sync commits (a power loss may lose acknowledged inputs)");
  cmd->callback([rc] { *rc = RunBenchJournal(flags); });
}
CFX_REGISTER_COMMAND("bench", SetupBenchJournal);

}  // namespace
}  // namespace cfx::app
