// Self-registration of `cfx` subcommands. Each app/cmd_*.cc defines a setup function and
// registers it at static-initialisation time:
//
//   void SetupReplay(CLI::App& parent, cfx::app::ExitCode* rc) {
//     CLI::App* cmd = parent.add_subcommand("replay", "Run the engine on a command file");
//     ... cmd->callback([rc] { *rc = RunReplay(...); });
//   }
//   CFX_REGISTER_COMMAND("", SetupReplay);        // `cfx replay`
//   CFX_REGISTER_COMMAND("bench", SetupBookBench); // `cfx bench book`
//
// A callback reports failure by setting *rc (non-zero) after printing its own message to
// standard error (run_status.h). Most commands keep their flags in a struct and run one
// function on it; AddCommand wires that up:
//
//   void SetupSettle(CLI::App& parent, ExitCode* rc) {
//     auto [cmd, flags] = AddCommand<SettleFlags>(parent, rc, "settle", "...", RunSettle);
//     cmd->add_option("--date", flags->date, "Business date")->required();
//   }
#ifndef CFX_APP_REGISTRY_H_
#define CFX_APP_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace cfx::app {

using ExitCode = int;
using CommandSetup = void (*)(CLI::App& parent, ExitCode* rc);

struct CommandEntry {
  std::string parent;  // "" for top level, else the name of a top-level group ("bench")
  CommandSetup setup;
};

std::vector<CommandEntry>& Commands();

struct Registration {
  Registration(const char* parent, CommandSetup setup) { Commands().push_back({parent, setup}); }
};

// A subcommand and the flags its options fill (owned by its callback, so they live as long
// as the parser).
template <typename Flags>
struct FlagCommand {
  CLI::App* cmd;
  Flags* flags;
};

// Adds the subcommand `name` to `parent` with a default-constructed `Flags`; when the
// subcommand is chosen, its callback stores run(flags) in *rc.
template <typename Flags>
FlagCommand<Flags> AddCommand(CLI::App& parent, ExitCode* rc, const std::string& name,
                              const std::string& description, ExitCode (*run)(const Flags&)) {
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = parent.add_subcommand(name, description);
  cmd->callback([flags, rc, run] { *rc = run(*flags); });
  return {cmd, flags.get()};
}

}  // namespace cfx::app

#define CFX_APP_CONCAT_INNER(a, b) a##b
#define CFX_APP_CONCAT(a, b) CFX_APP_CONCAT_INNER(a, b)
#define CFX_REGISTER_COMMAND(parent, fn) \
  static ::cfx::app::Registration CFX_APP_CONCAT(cfx_registration_, __COUNTER__)(parent, fn)

#endif  // CFX_APP_REGISTRY_H_
