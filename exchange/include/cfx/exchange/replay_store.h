// `cfx replay --data-dir`: runs a replay command file (SPEC §4.1) through the same
// EngineMatcher and TradeRecorder as `cfx serve`, so trades (time = ts of the latest `time`
// command before them), positions, open orders, closing quotes (when `time` passes
// 16:00Z of a business day) and the security master (the `product` lines; last trading
// days from `calendar`) land in <data_dir>/trades for `cfx settle`. No journal, no
// pre-trade risk. Valid lines are inputs 1, 2, ... in file order; inputs at or below the
// store's recorded last seq are skipped, so re-running the same file changes nothing, and
// a file that begins with the earlier file's inputs and goes on records only the rest. The
// store keeps a digest of the inputs it holds (meta `replay_inputs`): a file that does not
// begin with them is refused (FailedPrecondition, nothing written), as is a data dir whose
// trades no replay recorded.
//
//   std::ifstream in("commands.jsonl");
//   absl::StatusOr<ReplayStoreResult> r = PersistReplay(in, "/var/cfx", config.Calendar());
#ifndef CFX_EXCHANGE_REPLAY_STORE_H_
#define CFX_EXCHANGE_REPLAY_STORE_H_

#include <iosfwd>
#include <string>

#include "absl/status/statusor.h"
#include "cfx/common/date.h"

namespace cfx::exchange {

struct ReplayStoreResult {
  uint64_t inputs = 0;    // valid command lines
  uint64_t recorded = 0;  // inputs written now (0 on a re-run)
  uint64_t trades = 0;    // trades written now
  uint64_t state_hash = 0;
};

// InvalidArgument naming the line when a `product` line lists a symbol that is no contract's
// (a data dir settles contracts only). Reads `in` through and seeks it back to the start.
absl::Status CheckReplayListsContracts(std::istream& in);

// Errors: the store cannot be opened or written (names the path); FailedPrecondition as
// above; CheckReplayListsContracts's, before anything is opened.
absl::StatusOr<ReplayStoreResult> PersistReplay(std::istream& in, const std::string& data_dir,
                                                const common::BusinessCalendar& calendar);

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_REPLAY_STORE_H_
