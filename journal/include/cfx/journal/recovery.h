// Recovery: latest valid snapshot + the journal's records after it, applied in order.
//
//   CounterMachine machine;                              // any StateMachine
//   absl::StatusOr<RecoveryResult> r = Recover(*journal, machine);
//   if (!r.ok()) return r.status();   // DataLoss "journal record 1234: checksum mismatch"
//   next_seq = r->next_seq;
//
// A corrupt or torn record stops recovery with DataLoss naming its seq; the state is then
// partial and must not be used. Cutting the tail is an explicit operator choice
// (RecoveryOptions::truncate_corrupt_tail, `cfx journal verify --truncate-corrupt-tail`),
// never automatic.
#ifndef CFX_JOURNAL_RECOVERY_H_
#define CFX_JOURNAL_RECOVERY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cfx/journal/journal.h"

namespace cfx::journal {

// A deterministic state machine fed with journal payloads. Thread safety: called from one
// thread at a time (recovery runs before the pipeline starts).
class StateMachine {
 public:
  virtual ~StateMachine() = default;
  // Replaces the whole state with a snapshot made by Snapshot(), whatever the state before
  // (also after a failed Restore: Recover restores the empty state's blob then). Error: the
  // blob is bad.
  virtual absl::Status Restore(absl::string_view snapshot) = 0;
  // The whole state as an opaque blob.
  virtual std::string Snapshot() const = 0;
  // Applies one sequenced input. Must be deterministic: the same (seq, payload) stream gives
  // the same state. An error (undecodable payload) stops recovery.
  virtual absl::Status Apply(uint64_t seq, absl::string_view payload) = 0;
};

struct RecoveryOptions {
  // OPERATOR ACTION: when a record is corrupt or missing, delete it and every later record
  // (and later snapshots), keep the state recovered so far, and succeed. Off by default.
  bool truncate_corrupt_tail = false;
};

struct RecoveryResult {
  uint64_t next_seq = 1;      // seq the next input gets (last applied + 1)
  uint64_t snapshot_seq = 0;  // 0: no snapshot used, replayed from record 1
  uint64_t replayed = 0;      // records applied after the snapshot
  int skipped_snapshots = 0;  // corrupt snapshots passed over for an older one
  // Not empty: the snapshot store itself could not be read (why; e.g. LMDB found a damaged
  // page), so every record was replayed from 1. Snapshots only shorten recovery.
  std::string snapshots_unreadable;
  // Snapshots whose checksum was good but that the machine refused to restore (a binary
  // rolled back past a snapshot format, a Snapshot/Restore mismatch), passed over for an
  // older one or a replay from record 1; the first refusal's message.
  int unrestorable_snapshots = 0;
  std::string snapshot_restore_error;
  // Set only with truncate_corrupt_tail: the reason and the first seq deleted (0: none).
  uint64_t truncated_from = 0;
  std::string truncation_reason;
};

// Restores `machine` from the newest valid snapshot and applies the later records.
// REQUIRES: `machine` is freshly constructed (empty) and nothing writes the journal meanwhile.
absl::StatusOr<RecoveryResult> Recover(Journal& journal, StateMachine& machine,
                                       const RecoveryOptions& options = {});

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_RECOVERY_H_
