// `cfx replay --input commands.jsonl [--output events.jsonl] [--data-dir DIR]` (SPEC §4.1,
// §12). With a data dir, trades, positions and closing quotes are also persisted as in
// `cfx serve` (exchange/replay_store.h), without the core's contract expiry, so the store
// holds exactly the events printed; the event output is the same either way.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "cfx/common/config.h"
#include "cfx/engine/replay.h"
#include "cfx/exchange/replay_store.h"
#include "registry.h"

namespace {

struct ReplayFlags {
  std::string input;
  std::string output = "-";
  std::string data_dir;
  std::string config;  // holidays for the closing-quote calendar
};

cfx::app::ExitCode Persist(const ReplayFlags& flags) {
  cfx::BusinessCalendar calendar;
  if (!flags.config.empty()) {
    auto config = cfx::LoadConfigFile(flags.config);
    if (!config.ok()) {
      std::cerr << "cfx replay: " << config.status().message() << "\n";
      return 2;
    }
    calendar = config->Calendar();
  }
  std::ifstream in(flags.input);
  auto r = cfx::exchange::PersistReplay(in, flags.data_dir, calendar);
  if (!r.ok()) {
    std::cerr << "cfx replay: --data-dir " << flags.data_dir << ": " << r.status().message() << "\n";
    return 1;
  }
  std::cerr << "cfx replay: persisted " << r->recorded << " inputs, " << r->trades
            << " trades to " << flags.data_dir << "/trades\n";
  return 0;
}

cfx::app::ExitCode RunReplayCommand(const ReplayFlags& flags) {
  std::ifstream in(flags.input);
  if (!in) {
    std::cerr << "cfx replay: cannot open --input " << flags.input << "\n";
    return 1;
  }
  if (flags.output == "-") {
    cfx::engine::RunReplay(in, std::cout);
    return flags.data_dir.empty() ? 0 : Persist(flags);
  }
  std::ofstream out(flags.output, std::ios::trunc);
  if (!out) {
    std::cerr << "cfx replay: cannot open --output " << flags.output << "\n";
    return 1;
  }
  cfx::engine::RunReplay(in, out);
  if (!out) {
    std::cerr << "cfx replay: write failed on " << flags.output << "\n";
    return 1;
  }
  return flags.data_dir.empty() ? 0 : Persist(flags);
}

void SetupReplay(CLI::App& parent, cfx::app::ExitCode* rc) {
  auto flags = std::make_shared<ReplayFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "replay", "Run the matching engine on a JSON-lines command file (no network, no risk)");
  cmd->add_option("--input", flags->input, "Command file, one JSON object per line")
      ->required();
  cmd->add_option("--output", flags->output, "Event file ('-' or absent: standard output)");
  cmd->add_option("--data-dir", flags->data_dir,
                  "Also persist trades, positions and closes here (as cfx serve)");
  cmd->add_option("--config", flags->config, "Exchange config (holidays), with --data-dir");
  cmd->callback([flags, rc] { *rc = RunReplayCommand(*flags); });
}

CFX_REGISTER_COMMAND("", SetupReplay);

}  // namespace
