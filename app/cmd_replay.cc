// `cfx replay --input commands.jsonl [--output events.jsonl] [--data-dir DIR]` (SPEC §4.1,
// §12). With a data dir, trades, positions, closing quotes and the security master (the
// `product` lines) are also persisted as in `cfx serve` (exchange/replay_store.h), without
// the core's contract expiry, so the store holds exactly the events printed; the event
// output is the same either way.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/common/config.h"
#include "cfx/engine/replay.h"
#include "cfx/exchange/replay_store.h"
#include "cfx/storage/private_files.h"
#include "holiday_list.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

struct ReplayFlags {
  std::string input;
  std::string output = "-";
  std::string data_dir;
  std::string config;  // holidays: the closing-quote calendar and the last trading days
};

ExitCode Persist(const ReplayFlags& flags, const std::string& input,
                 const cfx::common::BusinessCalendar& calendar) {
  std::istringstream in(input);
  auto r = cfx::exchange::PersistReplay(in, flags.data_dir, calendar);
  if (!r.ok()) {
    return Fail("replay", absl::StrCat("--data-dir ", flags.data_dir, ": ", r.status().message()));
  }
  std::cerr << "cfx replay: persisted " << r->recorded << " inputs, " << r->trades << " trades to "
            << flags.data_dir << "/trades (with the security master)\n";
  return 0;
}

// Creates OUTPUT.tmp.XXXXXX (mkostemp: a name of its own, never a file or a link already
// there; 0600: the events name accounts and orders) and opens *out on it; the events are
// written there and renamed over OUTPUT once whole: a failed run leaves the old file, never
// half of a new one. The stream is opened through /proc/self/fd of the file mkostemp made,
// not by its name, so a link put in its place meanwhile is not followed either. A fixed
// OUTPUT.tmp opened with O_TRUNC followed a link by that name (until 2026-12-06).
ExitCode OpenOutput(const ReplayFlags& flags, std::string* tmp, std::ofstream* out) {
  *tmp = flags.output + ".tmp.XXXXXX";
  const int fd = ::mkostemp(tmp->data(), O_CLOEXEC);
  if (fd >= 0 && ::fchmod(fd, 0600) == 0) {
    out->open("/proc/self/fd/" + std::to_string(fd), std::ios::out | std::ios::trunc);
  }
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (fd < 0 || !out->is_open()) {
    if (fd >= 0) ::unlink(tmp->c_str());
    return Fail("replay", absl::StrCat("cannot open --output ", flags.output,
                                       " (a temporary file beside it): ", std::strerror(err)));
  }
  return 0;
}

ExitCode CommitOutput(const ReplayFlags& flags, const std::string& tmp, std::ofstream* out) {
  out->close();
  // Flushed before the rename, and the rename's folder after it: an exit 0 followed by a
  // power loss left OUTPUT empty or partial until 2026-12-07 (a review).
  bool synced = false;
  if (*out) {
    const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    synced = fd >= 0 && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
  }
  if (!synced || std::rename(tmp.c_str(), flags.output.c_str()) != 0) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    return Fail("replay", "write failed on " + flags.output);
  }
  const std::string folder = std::filesystem::path(flags.output).parent_path().string();
  if (absl::Status s = cfx::storage::SyncFolder(folder.empty() ? "." : folder); !s.ok()) {
    return Fail("replay", absl::StrCat(flags.output,
                                       " written, but its folder could not be "
                                       "flushed (it may not survive a power loss): ",
                                       s.message()));
  }
  return 0;
}

ExitCode RunReplayCommand(const ReplayFlags& flags) {
  // Whatever can refuse the run is checked before anything is written (SPEC §11: a bad
  // config or flag exits non-zero with nothing half-written).
  cfx::common::BusinessCalendar calendar;
  std::string terms;            // the config's settlement terms, kept in the data dir
  std::vector<cfx::common::Date> config_holidays;
  if (!flags.config.empty()) {  // read (and checked) with or without --data-dir
    auto config = cfx::common::LoadConfigFile(flags.config);
    if (!config.ok()) return Fail("replay", config.status(), 2);
    calendar = config->Calendar();
    config_holidays = config->holidays;
    terms = cfx::common::SettlementTermsToml(*config);
    if (flags.data_dir.empty()) {
      // The engine alone (SPEC §4.1) has no calendar and no accounts: nothing of the config
      // applies. Said, so that a user does not take its holidays as applied.
      std::cerr << "cfx replay: warning: --config " << flags.config
                << " was checked but applies only with --data-dir (holidays, collateral); the "
                   "replay runs without it\n";
    }
  }
  // A data dir keeps the terms it was replayed under (settlement_terms.toml): its contracts'
  // last trading days and its trades' days count that calendar. Without --config the run
  // takes them (it took none: the next run listed months under another calendar than the
  // data dir's); with one, its holidays must be those (as `cfx settle` checks).
  if (!flags.data_dir.empty()) {
    const std::string kept_path = cfx::common::SettlementTermsPath(flags.data_dir);
    std::error_code exists_ec;
    const bool kept = std::filesystem::exists(kept_path, exists_ec);
    if (exists_ec) return Fail("replay", absl::StrCat(kept_path, ": ", exists_ec.message()));
    if (kept) {
      auto kept_terms = cfx::common::LoadKeptSettlementTerms(kept_path);
      if (!kept_terms.ok()) return Fail("replay", kept_terms.status(), 2);
      if (flags.config.empty()) {
        calendar = kept_terms->Calendar();
      } else if (Normalized(kept_terms->holidays) != Normalized(config_holidays)) {
        return Fail(
            "replay",
            absl::StrCat("--config: its holidays (", HolidayText(Normalized(config_holidays)),
                         ") are not those the data dir was replayed under (",
                         HolidayText(Normalized(kept_terms->holidays)), ", in ", kept_path,
                         "); its contracts' last trading days and trades' days count "
                         "that calendar: drop --config, or use another data dir"),
            2);
      }
    }
  }
  std::error_code ec;
  if (std::filesystem::is_directory(flags.input, ec)) {
    return Fail("replay", "--input " + flags.input + " is a directory, not a file", 2);
  }
  std::ifstream in(flags.input);
  if (!in) {
    return Fail("replay", "cannot open --input " + flags.input + ": " + std::strerror(errno), 2);
  }
  if (flags.output != "-" && std::filesystem::equivalent(flags.input, flags.output, ec)) {
    return Fail("replay", "--output " + flags.output + " is the --input file", 2);
  }
  if (flags.output != "-" && std::filesystem::is_directory(flags.output, ec)) {
    return Fail("replay", "--output " + flags.output + " is a directory, not a file", 2);
  }
  if (flags.data_dir.empty()) {
    if (flags.output == "-") {
      cfx::engine::RunReplay(in, std::cout);
      return 0;
    }
    std::string tmp;
    std::ofstream out;
    if (ExitCode rc = OpenOutput(flags, &tmp, &out); rc != 0) return rc;
    cfx::engine::RunReplay(in, out);
    return CommitOutput(flags, tmp, &out);
  }
  // With a data dir the input is read twice (the store, the events): read once into memory,
  // so a pipe (--input /dev/stdin) gives both the same lines.
  std::string input;
  try {
    input.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::bad_alloc&) {
    return Fail("replay", "--input " + flags.input +
                              " is too large to read into memory; nothing was written");
  } catch (const std::length_error&) {
    return Fail("replay", "--input " + flags.input +
                              " is too large to read into memory; nothing was written");
  }
  if (in.bad()) return Fail("replay", "cannot read --input " + flags.input);
  // The events are written (to OUTPUT.tmp.XXXXXX) before the data dir is touched, and renamed over
  // OUTPUT only after the store: a bad --output fails before anything reaches the data dir,
  // and a store that refuses this input (a data dir holding another input's replay) leaves
  // no new OUTPUT.
  std::string tmp;
  std::optional<std::ofstream> out;
  auto drop_tmp = [&] {
    if (!out) return;
    out->close();
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
  };
  if (flags.output != "-") {
    out.emplace();
    if (ExitCode rc = OpenOutput(flags, &tmp, &*out); rc != 0) {
      out.reset();  // nothing to drop: OpenOutput removed its file
      return rc;
    }
    std::istringstream events(input);
    cfx::engine::RunReplay(events, *out);
    out->flush();
    if (!*out) {
      drop_tmp();
      return Fail("replay", "write failed on " + flags.output);
    }
  }
  {
    // Refused before the data dir is made (PersistReplay checks again).
    std::istringstream scan(input);
    if (absl::Status s = cfx::exchange::CheckReplayListsContracts(scan); !s.ok()) {
      drop_tmp();
      // Named as the input's line and field, then what the data dir needs of it.
      return Fail("replay", absl::StrCat(flags.input, ": ", s.message(), " (--data-dir ",
                                         flags.data_dir, ")"));
    }
  }
  if (absl::Status s = cfx::storage::PrepareDataDir(flags.data_dir, /*create=*/true); !s.ok()) {
    drop_tmp();
    return Fail("replay", absl::StrCat("--data-dir: ", s.message()));
  }
  if (ExitCode rc = Persist(flags, input, calendar); rc != 0) {
    drop_tmp();
    return rc;
  }
  // As `cfx serve`: the settlement terms go with the data, for `cfx settle` without
  // --config.
  if (!terms.empty()) {
    if (absl::Status s = cfx::storage::WritePrivateFile(
            cfx::common::SettlementTermsPath(flags.data_dir), terms);
        !s.ok()) {
      drop_tmp();
      return Fail("replay", s);
    }
  }
  if (out) return CommitOutput(flags, tmp, &*out);
  std::istringstream events(input);
  cfx::engine::RunReplay(events, std::cout);
  return 0;
}

void SetupReplay(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<ReplayFlags>(
      parent, rc, "replay",
      "Run the matching engine on a JSON-lines command file (no network, no risk)",
      RunReplayCommand);
  cmd->add_option("--input", flags->input, "Command file, one JSON object per line")->required();
  cmd->add_option("--output", flags->output, "Event file ('-' or absent: standard output)");
  cmd->add_option("--data-dir", flags->data_dir,
                  "Also persist trades, positions, closes and the security master here (as cfx serve)");
  cmd->add_option("--config", flags->config, "Exchange config (holidays: closes, last trading days), with --data-dir");
}

CFX_REGISTER_COMMAND("", SetupReplay);

}  // namespace
}  // namespace cfx::app
