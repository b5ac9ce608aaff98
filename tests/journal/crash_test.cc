// The real crash test: a child process runs the journaled pipeline under load and prints
// every acknowledged input id; the test kill -9s it at random moments, restarts it (which
// recovers), and checks after every round that
//   - the journal verifies and holds every acknowledged id (an ack is never lost);
//   - recovery (snapshot + tail) equals applying exactly the journal's records from seq 1,
//     and the restarted child recovered to that same state and next seq (nothing that was
//     not durable appeared).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cfx/journal/counter_machine.h"
#include "cfx/journal/matcher_state_machine.h"
#include "gtest/gtest.h"
#include "child_process.h"
#include "test_dir.h"

namespace cfx::journal {
namespace {

using testsupport::ChildRun;

// Starts the child, reads its output, kills it with SIGKILL `run_for` after its start (so
// during its recovery at times) or after the line `armed_by` ("R ": recovered; "A ": its
// first ack), reads the rest.
ChildRun RunAndKill(const std::string& data_dir, int round, std::chrono::milliseconds run_for,
                    bool commit_log, const std::string& armed_by) {
  std::vector<std::string> args = {data_dir, std::to_string(round)};
  if (commit_log) args.push_back("log");
  return testsupport::RunChild(CFX_JOURNAL_CRASH_CHILD, args, run_for, armed_by);
}

// With and without the commit log (docs/durability.md, "The commit log"): with it, a kill
// leaves acknowledged inputs that only the log holds, which every open must find.
class CrashTest : public ::testing::TestWithParam<bool> {};

INSTANTIATE_TEST_SUITE_P(Journal, CrashTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "CommitLog" : "LmdbOnly"; });

TEST_P(CrashTest, KillNineAtRandomMomentsNeverLosesAnAcknowledgedInput) {
  const bool commit_log = GetParam();
  TestDir dir;
  std::mt19937_64 rng(std::random_device{}());
  CounterCodec codec;
  std::set<uint64_t> acked;
  uint64_t expected_next_seq = 1, expected_hash = CounterMachine().StateHash();
  constexpr int kRounds = 16;
  uint64_t from_log = 0;  // acknowledged inputs a kill left in the commit log only
  for (int round = 0; round < kRounds; ++round) {
    const auto run_for = std::chrono::milliseconds(30 + rng() % 400);
    // The time from the child's start in even rounds, from its recovery in odd ones: a
    // start slowed by a sanitizer or a disk busy writing back a build (a fresh CI machine)
    // would otherwise use up every round (seen once: 16 rounds, no input acknowledged).
    // The first round runs until it has recovered (created the journal: under TSan a kill
    // 30 ms after the start can come before that); the last until its first ack at least,
    // so that the test has acks to check.
    const std::string armed_by = round == kRounds - 1           ? "A "
                                 : round == 0 || round % 2 == 1 ? "R "
                                                                : "";
    ChildRun run = RunAndKill(dir.path(), round, run_for, commit_log, armed_by);
    ASSERT_TRUE(WIFSIGNALED(run.status)) << "round " << round << ": " << run.output.substr(0, 200);
    ASSERT_TRUE(run.armed) << "round " << round << ": no line \"" << armed_by << "\" in "
                           << testsupport::kArmLimit.count() << " ms";

    // The child's own recovery must match what the previous round left.
    std::istringstream lines(run.output);
    std::string kind;
    bool saw_recovery = false;
    while (lines >> kind) {
      uint64_t a, b;
      if (kind == "A") {
        lines >> a;
        acked.insert(a);
      } else if (kind == "R") {
        lines >> a >> b;
        EXPECT_EQ(a, expected_next_seq) << "round " << round;
        EXPECT_EQ(b, expected_hash) << "round " << round;
        saw_recovery = true;
      } else {
        std::string rest;
        std::getline(lines, rest);
        FAIL() << "round " << round << ": child said " << kind << rest;
      }
    }
    (void)saw_recovery;  // a kill during start-up may come before the line

    // Now check the journal as left by the kill: read-only first (with the log, what it
    // holds beyond LMDB is read from it), then opened for writing as the next run would.
    {
      auto reader = Journal::Open({.data_dir = dir.path(), .read_only = true});
      ASSERT_TRUE(reader.ok()) << reader.status();
      std::set<uint64_t> seen;
      ASSERT_TRUE((*reader)
                      ->ReadFrom(1,
                                 [&](uint64_t, absl::string_view payload) {
                                   CounterCommand c;
                                   int64_t time_us = 0;
                                   EXPECT_TRUE(DecodeInput(payload, codec, &time_us, &c).ok());
                                   seen.insert(c.id);
                                   return true;
                                 })
                      .ok());
      for (uint64_t id : acked) {
        ASSERT_TRUE(seen.count(id)) << "round " << round << ": acked id " << id
                                    << " not found read-only";
      }
    }
    auto journal = Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(journal.ok()) << journal.status();
    from_log += (*journal)->RecoveredFromCommitLog();
    std::set<uint64_t> journaled;
    CounterMachine replayed;  // every record from seq 1, no snapshot
    MatcherStateMachine<CounterCommand, CounterOutcome> replay(&codec, &replayed);
    absl::Status s = (*journal)->ReadFrom(1, [&](uint64_t seq, absl::string_view payload) {
      CounterCommand c;
      int64_t time_us = 0;
      EXPECT_TRUE(DecodeInput(payload, codec, &time_us, &c).ok());
      EXPECT_TRUE(journaled.insert(c.id).second) << "id journaled twice: " << c.id;
      EXPECT_TRUE(replay.Apply(seq, payload).ok());
      return true;
    });
    ASSERT_TRUE(s.ok()) << "round " << round << ": " << s;
    for (uint64_t id : acked) {
      ASSERT_TRUE(journaled.count(id)) << "round " << round << ": acked id " << id << " lost";
    }
    CounterMachine recovered;
    MatcherStateMachine<CounterCommand, CounterOutcome> adapter(&codec, &recovered);
    auto result = Recover(**journal, adapter);
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->next_seq, (*journal)->LastSeq() + 1);
    ASSERT_EQ(recovered.StateHash(), replayed.StateHash()) << "round " << round;
    expected_next_seq = result->next_seq;
    expected_hash = recovered.StateHash();
  }
  EXPECT_GT(acked.size(), 0u);
  // The kills did leave inputs that only the log held (the copier runs every 10 ms).
  if (commit_log) {
    EXPECT_GT(from_log, 0u);
  }
  std::fprintf(stderr,
               "crash test: %d rounds, %zu inputs acknowledged, next seq %llu, %llu found in "
               "the commit log only\n",
               kRounds, acked.size(), static_cast<unsigned long long>(expected_next_seq),
               static_cast<unsigned long long>(from_log));
}

TEST(CrashChildTest, UnwritableDataDirMakesTheChildFailWithAClearMessage) {
  TestDir dir;
  const std::string file = dir.path() + "/file";
  close(open(file.c_str(), O_CREAT | O_WRONLY, 0644));
  ChildRun run = RunAndKill(file + "/data", 0, std::chrono::milliseconds(3000), false, "");
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 2);
  EXPECT_NE(run.output.find(file + "/data/journal"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace cfx::journal
