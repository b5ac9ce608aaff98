// The journal: every sequenced input, in order, in an LMDB environment under
// `<data_dir>/journal`, plus the latest state snapshots in `<data_dir>/journal/snapshots`.
// Each record is (seq, payload) with a versioned header and a CRC-32C; a bad checksum, a gap
// in the sequence or a bad length is reported as DataLoss naming the seq, never skipped.
// Format: docs/formats.md, "Journal and snapshots (LMDB)".
//
//   auto journal = Journal::Open({.data_dir = "/var/cfx"});
//   if (!journal.ok()) return journal.status();          // names the path
//   absl::StatusOr<uint64_t> last = (*journal)->AppendBatch(payloads);  // synced on return
//   absl::Status s = (*journal)->ReadFrom(1, [](uint64_t seq, absl::string_view p) {
//     Apply(seq, p);
//     return true;
//   });
#ifndef CFX_JOURNAL_JOURNAL_H_
#define CFX_JOURNAL_JOURNAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace cfx::journal {

// An AppendBatch refused for a full LMDB map: refused before anything was written or
// flushed, so a Sync() after it can be trusted (not so after a failed write or flush).
bool IsMapFull(const absl::Status& status);

struct JournalOptions {
  std::string data_dir = "";
  // Address space reserved for the records (a sparse file on disk); a full map is reported
  // as ResourceExhausted naming the path, never a crash.
  uint64_t map_size_bytes = 16ull << 30;
  uint64_t snapshot_map_size_bytes = 4ull << 30;
  // Where an operator raises each (storage::EnvOptions::map_size_setting).
  std::string map_size_setting;
  std::string snapshot_map_size_setting;
  // Snapshots kept; older ones are deleted when a new one is written.
  int keep_snapshots = 3;
  // Benchmarks only: commits are not synced, so a power loss may lose acknowledged inputs.
  // A process crash (kill -9) still loses nothing: the OS has the pages.
  bool unsafe_no_sync = false;
  // Opens without creating or writing anything (verify, dump).
  bool read_only = false;
  // One device flush per group commit instead of two (docs/durability.md, "One flush per
  // commit"): AppendBatch syncs its records but leaves the commit's own LMDB meta page to the
  // next AppendBatch or Sync(), so a power loss may undo the latest commit (never corrupt
  // the journal). DurableSeq() says how far a power loss cannot reach; whoever acknowledges
  // inputs acknowledges up to it (the pipeline does). A process crash loses nothing either way.
  bool defer_commit_sync = false;
  // Records are written ahead to `<journal>/commit.log` (docs/durability.md, "The commit
  // log"): AppendBatch returns once one write and one flush of that file hold the batch, and
  // a background thread copies the records into LMDB, where readers find them. Open puts
  // what the log holds beyond LMDB into LMDB before anything else. DurableSeq() == LastSeq()
  // after every AppendBatch through the log (batches over commit_log_max_batch_bytes go
  // straight into LMDB, as without the log). The log restarts at its beginning once LMDB holds everything in
  // it durably, before it would grow past commit_log_bytes.
  bool commit_log = false;
  uint64_t commit_log_bytes = 64ull << 20;
  // Larger batches (flat out) go straight into LMDB, as without the log: there one commit's
  // flush is shared by thousands of records, and the log would write each twice. With
  // defer_commit_sync such a commit is durable at the next commit, append or Sync.
  uint64_t commit_log_max_batch_bytes = 64 << 10;
  // How often the copier moves the log's records into LMDB (sooner when 4 MiB wait): each
  // copy is one LMDB commit and one flush sharing the disk with the log's.
  int commit_log_copy_every_ms = 10;
  // The operator's cut (`cfx journal verify --truncate-corrupt-tail`): a damaged entry inside
  // the commit log that intact entries follow ends its reading there, and the records after
  // it are dropped (CommitLogCut() says which), instead of failing Open with DataLoss; so
  // are the records past the end of a log cut short, and those of a log that is missing.
  bool cut_damaged_commit_log = false;
};

struct Snapshot {
  uint64_t seq = 0;  // the state includes every record with seq <= this
  std::string state;
};

struct JournalStats {
  uint64_t records = 0;
  uint64_t first_seq = 0;  // 0 when empty
  uint64_t last_seq = 0;
  uint64_t payload_bytes = 0;
};

// Thread safety: AppendBatch, TruncateAfter and the test writers are for one writer thread
// at a time (the journaler). WriteSnapshot may run on another thread concurrently with
// AppendBatch (snapshots live in their own environment, so neither waits for the other's
// commit). Readers (ReadFrom, Verify, LatestValidSnapshot, LastSeq) may run on any thread.
class Journal {
 public:
  // Opens or creates `<data_dir>/journal`. Returns an error naming the path when the folder
  // cannot be created or opened (PermissionDenied, FailedPrecondition, NotFound when
  // read_only and absent) or the file is damaged (DataLoss).
  static absl::StatusOr<std::unique_ptr<Journal>> Open(const JournalOptions& options);
  ~Journal();

  // Appends payloads as records LastSeq()+1, LastSeq()+2, ... in ONE LMDB transaction (group
  // commit), synced to disk before it returns OK (unless unsafe_no_sync; with
  // defer_commit_sync the records are synced and the commit becomes durable at the next
  // AppendBatch or Sync, see DurableSeq). Returns the seq of
  // the last record (LastSeq() when `payloads` is empty). On error nothing is acknowledged
  // (with the commit log, entries of a batch whose flush failed may still be read at the
  // next open: they were written, never acknowledged, and the log refuses further appends).
  // REQUIRES: the journal was not opened read_only; a payload is < 4 GiB.
  absl::StatusOr<uint64_t> AppendBatch(absl::Span<const absl::string_view> payloads);

  // The highest seq written (0 when empty). Any thread.
  uint64_t LastSeq() const;

  // How many records Open found in the commit log only (acknowledged by a run that stopped
  // before copying them into LMDB); they are in LMDB now unless read_only.
  uint64_t RecoveredFromCommitLog() const;
  // With cut_damaged_commit_log: the first record seq the cut dropped although the commit log
  // held it intact after a damaged entry (0: no such cut).
  // A cut short log (the file ends too soon after its last intact entry, or inside one)
  // counts too: what it held past that record is unknown, and dropped.
  uint64_t CommitLogCut() const;
  // Whether that cut was of a log cut short (else: of records past damage).
  bool CommitLogCutShort() const;
  // Whether that cut was of a commit log that is missing: LMDB's mark says a log was in use
  // (a run that did not stop cleanly), and the file is gone; whatever it held past LMDB's
  // last record is lost.
  bool CommitLogMissing() const;
  // The operator's cut of a missing log, once what it must record is recorded (`cfx journal
  // verify --truncate-corrupt-tail`: the ExecID generation): takes the mark away (synced),
  // so that the next start opens. Until then every open finds the loss again. A no-op
  // unless CommitLogMissing() and the log is still missing. REQUIRES: not read_only.
  absl::Status AcceptCommitLogLoss();
  // Whether Open found the commit log's mark damaged (taken as present; only read_only and
  // cut_damaged_commit_log opens get this far, and the cut's writes it again).
  bool CommitLogMarkDamaged() const;
  // Where (byte offset in commit.log) Open stopped reading at a last entry that fails its
  // checks with nothing intact after it: an append a crash cut short, never acknowledged, or
  // a last entry damaged since. 0: the log ended cleanly. Not applied; reported by `cfx
  // serve` and `cfx journal verify` (docs/formats.md, "Commit log").
  uint64_t CommitLogTornAt() const;

  // The highest seq that a power loss cannot undo: LastSeq() without defer_commit_sync and
  // after a batch through the commit log; with defer_commit_sync, an AppendBatch that went
  // into LMDB (every one without the log, large ones with it) makes the commit before it
  // durable, and the next append through the log or Sync() makes everything durable.
  // Any thread.
  uint64_t DurableSeq() const;

  // Makes every appended record durable (one flush) when defer_commit_sync left the latest
  // commit to it; otherwise returns at once. Same thread rules as AppendBatch.
  absl::Status Sync();

  // Calls fn(seq, payload) for each record with seq >= from, in order, after checking it,
  // until fn returns false. Returns DataLoss("journal record N: ...") at the first bad or
  // missing record; records before it have been delivered. `payload` is valid only during
  // the call.
  absl::Status ReadFrom(uint64_t from,
                        const std::function<bool(uint64_t, absl::string_view)>& fn) const;

  // Scans and checks every record. DataLoss naming the first bad seq.
  absl::StatusOr<JournalStats> Verify() const;

  // Stores `state` as the snapshot that includes records 1..seq (synced), then deletes all
  // but the newest keep_snapshots. REQUIRES: seq <= LastSeq().
  absl::Status WriteSnapshot(uint64_t seq, absl::string_view state);
  // The snapshot store could not be read (a damaged page): WriteSnapshot fails from now on,
  // so this run writes nothing into the damaged file (LMDB may abort on one) and the next
  // start replays the whole journal again until an operator removes the store (Recover).
  void StopSnapshots();

  // The newest snapshot whose checksum is good and whose seq <= min(LastSeq(), at_most);
  // nullopt if none. A corrupt newer snapshot is skipped (and counted in *skipped_corrupt
  // when non-null); one past `at_most` is skipped without being counted.
  absl::StatusOr<std::optional<Snapshot>> LatestValidSnapshot(
      int* skipped_corrupt = nullptr, uint64_t at_most = UINT64_MAX) const;

  // OPERATOR ACTION, never called automatically: deletes every record with seq > `seq`
  // and every snapshot with seq > `seq`, synced. Used to cut a torn or corrupt tail.
  absl::Status TruncateAfter(uint64_t seq);

  // `<data_dir>/journal`.
  const std::string& path() const;

  // Test only: stores `value` verbatim under key `seq` (no header, no checks), so tests can
  // plant corrupt records or gaps. Returns the encoded (valid) record value for a payload.
  absl::Status WriteRawRecordForTest(uint64_t seq, absl::string_view value);
  static std::string EncodeRecordForTest(uint64_t seq, absl::string_view payload);

  class Impl;

 private:
  explicit Journal(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_JOURNAL_H_
