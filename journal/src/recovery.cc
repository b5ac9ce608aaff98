#include "cfx/journal/recovery.h"

#include <exception>

#include "absl/strings/str_cat.h"

namespace cfx::journal {
namespace {

// SPEC §5: recovery never aborts on a stored record. What a state machine throws (a
// library's exception on a value it cannot take) becomes an error naming the record, so
// the exchange stops with a message instead of crashing on every restart.
template <typename Fn>
absl::Status Guarded(Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("exception: ", e.what()));
  } catch (...) {
    return absl::InternalError("unknown exception");
  }
}

constexpr char kOperatorHint[] =
    " (the record is intact: this is a bug or a version mismatch, not damage; do not truncate "
    "the journal; keep the data dir and report it)";

}  // namespace

absl::StatusOr<RecoveryResult> Recover(Journal& journal, StateMachine& machine,
                                       const RecoveryOptions& options) {
  RecoveryResult result;
  auto snapshot = journal.LatestValidSnapshot(&result.skipped_snapshots);
  if (!snapshot.ok()) {
    // The snapshot store cannot be read at all (a damaged page): snapshots only shorten
    // recovery, and the journal holds every record, so the whole journal is replayed. Until
    // 2026-12-06 this stopped the start, while `cfx journal verify` said the journal was ok.
    result.snapshots_unreadable = std::string(snapshot.status().message());
    snapshot = std::optional<Snapshot>();
    journal.StopSnapshots();
  }
  // A snapshot the machine refuses (its checksum good: a binary rolled back past its
  // format, a Snapshot/Restore mismatch) is passed over for an older one, or for a replay
  // from record 1, as a damaged one is: snapshots only shorten recovery, and the journal
  // holds every record. Until 2026-12-07 it stopped every start (a review). The state a
  // refused Restore left is replaced by the empty machine's own blob first.
  std::string empty_state;
  if (snapshot->has_value()) empty_state = machine.Snapshot();
  while (snapshot->has_value()) {
    const uint64_t seq = (*snapshot)->seq;
    absl::Status s = Guarded([&] { return machine.Restore((*snapshot)->state); });
    if (s.ok()) {
      result.snapshot_seq = seq;
      break;
    }
    if (result.unrestorable_snapshots++ == 0) {
      result.snapshot_restore_error = absl::StrCat("snapshot ", seq, ": ", s.message());
    }
    if (absl::Status e = Guarded([&] { return machine.Restore(empty_state); }); !e.ok()) {
      return absl::DataLossError(
          absl::StrCat("snapshot ", seq, ": cannot be restored (", s.message(),
                       "), nor the empty state after it: ", e.message(), kOperatorHint));
    }
    int skipped = 0;
    snapshot = journal.LatestValidSnapshot(&skipped, seq - 1);
    result.skipped_snapshots += skipped;
    if (!snapshot.ok()) {
      result.snapshots_unreadable = std::string(snapshot.status().message());
      snapshot = std::optional<Snapshot>();
      journal.StopSnapshots();
    }
  }

  uint64_t last_applied = result.snapshot_seq;
  absl::Status apply_status;
  absl::Status read_status =
      journal.ReadFrom(last_applied + 1, [&](uint64_t seq, absl::string_view payload) {
        apply_status = Guarded([&] { return machine.Apply(seq, payload); });
        if (!apply_status.ok()) return false;
        last_applied = seq;
        ++result.replayed;
        return true;
      });
  if (!apply_status.ok()) {
    // The record was intact (checksum good) but the machine refused it: a bug or a version
    // mismatch, not damage; never truncated.
    return absl::DataLossError(absl::StrCat("journal record ", last_applied + 1,
                                            ": cannot be applied: ", apply_status.message(),
                                            kOperatorHint));
  }
  // A tail shorter than LastSeq (a gap at the very end cannot show in ReadFrom) is checked too.
  if (read_status.ok() && last_applied < journal.LastSeq()) {
    read_status = absl::DataLossError(
        absl::StrCat("journal record ", last_applied + 1, ": missing (journal ends at ",
                     journal.LastSeq(), ")"));
  }
  if (!read_status.ok()) {
    if (!options.truncate_corrupt_tail || read_status.code() != absl::StatusCode::kDataLoss) {
      return read_status;
    }
    absl::Status s = journal.TruncateAfter(last_applied);
    if (!s.ok()) return s;
    result.truncated_from = last_applied + 1;
    result.truncation_reason = std::string(read_status.message());
  }
  result.next_seq = last_applied + 1;
  return result;
}

}  // namespace cfx::journal
