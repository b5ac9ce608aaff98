// How a `cfx` subcommand reports a failure: one line "cfx <command>: <message>" on standard
// error, then a non-zero exit status (by convention 1 for a failed run, 2 for bad flags or
// a bad config).
//
//   absl::StatusOr<Ledger> ledger = Ledger::Open(dir);
//   if (!ledger.ok()) return Fail("settle", ledger.status());        // exit status 1
//   if (!date) return Fail("reference build", "--date: bad date", 2);  // exit status 2
#ifndef CFX_APP_RUN_STATUS_H_
#define CFX_APP_RUN_STATUS_H_

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "registry.h"

namespace cfx::app {

// Prints "cfx <command>: <message>\n" to standard error and returns `code`.
inline ExitCode Fail(absl::string_view command, absl::string_view message, ExitCode code = 1) {
  std::cerr << "cfx " << command << ": " << message << "\n";
  return code;
}

// As above with the status's message (not its code: "cfx settle: no such file").
inline ExitCode Fail(absl::string_view command, const absl::Status& status, ExitCode code = 1) {
  return Fail(command, status.message(), code);
}

// Flushes standard output; false (after saying so on standard error) when something the
// command wrote there did not get through (a full disk under `> file`, a closed pipe), so
// that the command exits non-zero instead of leaving a file cut short behind a success.
inline bool StandardOutputReached() {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (flushed && std::cout.good() && !std::ferror(stdout)) return true;
  std::cerr << "cfx: writing the standard output failed"
            << (err != 0 ? std::string(" (") + std::strerror(err) + ")" : std::string())
            << ": what it holds is incomplete\n";
  return false;
}

}  // namespace cfx::app

#endif  // CFX_APP_RUN_STATUS_H_
