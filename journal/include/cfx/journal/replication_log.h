// The seam between the input pipeline and a replicated log of sequenced input batches (a
// hot standby, docs/replication.md). A primary's sequencer appends each batch to the log
// before its local journal and acknowledges nothing the log has not confirmed; a standby's
// sequencer reads the log instead of producers, journals locally and applies the same inputs
// through the same matcher. The implementation over NATS JetStream is cfx_replication's
// JetStreamLog; the journal knows only this interface.
//
// Each payload is one input exactly as the local journal stores it (EncodeInput: the
// sequencer's stamp, then the codec's bytes), so primary and standby journal the same bytes.
#ifndef CFX_JOURNAL_REPLICATION_LOG_H_
#define CFX_JOURNAL_REPLICATION_LOG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace cfx::journal {

// The matcher's state hash after input `seq` (seq 0: none). A primary sends its latest
// with each batch; a standby compares it with its own at the same seq (docs/replication.md,
// "Checking the standby").
struct StateCheckpoint {
  uint64_t seq = 0;
  uint64_t hash = 0;
};

// Consecutive inputs read from the log: payloads[i] is input first_seq + i.
struct ReplicatedBatch {
  uint64_t first_seq = 0;
  std::vector<std::string> payloads;
  StateCheckpoint checkpoint;  // the primary's, as it sent it with this batch
};

// Thread safety: one thread at a time (the pipeline's sequencer thread).
class ReplicationLog {
 public:
  virtual ~ReplicationLog() = default;

  // Leader: appends the inputs first_seq .. first_seq + n - 1 (none: only the checkpoint,
  // `first_seq` is then the next input's), with `checkpoint` when its seq is not 0. OK once the log holds them
  // durably (a quorum of its servers). FailedPrecondition: this writer is fenced (another
  // writer appended since this one last read or appended, or its leadership lapsed): it
  // must stop sequencing. Unavailable / DeadlineExceeded: not confirmed (the batch may or
  // may not be in the log; the caller stops and acknowledges none of it).
  virtual absl::Status Append(uint64_t first_seq, absl::Span<const absl::string_view> payloads,
                              const StateCheckpoint& checkpoint = {}) = 0;

  // Follower: the inputs from `next_seq` on, as far as one appended batch reaches (inputs
  // before next_seq in that batch are dropped), or none with the checkpoint of an empty batch
  // an idle leader appended. DeadlineExceeded when nothing arrived
  // within timeout_ms; DataLoss when the log skips inputs (its next batch starts after
  // next_seq) or holds bytes that are not a batch.
  virtual absl::Status Read(uint64_t next_seq, int64_t timeout_ms, ReplicatedBatch* out) = 0;

  // The seq after the log's last input, as of now: a follower that has read up to it may
  // take over (after taking the leadership lease) with nothing missed.
  virtual absl::StatusOr<uint64_t> EndSeq() = 0;
};

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_REPLICATION_LOG_H_
