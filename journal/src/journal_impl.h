// Private state of Journal, shared by journal.cc (records) and snapshot_store.cc.
#ifndef CFX_JOURNAL_JOURNAL_IMPL_H_
#define CFX_JOURNAL_JOURNAL_IMPL_H_

#include <atomic>
#include <memory>
#include <string>

#include "cfx/journal/journal.h"
#include "cfx/storage/lmdb_env.h"

namespace cfx::journal {

class Journal::Impl {
 public:
  JournalOptions options;
  std::string path;
  std::unique_ptr<storage::LmdbEnv> records;
  std::unique_ptr<storage::LmdbEnv> snapshots;  // null when read_only and none exist
  // Written by the writer after each commit (release); read by anyone (acquire).
  std::atomic<uint64_t> last_seq{0};
  // With defer_commit_sync the last commit's meta page may not be on disk yet (docs/
  // durability.md, "One flush per commit"); otherwise equal to last_seq.
  std::atomic<uint64_t> durable_seq{0};
};

namespace internal {
// Deletes every snapshot with seq > `seq` (synced). OK when there is no snapshot store.
absl::Status DeleteSnapshotsAfter(Journal::Impl& impl, uint64_t seq);
// Flushes the records' latest commit when defer_commit_sync left it unsynced, and marks
// everything up to last_seq durable.
absl::Status SyncRecords(Journal::Impl& impl);
}  // namespace internal

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_JOURNAL_IMPL_H_
