// The order path (exchange-core style): producers -> MPSC ring -> sequencer/journaler
// (assigns seq, group-commits what is waiting, syncs) -> SPSC ring -> matcher (only durable
// inputs) -> SPSC ring -> listener callbacks, made by the matcher thread itself at the end
// of each burst (or, with publish_on_matcher off, by a publisher thread). Snapshots are taken
// on the matcher thread every N inputs and written by a snapshot thread. No mutex on this
// path, but one taken once a burst: a small batch released while the matcher thread is idle
// is matched by the sequencer itself (PipelineOptions::sequencer_matches_up_to).
// Diagram and rules: docs/durability.md.
//
// Idle stages spin briefly, then park on a futex (ParkingIdle); whoever makes work
// for a stage (a push into its ring, or the flag that ends it) calls its WakeSignal's
// Notify afterwards, which costs a fence and a load unless the stage is parked. A lone
// input therefore crosses each hand-off in one wake-up, not in sleep quanta.
//
//   Pipeline<Order, Event> pipeline(options, journal.get(), &codec, &engine, &listener);
//   auto recovered = pipeline.Start();          // recovery, then threads
//   if (pipeline.TryOffer(session_tag, order) == OfferResult::kFull) { /* throttled */ }
//   absl::Status s = pipeline.Stop();           // drains, syncs, joins
#ifndef CFX_JOURNAL_PIPELINE_H_
#define CFX_JOURNAL_PIPELINE_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "cfx/concurrency/backoff_idle.h"
#include "cfx/concurrency/mpsc_ring.h"
#include "cfx/concurrency/parking_idle.h"
#include "cfx/concurrency/spsc_ring.h"
#include "cfx/concurrency/thread_name.h"
#include "cfx/journal/journal.h"
#include "cfx/journal/matcher_state_machine.h"
#include "cfx/journal/pipeline_interfaces.h"
#include "cfx/journal/pipeline_options.h"
#include "cfx/journal/recovery.h"
#include "cfx/journal/replication_log.h"
#include "cfx/journal/stage_latency.h"
#include "cfx/journal/state_checks.h"

namespace cfx::journal {

using concurrency::BackoffIdle;
using concurrency::kCacheLineSize;
using concurrency::MpscRing;
using concurrency::ParkingIdle;
using concurrency::SpscRing;
using concurrency::WakeSignal;

// Thread safety: TryOffer from any number of threads, concurrently. Start and Stop from one
// controlling thread. Listener callbacks run on one thread (the matcher's, or the
// publisher's with publish_on_matcher off). `Command` and
// `Outcome` are copyable and default-constructible; keep them small and allocation-free
// (they are copied through preallocated ring slots).
template <typename Command, typename Outcome>
class Pipeline {
 public:
  // `journal` may be null: no durability, no snapshots (benchmarks of the rings alone).
  // Nothing is owned; all must outlive the pipeline.
  Pipeline(const PipelineOptions& options, Journal* journal, const CommandCodec<Command>* codec,
           Matcher<Command, Outcome>* matcher, PipelineListener<Outcome>* listener)
      : options_(options),
        journal_(journal),
        codec_(codec),
        matcher_(matcher),
        listener_(listener),
        input_(options.input_capacity),
        sequenced_(options.sequenced_capacity),
        output_(options.output_capacity),
        snapshot_jobs_(4) {
    // Twice the output ring: an input with no outcome writes its times before it claims
    // its ack's slot, when the ring may still hold the ack of the input cap places back.
    if (options_.trace_stages) traces_.resize(2 * options_.output_capacity);
  }
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;
  ~Pipeline() { (void)Stop(); }

  // Recovers the matcher from the journal (latest valid snapshot + tail), then starts the
  // threads. Returns the recovery's error (DataLoss naming the seq) without starting.
  // `recovered` (when given) runs on the calling thread after the recovery and before any
  // thread starts: the one moment a caller may read the recovered matcher, since a hot
  // standby's sequencer hands the matcher what it follows as soon as it runs.
  absl::StatusOr<RecoveryResult> Start(const std::function<void()>& recovered = nullptr) {
    if (options_.replication != nullptr && journal_ == nullptr) {
      return absl::InvalidArgumentError("pipeline: replication needs the journal");
    }
    leading_.store(options_.replication == nullptr, std::memory_order_release);
    RecoveryResult result;
    if (journal_ != nullptr) {
      MatcherStateMachine<Command, Outcome> adapter(codec_, matcher_);
      auto rec = Recover(*journal_, adapter, options_.recovery);
      if (!rec.ok()) return rec.status();
      result = *rec;
      last_time_us_ = adapter.last_time_us();  // stamps never go back across a restart
      // A recovery that replayed no record (the newest snapshot at the journal's end) has
      // no stamp from them: the last record has it (stamps never go back). Until 2026-12-07
      // the floor was lost there, and a wall clock behind stamped the next inputs earlier.
      if (last_time_us_ == 0 && journal_->LastSeq() > 0) {
        (void)journal_->ReadFrom(journal_->LastSeq(), [&](uint64_t, absl::string_view payload) {
          if (payload.size() >= kInputStampSize) last_time_us_ = InputStampOf(payload);
          return false;
        });
      }
    }
    next_seq_ = result.next_seq;
    if (options_.replication == nullptr) lead_start_seq_.store(next_seq_, std::memory_order_release);
    if (recovered) recovered();
    started_ = true;
    using concurrency::NamedThread;
    if (!options_.publish_on_matcher) {
      publisher_ = NamedThread("cfx-publisher", [this] { RunPublisher(); });
    }
    matcher_thread_ = NamedThread("cfx-matcher", [this] { RunMatcher(); });
    if (journal_ != nullptr && options_.snapshot_every > 0) {
      snapshotter_ = NamedThread("cfx-snapshots", [this] { RunSnapshotter(); });
    }
    sequencer_ = NamedThread("cfx-sequencer", [this] { RunSequencer(); });
    return result;
  }

  // Hands one input to the sequencer. Never blocks: kFull when the input ring is full (the
  // caller spins, yields or rejects `throttled`), kStopped after Stop() or a journal error.
  OfferResult TryOffer(uint64_t tag, const Command& command) {
    // Dekker handshake with Stop(): either Stop sees this offer in flight and waits for it,
    // or this offer sees `stopping_`; both sides use seq_cst.
    active_offers_.fetch_add(1, std::memory_order_seq_cst);
    if (stopping_.load(std::memory_order_seq_cst)) {
      active_offers_.fetch_sub(1, std::memory_order_release);
      return OfferResult::kStopped;
    }
    if (!leading_.load(std::memory_order_acquire)) {
      active_offers_.fetch_sub(1, std::memory_order_release);
      return OfferResult::kNotLeader;
    }
    const bool pushed =
        input_.TryPush(Input{tag, options_.trace_stages ? SteadyNowNs() : 0, command});
    active_offers_.fetch_sub(1, std::memory_order_release);
    if (!pushed) return OfferResult::kFull;
    sequencer_wake_.Notify();
    return OfferResult::kAccepted;
  }

  // Stops accepting, lets every accepted input through journal, matcher and publisher, and
  // joins the threads. Returns the journal error if one stopped the pipeline. Idempotent.
  absl::Status Stop() {
    if (!started_ || stopped_) return error_status_;
    stopping_.store(true, std::memory_order_seq_cst);
    while (active_offers_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
    input_closed_.store(true, std::memory_order_release);
    sequencer_wake_.Notify();
    sequencer_.join();
    matcher_thread_.join();
    if (snapshotter_.joinable()) snapshotter_.join();
    if (publisher_.joinable()) publisher_.join();
    stopped_ = true;
    return error_status_;
  }

  // The seq the next accepted input will get. Only meaningful before Start or after Stop.
  uint64_t next_seq() const { return next_seq_; }

  // A follower (PipelineOptions::replication) reads the log to its end, then leads: from
  // then on TryOffer takes inputs. The caller holds the leadership lease. Any thread.
  void Promote() {
    promote_.store(true, std::memory_order_release);
    sequencer_wake_.Notify();
  }
  // Whether TryOffer takes inputs (always without replication; after Promote with it).
  bool leading() const { return leading_.load(std::memory_order_acquire); }
  // The journal or the replicated log failed: the order path has stopped (Stop() says why).
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // The first seq this pipeline sequenced itself (UINT64_MAX while following): an input
  // below it came from the journal's recovery or from the replicated log. Any thread.
  uint64_t lead_start_seq() const { return lead_start_seq_.load(std::memory_order_acquire); }

  // Counters (relaxed reads; exact after Stop).
  PipelineStats stats() const {
    PipelineStats s;
    s.batches = batches_.load(std::memory_order_relaxed);
    s.inputs = inputs_.load(std::memory_order_relaxed);
    s.max_batch = max_batch_.load(std::memory_order_relaxed);
    for (size_t i = 0; i < s.batch_size_log2.size(); ++i) {
      s.batch_size_log2[i] = batch_size_log2_[i].load(std::memory_order_relaxed);
    }
    s.snapshots_written = snapshots_written_.load(std::memory_order_relaxed);
    s.snapshots_dropped = snapshots_dropped_.load(std::memory_order_relaxed);
    s.matched_on_sequencer = matched_on_sequencer_.load(std::memory_order_relaxed);
    s.followed_inputs = followed_inputs_.load(std::memory_order_relaxed);
    const StateChecks::Counts c = checks_.Get();
    s.state = c.latest;
    s.state_checks = c.checks;
    s.state_checked_seq = c.checked_seq;
    if (options_.trace_stages) s.stages = stage_histograms_.Get();
    return s;
  }

 private:
  struct Input {
    uint64_t tag = 0;
    int64_t offered_ns = 0;  // trace_stages
    Command command{};
  };
  struct Sequenced {
    uint64_t seq = 0;
    uint64_t tag = 0;
    int64_t time_us = 0;  // the sequencer's stamp; 0 without a clock
    // trace_stages: offered, taken by the sequencer, released as durable (steady ns).
    int64_t offered_ns = 0, taken_ns = 0, durable_ns = 0;
    Command command{};
  };
  // trace_stages: an input's times, kept by the matcher until its ack is delivered (indexed
  // by seq modulo twice the output ring's capacity: fewer inputs than that are in flight).
  struct Trace {
    int64_t offered_ns, taken_ns, durable_ns, applied_ns, applied_end_ns;
  };
  // The ack rides on the input's last outcome: one ring slot per input in the common case.
  // A large outcome's slot starts on its own cache line: the matcher writing one slot and the
  // publisher reading the one before never share a line.
  static constexpr size_t kOutputAlign = sizeof(Outcome) >= 64 ? 64 : alignof(Outcome) < 8 ? 8 : alignof(Outcome);
  struct alignas(kOutputAlign) Output {
    uint64_t seq = 0;
    uint64_t tag = 0;
    int64_t time_us = 0;  // with the ack: Matcher::AppliedTimeUs of the input
    bool has_outcome = false;
    bool is_ack = false;
    Outcome outcome{};
  };
  // Most inputs the matcher applies before delivering (or waking a parked publisher)
  // within a burst.
  static constexpr int kNotifyEvery = 32;
  // The matcher tells the machine of the input this many places behind the one it applies
  // (Matcher::Prefetch), when the ring already holds it: the engine's client-id probe of
  // that input then overlaps the work before it (engine::Engine::kPrefetchAhead, the same).
  static constexpr size_t kPrefetchAhead = 8;
  static constexpr size_t kOutputPrefetchAhead = 4;

  struct SnapshotJob {
    uint64_t seq = 0;
    std::string state;
  };

  // Writes matcher outcomes straight into output ring slots for the input being applied
  // (one copy of each Outcome, not three), holding the latest slot back unpublished so that
  // Finish(time) can mark it as the ack too.
  class Sink : public OutcomeSink<Outcome> {
   public:
    explicit Sink(Pipeline* p) : p_(p) {}
    void Begin(uint64_t seq, uint64_t tag) {
      seq_ = seq;
      tag_ = tag;
      held_ = nullptr;
    }
    void Emit(const Outcome& outcome) override { Claim() = outcome; }
    Outcome& Claim() override {
      if (held_ != nullptr) p_->output_.Publish();
      held_ = p_->ClaimOutput();
      if (Output* ahead = p_->output_.PeekFreeAhead(kOutputPrefetchAhead)) {
        const char* b = reinterpret_cast<const char*>(ahead);
        for (size_t off = 0; off < sizeof(Output); off += 64) __builtin_prefetch(b + off, 1);
      }
      held_->seq = seq_;
      held_->tag = tag_;
      held_->has_outcome = true;
      held_->is_ack = false;
      return held_->outcome;
    }
    void EmitClaimed() override {}  // in its slot already; published by the next or Finish
    // `time_us`: the exchange time the input took effect at (Matcher::AppliedTimeUs).
    void Finish(int64_t time_us) {
      if (held_ == nullptr) {  // no outcome: a bare ack
        held_ = p_->ClaimOutput();
        held_->seq = seq_;
        held_->tag = tag_;
        held_->has_outcome = false;
      }
      held_->is_ack = true;
      held_->time_us = time_us;
      p_->output_.Publish();
      held_ = nullptr;
    }

   private:
    Pipeline* p_;
    uint64_t seq_ = 0;
    uint64_t tag_ = 0;
    Output* held_ = nullptr;  // claimed, written, not yet published
  };

  // Sequencer/journaler thread: everything waiting (up to max_batch) becomes one group
  // commit; only after it is synced do the inputs move on to the matcher.
  // Defined in pipeline_sequencer-inl.h (included at the end of this header).
  void RunSequencer();

  // Sequencer thread, as a follower: journals and forwards what the log holds until Stop
  // (false) or Promote; on Promote reads the log to its end and returns true (leading).
  // Defined in pipeline_follow-inl.h (included at the end of this header).
  bool Follow();
  // Sequencer thread, promoting: waits until the matcher has applied input `seq` (0: none
  // to wait for); false when the pipeline stops meanwhile.
  bool WaitForMatcher(uint64_t seq);

  // Sequencer thread: hands one input to the matcher. When the ring is full the matcher is
  // behind: wait for it to drain half the ring rather than push one input per slot it
  // frees. On two cores a sequencer that wakes for every freed slot (spinning, yielding)
  // takes the CPU from the matcher it waits for: in `cfx bench pipeline --engine` the
  // sequencer's spin was 45% of its samples (docs/performance.md, "one hash a name").
  void PushSequenced(const Sequenced& item, BackoffIdle& full) {
    if (sequenced_.TryPush(item)) return;
    matcher_wake_.Notify();  // it may have parked before this batch's first push
    full.Reset();
    while (sequenced_.SizeApprox() > sequenced_.capacity() / 2) full.Idle();
    full.Reset();
    while (!sequenced_.TryPush(item)) full.Idle();  // only the matcher drains: it frees up
  }

  // The matcher's role: whoever holds matcher_role_ (the matcher thread, or the sequencer
  // for a small batch while the matcher thread is idle) applies what the sequenced ring
  // holds, delivers and snapshots. The thread that held the role last always delivered
  // and ended the burst (MatcherBurstEnd) before letting go, so no listener state crosses
  // threads within a burst.
  void RunMatcher();

  // Holder of the matcher's role: the end of a burst, or of kNotifyEvery inputs within one.
  void MatcherBurstEnd();

  // Sequencer thread, after pushing a batch of `n` into the sequenced ring: when the batch
  // is small, no input waits to be sequenced behind it (its commit would wait for the
  // delivery made here) and the matcher thread is idle, matches and delivers here
  // everything the ring holds (this batch, perhaps the one released just before it), and
  // lets the role go with the ring empty; else wakes the matcher thread. Only at a trickle:
  // with inputs waiting it wakes the matcher, so a listener's retries on a full input ring
  // (which only this thread drains) never wait on a delivery made here.
  void MatchOrWake(size_t n);

  // Holder of the matcher's role: applies the ring's front input `in_slot` and pops it.
  void MatchOne(const Sequenced& in_slot, Sink& sink);

  // Snapshot thread: writes the matcher's snapshots (pipeline_publish-inl.h).
  void RunSnapshotter();

  // Hands outputs to the listener: on the publisher thread, or with publish_on_matcher on
  // the matcher's. One thread only.
  class Delivery {
   public:
    explicit Delivery(Pipeline* p) : p_(p) {}
    void One(const Output& out) {
      if (out.has_outcome) p_->listener_->OnOutcome(out.seq, out.tag, out.outcome);
      if (out.is_ack) {
        p_->listener_->OnAck(out.seq, out.tag, out.time_us);
        if (p_->options_.trace_stages) p_->RecordStages(out.seq);
      }
      delivered_ = true;
    }
    // Everything the output ring holds now.
    void Drain() {
      while (const Output* out = p_->output_.Front()) {
        One(*out);
        p_->output_.PopFront();
      }
    }
    // The end of a delivery burst (the output ring found empty; on the matcher, also every
    // kNotifyEvery inputs): OnIdle if anything was delivered, and the journal's error once
    // there is one.
    void OnEmpty() {
      if (delivered_) {
        delivered_ = false;
        p_->listener_->OnIdle();
      }
      if (!error_reported_ && p_->failed_.load(std::memory_order_acquire)) {
        p_->listener_->OnJournalError(p_->error_status_);
        error_reported_ = true;
      }
    }

   private:
    Pipeline* const p_;
    bool delivered_ = false;  // since the last OnIdle
    bool error_reported_ = false;
  };

  // Publisher thread: hands the outputs to the listener (pipeline_publish-inl.h).
  void RunPublisher();

  // A consumer's next item: pops `ring` into `item`, parking on `idle` while it is empty and
  // calling on_empty() each time it finds it so. Returns false once the ring is empty and
  // `upstream_done` was already set before the pop (acquire: whatever the upstream pushed
  // before setting it has been popped by then).
  // As PopOrDone, in place: the next item (nullptr once done), valid until ring.PopFront().
  template <typename Ring, typename OnEmpty>
  static auto* FrontOrDone(Ring& ring, const std::atomic<bool>& upstream_done,
                           ParkingIdle& idle, OnEmpty on_empty) {
    for (;;) {
      const bool done = upstream_done.load(std::memory_order_acquire);
      if (auto* item = ring.Front()) {
        idle.Reset();
        return item;
      }
      on_empty();
      if (done) return static_cast<decltype(ring.Front())>(nullptr);
      idle.Idle();
    }
  }

  template <typename Ring, typename T, typename OnEmpty>
  static bool PopOrDone(Ring& ring, const std::atomic<bool>& upstream_done, ParkingIdle& idle,
                        T& item, OnEmpty on_empty) {
    for (;;) {
      const bool done = upstream_done.load(std::memory_order_acquire);
      if (ring.TryPop(item)) {
        idle.Reset();
        return true;
      }
      on_empty();
      if (done) return false;
      idle.Idle();
    }
  }

  Output* ClaimOutput() {
    BackoffIdle idle;  // the publisher only ever drains, so this wait ends
    Output* slot;
    while ((slot = output_.TryClaim()) == nullptr) {
      if (options_.publish_on_matcher) {
        delivery_.Drain();  // everything claimed so far is published: this frees the ring
        continue;
      }
      publisher_wake_.Notify();  // it may have parked before this input's first outcome
      idle.Idle();
    }
    return slot;
  }

  // Matcher thread: this machine's state hash at a snapshot seq. A follower keeps it to
  // compare with the primary's; an idle leader sends it on its own.
  void RecordOwnCheckpoint(uint64_t seq, uint64_t hash) {
    const bool following =
        options_.replication != nullptr && !leading_.load(std::memory_order_acquire);
    checks_.RecordOwn(seq, hash, following);
    if (options_.replication != nullptr && !following) sequencer_wake_.Notify();
  }

  // Sequencer thread. Inputs already accepted but not journaled are never acknowledged.
  void Fail(const absl::Status& status) {
    error_status_ = status;  // published by the release below; read after acquire / join
    failed_.store(true, std::memory_order_release);
    stopping_.store(true, std::memory_order_seq_cst);
    publisher_wake_.Notify();  // it reports the error even while nothing else flows
    matcher_wake_.Notify();    // with publish_on_matcher, the matcher reports it
  }

  // Delivering thread, after the ack of `seq` (trace_stages). Inputs recovered or followed
  // have no offer time: only their later stages count.
  void RecordStages(uint64_t seq) {
    const Trace& t = traces_[seq & (traces_.size() - 1)];
    const int64_t now = SteadyNowNs();
    if (t.offered_ns != 0) {
      stage_histograms_.Add(Stage::kQueued, t.taken_ns - t.offered_ns);
      stage_histograms_.Add(Stage::kTotal, now - t.offered_ns);
    }
    if (t.taken_ns != 0) stage_histograms_.Add(Stage::kJournal, t.durable_ns - t.taken_ns);
    if (t.durable_ns != 0) stage_histograms_.Add(Stage::kToMatcher, t.applied_ns - t.durable_ns);
    stage_histograms_.Add(Stage::kApply, t.applied_end_ns - t.applied_ns);
    stage_histograms_.Add(Stage::kDeliver, now - t.applied_end_ns);
  }

  void RecordBatch(size_t n) {
    batches_.fetch_add(1, std::memory_order_relaxed);
    inputs_.fetch_add(n, std::memory_order_relaxed);
    if (n > max_batch_.load(std::memory_order_relaxed)) {
      max_batch_.store(n, std::memory_order_relaxed);  // single writer: no CAS needed
    }
    size_t k = 0;
    while ((size_t{2} << k) <= n && k + 1 < batch_size_log2_.size()) ++k;
    batch_size_log2_[k].fetch_add(1, std::memory_order_relaxed);
  }

  const PipelineOptions options_;
  Journal* const journal_;
  const CommandCodec<Command>* const codec_;
  Matcher<Command, Outcome>* const matcher_;
  PipelineListener<Outcome>* const listener_;

  MpscRing<Input> input_;
  SpscRing<Sequenced> sequenced_;
  SpscRing<Output> output_;
  SpscRing<SnapshotJob> snapshot_jobs_;

  std::thread sequencer_, matcher_thread_, snapshotter_, publisher_;
  // Held by whoever runs the matcher's stage (RunMatcher, MatchOrWake); with it the
  // sequenced ring's consumer side, the matcher, `delivery_` and since_notify_.
  std::mutex matcher_role_;
  int since_notify_ = 0;
  Delivery delivery_{this};  // the publisher's, or with publish_on_matcher the matcher's
  std::vector<Trace> traces_;         // trace_stages: 2 x output_capacity entries (matcher writes)
  StageHistograms stage_histograms_;  // trace_stages: the delivering thread writes
  uint64_t next_seq_ = 1;  // sequencer thread while running
  int64_t last_time_us_ = 0;  // sequencer thread: the latest stamp given
  bool started_ = false;   // controlling thread
  bool stopped_ = false;

  alignas(kCacheLineSize) std::atomic<bool> leading_{true};
  std::atomic<bool> promote_{false};
  std::atomic<uint64_t> lead_start_seq_{UINT64_MAX};
  StateChecks checks_;  // state hashes: docs/replication.md, "Checking the standby"
  std::atomic<uint64_t> followed_inputs_{0};
  // The matcher role's last input applied (and hashed, at a snapshot seq): what a promoting
  // follower waits for before its last comparison of hashes (Follow).
  alignas(kCacheLineSize) std::atomic<uint64_t> applied_seq_{0};
  alignas(kCacheLineSize) std::atomic<int> active_offers_{0};
  std::atomic<bool> stopping_{false};
  alignas(kCacheLineSize) std::atomic<bool> input_closed_{false};
  std::atomic<bool> sequencer_done_{false};
  std::atomic<bool> matcher_done_{false};
  std::atomic<bool> failed_{false};
  absl::Status error_status_;

  // One per consumer thread; see ParkingIdle.
  WakeSignal sequencer_wake_;  // producers (TryOffer), Stop, Promote
  WakeSignal matcher_wake_;    // sequencer
  WakeSignal publisher_wake_;  // matcher, Fail
  WakeSignal snapshot_wake_;   // matcher

  alignas(kCacheLineSize) std::atomic<uint64_t> batches_{0};
  std::atomic<uint64_t> inputs_{0};
  std::atomic<uint64_t> max_batch_{0};
  std::array<std::atomic<uint64_t>, 24> batch_size_log2_{};
  std::atomic<uint64_t> snapshots_written_{0};
  std::atomic<uint64_t> snapshots_dropped_{0};
  std::atomic<uint64_t> matched_on_sequencer_{0};
};

}  // namespace cfx::journal

// The follower loop (replication), the matcher's stage, the leader's sequencer loop (the
// journal) and the publisher and snapshot threads, out of the class: each a job of its own.
#include "cfx/journal/pipeline_follow-inl.h"     // IWYU pragma: export
#include "cfx/journal/pipeline_matcher-inl.h"    // IWYU pragma: export
#include "cfx/journal/pipeline_publish-inl.h"    // IWYU pragma: export
#include "cfx/journal/pipeline_sequencer-inl.h"  // IWYU pragma: export

#endif  // CFX_JOURNAL_PIPELINE_H_
