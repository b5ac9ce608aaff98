#include "cfx/journal/pipeline.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include "cfx/journal/counter_machine.h"
#include "cfx/journal/replication_log.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_dir.h"

namespace cfx::journal {
namespace {

using ::testing::HasSubstr;
using CounterPipeline = Pipeline<CounterCommand, CounterOutcome>;
using namespace std::chrono_literals;

// Collects everything on the publisher thread; read only after Stop() (join orders it).
class RecordingListener : public PipelineListener<CounterOutcome> {
 public:
  struct Event {
    uint64_t seq;
    uint64_t tag;
    bool ack;
    uint64_t id;
  };
  void OnOutcome(uint64_t seq, uint64_t tag, const CounterOutcome& o) override {
    events.push_back({seq, tag, false, o.id});
  }
  void OnAck(uint64_t seq, uint64_t tag, int64_t time_us) override {
    events.push_back({seq, tag, true, 0});
    ack_stamps.emplace_back(seq, time_us);
  }
  void OnJournalError(const absl::Status& status) override {
    ++errors;
    error = status;
  }
  std::vector<Event> events;
  std::vector<std::pair<uint64_t, int64_t>> ack_stamps;  // each ack's input stamp
  int errors = 0;
  absl::Status error;
};

// Offers `per_producer` commands from each of `producers` threads, spinning on kFull.
// The tag is producer << 32 | i, and the command id equals the tag.
void Produce(CounterPipeline& p, int producers, uint64_t per_producer) {
  std::vector<std::thread> threads;
  for (int t = 0; t < producers; ++t) {
    threads.emplace_back([&p, t, per_producer] {
      std::mt19937_64 rng(t);
      for (uint64_t i = 0; i < per_producer; ++i) {
        const uint64_t tag = (static_cast<uint64_t>(t) << 32) | i;
        CounterCommand c{tag, rng() % 100, static_cast<int64_t>(rng() % 11) - 5};
        OfferResult r;
        while ((r = p.TryOffer(tag, c)) == OfferResult::kFull) std::this_thread::yield();
        ASSERT_EQ(r, OfferResult::kAccepted);
      }
    });
  }
  for (auto& t : threads) t.join();
}

// Each input: one outcome then its ack, seqs 1..N in order, each producer's inputs in the
// order it offered them.
void ExpectOrderedDelivery(const RecordingListener& l, int producers, uint64_t per_producer) {
  const uint64_t total = producers * per_producer;
  ASSERT_EQ(l.events.size(), 2 * total);
  std::vector<uint64_t> next(producers, 0);
  for (uint64_t i = 0; i < total; ++i) {
    const auto& outcome = l.events[2 * i];
    const auto& ack = l.events[2 * i + 1];
    ASSERT_FALSE(outcome.ack);
    ASSERT_TRUE(ack.ack);
    ASSERT_EQ(outcome.seq, i + 1);
    ASSERT_EQ(ack.seq, i + 1);
    ASSERT_EQ(outcome.id, ack.tag);
    const uint64_t producer = ack.tag >> 32;
    ASSERT_EQ(ack.tag & 0xFFFFFFFF, next[producer]++);
  }
}

TEST(PipelineTest, WithoutJournalEveryInputGetsItsOutcomeThenAckInSeqOrder) {
  CounterCodec codec;
  CounterMachine machine;
  RecordingListener listener;
  CounterPipeline p({.input_capacity = 64, .sequenced_capacity = 64, .output_capacity = 64},
                    nullptr, &codec, &machine, &listener);
  ASSERT_TRUE(p.Start().ok());
  Produce(p, 3, 20000);
  ASSERT_TRUE(p.Stop().ok());
  ExpectOrderedDelivery(listener, 3, 20000);
  EXPECT_EQ(machine.applied(), 60000u);
  EXPECT_EQ(p.next_seq(), 60001u);
}

TEST(PipelineTest, TryOfferReportsFullInsteadOfBlockingAndStoppedAfterStop) {
  CounterCodec codec;
  CounterMachine machine;
  RecordingListener listener;
  CounterPipeline p({.input_capacity = 2}, nullptr, &codec, &machine, &listener);
  EXPECT_EQ(p.TryOffer(1, {}), OfferResult::kAccepted);  // not started: the ring fills
  EXPECT_EQ(p.TryOffer(2, {}), OfferResult::kAccepted);
  EXPECT_EQ(p.TryOffer(3, {}), OfferResult::kFull);
  ASSERT_TRUE(p.Start().ok());
  ASSERT_TRUE(p.Stop().ok());
  EXPECT_EQ(p.TryOffer(4, {}), OfferResult::kStopped);
  EXPECT_EQ(machine.applied(), 2u);  // Stop drained what was accepted
}

TEST(PipelineTest, JournaledInputsAreDurableBeforeAckAndRestartRecoversTheSameState) {
  TestDir dir;
  CounterCodec codec;
  uint64_t hash_before, next_seq_before;
  {
    auto journal = *Journal::Open({.data_dir = dir.path()});
    CounterMachine machine;
    RecordingListener listener;
    CounterPipeline p({.max_batch = 512, .snapshot_every = 1000}, journal.get(), &codec,
                      &machine, &listener);
    ASSERT_TRUE(p.Start().ok());
    Produce(p, 2, 15000);
    ASSERT_TRUE(p.Stop().ok());
    ExpectOrderedDelivery(listener, 2, 15000);
    EXPECT_EQ(journal->LastSeq(), 30000u);
    EXPECT_TRUE(journal->Verify().ok());
    const PipelineStats stats = p.stats();
    EXPECT_EQ(stats.inputs, 30000u);
    EXPECT_LE(stats.max_batch, 512u);
    EXPECT_GT(stats.snapshots_written, 0u);
    EXPECT_GT((*journal->LatestValidSnapshot())->seq, 0u);
    hash_before = machine.StateHash();
    next_seq_before = p.next_seq();
  }
  auto journal = *Journal::Open({.data_dir = dir.path()});
  CounterMachine machine;
  RecordingListener listener;
  CounterPipeline p({.snapshot_every = 1000}, journal.get(), &codec, &machine, &listener);
  auto recovered = p.Start();
  ASSERT_TRUE(recovered.ok()) << recovered.status();
  EXPECT_EQ(recovered->next_seq, next_seq_before);
  EXPECT_GT(recovered->snapshot_seq, 0u);
  EXPECT_EQ(machine.StateHash(), hash_before);
  // New inputs continue the sequence.
  EXPECT_EQ(p.TryOffer(7, {7, 1, 1}), OfferResult::kAccepted);
  ASSERT_TRUE(p.Stop().ok());
  ASSERT_EQ(listener.events.size(), 2u);
  EXPECT_EQ(listener.events[1].seq, next_seq_before);
}

// A clock that steps back now and then, as a system clock may.
class SteppingClock : public InputClock {
 public:
  int64_t NowMicros() override {
    now_ += 7;
    return (++calls_ % 5 == 0) ? now_ - 100 : now_;
  }

 private:
  int64_t now_ = 1'800'000'000'000'000;
  int calls_ = 0;
};

// Emits 0, 1, 2 or 3 outcomes an input (by seq), some written in place (Claim, then
// EmitClaimed; the slot is first filled with garbage, as a reused one would be) and some
// copied (Emit), in turn.
class MixedSinkMachine : public CounterMachine {
 public:
  void ApplyAt(uint64_t seq, int64_t, const CounterCommand& command,
               OutcomeSink<CounterOutcome>& sink) override {
    for (uint64_t k = 0; k < seq % 4; ++k) {
      if ((seq + k) % 2 == 0) {
        CounterOutcome& out = sink.Claim();
        out = CounterOutcome{~0ull, -1};
        out.id = command.id;
        out.value = static_cast<int64_t>(k);
        sink.EmitClaimed();
      } else {
        sink.Emit(CounterOutcome{command.id, static_cast<int64_t>(k)});
      }
    }
  }
};

class ValueRecordingListener : public PipelineListener<CounterOutcome> {
 public:
  void OnOutcome(uint64_t seq, uint64_t tag, const CounterOutcome& o) override {
    outcomes.push_back({seq, tag, o.id, o.value});
  }
  void OnAck(uint64_t seq, uint64_t tag, int64_t) override { acks.push_back({seq, tag, 0, 0}); }
  void OnJournalError(const absl::Status&) override {}
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t, int64_t>> outcomes, acks;
};

// Outcomes written in place in the output ring's slots (OutcomeSink::Claim) and outcomes
// copied there (Emit), mixed within one input and with inputs of none: each arrives once,
// whole, in order, before its input's ack.
TEST(PipelineTest, OutcomesWrittenInPlaceAndCopiedArriveWholeAndInOrder) {
  CounterCodec codec;
  MixedSinkMachine machine;
  ValueRecordingListener listener;
  CounterPipeline p({.input_capacity = 64, .sequenced_capacity = 64, .output_capacity = 8},
                    nullptr, &codec, &machine, &listener);
  ASSERT_TRUE(p.Start().ok());
  constexpr uint64_t kInputs = 5000;
  for (uint64_t i = 1; i <= kInputs; ++i) {
    while (p.TryOffer(i, CounterCommand{i, 0, 0}) == OfferResult::kFull) {
      std::this_thread::yield();
    }
  }
  ASSERT_TRUE(p.Stop().ok());
  ASSERT_EQ(listener.acks.size(), kInputs);
  size_t next = 0;
  for (uint64_t seq = 1; seq <= kInputs; ++seq) {
    for (uint64_t k = 0; k < seq % 4; ++k, ++next) {
      ASSERT_LT(next, listener.outcomes.size());
      EXPECT_EQ(listener.outcomes[next],
                std::make_tuple(seq, seq, seq, static_cast<int64_t>(k)))
          << "seq " << seq << " outcome " << k;
    }
  }
  EXPECT_EQ(next, listener.outcomes.size());
}

// The default Claim/EmitClaimed of a sink that only implements Emit: a scratch outcome,
// then Emit of it.
TEST(PipelineTest, ASinkWithOnlyEmitTakesOutcomesWrittenInPlace) {
  struct Collect : OutcomeSink<CounterOutcome> {
    void Emit(const CounterOutcome& o) override { got.push_back(o.id * 100 + o.value); }
    std::vector<uint64_t> got;
  } sink;
  MixedSinkMachine machine;
  machine.ApplyAt(3, 0, CounterCommand{7, 0, 0}, sink);  // k = 0 copied, 1 in place, 2 copied
  machine.ApplyAt(6, 0, CounterCommand{8, 0, 0}, sink);  // k = 0 in place, 1 copied
  EXPECT_EQ(sink.got, (std::vector<uint64_t>{700, 701, 702, 800, 801}));
}

// Records the stamp each input is applied at.
class StampRecordingMachine : public CounterMachine {
 public:
  void ApplyAt(uint64_t seq, int64_t time_us, const CounterCommand& command,
               OutcomeSink<CounterOutcome>& sink) override {
    stamps.emplace_back(seq, time_us);
    Apply(seq, command, sink);
  }
  std::vector<std::pair<uint64_t, int64_t>> stamps;
};

// A pipeline run on the journal in `dir` with `clock`: `producers` × `each` inputs, stopped.
// The stamps the matcher applied them at, and (when given) the acks' stamps; with
// `snapshot_at_end`, a snapshot of the matcher at the journal's last seq.
void RunStamped(const std::string& dir, InputClock* clock, int producers, int each,
                std::vector<std::pair<uint64_t, int64_t>>* applied,
                std::vector<std::pair<uint64_t, int64_t>>* acked = nullptr,
                bool snapshot_at_end = false) {
  CounterCodec codec;
  auto journal = *Journal::Open({.data_dir = dir});
  StampRecordingMachine machine;
  RecordingListener listener;
  CounterPipeline p({.max_batch = 64, .clock = clock}, journal.get(), &codec, &machine, &listener);
  ASSERT_TRUE(p.Start().ok());
  Produce(p, producers, each);
  ASSERT_TRUE(p.Stop().ok());
  *applied = machine.stamps;
  if (acked != nullptr) *acked = listener.ack_stamps;
  if (snapshot_at_end) {
    ASSERT_TRUE(journal->WriteSnapshot(journal->LastSeq(), machine.Snapshot()).ok());
  }
}

// SPEC §5: the sequencer stamps every input from the exchange clock, never earlier than the
// input before it; the stamp is journaled with the input, so recovery applies each input at
// the time it had live. Each ack carries its input's stamp (the time of a report that has
// no outcome to take it from, such as a mass cancel that canceled nothing).
TEST(PipelineTest, EveryInputIsStampedAtSequencingAndRecoveryReappliesTheSameStamps) {
  TestDir dir;
  CounterCodec codec;
  SteppingClock clock;
  std::vector<std::pair<uint64_t, int64_t>> live, acked;
  ASSERT_NO_FATAL_FAILURE(RunStamped(dir.path(), &clock, 2, 500, &live, &acked));
  EXPECT_EQ(acked, live);
  ASSERT_EQ(live.size(), 1000u);
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(live[i].first, i + 1);
    EXPECT_GT(live[i].second, 0);
    if (i > 0) {
      EXPECT_GE(live[i].second, live[i - 1].second) << "seq " << live[i].first;
    }
  }
  // Restart without a clock: recovery reapplies the journaled stamps, not its own time.
  auto journal = *Journal::Open({.data_dir = dir.path()});
  StampRecordingMachine machine;
  RecordingListener listener;
  CounterPipeline p({}, journal.get(), &codec, &machine, &listener);
  ASSERT_TRUE(p.Start().ok());
  ASSERT_TRUE(p.Stop().ok());
  EXPECT_EQ(machine.stamps, live);
}

// A clock that reads a fixed time: one far behind the stamps already journaled.
class FixedClock : public InputClock {
 public:
  explicit FixedClock(int64_t now) : now_(now) {}
  int64_t NowMicros() override { return now_; }

 private:
  int64_t now_;
};

// SPEC §5: after a restart a stamp is never earlier than the last journaled one, also when
// the recovery replays no record (a snapshot at the journal's last seq) and the clock reads
// earlier than that stamp. The floor came from replayed records only until 2026-12-07.
TEST(PipelineTest, TheStampFloorHoldsAfterARecoveryFromASnapshotAtTheJournalsEnd) {
  TestDir dir;
  CounterCodec codec;
  SteppingClock clock;
  std::vector<std::pair<uint64_t, int64_t>> live;
  ASSERT_NO_FATAL_FAILURE(RunStamped(dir.path(), &clock, 1, 50, &live, nullptr,
                                     /*snapshot_at_end=*/true));
  ASSERT_EQ(live.size(), 50u);
  const int64_t last_stamp = live.back().second;
  auto journal = *Journal::Open({.data_dir = dir.path()});
  StampRecordingMachine machine;
  RecordingListener listener;
  FixedClock behind(1'000'000);  // 1970: far behind every journaled stamp
  CounterPipeline p({.clock = &behind}, journal.get(), &codec, &machine, &listener);
  auto started = p.Start();
  ASSERT_TRUE(started.ok()) << started.status();
  EXPECT_EQ(started->replayed, 0u) << "the snapshot is at the journal's end";
  Produce(p, 1, 3);
  ASSERT_TRUE(p.Stop().ok());
  ASSERT_EQ(machine.stamps.size(), 3u);
  for (const auto& [seq, stamp] : machine.stamps) EXPECT_GE(stamp, last_stamp) << "seq " << seq;
}

TEST(PipelineTest, JournalFailureStopsTheOrderPathAndNothingUndurableIsAcked) {
  TestDir dir;
  auto journal = *Journal::Open({.data_dir = dir.path(), .map_size_bytes = 1 << 20});
  CounterCodec codec;
  CounterMachine machine;
  RecordingListener listener;
  CounterPipeline p({.max_batch = 256}, journal.get(), &codec, &machine, &listener);
  ASSERT_TRUE(p.Start().ok());
  OfferResult r = OfferResult::kAccepted;
  for (uint64_t i = 0; i < 1'000'000 && r != OfferResult::kStopped; ++i) {
    while ((r = p.TryOffer(i, {i, i % 7, 1})) == OfferResult::kFull) std::this_thread::yield();
  }
  EXPECT_EQ(r, OfferResult::kStopped);
  absl::Status s = p.Stop();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("map full"));
  EXPECT_EQ(listener.errors, 1);
  uint64_t acks = 0;
  for (const auto& e : listener.events) acks += e.ack;
  EXPECT_EQ(acks, journal->LastSeq());  // every ack is durable; no ack beyond the journal
  EXPECT_EQ(machine.applied(), journal->LastSeq());
}

// Checks, as each outcome and ack arrives, that its input is durable (Journal::DurableSeq).
class DurabilityCheckingListener : public RecordingListener {
 public:
  explicit DurabilityCheckingListener(const Journal* journal) : journal_(journal) {}
  void OnOutcome(uint64_t seq, uint64_t tag, const CounterOutcome& o) override {
    if (seq > journal_->DurableSeq()) ++undurable;
    RecordingListener::OnOutcome(seq, tag, o);
  }
  void OnAck(uint64_t seq, uint64_t tag, int64_t time_us) override {
    if (seq > journal_->DurableSeq()) ++undurable;
    RecordingListener::OnAck(seq, tag, time_us);
  }
  int undurable = 0;

 private:
  const Journal* journal_;
};

// With one flush per commit (defer_commit_sync) a commit is durable only once the next
// commit or a Sync has returned: the matcher sees an input, and anyone hears of it, only
// then. Bursts with pauses between them exercise both: the next commit, and the sync when
// nothing more is waiting.
TEST(PipelineTest, WithOneFlushPerCommitNothingIsAppliedOrAckedBeforeItIsDurable) {
  TestDir dir;
  CounterCodec codec;
  uint64_t hash_before;
  {
    auto journal = *Journal::Open({.data_dir = dir.path(), .defer_commit_sync = true});
    CounterMachine machine;
    DurabilityCheckingListener listener(journal.get());
    CounterPipeline p({.max_batch = 64, .snapshot_every = 500}, journal.get(), &codec, &machine,
                      &listener);
    ASSERT_TRUE(p.Start().ok());
    std::mt19937_64 rng(7);
    for (uint64_t i = 0; i < 6000; ++i) {
      OfferResult r;
      while ((r = p.TryOffer(i, {i, rng() % 50, 1})) == OfferResult::kFull) {
        std::this_thread::yield();
      }
      ASSERT_EQ(r, OfferResult::kAccepted);
      if (rng() % 200 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_TRUE(p.Stop().ok());
    EXPECT_EQ(listener.undurable, 0);
    ExpectOrderedDelivery(listener, 1, 6000);
    EXPECT_EQ(journal->DurableSeq(), 6000u);  // Stop made the last commit durable
    EXPECT_LT(p.stats().batches, 6000u);      // and inputs did share commits
    hash_before = machine.StateHash();
  }
  auto journal = *Journal::Open({.data_dir = dir.path(), .defer_commit_sync = true});
  EXPECT_EQ(journal->LastSeq(), 6000u);
  EXPECT_EQ(journal->DurableSeq(), 6000u);
  CounterMachine machine;
  RecordingListener listener;
  CounterPipeline p({}, journal.get(), &codec, &machine, &listener);
  ASSERT_TRUE(p.Start().ok());
  ASSERT_TRUE(p.Stop().ok());
  EXPECT_EQ(machine.StateHash(), hash_before);
}

TEST(PipelineTest, WithOneFlushPerCommitAJournalFailureAcksNothingUndurable) {
  TestDir dir;
  auto journal = *Journal::Open(
      {.data_dir = dir.path(), .map_size_bytes = 1 << 20, .defer_commit_sync = true});
  CounterCodec codec;
  CounterMachine machine;
  DurabilityCheckingListener listener(journal.get());
  CounterPipeline p({.max_batch = 256}, journal.get(), &codec, &machine, &listener);
  ASSERT_TRUE(p.Start().ok());
  OfferResult r = OfferResult::kAccepted;
  for (uint64_t i = 0; i < 1'000'000 && r != OfferResult::kStopped; ++i) {
    while ((r = p.TryOffer(i, {i, i % 7, 1})) == OfferResult::kFull) std::this_thread::yield();
  }
  EXPECT_EQ(p.Stop().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(listener.undurable, 0);
  uint64_t acks = 0;
  for (const auto& e : listener.events) acks += e.ack;
  EXPECT_LE(acks, journal->DurableSeq());
  EXPECT_EQ(machine.applied(), acks);
}

TEST(PipelineTest, RecoveryErrorPreventsStart) {
  TestDir dir;
  auto journal = *Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(journal->WriteRawRecordForTest(1, "torn").ok());
  CounterCodec codec;
  CounterMachine machine;
  RecordingListener listener;
  CounterPipeline p({}, journal.get(), &codec, &machine, &listener);
  auto r = p.Start();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("journal record 1: bad length"));
}

// A replicated log that takes every batch (one writer) and records each one's bytes.
class SizingLog : public ReplicationLog {
 public:
  absl::Status Append(uint64_t first_seq, absl::Span<const absl::string_view> payloads,
                      const StateCheckpoint&) override {
    size_t bytes = 0;
    for (absl::string_view p : payloads) bytes += p.size();
    std::lock_guard<std::mutex> lock(mu_);
    largest_ = std::max(largest_, bytes);
    end_ = first_seq + payloads.size();
    return absl::OkStatus();
  }
  absl::Status Read(uint64_t, int64_t timeout_ms, ReplicatedBatch*) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(timeout_ms, 5)));
    return absl::DeadlineExceededError("nothing appended by another writer");
  }
  absl::StatusOr<uint64_t> EndSeq() override {
    std::lock_guard<std::mutex> lock(mu_);
    return end_;
  }
  size_t largest() {
    std::lock_guard<std::mutex> lock(mu_);
    return largest_;
  }

 private:
  std::mutex mu_;
  size_t largest_ = 0;
  uint64_t end_ = 1;
};

// A replicated batch is one message of the log, and the server bounds a message's size
// (NATS: 1 MiB): a leader's batches stop at max_batch_bytes of encoded inputs, whatever
// max_batch allows. 8192 inputs with long ids passed the server's limit, and the refused
// publish was retried until the leader's deadline (a review, 2026-12-07).
TEST(PipelineTest, ALeadersBatchesStayWithinTheLogsMessageBytes) {
  TestDir dir;
  auto journal = *Journal::Open({.data_dir = dir.path()});
  CounterCodec codec;
  CounterMachine machine;
  RecordingListener listener;
  SizingLog log;
  constexpr size_t kBytes = 4096;
  CounterPipeline p({.max_batch = 8192, .max_batch_bytes = kBytes, .replication = &log},
                    journal.get(), &codec, &machine, &listener);
  ASSERT_TRUE(p.Start().ok());
  p.Promote();
  for (int i = 0; i < 2000 && !p.leading(); ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(p.leading());
  Produce(p, 2, 20000);
  ASSERT_TRUE(p.Stop().ok());
  const size_t input = kInputStampSize + CounterCodec::kEncodedSize;
  EXPECT_GT(log.largest(), kBytes / 2) << "the batches never grew: nothing tested";
  EXPECT_LT(log.largest(), kBytes + input);
  EXPECT_EQ(journal->LastSeq(), 40000u);
}

}  // namespace
}  // namespace cfx::journal
