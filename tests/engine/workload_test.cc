// The engine bench stream (EngineCommands) against the book driver it is compared with.
#include "cfx/engine/workload.h"

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

}  // namespace
}  // namespace cfx::engine
