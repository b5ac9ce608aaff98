// The pipeline's settings and counters (journal::Pipeline, pipeline.h), apart so that
// the code that fills or reads them does not need the class and its rings.
#ifndef CFX_JOURNAL_PIPELINE_OPTIONS_H_
#define CFX_JOURNAL_PIPELINE_OPTIONS_H_

#include <array>
#include <cstddef>
#include <cstdint>

#include "cfx/journal/pipeline_interfaces.h"
#include "cfx/journal/recovery.h"
#include "cfx/journal/replication_log.h"
#include "cfx/journal/stage_latency.h"
#include "cfx/journal/state_checks.h"

namespace cfx::journal {

// kNotLeader: a standby's pipeline (it follows the replication log; the primary takes orders).
enum class OfferResult { kAccepted, kFull, kStopped, kNotLeader };

struct PipelineOptions {
  size_t input_capacity = 1 << 16;      // MPSC producers -> sequencer (power of two)
  size_t sequenced_capacity = 1 << 16;  // SPSC sequencer -> matcher
  size_t output_capacity = 1 << 16;     // SPSC matcher -> publisher
  size_t max_batch = 8192;              // most inputs in one group commit
  // Most bytes of encoded inputs in one group commit (0: no bound), with a replication log:
  // each batch is one message of the log, and a message past the server's limit (NATS: 1
  // MiB by default) is refused, every time it is tried. 8192 inputs with long ids passed it.
  size_t max_batch_bytes = 512 * 1024;
  // The exchange clock the sequencer stamps each input with (journaled with it, SPEC §5);
  // null: inputs carry stamp 0 and the matcher keeps its own time (TimeCmd). Not owned.
  InputClock* clock = nullptr;
  // Snapshots at every seq that is a multiple of this; 0: none (needs a journal). With
  // replication each one's digest is also the state hash primary and standby compare.
  uint64_t snapshot_every = 0;
  // A hot standby's replicated log (needs the journal; not owned). With one, the pipeline
  // starts as a follower: its sequencer reads the log's inputs, journals them and hands them
  // to the matcher, and TryOffer answers kNotLeader. Promote() makes it the leader once it
  // has read the log to its end; a leader appends each batch to the log before the journal.
  ReplicationLog* replication = nullptr;
  int64_t follow_poll_ms = 50;  // a follower's longest wait on the log before it looks around
  RecoveryOptions recovery = {};
  // The matcher thread hands outcomes and acks to the listener itself, at the end of each
  // burst and every kNotifyEvery inputs within one (and whenever the output ring is full):
  // one hand-off (a futex wake-up) fewer for a lone input, one busy thread fewer on a small
  // machine. The listener then runs on the matcher's thread and its time is the matcher's,
  // so it must not wait for the pipeline (Submit with retries, Stop). false: a publisher
  // thread of its own delivers them (docs/durability.md, "The order path").
  bool publish_on_matcher = true;
  // With publish_on_matcher: a batch of at most this many inputs, released while the matcher
  // thread is idle (spinning or parked, so not holding the matcher's role) and no input
  // waits to be sequenced, is matched and delivered by the sequencer thread itself, which saves a
  // lone input the matcher's wake-up (docs/durability.md, "Who matches"). 0: always the matcher
  // thread.
  size_t sequencer_matches_up_to = 4;
  // Each input's time through the stages, read from the steady clock (a few reads per
  // input and per batch) into PipelineStats::stages (stage_latency.h). Off: no clock read.
  bool trace_stages = false;
};

struct PipelineStats {
  uint64_t batches = 0;  // group commits (or sequencer batches without a journal)
  uint64_t inputs = 0;
  uint64_t max_batch = 0;
  std::array<uint64_t, 24> batch_size_log2{};  // [k]: batches of size in [2^k, 2^(k+1))
  uint64_t snapshots_written = 0;
  uint64_t snapshots_dropped = 0;     // the snapshot writer was still busy
  uint64_t matched_on_sequencer = 0;  // batches the sequencer matched itself
  uint64_t followed_inputs = 0;       // inputs read from the replication log as a follower
  StateCheckpoint state;              // the latest state hash (at a snapshot seq); seq 0: none
  uint64_t state_checks = 0;          // a follower's hashes found equal to the primary's
  uint64_t state_checked_seq = 0;     // the latest seq at which they were
  StageLatencies stages;              // with trace_stages; empty otherwise
};

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_PIPELINE_OPTIONS_H_
