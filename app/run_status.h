// How a `cfx` subcommand reports a failure: one line "cfx <command>: <message>" on standard
// error, then a non-zero exit status (by convention 1 for a failed run, 2 for bad flags or
// a bad config).
//
//   absl::StatusOr<Ledger> ledger = Ledger::Open(dir);
//   if (!ledger.ok()) return Fail("settle", ledger.status());        // exit status 1
//   if (!date) return Fail("reference build", "--date: bad date", 2);  // exit status 2
#ifndef CFX_APP_RUN_STATUS_H_
#define CFX_APP_RUN_STATUS_H_

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

}  // namespace cfx::app

#endif  // CFX_APP_RUN_STATUS_H_
