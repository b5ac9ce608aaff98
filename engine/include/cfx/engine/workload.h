// Synthetic order streams and the book benchmark driver used by `cfx bench book` and
// perf/engine/book_bench.cc. The driver feeds one OrderBook directly (as Liquibook's own
// benchmark does): no parsing, no id maps, events collected and counted per order.
#ifndef CFX_ENGINE_WORKLOAD_H_
#define CFX_ENGINE_WORKLOAD_H_

#include <cstdint>
#include <vector>

#include "cfx/engine/types.h"

namespace cfx::engine {

struct WorkItem {
  enum class Op : uint8_t { kNew, kCancel, kReplace };
  Op op = Op::kNew;
  Side side = Side::kBuy;
  TimeInForce tif = TimeInForce::kDay;
  PriceTicks px = 0;
  Qty qty = 0;
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

// Runs the items through a fresh book once; returns trades (for Google Benchmark loops).
uint64_t RunBookOnce(const std::vector<WorkItem>& items);

}  // namespace cfx::engine

#endif  // CFX_ENGINE_WORKLOAD_H_
