// Re-deriving trade-store rows after a crash. The recorder commits after the journal, so a
// kill -9 can leave inputs journaled (and acknowledged) whose rows were never written. On
// start, inputs after the recorder's `last_seq` are recomputed by replaying the journal
// through a shadow EngineMatcher with the same options (same decisions), from the newest
// snapshot at or before `last_seq` (record 1 if there is none), and their outcomes are
// recorded. Rows are keyed by engine event seq and positions move only
// for seq > last_seq, so this is idempotent.
#ifndef CFX_EXCHANGE_RECORDER_RECOVERY_H_
#define CFX_EXCHANGE_RECORDER_RECOVERY_H_

#include "absl/status/statusor.h"
#include "cfx/exchange/engine_matcher.h"
#include "cfx/exchange/trade_recorder.h"
#include "cfx/journal/journal.h"

namespace cfx::exchange {

struct RecordedTail {
  uint64_t recorded = 0;    // inputs whose rows were re-derived
  uint64_t start_seq = 1;   // the first journal record read (after the snapshot used)
};

// DataLoss naming the seq on a corrupt journal.
absl::StatusOr<RecordedTail> RecordJournalTail(const journal::Journal& journal,
                                           const MatcherOptions& options,
                                           TradeRecorder* recorder);

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_RECORDER_RECOVERY_H_
