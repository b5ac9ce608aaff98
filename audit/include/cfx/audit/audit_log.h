// The audit log: who connected, who was refused, what the operators ran. One file,
// <data_dir>/audit.log, JSON lines (docs/audit.md), opened O_APPEND and 0600; each event is
// one line written with one write(2):
//
//   {"seq":7,"ts":"2027-03-01T09:00:00.123456Z","kind":"fix_logon","comp_id":"ALPHA_T1",
//    "peer":"10.0.0.5","result":"refused","reason":"invalid username or password"}
//
// `seq` numbers the events of the file from 1, across every process that appends to it
// (`cfx serve`, `cfx settle` and `cfx reference build` may run at once): appends take an
// exclusive flock(2) on the file and number after the last line in it.
//
//   auto log = AuditLog::Open(data_dir + "/audit.log");
//   if (!log.ok()) return log.status();
//   (*log)->Record("settlement_run", {{"date", "2027-03-01"}, {"result", "ok"}});
//   absl::StatusOr<AuditPage> page = (*log)->Read(/*after=*/0, /*limit=*/100);
//
// Failure policy: an event that cannot be written (disk full, I/O error) is counted in
// write_errors() and reported on standard error, and the caller goes on: losing an audit
// line never stops trading. Opening the file is the check that it can be written at all.
//
// Thread safety: every method may be called from any thread. Record holds a mutex and the
// file lock for one write(2) to the page cache (no fsync per event), so a gateway thread
// waits microseconds; Sync() (and the destructor) fsync.
#ifndef CFX_AUDIT_AUDIT_LOG_H_
#define CFX_AUDIT_AUDIT_LOG_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cfx::audit {

// One field of an event: written as a JSON string.
struct Field {
  std::string_view key;
  std::string_view value;
};

// Events of the file after some seq, ascending.
struct AuditPage {
  std::vector<std::string> events;  // each one JSON object (a line without its newline)
  uint64_t next_after = 0;          // the last seq in `events` (`after` when empty)
  bool more = false;                // the file holds events after these
};

class AuditLog {
 public:
  // Opens (creating it 0600) the log at `path`, reading the events already in it.
  // Unavailable naming the path when it cannot be opened for appending.
  static absl::StatusOr<std::unique_ptr<AuditLog>> Open(const std::string& path);
  ~AuditLog();  // Sync()s
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Appends one event with the current UTC time (µs). `kind` and the field keys are
  // identifiers ([a-z_]); values are any text (escaped). Returns its seq, 0 if the write
  // failed (see the failure policy above).
  uint64_t Record(std::string_view kind, std::initializer_list<Field> fields);

  // Up to `limit` events with seq > `after`, including those other processes appended.
  // A line that is not an event (a write cut short by a crash) is skipped.
  absl::StatusOr<AuditPage> Read(uint64_t after, size_t limit);

  // fdatasync; Unavailable on error.
  absl::Status Sync();

  uint64_t write_errors() const;
  const std::string& path() const { return path_; }
  // Bytes the index of the file takes in memory: one entry for every kEventsPerCheckpoint
  // events, so a flood of refusals (rate-bounded, never bounded in total) cannot grow the
  // process by 24 bytes an event for as long as it runs.
  size_t IndexBytes() const;
  static constexpr uint64_t kEventsPerCheckpoint = 512;

 private:
  // Where an event's line starts.
  struct Checkpoint {
    uint64_t seq;
    uint64_t offset;
  };
  AuditLog(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  // Indexes what was appended since the last call (by anyone). REQUIRES: mu_ held.
  absl::Status CatchUp();
  // Counts an event found at `offset`. REQUIRES: mu_ held.
  void Indexed(uint64_t seq, uint64_t offset);

  const std::string path_;
  const int fd_;
  mutable std::mutex mu_;
  // Every kEventsPerCheckpoint-th event of the file (the first included), ascending seq;
  // Read scans the file from the one before what it is asked for. Under mu_.
  std::vector<Checkpoint> checkpoints_;
  uint64_t events_ = 0;       // events indexed; under mu_
  uint64_t scanned_ = 0;      // bytes indexed (whole lines); under mu_
  uint64_t size_ = 0;         // the file's size when CatchUp last looked; under mu_
  uint64_t last_seq_ = 0;     // under mu_
  bool partial_tail_ = false;  // the file ends inside a line; under mu_
  uint64_t write_errors_ = 0;  // under mu_
};

// A token's fingerprint for the log: the first 8 hex digits of its SHA-256. It names the
// token to someone who holds it, and says nothing usable about it to anyone else.
std::string TokenFingerprint(std::string_view token);

}  // namespace cfx::audit

#endif  // CFX_AUDIT_AUDIT_LOG_H_
