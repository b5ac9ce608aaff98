// `cfx replay --input commands.jsonl [--output events.jsonl]` (SPEC §4.1).
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "cfx/engine/replay.h"
#include "registry.h"

namespace {

struct ReplayFlags {
  std::string input;
  std::string output = "-";
};

cfx::app::ExitCode RunReplayCommand(const ReplayFlags& flags) {
  std::ifstream in(flags.input);
  if (!in) {
    std::cerr << "cfx replay: cannot open --input " << flags.input << "\n";
    return 1;
  }
  if (flags.output == "-") {
    cfx::engine::RunReplay(in, std::cout);
    return 0;
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
  return 0;
}

void SetupReplay(CLI::App& parent, cfx::app::ExitCode* rc) {
  auto flags = std::make_shared<ReplayFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "replay", "Run the matching engine on a JSON-lines command file (no network, no risk)");
  cmd->add_option("--input", flags->input, "Command file, one JSON object per line")
      ->required();
  cmd->add_option("--output", flags->output, "Event file ('-' or absent: standard output)");
  cmd->callback([flags, rc] { *rc = RunReplayCommand(*flags); });
}

CFX_REGISTER_COMMAND("", SetupReplay);

}  // namespace
