#include "cfx/journal/recovery.h"

#include <unistd.h>

#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cfx/journal/counter_machine.h"
#include "cfx/journal/matcher_state_machine.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_dir.h"

namespace cfx::journal {
namespace {

using ::testing::HasSubstr;

class NullSink : public OutcomeSink<CounterOutcome> {
 public:
  void Emit(const CounterOutcome&) override {}
};

std::vector<CounterCommand> RandomStream(std::mt19937_64& rng, size_t n) {
  std::vector<CounterCommand> out(n);
  for (size_t i = 0; i < n; ++i) {
    out[i] = {i + 1, rng() % 50, static_cast<int64_t>(rng() % 201) - 100};
  }
  return out;
}

// The uninterrupted run: the first `count` commands applied as seqs 1..count.
uint64_t ReferenceHash(const std::vector<CounterCommand>& stream, size_t count) {
  CounterMachine machine;
  NullSink sink;
  for (size_t i = 0; i < count; ++i) machine.Apply(i + 1, stream[i], sink);
  return machine.StateHash();
}

// Process crashes do not need fsync (the OS keeps the pages); skipping it keeps this fast.
JournalOptions Options(const TestDir& dir) {
  return {.data_dir = dir.path(), .keep_snapshots = 2, .unsafe_no_sync = true};
}

// Drives journal + machine by hand, as the pipeline does, and "crashes" (drops the machine
// and closes the journal) at random points: after a journal write before matching, in the
// middle of applying a batch, right after a snapshot. Recovery must land exactly on the
// uninterrupted run's state for everything journaled.
TEST(RecoveryTest, RandomCrashPointsRecoverToTheUninterruptedState) {
  for (int trial = 0; trial < 12; ++trial) {
    std::mt19937_64 rng(1000 + trial);
    const auto stream = RandomStream(rng, 200 + rng() % 1500);
    CounterCodec codec;
    NullSink sink;
    TestDir dir;
    auto journal = *Journal::Open(Options(dir));
    auto machine = std::make_unique<CounterMachine>();
    size_t journaled = 0;
    int crashes = 0;
    while (journaled < stream.size()) {
      const size_t n = std::min<size_t>(1 + rng() % 64, stream.size() - journaled);
      std::string bytes;
      for (size_t i = 0; i < n; ++i) EncodeInput(0, codec, stream[journaled + i], &bytes);
      constexpr size_t kInputSize = kInputStampSize + CounterCodec::kEncodedSize;
      std::vector<absl::string_view> views;
      for (size_t i = 0; i < n; ++i) {
        views.push_back(absl::string_view(bytes).substr(i * kInputSize, kInputSize));
      }
      ASSERT_TRUE(journal->AppendBatch(views).ok());
      const size_t batch_start = journaled;
      journaled += n;
      // 0: crash after the journal write, before matching; 1: crash mid-batch;
      // 2: match, snapshot, crash; 3+: no crash.
      const int point = static_cast<int>(rng() % 8);
      const size_t to_apply = point == 0 ? 0 : point == 1 ? rng() % n : n;
      for (size_t i = 0; i < to_apply; ++i) {
        machine->Apply(batch_start + i + 1, stream[batch_start + i], sink);
      }
      if ((point == 2 || rng() % 5 == 0) && to_apply == n) {
        ASSERT_TRUE(journal->WriteSnapshot(journaled, machine->Snapshot()).ok());
      }
      if (point <= 2) {
        ++crashes;
        machine = std::make_unique<CounterMachine>();
        journal.reset();
        journal = *Journal::Open(Options(dir));
        MatcherStateMachine<CounterCommand, CounterOutcome> adapter(&codec, machine.get());
        auto result = Recover(*journal, adapter);
        ASSERT_TRUE(result.ok()) << result.status();
        ASSERT_EQ(result->next_seq, journaled + 1) << "trial " << trial;
        ASSERT_EQ(machine->StateHash(), ReferenceHash(stream, journaled)) << "trial " << trial;
        ASSERT_EQ(result->snapshot_seq + result->replayed, journaled);
      }
    }
    EXPECT_GT(crashes, 0);
    EXPECT_EQ(machine->StateHash(), ReferenceHash(stream, stream.size()));
  }
}

// Snapshots only shorten recovery (docs/durability.md, "Recovery"). A snapshot store LMDB
// cannot read at all (its data pages zeroed: "Located page was wrong type") is replayed
// around: every record from 1, to the same state, said in the result, and nothing more is
// written into the damaged file. Until 2026-12-06 the start failed on it.
TEST(RecoveryTest, AnUnreadableSnapshotStoreIsReplayedAroundFromRecordOne) {
  std::mt19937_64 rng(9);
  const auto stream = RandomStream(rng, 40);
  CounterCodec codec;
  NullSink sink;
  TestDir dir;
  {
    auto journal = *Journal::Open(Options(dir));
    CounterMachine m;
    for (size_t i = 0; i < stream.size(); ++i) {
      std::string bytes;
      EncodeInput(0, codec, stream[i], &bytes);
      absl::string_view view(bytes);
      ASSERT_TRUE(journal->AppendBatch({&view, 1}).ok());
      m.Apply(i + 1, stream[i], sink);
      if ((i + 1) % 10 == 0) ASSERT_TRUE(journal->WriteSnapshot(i + 1, m.Snapshot()).ok());
    }
  }
  {  // every page after LMDB's two meta pages zeroed
    std::fstream f(dir.path() + "/journal/snapshots/data.mdb",
                   std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.is_open());
    f.seekg(0, std::ios::end);
    const std::streamoff size = f.tellg();
    const std::streamoff page = sysconf(_SC_PAGESIZE);
    ASSERT_GT(size, 2 * page);
    const std::string zeros(static_cast<size_t>(size - 2 * page), '\0');
    f.seekp(2 * page);
    f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  auto journal = *Journal::Open(Options(dir));
  CounterMachine machine;
  MatcherStateMachine<CounterCommand, CounterOutcome> adapter(&codec, &machine);
  auto result = Recover(*journal, adapter);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->snapshots_unreadable, HasSubstr("snapshots"));
  EXPECT_EQ(result->snapshot_seq, 0u);
  EXPECT_EQ(result->replayed, stream.size());
  EXPECT_EQ(result->next_seq, stream.size() + 1);
  EXPECT_EQ(machine.StateHash(), ReferenceHash(stream, stream.size()));
  EXPECT_FALSE(journal->WriteSnapshot(stream.size(), machine.Snapshot()).ok());
}

class RecoveryCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(5);
    stream_ = RandomStream(rng, 10);
    journal_ = *Journal::Open({.data_dir = dir_.path()});
    for (size_t i = 0; i < stream_.size(); ++i) {
      std::string bytes;
      EncodeInput(0, codec_, stream_[i], &bytes);
      absl::string_view view(bytes);
      ASSERT_TRUE(journal_->AppendBatch({&view, 1}).ok());
      if (i + 1 == 5) {
        CounterMachine m;
        NullSink sink;
        for (size_t k = 0; k < 5; ++k) m.Apply(k + 1, stream_[k], sink);
        ASSERT_TRUE(journal_->WriteSnapshot(5, m.Snapshot()).ok());
      }
    }
    std::string bad;
    EncodeInput(0, codec_, stream_[7], &bad);
    bad = Journal::EncodeRecordForTest(8, bad);
    bad[30] ^= 1;
    ASSERT_TRUE(journal_->WriteRawRecordForTest(8, bad).ok());
  }
  TestDir dir_;
  CounterCodec codec_;
  std::vector<CounterCommand> stream_;
  std::unique_ptr<Journal> journal_;
};

TEST_F(RecoveryCorruptionTest, CorruptRecordStopsRecoveryNamingItsSeq) {
  CounterMachine machine;
  MatcherStateMachine<CounterCommand, CounterOutcome> adapter(&codec_, &machine);
  auto result = Recover(*journal_, adapter);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(result.status().message(), "journal record 8: checksum mismatch");
  EXPECT_EQ(journal_->LastSeq(), 10u);  // nothing was cut
}

TEST_F(RecoveryCorruptionTest, ExplicitTruncateCutsTheTailAndRecoversThePrefix) {
  CounterMachine machine;
  MatcherStateMachine<CounterCommand, CounterOutcome> adapter(&codec_, &machine);
  auto result = Recover(*journal_, adapter, {.truncate_corrupt_tail = true});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->next_seq, 8u);
  EXPECT_EQ(result->truncated_from, 8u);
  EXPECT_EQ(result->snapshot_seq, 5u);
  EXPECT_THAT(result->truncation_reason, HasSubstr("checksum mismatch"));
  EXPECT_EQ(journal_->LastSeq(), 7u);
  EXPECT_TRUE(journal_->Verify().ok());
  EXPECT_EQ(machine.StateHash(), ReferenceHash(stream_, 7));
}

TEST(RecoveryTest, UndecodablePayloadIsDataLossAndNeverTruncated) {
  TestDir dir;
  auto journal = *Journal::Open({.data_dir = dir.path()});
  absl::string_view garbage = "not a counter command";
  ASSERT_TRUE(journal->AppendBatch({&garbage, 1}).ok());
  CounterCodec codec;
  CounterMachine machine;
  MatcherStateMachine<CounterCommand, CounterOutcome> adapter(&codec, &machine);
  auto result = Recover(*journal, adapter, {.truncate_corrupt_tail = true});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("journal record 1: cannot be applied"));
  EXPECT_EQ(journal->LastSeq(), 1u);
}

// A counter machine that refuses one snapshot blob after changing its state part-way, as a
// Restore that fails inside a later block does.
class RefusingMachine : public StateMachine {
 public:
  static constexpr absl::string_view kRefused = "A-FORMAT-THIS-BINARY-CANNOT-READ";
  absl::Status Restore(absl::string_view snapshot) override {
    if (snapshot != kRefused) return adapter_.Restore(snapshot);
    std::string bytes;
    EncodeInput(0, codec_, CounterCommand{99, 7, 1000}, &bytes);
    (void)adapter_.Apply(99, bytes);  // changed, then refused
    return absl::DataLossError("matcher snapshot: trailing bytes");
  }
  std::string Snapshot() const override { return adapter_.Snapshot(); }
  absl::Status Apply(uint64_t seq, absl::string_view payload) override {
    return adapter_.Apply(seq, payload);
  }
  uint64_t StateHash() const { return inner_.StateHash(); }

 private:
  CounterCodec codec_;
  CounterMachine inner_;
  MatcherStateMachine<CounterCommand, CounterOutcome> adapter_{&codec_, &inner_};
};

// A snapshot whose checksum is good but that the machine refuses (a binary rolled back past
// its format) is passed over for an older one, or for a replay from record 1, and counted:
// snapshots only shorten recovery. It used to stop every start (a review, 2026-12-07).
TEST(RecoveryTest, ASnapshotTheMachineRefusesIsPassedOverForAnOlderOne) {
  std::mt19937_64 rng(17);
  const auto stream = RandomStream(rng, 10);
  for (const bool with_older : {true, false}) {
    TestDir dir;
    auto journal = *Journal::Open({.data_dir = dir.path()});
    CounterCodec codec;
    for (size_t i = 0; i < stream.size(); ++i) {
      std::string bytes;
      EncodeInput(0, codec, stream[i], &bytes);
      absl::string_view view(bytes);
      ASSERT_TRUE(journal->AppendBatch({&view, 1}).ok());
      if (i + 1 == 3 && with_older) {
        CounterMachine m;
        NullSink sink;
        for (size_t k = 0; k < 3; ++k) m.Apply(k + 1, stream[k], sink);
        ASSERT_TRUE(journal->WriteSnapshot(3, m.Snapshot()).ok());
      }
    }
    ASSERT_TRUE(journal->WriteSnapshot(6, RefusingMachine::kRefused).ok());
    RefusingMachine machine;
    auto result = Recover(*journal, machine);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->snapshot_seq, with_older ? 3u : 0u);
    EXPECT_EQ(result->unrestorable_snapshots, 1);
    EXPECT_THAT(result->snapshot_restore_error, HasSubstr("snapshot 6: matcher snapshot"));
    EXPECT_EQ(result->skipped_snapshots, 0);
    EXPECT_EQ(result->next_seq, stream.size() + 1);
    EXPECT_EQ(machine.StateHash(), ReferenceHash(stream, stream.size())) << with_older;
  }
}

// SPEC §5: a stored record that makes the state machine throw stops recovery with an error
// naming the record and telling the operator what to do; it never aborts (which would
// repeat on every restart).
class ThrowingMachine : public StateMachine {
 public:
  absl::Status Restore(absl::string_view) override { return absl::OkStatus(); }
  std::string Snapshot() const override { return ""; }
  absl::Status Apply(uint64_t seq, absl::string_view) override {
    if (seq == 3) throw std::runtime_error("invalid UTF-8 byte at index 2: 0xFF");
    return absl::OkStatus();
  }
};

TEST(RecoveryTest, ARecordThatThrowsStopsRecoveryNamingItsSeq) {
  TestDir dir;
  auto journal = *Journal::Open({.data_dir = dir.path()});
  std::vector<absl::string_view> records = {"a", "b", "c", "d"};
  ASSERT_TRUE(journal->AppendBatch(records).ok());
  ThrowingMachine machine;
  auto result = Recover(*journal, machine, {.truncate_corrupt_tail = true});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(result.status().message(), HasSubstr("journal record 3: cannot be applied"));
  EXPECT_THAT(result.status().message(), HasSubstr("invalid UTF-8"));
  EXPECT_THAT(result.status().message(), HasSubstr("do not truncate"));
  EXPECT_EQ(journal->LastSeq(), 4u);  // nothing was cut
}

TEST(RecoveryTest, EmptyJournalStartsAtSeqOne) {
  TestDir dir;
  auto journal = *Journal::Open({.data_dir = dir.path()});
  CounterCodec codec;
  CounterMachine machine;
  MatcherStateMachine<CounterCommand, CounterOutcome> adapter(&codec, &machine);
  auto result = Recover(*journal, adapter);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->next_seq, 1u);
  EXPECT_EQ(result->snapshot_seq, 0u);
}

}  // namespace
}  // namespace cfx::journal
