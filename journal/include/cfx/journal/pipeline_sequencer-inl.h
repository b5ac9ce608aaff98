// Pipeline::RunSequencer, the sequencer/journaler thread's loop as a leader: it drains the
// input ring (up to max_batch), stamps and encodes each input, appends the batch to the
// replicated log (when there is one) and to the journal in one group commit, and hands the
// inputs to the matcher once they are durable (docs/durability.md, "Group commit" and "One
// flush per commit"). Included by pipeline.h only; kept apart as the stage that owns the
// journal.
#ifndef CFX_JOURNAL_PIPELINE_SEQUENCER_INL_H_
#define CFX_JOURNAL_PIPELINE_SEQUENCER_INL_H_

#include "cfx/journal/pipeline.h"

namespace cfx::journal {

template <typename Command, typename Outcome>
void Pipeline<Command, Outcome>::RunSequencer() {
  if (options_.replication != nullptr && !Follow()) {
    sequencer_done_.store(true, std::memory_order_release);
    matcher_wake_.Notify();
    return;
  }
  std::vector<Sequenced> batch(options_.max_batch);
  // A batch written but not yet durable (Journal::DurableSeq; only with the journal's
  // defer_commit_sync): it goes on once the next commit or a Sync has made it durable.
  std::vector<Sequenced> held(options_.max_batch);
  size_t held_n = 0;
  std::vector<size_t> ends(options_.max_batch);
  std::vector<absl::string_view> views(options_.max_batch);
  std::string bytes;
  bytes.reserve(options_.max_batch * 128);
  ParkingIdle idle(&sequencer_wake_);
  BackoffIdle full;  // the matcher only ever drains, so a full ring empties
  auto release = [&](std::vector<Sequenced>& items, size_t n) {
    if (options_.trace_stages) {
      const int64_t now = SteadyNowNs();
      for (size_t i = 0; i < n; ++i) items[i].durable_ns = now;
    }
    for (size_t i = 0; i < n; ++i) PushSequenced(items[i], full);
    MatchOrWake(n);  // a small batch with the matcher idle: matched here, no wake-up
  };
  // Nothing more is waiting: the held batch is made durable now rather than by the next
  // commit. False when the sync failed (the pipeline has stopped).
  auto sync_held = [&] {
    if (held_n == 0) return true;
    const int64_t t0 = options_.trace_stages ? SteadyNowNs() : 0;
    if (absl::Status synced = journal_->Sync(); !synced.ok()) {
      Fail(synced);
      return false;
    }
    if (options_.trace_stages) stage_histograms_.Add(Stage::kSyncCall, SteadyNowNs() - t0);
    release(held, held_n);
    held_n = 0;
    return true;
  };
  Input in;
  for (;;) {
    // Read before draining: Stop() releases `input_closed_` only after every accepted
    // input is in the ring, so an empty drain after seeing it means fully drained.
    const bool closing = input_closed_.load(std::memory_order_acquire);
    size_t n = 0;
    bytes.clear();
    // A replicated batch is one message of the log, whose size the server bounds.
    const size_t max_bytes = options_.replication != nullptr ? options_.max_batch_bytes : 0;
    while (n < options_.max_batch && (max_bytes == 0 || bytes.size() < max_bytes) &&
           input_.TryPop(in)) {
      batch[n].tag = in.tag;
      batch[n].offered_ns = in.offered_ns;
      batch[n].taken_ns = options_.trace_stages ? SteadyNowNs() : 0;
      batch[n].command = in.command;
      // Never earlier than the input before it, whatever the system clock does.
      if (options_.clock != nullptr) {
        last_time_us_ = std::max(last_time_us_, options_.clock->NowMicros());
      }
      batch[n].time_us = last_time_us_;
      if (journal_ != nullptr) {
        EncodeInput(last_time_us_, *codec_, in.command, &bytes);
        ends[n] = bytes.size();
      }
      ++n;
    }
    if (n == 0) {
      if (held_n != 0) {
        if (!sync_held()) break;
        continue;
      }
      if (closing) break;
      // Idle leader: the latest state hash goes out on its own (an empty batch), so a
      // standby checks the state of a quiet market too.
      if (options_.replication != nullptr && checks_.HasNew()) {
        absl::Status r = options_.replication->Append(next_seq_, {}, checks_.TakeToSend());
        if (!r.ok()) {
          Fail(r);
          break;
        }
        continue;
      }
      idle.Idle();
      continue;
    }
    idle.Reset();
    if (journal_ != nullptr) {
      for (size_t i = 0; i < n; ++i) {
        const size_t begin = i == 0 ? 0 : ends[i - 1];
        views[i] = absl::string_view(bytes.data() + begin, ends[i] - begin);
      }
      // The replicated log first: the local journal then never holds an input the log
      // lacks, so a restarted node is always a prefix of the log (docs/replication.md).
      if (options_.replication != nullptr) {
        absl::Status r = options_.replication->Append(
            next_seq_, absl::MakeConstSpan(views.data(), n), checks_.TakeToSend());
        if (!r.ok()) {
          Fail(r);
          break;
        }
      }
      const int64_t t0 = options_.trace_stages ? SteadyNowNs() : 0;
      absl::StatusOr<uint64_t> last = journal_->AppendBatch(absl::MakeConstSpan(views.data(), n));
      if (!last.ok()) {
        // The held batch's own commit went through. Once durable, by the failed append's
        // own flush before it failed or by a flush now, it is applied and acknowledged like
        // every input the journal keeps (until 2026-12-07 it was left unanswered, and a
        // restart applied it). A flush now is trusted only after a full map, which LMDB
        // refuses before it writes anything: after a failed write or flush, a flush that
        // succeeds says nothing of what reached the disk.
        if (held_n != 0 && (journal_->DurableSeq() >= held[held_n - 1].seq ||
                            (IsMapFull(last.status()) && journal_->Sync().ok()))) {
          release(held, held_n);
          held_n = 0;
        }
        Fail(last.status());  // the cause, whatever the flush said
        break;
      }
      if (options_.trace_stages) stage_histograms_.Add(Stage::kCommitCall, SteadyNowNs() - t0);
    }
    for (size_t i = 0; i < n; ++i) batch[i].seq = next_seq_++;
    RecordBatch(n);
    // This commit's sync made the held batch durable (Journal::AppendBatch); this batch
    // itself is durable now unless the journal defers its commit to the next one.
    if (held_n != 0) {
      release(held, held_n);
      held_n = 0;
    }
    if (journal_ == nullptr || journal_->DurableSeq() >= batch[n - 1].seq) {
      release(batch, n);
    } else if (options_.replication != nullptr) {
      // A leader's next commit waits for a publish-ack first: holding this batch for it
      // would add a round trip to the stream, so it is made durable now (two flushes, as
      // a plain commit; docs/durability.md, "One flush per commit").
      const int64_t t0 = options_.trace_stages ? SteadyNowNs() : 0;
      if (absl::Status synced = journal_->Sync(); !synced.ok()) {
        Fail(synced);
        break;
      }
      if (options_.trace_stages) stage_histograms_.Add(Stage::kSyncCall, SteadyNowNs() - t0);
      release(batch, n);
    } else {
      std::swap(batch, held);
      held_n = n;
    }
  }
  sequencer_done_.store(true, std::memory_order_release);
  matcher_wake_.Notify();
}

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_PIPELINE_SEQUENCER_INL_H_
