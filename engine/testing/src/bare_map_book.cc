// The yardstick of the book benchmarks: a bare price-time book on std::map (the textbook
// structure), with no order ids, no events, no validation and no allocation pool, fed the
// same WorkItem stream. It does only what every book must do per order (find the best
// opposite level, fill FIFO, rest the remainder), so cfx's book and Engine are measured as
// a ratio to it in the same run (docs/performance.md).
#include <chrono>
#include <deque>
#include <functional>
#include <map>

#include "cfx/engine/workload.h"

namespace cfx::engine {
namespace {

class BareMapBook {
 public:
  void Apply(const WorkItem& w) {
    if (w.op != WorkItem::Op::kNew) return;  // keeps no ids: cancels and replaces are no-ops
    int64_t left = w.qty.value();
    const int64_t px = w.px.value();
    if (w.side == Side::kBuy) {
      left = Match(asks_, left, [px](int64_t best) { return best <= px; });
      if (left > 0 && w.tif != TimeInForce::kIoc) bids_[px].push_back(left);
    } else {
      left = Match(bids_, left, [px](int64_t best) { return best >= px; });
      if (left > 0 && w.tif != TimeInForce::kIoc) asks_[px].push_back(left);
    }
  }
  uint64_t trades() const { return trades_; }
  uint64_t resting() const {
    uint64_t n = 0;
    for (const auto& [px, level] : bids_) n += level.size();
    for (const auto& [px, level] : asks_) n += level.size();
    return n;
  }

 private:
  template <typename Side, typename Crosses>
  int64_t Match(Side& side, int64_t left, Crosses crosses) {
    while (left > 0 && !side.empty() && crosses(side.begin()->first)) {
      std::deque<int64_t>& level = side.begin()->second;
      int64_t& resting = level.front();
      const int64_t q = std::min(left, resting);
      left -= q;
      resting -= q;
      ++trades_;
      if (resting == 0) level.pop_front();
      if (level.empty()) side.erase(side.begin());
    }
    return left;
  }

  std::map<int64_t, std::deque<int64_t>, std::greater<>> bids_;
  std::map<int64_t, std::deque<int64_t>> asks_;
  uint64_t trades_ = 0;
};

}  // namespace

BenchFigures RunBareMapBook(const std::vector<WorkItem>& items) {
  BenchFigures f;
  BareMapBook book;
  const auto t0 = std::chrono::steady_clock::now();
  for (const WorkItem& w : items) book.Apply(w);
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  f.ns_per_order = ns / static_cast<double>(items.size());
  f.orders_per_sec = 1e9 / f.ns_per_order;
  f.trades = book.trades();
  f.resting_at_end = book.resting();
  return f;
}

}  // namespace cfx::engine
