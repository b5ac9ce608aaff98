#include "cfx/engine/workload.h"

#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>

#include "cfx/engine/order_book.h"

namespace cfx::engine {

std::vector<WorkItem> LiquibookWorkload(size_t orders, unsigned seed) {
  std::vector<WorkItem> items(orders);
  std::srand(seed);
  for (size_t i = 0; i < orders; ++i) {
    bool buy = i % 2 == 0;
    WorkItem& w = items[i];
    w.side = buy ? Side::kBuy : Side::kSell;
    w.px = std::rand() % 10 + (buy ? 1880 : 1884);
    w.qty = (std::rand() % 10 + 1) * 100;
  }
  return items;
}

std::vector<WorkItem> MixedWorkload(size_t orders, uint64_t seed) {
  std::mt19937_64 rng(seed);
  constexpr PriceTicks kMid = 10000;
  constexpr PriceTicks kHalfSpan = 375;  // ~750 prices
  constexpr size_t kTargetLive = 1000;
  struct Live {
    OrderId oid;
    Side side;
    PriceTicks px;
  };
  std::vector<Live> live;
  std::vector<WorkItem> items;
  items.reserve(orders);
  OrderId next_oid = 1;
  auto new_resting = [&]() {
    WorkItem w;
    w.side = rng() % 2 ? Side::kBuy : Side::kSell;
    w.tif = TimeInForce::kGtc;
    PriceTicks off = 1 + static_cast<PriceTicks>(rng() % kHalfSpan);
    w.px = w.side == Side::kBuy ? kMid - off : kMid + off;
    w.qty = 1 + static_cast<Qty>(rng() % 20);
    live.push_back({next_oid++, w.side, w.px});
    items.push_back(w);
  };
  while (live.size() < kTargetLive) new_resting();
  while (items.size() < orders) {
    unsigned roll = static_cast<unsigned>(rng() % 100);
    if (roll < 9) {  // GTC limit; at the target size it replaces a cancel
      if (live.size() >= kTargetLive) roll = 10;
      else new_resting();
    }
    if (roll >= 9 && roll < 12) {  // IOC across the spread
      WorkItem w;
      w.side = rng() % 2 ? Side::kBuy : Side::kSell;
      w.tif = TimeInForce::kIoc;
      PriceTicks off = static_cast<PriceTicks>(rng() % 20);
      w.px = w.side == Side::kBuy ? kMid + off : kMid - off;
      w.qty = 1 + static_cast<Qty>(rng() % 10);
      ++next_oid;
      items.push_back(w);
    } else if (roll >= 12 && roll < 18) {  // cancel; below the target size: a new order
      if (live.size() < kTargetLive) {
        new_resting();
      } else {
        size_t k = rng() % live.size();
        items.push_back(WorkItem{WorkItem::Op::kCancel, live[k].side, TimeInForce::kGtc, 0, 0,
                                 live[k].oid});
        live[k] = live.back();
        live.pop_back();
      }
    } else if (roll >= 18) {  // move by a few ticks, staying on its side of the mid
      size_t k = rng() % live.size();
      PriceTicks step = static_cast<PriceTicks>(rng() % 11) - 5;
      PriceTicks px = std::clamp(live[k].px + step, live[k].side == Side::kBuy ? kMid - kHalfSpan : kMid + 1,
                                 live[k].side == Side::kBuy ? kMid - 1 : kMid + kHalfSpan);
      live[k].px = px;
      WorkItem w{WorkItem::Op::kReplace, live[k].side, TimeInForce::kGtc, px,
                 1 + static_cast<Qty>(rng() % 20), live[k].oid};
      items.push_back(w);
    }
  }
  items.resize(orders);
  return items;
}

namespace {

// One benchmark book: band off, max qty unlimited, pool sized for the stream.
class BenchBook {
 public:
  explicit BenchBook(size_t capacity)
      : ctx_(capacity), book_(Config(), &ctx_) {
    ctx_.events.reserve(4096);
  }
  static BookConfig Config() {
    BookConfig c;
    c.band_percent = 0;
    c.max_order_qty = INT64_MAX;
    return c;
  }
  // Applies one item; returns trades printed.
  uint64_t Apply(const WorkItem& w) {
    ctx_.events.clear();
    switch (w.op) {
      case WorkItem::Op::kNew: {
        uint32_t slot = ctx_.store.Allocate(next_oid_++, 0);
        Order& o = ctx_.store.at(slot);
        o.accept_seq = o.oid;
        o.side = w.side;
        o.tif = w.tif;
        o.px = w.px;
        o.qty = w.qty;
        o.firm = o.stp = static_cast<uint32_t>(o.oid);  // distinct parties: no STP
        book_.Submit(slot);
        break;
      }
      case WorkItem::Op::kCancel: {
        uint32_t slot = ctx_.store.Find(w.target);
        if (slot != kNoSlot) book_.Cancel(slot, CancelReason::kUser);
        break;
      }
      case WorkItem::Op::kReplace: {
        uint32_t slot = ctx_.store.Find(w.target);
        if (slot != kNoSlot) {
          ClientId cl = ctx_.store.at(slot).cl;
          Qty qty = ctx_.store.at(slot).cum + w.qty;
          book_.Replace(slot, cl, w.px, qty);
        }
        break;
      }
    }
    uint64_t trades = 0;
    for (const Event& e : ctx_.events) trades += e.type == EventType::kTrade;
    return trades;
  }
  size_t resting() const { return book_.resting_count(); }

 private:
  MatchContext ctx_;
  OrderBook book_;
  OrderId next_oid_ = 1;
};

}  // namespace

uint64_t RunBookOnce(const std::vector<WorkItem>& items) {
  auto book = std::make_unique<BenchBook>(1 << 16);
  uint64_t trades = 0;
  for (const WorkItem& w : items) trades += book->Apply(w);
  return trades;
}

BenchFigures RunBookBench(const std::vector<WorkItem>& items) {
  BenchFigures f;
  // Size the pool for the stream (Liquibook's stream leaves ~half its orders resting), so
  // the timed loops never grow it.
  size_t capacity = 16;
  for (const WorkItem& w : items) capacity += w.op == WorkItem::Op::kNew;
  using Clock = std::chrono::steady_clock;
  {
    auto book = std::make_unique<BenchBook>(capacity);
    auto t0 = Clock::now();
    for (const WorkItem& w : items) f.trades += book->Apply(w);
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    f.ns_per_order = ns / static_cast<double>(items.size());
    f.orders_per_sec = 1e9 / f.ns_per_order;
    f.resting_at_end = book->resting();
  }
  {
    auto book = std::make_unique<BenchBook>(capacity);
    std::vector<uint64_t> ticks(items.size());
    auto t0 = Clock::now();
    uint64_t c0 = __rdtsc();
    for (size_t i = 0; i < items.size(); ++i) {
      uint64_t a = __rdtsc();
      book->Apply(items[i]);
      ticks[i] = __rdtsc() - a;
    }
    uint64_t c1 = __rdtsc();
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    double ns_per_tick = ns / static_cast<double>(c1 - c0);
    auto pct = [&](double p) {
      size_t k = std::min(ticks.size() - 1, static_cast<size_t>(p * ticks.size()));
      std::nth_element(ticks.begin(), ticks.begin() + k, ticks.end());
      return static_cast<double>(ticks[k]) * ns_per_tick;
    };
    if (!ticks.empty()) {
      f.p50_ns = pct(0.50);
      f.p99_ns = pct(0.99);
      f.p999_ns = pct(0.999);
    }
  }
  return f;
}

}  // namespace cfx::engine
