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
  if (snapshot->has_value()) {
    absl::Status s = Guarded([&] { return machine.Restore((*snapshot)->state); });
    if (!s.ok()) {
      return absl::DataLossError(absl::StrCat("snapshot ", (*snapshot)->seq,
                                              ": cannot be restored: ", s.message()));
    }
    result.snapshot_seq = (*snapshot)->seq;
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
