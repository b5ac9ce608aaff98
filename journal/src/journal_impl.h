// Private state of Journal, shared by journal.cc (records) and snapshot_store.cc.
#ifndef CFX_JOURNAL_JOURNAL_IMPL_H_
#define CFX_JOURNAL_JOURNAL_IMPL_H_

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cfx/journal/journal.h"
#include "cfx/storage/lmdb_env.h"
#include "commit_log.h"

namespace cfx::journal {

class Journal::Impl {
 public:
  JournalOptions options;
  std::string path;
  std::unique_ptr<storage::LmdbEnv> records;
  std::unique_ptr<storage::LmdbEnv> snapshots;  // null when read_only and none exist
  std::atomic<bool> snapshots_stopped{false};   // StopSnapshots: the store is damaged
  // Written by the writer after each commit (release); read by anyone (acquire).
  std::atomic<uint64_t> last_seq{0};
  // With defer_commit_sync the last LMDB commit's meta page may not be on disk yet (docs/
  // durability.md, "One flush per commit"); otherwise, and after a batch through the commit
  // log, equal to last_seq.
  std::atomic<uint64_t> durable_seq{0};

  // With options.commit_log (docs/durability.md, "The commit log"): the log, the writer's
  // encoding buffer, and the copier that moves the log's records into LMDB.
  std::unique_ptr<internal::CommitLog> log;
  std::string log_batch;
  // Records the log holds and LMDB does not yet: commit-log entries back to back, in seq
  // order (or, read_only, record values from the log found at open). Guarded by pending_mu.
  std::mutex pending_mu;
  std::condition_variable pending_cv;
  std::string pending;
  bool pending_has_prefix = true;  // entries (generation + value) or bare values
  bool stopping = false;
  absl::Status copy_error;  // the copier's first error: AppendBatch returns it from then on
  // One LMDB writer of records at a time (the copier, a forced copy, TruncateAfter), and
  // held by ReadFrom, so that a reader finds each record either in LMDB or in `pending`.
  std::mutex lmdb_mu;
  std::thread copier;
  uint64_t recovered_from_log = 0;
  uint64_t commit_log_cut = 0;  // CommitLogCut()
  bool commit_log_cut_short = false;  // CommitLogCutShort()
  bool commit_log_missing = false;    // CommitLogMissing()
  // Whether LMDB holds the commit log's mark (LogMarkKey): a log is in use and may hold
  // records LMDB does not. The writer's, from the open on.
  bool log_marked = false;
  bool log_mark_damaged = false;        // found failing its checks: the next SetLogMark rewrites it
  bool log_mark_found_damaged = false;  // CommitLogMarkDamaged()
  uint64_t commit_log_torn_at = 0;  // CommitLogTornAt()
  // The writer's: its latest commit went straight into LMDB with its meta page not flushed
  // (defer_commit_sync); the next append to the log syncs LMDB first.
  bool lmdb_unsynced = false;
  // The writer's: the first error after which the files may hold more than last_seq says (a
  // failed flush, a commit whose sync failed, a failed log write). AppendBatch, Sync and
  // TruncateAfter return it from then on: reusing those seqs, or trusting a retried flush,
  // could lose or mix up records. The next open sorts out what is there.
  absl::Status failed;
  // Estimated LMDB bytes of the records pending or being copied (guarded by pending_mu).
  uint64_t lmdb_bytes_waiting = 0;
};

namespace internal {
// Deletes every snapshot with seq > `seq` (synced). OK when there is no snapshot store.
absl::Status DeleteSnapshotsAfter(Journal::Impl& impl, uint64_t seq);
// The same for `end` when the newest snapshot is past it; nothing when none is, or when the
// store cannot be read (recovery replays around an unreadable store).
absl::Status DeleteSnapshotsPastEnd(Journal::Impl& impl, uint64_t end);
// Flushes the records' latest commit when defer_commit_sync left it unsynced, and marks
// everything up to last_seq durable.
absl::Status SyncRecords(Journal::Impl& impl);
// Copies what `pending` holds into LMDB in one commit; with `sync`, flushed so that LMDB
// holds it durably (the log may then restart). Takes lmdb_mu.
absl::Status CopyPending(Journal::Impl& impl, bool sync);
// Opens `<journal>/commit.log` when the option is on or a log exists: read-only, its records
// after LMDB's go to `pending`; writable, into LMDB (synced), and the log restarts.
absl::Status OpenCommitLog(Journal::Impl& impl);
// Whether LMDB holds the commit log's mark; DataLoss when it is there but damaged.
absl::StatusOr<bool> ReadLogMark(Journal::Impl& impl);
// Writes (`in_use`) or deletes the commit log's mark in LMDB, in one commit, not synced:
// the caller's next sync makes it durable. No-op when it is already so.
absl::Status SetLogMark(Journal::Impl& impl, bool in_use);
// The last seq LMDB holds (0 when empty).
absl::StatusOr<uint64_t> LmdbLastSeq(Journal::Impl& impl);
// The copier thread's loop, until `stopping`.
void RunCopier(Journal::Impl& impl);
// Appends to the log; returns the last seq, or 0 when the batch must go to LMDB directly.
absl::StatusOr<uint64_t> AppendToLog(Journal::Impl& impl,
                                     absl::Span<const absl::string_view> payloads);
}  // namespace internal

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_JOURNAL_IMPL_H_
