// Pipeline::Follow, the sequencer thread's loop while this node is a hot standby
// (docs/replication.md): it reads the replicated log, journals each batch, syncs it and hands
// it to the matcher, until Stop or Promote. Included by pipeline.h only; a member template
// of Pipeline kept apart because it is the replication job, not the order path's.
#ifndef CFX_JOURNAL_PIPELINE_FOLLOW_INL_H_
#define CFX_JOURNAL_PIPELINE_FOLLOW_INL_H_

#include "cfx/journal/pipeline.h"

namespace cfx::journal {

template <typename Command, typename Outcome>
bool Pipeline<Command, Outcome>::WaitForMatcher(uint64_t seq) {
  BackoffIdle behind;
  while (applied_seq_.load(std::memory_order_acquire) < seq) {
    if (input_closed_.load(std::memory_order_acquire)) return false;
    matcher_wake_.Notify();
    behind.Idle();
  }
  return true;
}

template <typename Command, typename Outcome>
bool Pipeline<Command, Outcome>::Follow() {
  ReplicationLog& log = *options_.replication;
  ReplicatedBatch rb;
  std::vector<absl::string_view> views;
  BackoffIdle full;
  // Fences refused (another writer appended after this node read the log's end) before a
  // promoted node gives up leading.
  constexpr int kMaxFenceRefusals = 20;
  int fence_refusals = 0;
  uint64_t last_pushed = 0;  // the last input handed to the matcher here
  for (;;) {
    if (input_closed_.load(std::memory_order_acquire)) return false;
    const bool promoting = promote_.load(std::memory_order_acquire);
    if (absl::Status c = checks_.Compare(); !c.ok()) {
      Fail(c);
      return false;
    }
    absl::Status s = log.Read(next_seq_, promoting ? 0 : options_.follow_poll_ms, &rb);
    if (absl::IsDeadlineExceeded(s)) {
      if (!promoting) continue;
      // Nothing more to read: lead once the log's end is where this node stands, and this
      // node's fence is the log's next entry.
      absl::StatusOr<uint64_t> end = log.EndSeq();
      if (end.ok() && *end == next_seq_) {
        // Before the fence (which deposes whoever still writes): every input handed to the
        // matcher applied, and so hashed, then the last comparison. A node promoted while
        // its matcher was behind compared the primary's latest hashes with none of its own
        // and led a state that had diverged (until 2026-12-07, a review); one that fenced
        // first would then fail, having deposed a healthy primary.
        if (!WaitForMatcher(last_pushed)) return false;
        if (absl::Status c = checks_.Compare(); !c.ok()) {
          Fail(c);
          return false;
        }
        // The fence: this leader's first append, at once and empty (followers skip it). A
        // publish of the deposed primary still in flight (its retries, sent before its lease
        // lapsed and held up by the network) then finds the stream moved on and is refused;
        // without it, one landing before this leader's first batch took the stream's tail
        // and stopped this leader (SplitBrainTest, after the network heals).
        absl::Status fenced = log.Append(next_seq_, {}, StateCheckpoint{});
        if (fenced.ok()) break;
        // Refused: something was appended between reading the end and the fence (the
        // deposed primary's idle checkpoint, or a batch it published before its lease
        // lapsed). Read it, as a follower does, and fence again; a writer that keeps
        // appending past kMaxFenceRefusals reads is not deposed, and this node stops.
        if (!absl::IsFailedPrecondition(fenced) || ++fence_refusals >= kMaxFenceRefusals) {
          Fail(fenced);
          return false;
        }
        continue;
      }
      if (end.ok() && *end < next_seq_) {
        Fail(absl::FailedPreconditionError(absl::StrCat(
            "replication: the local journal holds inputs up to ", next_seq_ - 1,
            " but the replicated log only up to ", *end - 1)));
        return false;
      }
      continue;
    }
    if (absl::IsUnavailable(s)) {  // a NATS server is down: the client reconnects
      std::this_thread::sleep_for(std::chrono::milliseconds(options_.follow_poll_ms));
      continue;
    }
    if (!s.ok()) {
      Fail(s);
      return false;
    }
    checks_.AddPrimary(rb.checkpoint);
    const size_t n = rb.payloads.size();
    if (n == 0) continue;  // a checkpoint on its own
    std::vector<Sequenced> seqd(n);
    views.assign(rb.payloads.begin(), rb.payloads.end());
    for (size_t i = 0; i < n; ++i) {
      seqd[i].seq = next_seq_ + i;
      absl::Status d = DecodeInput(views[i], *codec_, &seqd[i].time_us, &seqd[i].command);
      if (!d.ok()) {
        Fail(absl::DataLossError(
            absl::StrCat("replicated input ", next_seq_ + i, ": ", d.message())));
        return false;
      }
      last_time_us_ = std::max(last_time_us_, seqd[i].time_us);
    }
    absl::StatusOr<uint64_t> last = journal_->AppendBatch(absl::MakeConstSpan(views));
    if (!last.ok() || *last != next_seq_ + n - 1) {
      Fail(last.ok() ? absl::DataLossError("replication: local journal out of step with the log")
                     : last.status());
      return false;
    }
    // A follower acknowledges nothing, but what it applies is on its disk first, as on the
    // leader (with defer_commit_sync this is the second flush a plain commit pays).
    if (absl::Status synced = journal_->Sync(); !synced.ok()) {
      Fail(synced);
      return false;
    }
    next_seq_ += n;
    RecordBatch(n);
    followed_inputs_.fetch_add(n, std::memory_order_relaxed);
    for (size_t i = 0; i < n; ++i) PushSequenced(seqd[i], full);
    last_pushed = seqd[n - 1].seq;
    matcher_wake_.Notify();
  }
  lead_start_seq_.store(next_seq_, std::memory_order_release);
  leading_.store(true, std::memory_order_release);
  return true;
}

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_PIPELINE_FOLLOW_INL_H_
