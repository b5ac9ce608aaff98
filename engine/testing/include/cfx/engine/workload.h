// Synthetic order streams and the benchmark drivers used by `cfx bench book [--engine]` and
// perf/engine/{book,engine}_bench.cc. The book driver feeds one OrderBook directly (as
// Liquibook's own benchmark does): no parsing, no id maps, events collected and counted per
// order. The engine driver feeds the same stream to an Engine as the gateway's commands
// (client ids, accounts, validation, self-trade prevention) and counts the events its
// listener receives.
#ifndef CFX_ENGINE_WORKLOAD_H_
#define CFX_ENGINE_WORKLOAD_H_

#include <cstdint>
#include <vector>

#include "cfx/engine/command.h"
#include "cfx/engine/events.h"
#include "cfx/engine/types.h"

namespace cfx::engine {

struct WorkItem {
  enum class Op : uint8_t { kNew, kCancel, kReplace };
  Op op = Op::kNew;
  Side side = Side::kBuy;
  TimeInForce tif = TimeInForce::kDay;
  PriceTicks px{0};
  Qty qty{0};
  OrderId target = 0;  // kCancel / kReplace: the order (oids are 1, 2, ... per kNew)
};

// Liquibook's stream: alternate buy/sell (buy first); srand(seed); per order
// px = rand() % 10 + (buy ? 1880 : 1884), qty = (rand() % 10 + 1) * 100; limit/day.
std::vector<WorkItem> LiquibookWorkload(size_t orders, unsigned seed);

// exchange-core-like mix: ~9% GTC limit, 3% IOC, 6% cancel, 82% replace (move), keeping
// about 1,000 resting orders over about 750 prices.
std::vector<WorkItem> MixedWorkload(size_t orders, uint64_t seed);

struct BenchFigures {
  double orders_per_sec = 0;
  double ns_per_order = 0;
  double p50_ns = 0, p99_ns = 0, p999_ns = 0;
  uint64_t trades = 0;
  uint64_t resting_at_end = 0;
};

// Pass 1 times the whole batch; pass 2 (fresh book) times every order with rdtsc.
BenchFigures RunBookBench(const std::vector<WorkItem>& items);

// The yardstick: the items through a bare std::map price-time book (no ids, no events, no
// validation; cancels and replaces ignored), one timed pass (throughput, trades, resting).
BenchFigures RunBareMapBook(const std::vector<WorkItem>& items);

// Runs the items through a fresh book once; returns trades (for Google Benchmark loops).
uint64_t RunBookOnce(const std::vector<WorkItem>& items);

// The items as the gateway would send them for one contract. The k-th kNew (k = 0, 1, ...)
// gets client id "c<k>" and account "A<(k + k / accounts) % accounts>" (round robin, shifted
// each round so that every account sends both sides of an alternating stream); kCancel and
// kReplace name the target's current client id, and the i-th item, a replace, gives it
// "r<i>". A replace's qty is the new total (the book driver keeps the leaves instead).
// REQUIRES: accounts >= 1.
std::vector<Command> EngineCommands(const std::vector<WorkItem>& items, uint32_t accounts);

struct EventCounts {
  uint64_t accepted = 0, rejected = 0, trades = 0, canceled = 0, stp_canceled = 0;
  uint64_t replaced = 0, cancel_rejected = 0;
};

// The bench listener: counts events by type (STP cancels also on their own), nothing else.
class CountingListener final : public EngineListener {
 public:
  void OnAccepted(const Event&) override { ++counts_.accepted; }
  void OnRejected(const Event&) override { ++counts_.rejected; }
  void OnTrade(const Event&) override { ++counts_.trades; }
  void OnCanceled(const Event& e) override {
    ++counts_.canceled;
    counts_.stp_canceled += e.cancel == CancelReason::kStp;
  }
  void OnReplaced(const Event&) override { ++counts_.replaced; }
  void OnCancelRejected(const Event&) override { ++counts_.cancel_rejected; }
  const EventCounts& counts() const { return counts_; }

 private:
  EventCounts counts_;
};

// As RunBookBench, through a fresh Engine per pass (the contract listed with its band and
// qty limit off, capacities sized for the stream) with a CountingListener; `counts` gets
// pass 1's events. Latency is Engine::Process, listener delivery included.
BenchFigures RunEngineBench(const std::vector<Command>& commands, EventCounts* counts);

// Runs the commands through a fresh engine once; returns its events (for Google Benchmark).
EventCounts RunEngineOnce(const std::vector<Command>& commands);

}  // namespace cfx::engine

#endif  // CFX_ENGINE_WORKLOAD_H_
