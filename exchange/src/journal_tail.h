// Replaying the journal's tail on a shadow EngineMatcher with the running one's options (so
// the same decisions), from the newest valid snapshot at or before a seq (record 1 if there
// is none): the outcomes of inputs the running core applied without anyone hearing of them
// are computed again, and nothing in the running core changes.
//
// Two users: the trade store (RecordJournalTail: the recorder commits after the journal, so
// a kill -9 can leave inputs journaled whose rows were never written; rows are keyed by
// engine event seq and positions move only for seq > last_seq, so this is idempotent), and
// the FIX reports a crash kept from going out (ExchangeCore::ReplayOutcomes,
// docs/durability.md).
#ifndef CFX_EXCHANGE_JOURNAL_TAIL_H_
#define CFX_EXCHANGE_JOURNAL_TAIL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cfx/exchange/engine_matcher.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/exchange/trade_recorder.h"
#include "cfx/journal/journal.h"

namespace cfx::exchange {

struct RecordedTail {
  uint64_t recorded = 0;    // inputs whose rows were re-derived
  uint64_t start_seq = 1;   // the first journal record read (after the snapshot used)
};

// Replays the journal from the newest valid snapshot at or before `snapshot_at_most` (record
// 1 when none is kept) through record `through` (0: its end), calling `visitor` for every
// input applied, in order; a visitor error stops the replay and is returned. Returns the
// first record read. DataLoss naming the seq on a corrupt journal.
absl::StatusOr<uint64_t> ReplayJournalTail(const journal::Journal& journal,
                                           const MatcherOptions& options,
                                           uint64_t snapshot_at_most, uint64_t through,
                                           TailVisitor* visitor);

// Re-derives the trade-store rows of the inputs after recorder->last_seq().
absl::StatusOr<RecordedTail> RecordJournalTail(const journal::Journal& journal,
                                               const MatcherOptions& options,
                                               TradeRecorder* recorder);

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_JOURNAL_TAIL_H_
