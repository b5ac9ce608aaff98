// The engine bench stream (EngineCommands) against the book driver it is compared with.
#include "cfx/engine/workload.h"

#include <variant>

#include "cfx/engine/memory_floor.h"
#include "gtest/gtest.h"

namespace cfx::engine {
namespace {

TEST(EngineWorkloadTest, OneAccountPerOrderTradesAsTheBookDriver) {
  // Distinct accounts: no self-trade prevention, so the engine prints the book's trades.
  std::vector<WorkItem> items = LiquibookWorkload(20000, 3);
  EventCounts counts = RunEngineOnce(EngineCommands(items, 20000));
  EXPECT_EQ(counts.accepted, 20000u);
  EXPECT_EQ(counts.trades, RunBookOnce(items));
  EXPECT_GT(counts.trades, 0u);
  EXPECT_EQ(counts.stp_canceled, 0u);
  EXPECT_EQ(counts.rejected, 0u);
}

TEST(EngineWorkloadTest, SharedAccountsPreventSelfTrades) {
  EventCounts counts = RunEngineOnce(EngineCommands(LiquibookWorkload(20000, 3), 16));
  EXPECT_GT(counts.stp_canceled, 0u);
  EXPECT_GT(counts.trades, 0u);
}

TEST(EngineWorkloadTest, CancelsAndReplacesNameTheOrdersCurrentClientId) {
  // The mixed stream with its IOCs moved out of reach: nothing trades, so every cancel and
  // replace (including those after a replace renamed the order) finds a live order.
  std::vector<WorkItem> items = MixedWorkload(20000, 3);
  uint64_t iocs = 0, cancels = 0, replaces = 0;
  for (WorkItem& w : items) {
    if (w.op == WorkItem::Op::kNew && w.tif == TimeInForce::kIoc) {
      w.px = PriceTicks(w.side == Side::kBuy ? 1 : 20000);  // resting prices are 10000 ± 375
      ++iocs;
    }
    cancels += w.op == WorkItem::Op::kCancel;
    replaces += w.op == WorkItem::Op::kReplace;
  }
  ASSERT_GT(replaces, 0u);
  EventCounts counts = RunEngineOnce(EngineCommands(items, 16));
  EXPECT_EQ(counts.trades, 0u);
  EXPECT_EQ(counts.cancel_rejected, 0u);
  EXPECT_EQ(counts.replaced, replaces);
  EXPECT_EQ(counts.canceled, cancels + iocs);  // the IOCs end unfilled
}

// The memory floors do the id check they stand for: every new order of the stream is
// entered once (resting_at_end counts the orders entered), and an id an account used
// before is caught, with names (the Engine's commands) and with handles.
TEST(EngineWorkloadTest, TheMemoryFloorsEnterEachNewOrderOnceAndCatchAReusedId) {
  std::vector<Command> commands = EngineCommands(LiquibookWorkload(5000, 3), 16);
  EXPECT_EQ(RunMemoryFloor(commands).resting_at_end, 5000u);
  EXPECT_EQ(RunMemoryFloorWithHandles(commands).resting_at_end, 5000u);
  // Order 4,000 reuses order 100's id on the same account: refused by both.
  auto& again = std::get<NewOrderCmd>(commands[4000]);
  again.cl = std::get<NewOrderCmd>(commands[100]).cl;
  again.acct = std::get<NewOrderCmd>(commands[100]).acct;
  EXPECT_EQ(RunMemoryFloor(commands).resting_at_end, 4999u);
  EXPECT_EQ(RunMemoryFloorWithHandles(commands).resting_at_end, 4999u);
  // The same id on another account is another order.
  again.acct = std::get<NewOrderCmd>(commands[101]).acct;
  ASSERT_FALSE(again.acct == std::get<NewOrderCmd>(commands[100]).acct);
  EXPECT_EQ(RunMemoryFloor(commands).resting_at_end, 5000u);
  EXPECT_EQ(RunMemoryFloorWithHandles(commands).resting_at_end, 5000u);
}

}  // namespace
}  // namespace cfx::engine
