// The trade store's background committer (exchange/src/trade_recorder_commit.cc): at a trickle of
// inputs it gathers them into one transaction per kMinCommitInterval instead of one each, and
// a waiter (ExchangeCore::Flush) does not wait for the gap.
#include "cfx/exchange/trade_recorder.h"

#include <chrono>
#include <thread>

#include "gtest/gtest.h"
#include "temp_dir.h"

namespace cfx::exchange {
namespace {

TEST(TradeRecorderTest, ATrickleOfInputsSharesCommitsAndAWaiterGetsItsCommitAtOnce) {
  testsupport::TempDir dir("cfx_recorder");
  ASSERT_FALSE(dir.path().empty());
  constexpr uint64_t kInputs = 60;
  {
    auto recorder = TradeRecorder::Open(dir.path());
    ASSERT_TRUE(recorder.ok()) << recorder.status();
    // One input a millisecond, each handed over at once, as the publisher does when it has
    // caught up with the journal.
    for (uint64_t seq = 1; seq <= kInputs; ++seq) {
      (*recorder)->EndInput(seq);
      ASSERT_TRUE((*recorder)->CommitInBackground().ok());
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE((*recorder)->WaitCommitted(kInputs, std::chrono::seconds(10)));
    // ~60 ms of inputs at one transaction per 10 ms gap: well under one per input (a slow
    // machine only gathers more into each).
    EXPECT_LE((*recorder)->commits(), kInputs / 3);
    EXPECT_GE((*recorder)->commits(), 1u);

    // Right after a commit, a waiter's input is not held back by the gap.
    (*recorder)->EndInput(kInputs + 1);
    ASSERT_TRUE((*recorder)->CommitInBackground().ok());
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE((*recorder)->WaitCommitted(kInputs + 1, std::chrono::seconds(10)));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  }
  auto reopened = TradeRecorder::Open(dir.path());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ((*reopened)->last_seq(), kInputs + 1);
}

// A synchronous Commit (ExchangeCore's Stop, a large backlog) may come while the committer
// waits out its gap with rows in hand: the two never write at once (TSan runs this test), and
// every input ends up written exactly in order.
TEST(TradeRecorderTest, ASynchronousCommitDuringTheGapLeavesOneWriter) {
  testsupport::TempDir dir("cfx_recorder");
  ASSERT_FALSE(dir.path().empty());
  uint64_t seq = 0;
  {
    auto recorder = TradeRecorder::Open(dir.path());
    ASSERT_TRUE(recorder.ok()) << recorder.status();
    for (int round = 0; round < 40; ++round) {
      (*recorder)->EndInput(++seq);
      ASSERT_TRUE((*recorder)->CommitInBackground().ok());  // first one: committed at once
      (*recorder)->EndInput(++seq);
      ASSERT_TRUE((*recorder)->CommitInBackground().ok());  // held by the gap
      (*recorder)->EndInput(++seq);
      ASSERT_TRUE((*recorder)->Commit().ok());  // takes the held rows and its own
      EXPECT_EQ((*recorder)->last_seq(), seq);
    }
    ASSERT_TRUE((*recorder)->WaitCommitted(seq, std::chrono::seconds(10)));
  }
  auto reopened = TradeRecorder::Open(dir.path());
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ((*reopened)->last_seq(), seq);
}

}  // namespace
}  // namespace cfx::exchange
