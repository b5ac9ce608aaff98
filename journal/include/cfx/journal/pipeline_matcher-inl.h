// The matcher's stage as a role (docs/durability.md, "Who matches"): Pipeline::RunMatcher,
// the matcher thread's loop, and what whoever holds the role runs (MatchOne,
// MatcherBurstEnd), the sequencer included for a small batch while the matcher thread is
// idle (MatchOrWake). Included by pipeline.h only; kept apart as the stage that owns the
// matcher.
#ifndef CFX_JOURNAL_PIPELINE_MATCHER_INL_H_
#define CFX_JOURNAL_PIPELINE_MATCHER_INL_H_

#include "cfx/journal/pipeline.h"

namespace cfx::journal {

template <typename Command, typename Outcome>
void Pipeline<Command, Outcome>::RunMatcher() {
  Sink sink(this);
  ParkingIdle idle(&matcher_wake_);
  std::unique_lock<std::mutex> role(matcher_role_);
  for (;;) {
    const bool done = sequencer_done_.load(std::memory_order_acquire);
    if (const Sequenced* in = sequenced_.Front()) {
      idle.Reset();
      MatchOne(*in, sink);
      continue;
    }
    MatcherBurstEnd();
    if (done) break;
    // Idle: the sequencer may match a small batch itself meanwhile (its try_lock).
    role.unlock();
    idle.Idle();
    role.lock();
  }
  matcher_done_.store(true, std::memory_order_release);
  MatcherBurstEnd();
  publisher_wake_.Notify();
  snapshot_wake_.Notify();
}

template <typename Command, typename Outcome>
void Pipeline<Command, Outcome>::MatcherBurstEnd() {
  if (!options_.publish_on_matcher) return;
  delivery_.Drain();
  delivery_.OnEmpty();
}

template <typename Command, typename Outcome>
void Pipeline<Command, Outcome>::MatchOrWake(size_t n) {
  if (n <= options_.sequencer_matches_up_to && options_.publish_on_matcher &&
      input_.NothingClaimed() && matcher_role_.try_lock()) {
    Sink sink(this);
    while (const Sequenced* in = sequenced_.Front()) MatchOne(*in, sink);
    MatcherBurstEnd();
    matcher_role_.unlock();
    matched_on_sequencer_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  matcher_wake_.Notify();  // once per batch: the fence is not paid per input
}

template <typename Command, typename Outcome>
void Pipeline<Command, Outcome>::MatchOne(const Sequenced& in_slot, Sink& sink) {
  const Sequenced* in = &in_slot;
  // The slot twice as far ahead, whose lines the sequencer's core wrote: brought in now,
  // it is here when Prefetch reads its command (reading it cold there was a tenth of the
  // matcher thread in `cfx bench pipeline --engine`).
  if (const Sequenced* far = sequenced_.PeekAhead(2 * kPrefetchAhead)) {
    const char* p = reinterpret_cast<const char*>(far);
    for (size_t off = 0; off < sizeof(Sequenced); off += 64) __builtin_prefetch(p + off);
    __builtin_prefetch(p + sizeof(Sequenced) - 1);
  }
  if (const Sequenced* ahead = sequenced_.PeekAhead(kPrefetchAhead)) {
    matcher_->Prefetch(ahead->command);
  }
  const uint64_t seq = in->seq;
  sink.Begin(seq, in->tag);
  const int64_t applied_ns = options_.trace_stages ? SteadyNowNs() : 0;
  matcher_->ApplyAt(seq, in->time_us, in->command, sink);  // the command stays in its slot
  if (options_.trace_stages) {  // before Finish publishes the ack that reads it
    traces_[seq & (traces_.size() - 1)] =
        Trace{in->offered_ns, in->taken_ns, in->durable_ns, applied_ns, SteadyNowNs()};
  }
  sink.Finish(matcher_->AppliedTimeUs(in->time_us));
  sequenced_.PopFront();
  // Deliver (or wake the publisher) at the end of a burst (a lone input's outcomes go
  // out at once), and every kNotifyEvery inputs within one. Not per input: a publisher
  // faster than the matcher parks between inputs, and a FUTEX_WAKE per input halved
  // `cfx bench pipeline --engine` (1.06 M -> 0.49 M inputs/s); delivering here in
  // batches keeps the matcher's working set on the book, not on the listener.
  if (++since_notify_ >= kNotifyEvery || sequenced_.Empty()) {
    since_notify_ = 0;
    if (options_.publish_on_matcher) {
      // The end of a delivery burst, whether or not more inputs wait: a listener
      // holding writes back (the FIX gateway) sends them now, not at the end of a long
      // burst of other sessions' inputs.
      MatcherBurstEnd();
    } else {
      publisher_wake_.Notify();
    }
  }
  // At seq multiples, not every N inputs since start: primary and standby then snapshot
  // (and hash) at the same seqs whatever their restarts.
  if (journal_ != nullptr && options_.snapshot_every > 0 && seq % options_.snapshot_every == 0) {
    // Serialising is the only part on the matcher thread; the write is not.
    std::string state = matcher_->Snapshot();
    RecordOwnCheckpoint(seq, StateDigest(state));
    if (snapshot_jobs_.TryPush(SnapshotJob{seq, std::move(state)})) {
      snapshot_wake_.Notify();
    } else {
      snapshots_dropped_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  applied_seq_.store(seq, std::memory_order_release);
}

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_PIPELINE_MATCHER_INL_H_
