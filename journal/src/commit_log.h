// The journal's commit log: `<data_dir>/journal/commit.log`, a file of records written ahead
// of the LMDB journal (docs/durability.md, "The commit log"). An append is one `pwrite` of
// the batch and one `fdatasync` of a file whose blocks already exist, so a group commit costs
// one small device flush; the journal copies the records into LMDB later, off the order
// path, and restarts the log once LMDB has them durably.
//
// Layout (docs/formats.md, "Commit log"): a 4,096-byte header (magic "CFXL", version,
// generation, CRC-32C), then entries back to back, each a 16-byte prefix (the generation's
// low 32 bits, a CRC-32C of the generation, the rest of the prefix and the record's header,
// and where the entry's append begins and ends) followed by a journal record value
// (record_format.h: 24-byte header with seq, length and CRC, then the payload).
// Reading stops at the first entry of another generation, cut short or failing a checksum:
// that is where the last append before a crash ended, when no intact entry of the log's
// generation follows it, or when the intact ones that do are of the same append and nothing
// intact follows that append (its pages reached the disk out of order). Otherwise the damage
// is inside what was acknowledged: the open fails (DataLoss) unless every record the damage
// hides is in LMDB already (reading then goes on after it) or the operator asked for the cut
// (stop_at_damage). A file always extends the tail guard (an entry's prefix and record
// header) past its last entry (grown and synced before the entry is written), so one that
// ends sooner, or inside an entry whose prefix checks out, was cut: the open fails the same
// way. Logs of versions 1 (the bare 8-byte generation as the prefix), 2 (an 8-byte prefix, no
// guard) and 3 (an 8-byte prefix) are still read; every writable open restarts a log as
// version 4.
// Records up to the LMDB journal's last are skipped (batches that went straight into LMDB
// leave gaps between them); after it they must run on from that seq + 1. A restart writes a
// new generation into the header, so what an earlier generation left in the file is never
// read again.
//
// Thread safety: one thread at a time (the journal's writer).
#ifndef CFX_JOURNAL_COMMIT_LOG_H_
#define CFX_JOURNAL_COMMIT_LOG_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cfx::journal::internal {

inline constexpr size_t kCommitLogHeaderSize = 4096;
// Before each record (version 4): the generation's low 32 bits, the check, and how far back
// and ahead the entry's append begins and ends.
inline constexpr size_t kCommitLogEntryPrefix = 16;

struct CommitLogOptions {
  std::string path;               // the file
  uint64_t max_bytes = 64 << 20;  // the log restarts at the beginning before growing past this
  bool no_sync = false;           // benchmarks only: no fdatasync
  bool read_only = false;         // read what is there; write nothing (absent: an empty log)
  // The operator's cut (`cfx journal verify --truncate-corrupt-tail`): a damaged entry that
  // intact ones follow ends the reading, as a torn append does, instead of failing the open.
  bool stop_at_damage = false;
};

// What Open found: the records after `after`, in order, as journal record values back to
// back (seqs after+1 .. last).
struct CommitLogTail {
  std::string values;
  uint64_t last = 0;  // == after when there is none
  uint64_t records = 0;
  // With stop_at_damage, where a damaged entry stopped the reading although an intact one
  // followed it (0: none), and that entry's record seq.
  uint64_t damaged_at = 0;
  uint64_t intact_after_damage = 0;
  // With stop_at_damage, the size of a version-3 file that ends too soon after its last
  // intact entry, or inside one: cut short, not torn (0: not so). Without it, an error.
  uint64_t cut_short_at = 0;
  // Where reading stopped at an entry this generation began (its prefix names the header's
  // generation) that fails its checks with nothing intact after it: an append a crash cut
  // short, or a last entry damaged since (0: reading ended cleanly). Reported, not an error.
  uint64_t torn_at = 0;
};

class CommitLog {
 public:
  // Opens (creating when absent, unless read_only) and reads the records after `after`.
  // DataLoss naming the file when the header is damaged, when a damaged entry hides records
  // after `after` that intact entries follow (not stop_at_damage), or when the first record
  // after `after` is not after+1 (the log would skip inputs LMDB does not have). Writable, the log
  // holds an exclusive flock(2) on the file while it is open: FailedPrecondition naming the file
  // when another process holds it (a second writer would restart the log under the first, whose
  // later acknowledged records would then be read by no one).
  static absl::StatusOr<std::unique_ptr<CommitLog>> Open(const CommitLogOptions& options,
                                                         uint64_t after, CommitLogTail* tail);
  // The same, with `after` asked for once the file's bytes are read (an error from it is
  // returned as is). A reader beside a running writer asks LMDB then: the writer restarts the
  // log only once LMDB holds everything in it, so a restart between the two reads cannot make
  // the log seem to skip records; asked before, it could (the records copied and the log
  // restarted in between are in neither read).
  static absl::StatusOr<std::unique_ptr<CommitLog>> Open(
      const CommitLogOptions& options, absl::FunctionRef<absl::StatusOr<uint64_t>()> after_read,
      CommitLogTail* tail);
  ~CommitLog();
  CommitLog(const CommitLog&) = delete;
  CommitLog& operator=(const CommitLog&) = delete;

  uint64_t generation() const { return generation_; }
  const std::string& path() const { return options_.path; }
  // Whether `bytes` more fit before the log must restart.
  bool Fits(size_t bytes) const { return position_ + bytes <= options_.max_bytes; }

  // Appends one entry for (seq, payload) to *out (its check and its append's extent are
  // filled in by Append).
  void EncodeEntry(uint64_t seq, absl::string_view payload, std::string* out) const;

  // Writes `*entries` (from EncodeEntry, as one append) at the end of the log and flushes
  // them, after filling in each entry's append extent and check. On error the log's end does
  // not move, and the log refuses every later Append and Restart.
  // REQUIRES: Fits(entries->size()); not read_only.
  absl::Status Append(std::string* entries);

  // Starts a new generation at the beginning of the file (header written and flushed):
  // everything in the log so far is no longer read. Only once the journal holds all of it
  // durably. REQUIRES: not read_only.
  absl::Status Restart();

 private:
  CommitLog(const CommitLogOptions& options, int fd) : options_(options), fd_(fd) {}
  absl::Status WriteHeader(uint64_t generation);
  absl::Status LockForWriting();
  absl::Status Error(absl::string_view what) const;
  // Sets failed_ from a failed write or flush and returns it.
  absl::Status Fail(absl::Status status);
  CommitLogOptions options_;
  // The first failed write or flush: every later Append and Restart returns it (a flush that
  // failed says nothing about what reached the disk; a later one that succeeds would not).
  absl::Status failed_;
  int fd_ = -1;
  uint64_t generation_ = 0;
  uint16_t version_ = 0;  // the header's format; Append needs kLogVersion (after a Restart)
  // Open found a torn append with intact entries of it past its damage: Append needs a
  // Restart first.
  bool restart_before_append_ = false;
  uint64_t position_ = kCommitLogHeaderSize;  // where the next entry goes
  uint64_t zeroed_ = 0;                       // the file's blocks exist up to here
};

}  // namespace cfx::journal::internal

#endif  // CFX_JOURNAL_COMMIT_LOG_H_
