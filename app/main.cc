// cfx: the exchange's single executable. Subcommands register themselves (registry.h).
#include <sys/stat.h>

#include <algorithm>
#include <csignal>
#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "registry.h"
#include "run_status.h"

namespace {

// Every integer option is read as a plain decimal number: CLI11 converts with base 0, so
// "010" was 8, "0x10" 16, and "-1" wrapped to 2^64 - 1 for an unsigned one (until
// 2026-12-07). A value of another form is refused as a usage error naming the option.
void RequireDecimalIntegers(CLI::App* app) {
  for (CLI::Option* opt : app->get_options()) {
    const std::string type = opt->get_type_name();
    const bool is_signed = type == "INT" || type.rfind("INT:", 0) == 0;
    const bool is_unsigned = type == "UINT" || type.rfind("UINT:", 0) == 0;
    if (!is_signed && !is_unsigned) continue;
    // A transform (check() would not let it drop the zeros), first of the option's checks.
    opt->transform(CLI::Validator(
        [is_signed](std::string& v) -> std::string {
          const size_t sign = is_signed && !v.empty() && v[0] == '-' ? 1 : 0;
          if (sign == v.size()) return "'" + v + "' is not a decimal integer";
          for (size_t i = sign; i < v.size(); ++i) {
            if (v[i] < '0' || v[i] > '9') return "'" + v + "' is not a decimal integer";
          }
          // Leading zeros go, so that CLI11's base-0 conversion reads "010" as 10, not 8.
          const size_t digits = v.find_first_not_of('0', sign);
          v.erase(sign, (digits == std::string::npos ? v.size() - 1 : digits) - sign);
          return std::string();
        },
        "", "decimal"));
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) {
    RequireDecimalIntegers(sub);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file size limit a write fails with EFBIG, which storage reports as disk full
  // naming the file, instead of the process being killed by SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  // Whatever cfx writes is its user's alone (docs/serve.md, "Data dir"). The stores set
  // 0700/0600 themselves; the umask also covers what a library creates with its own modes
  // (QuickFIX's file store re-creates its files at a sequence reset) and every output file.
  ::umask(077);
  CLI::App app{"cfx: an exchange for cash-settled GPU-compute futures"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every subcommand");
  cfx::app::ExitCode rc = 0;

  // Groups first, so that entries registered under them find their parent.
  std::map<std::string, CLI::App*> groups;
  groups["bench"] = app.add_subcommand("bench", "Benchmarks; the last line printed is JSON");
  groups["bench"]->require_subcommand(1);

  auto entries = cfx::app::Commands();
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.parent < b.parent; });
  for (const auto& entry : entries) {
    if (entry.parent.empty()) {
      entry.setup(app, &rc);
    } else {
      auto it = groups.find(entry.parent);
      if (it == groups.end()) {
        it = groups.emplace(entry.parent, app.add_subcommand(entry.parent)).first;
        it->second->require_subcommand(1);
      }
      entry.setup(*it->second, &rc);
    }
  }

  // CLI11 answers a misspelt command with only "A subcommand is required": name the word and
  // what it could have been (SPEC §11: a bad flag's message names it).
  CLI::App* at = &app;
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    const std::vector<CLI::App*> subs = at->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) break;  // a command's own words are its own
    auto it = std::find_if(subs.begin(), subs.end(),
                           [&](CLI::App* sub) { return sub->check_name(argv[i]); });
    if (it == subs.end()) {
      std::string names;
      for (CLI::App* sub : subs) names += (names.empty() ? "" : ", ") + sub->get_name();
      std::cerr << "cfx: unknown command '" << argv[i] << "'"
                << (at == &app ? "" : " of " + at->get_name()) << " (one of: " << names
                << ")\nRun with --help for more information.\n";
      return 2;
    }
    at = *it;
  }

  RequireDecimalIntegers(&app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help (0) prints and exits; every other parse error is a usage error: exit 2, as
    // docs/settlement.md says for settle, not CLI11's own 100-odd codes.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    // A library's exception no command caught (a file system call on a folder it may not
    // search): a clear failure, exit 1, not an abort with a core dump.
    std::cerr << "cfx: " << e.what() << "\n";
    return 1;
  }
  // Output a command wrote that did not reach its destination (a full disk under `> file`, a
  // closed pipe) is a failure, not a success with a file cut short.
  if (!cfx::app::StandardOutputReached()) return rc != 0 ? rc : 1;
  return rc;
}
