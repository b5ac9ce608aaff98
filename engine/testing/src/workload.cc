#include "cfx/engine/workload.h"

#include <x86intrin.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <string_view>
#include <variant>

#include "absl/strings/str_cat.h"
#include "cfx/engine/engine.h"
#include "cfx/engine/order_book.h"

namespace cfx::engine {

std::vector<WorkItem> LiquibookWorkload(size_t orders, unsigned seed) {
  std::vector<WorkItem> items(orders);
  std::srand(seed);
  for (size_t i = 0; i < orders; ++i) {
    bool buy = i % 2 == 0;
    WorkItem& w = items[i];
    w.side = buy ? Side::kBuy : Side::kSell;
    w.px = PriceTicks(std::rand() % 10 + (buy ? 1880 : 1884));
    w.qty = Qty((std::rand() % 10 + 1) * 100);
  }
  return items;
}

std::vector<WorkItem> MixedWorkload(size_t orders, uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Plain tick numbers while generating; the items carry PriceTicks / Qty.
  constexpr int64_t kMid = 10000;
  constexpr int64_t kHalfSpan = 375;  // ~750 prices
  constexpr size_t kTargetLive = 1000;
  struct Live {
    OrderId oid;
    Side side;
    int64_t px;
  };
  std::vector<Live> live;
  std::vector<WorkItem> items;
  items.reserve(orders);
  OrderId next_oid = 1;
  auto new_resting = [&]() {
    WorkItem w;
    w.side = rng() % 2 ? Side::kBuy : Side::kSell;
    w.tif = TimeInForce::kGtc;
    int64_t off = 1 + static_cast<int64_t>(rng() % kHalfSpan);
    const int64_t px = w.side == Side::kBuy ? kMid - off : kMid + off;
    w.px = PriceTicks(px);
    w.qty = Qty(1 + static_cast<int64_t>(rng() % 20));
    live.push_back({next_oid++, w.side, px});
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
      int64_t off = static_cast<int64_t>(rng() % 20);
      w.px = PriceTicks(w.side == Side::kBuy ? kMid + off : kMid - off);
      w.qty = Qty(1 + static_cast<int64_t>(rng() % 10));
      ++next_oid;
      items.push_back(w);
    } else if (roll >= 12 && roll < 18) {  // cancel; below the target size: a new order
      if (live.size() < kTargetLive) {
        new_resting();
      } else {
        size_t k = rng() % live.size();
        items.push_back(WorkItem{WorkItem::Op::kCancel, live[k].side, TimeInForce::kGtc,
                                 PriceTicks(0), Qty(0), live[k].oid});
        live[k] = live.back();
        live.pop_back();
      }
    } else if (roll >= 18) {  // move by a few ticks, staying on its side of the mid
      size_t k = rng() % live.size();
      int64_t step = static_cast<int64_t>(rng() % 11) - 5;
      int64_t px =
          std::clamp(live[k].px + step, live[k].side == Side::kBuy ? kMid - kHalfSpan : kMid + 1,
                     live[k].side == Side::kBuy ? kMid - 1 : kMid + kHalfSpan);
      live[k].px = px;
      WorkItem w{WorkItem::Op::kReplace,
                 live[k].side,
                 TimeInForce::kGtc,
                 PriceTicks(px),
                 Qty(1 + static_cast<int64_t>(rng() % 20)),
                 live[k].oid};
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
    c.max_order_qty = Qty(INT64_MAX);
    return c;
  }
  void Apply(const WorkItem& w) {
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
    for (const Event& e : ctx_.events) trades_ += e.type == EventType::kTrade;
  }
  uint64_t trades() const { return trades_; }
  size_t resting() const { return book_.resting_count(); }

 private:
  MatchContext ctx_;
  OrderBook book_;
  OrderId next_oid_ = 1;
  uint64_t trades_ = 0;
};

constexpr std::string_view kBenchSymbol = "BENCH";

// One benchmark engine: the bench contract listed (band off, max qty unlimited), a counting
// listener, the order pool and the client-id map reserved for `orders` and `client_ids`.
class BenchEngine {
 public:
  BenchEngine(size_t orders, size_t client_ids) : engine_(Config(orders, client_ids)) {
    ProductCmd p;
    p.sym = Name::From(kBenchSymbol);
    p.band_percent = 0;
    p.max_order_qty = Qty(INT64_MAX);
    engine_.Process(p);
    engine_.set_listener(&listener_);
  }
  static EngineConfig Config(size_t orders, size_t client_ids) {
    EngineConfig c;
    c.order_capacity = orders;
    c.client_id_capacity = client_ids;
    return c;
  }
  void Apply(const Command& c) { engine_.Process(c); }
  // What a pipeline holding the next inputs does (journal::Pipeline's matcher thread).
  void Ahead(const Command& c) const { engine_.Prefetch(c); }
  uint64_t trades() const { return listener_.counts().trades; }
  size_t resting() const { return engine_.book(0).resting_count(); }
  const EventCounts& counts() const { return listener_.counts(); }

 private:
  CountingListener listener_;
  Engine engine_;
};

// How far ahead a driver with Ahead() is told of the inputs to come: Engine::kPrefetchAhead,
// which journal::Pipeline's matcher thread uses too, so the bench times what `cfx serve` does.
constexpr size_t kAhead = Engine::kPrefetchAhead;

// Calls d.Ahead(inputs[i + kAhead]) when the driver has it and that input exists, and brings
// in the input twice as far ahead, for Ahead to read. The stream of commands (0.26 KB each,
// 0.8 GB for 3 M) is the bench's, not the engine's: in `cfx serve` a command is read from a
// ring slot the sequencer has just written, which the pipeline's matcher brings in ahead the
// same way (journal::Pipeline). Without this a third of the Engine path's time was the
// stream's cache misses (docs/performance.md, "one hash a name").
template <typename Driver, typename Input>
void TellAhead(const Driver& d, const std::vector<Input>& inputs, size_t i) {
  if constexpr (requires(const Driver& x, const Input& in) { x.Ahead(in); }) {
    if (i + 2 * kAhead < inputs.size()) {
      const char* next = reinterpret_cast<const char*>(&inputs[i + 2 * kAhead]);
      for (size_t off = 0; off < sizeof(Input); off += 64) __builtin_prefetch(next + off);
      __builtin_prefetch(next + sizeof(Input) - 1);
    }
    if (i + kAhead < inputs.size()) d.Ahead(inputs[i + kAhead]);
  }
}

// Times `inputs` through fresh drivers from `make()` (a std::unique_ptr<Driver>), one at a
// time as each is freed before the next is made: pass 1 times the whole batch and hands its
// driver to `pass1_done`; pass 2 times each input with rdtsc, calibrated against
// steady_clock over the pass. Driver: Apply(input), trades(), resting(), and optionally
// Ahead(input) (a prefetch hint, see TellAhead).
template <typename Input, typename Make, typename Done>
BenchFigures TimeStream(const std::vector<Input>& inputs, Make make, Done pass1_done) {
  BenchFigures f;
  using Clock = std::chrono::steady_clock;
  {
    auto first = make();
    auto t0 = Clock::now();
    for (size_t i = 0; i < inputs.size(); ++i) {
      TellAhead(*first, inputs, i);
      first->Apply(inputs[i]);
    }
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    f.ns_per_order = ns / static_cast<double>(inputs.size());
    f.orders_per_sec = 1e9 / f.ns_per_order;
    f.trades = first->trades();
    f.resting_at_end = first->resting();
    pass1_done(*first);
  }
  {
    auto second = make();
    std::vector<uint64_t> ticks(inputs.size());
    auto t0 = Clock::now();
    uint64_t c0 = __rdtsc();
    for (size_t i = 0; i < inputs.size(); ++i) {
      uint64_t a = __rdtsc();
      TellAhead(*second, inputs, i);
      second->Apply(inputs[i]);
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

// Client ids the commands take (they stay taken); at least the orders they enter.
size_t ClientIdCount(const std::vector<Command>& commands) {
  size_t ids = 16;
  for (const Command& c : commands) {
    ids += std::holds_alternative<NewOrderCmd>(c) || std::holds_alternative<ReplaceCmd>(c);
  }
  return ids;
}

}  // namespace

uint64_t RunBookOnce(const std::vector<WorkItem>& items) {
  auto book = std::make_unique<BenchBook>(1 << 16);
  for (const WorkItem& w : items) book->Apply(w);
  return book->trades();
}

BenchFigures RunBookBench(const std::vector<WorkItem>& items) {
  // Size the pool for the stream (Liquibook's stream leaves ~half its orders resting), so
  // the timed loops never grow it.
  size_t capacity = 16;
  for (const WorkItem& w : items) capacity += w.op == WorkItem::Op::kNew;
  return TimeStream(
      items, [&] { return std::make_unique<BenchBook>(capacity); }, [](const BenchBook&) {});
}

std::vector<Command> EngineCommands(const std::vector<WorkItem>& items, uint32_t accounts) {
  assert(accounts >= 1);
  std::vector<Name> names(accounts);
  for (uint32_t a = 0; a < accounts; ++a) names[a] = Name::From(absl::StrCat("A", a));
  const Name sym = Name::From(kBenchSymbol);
  std::vector<ClientId> cl_of;       // by target (oid - 1): the order's current client id
  std::vector<uint32_t> account_of;  // by target (oid - 1)
  std::vector<Command> commands;
  commands.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const WorkItem& w = items[i];
    switch (w.op) {
      case WorkItem::Op::kNew: {
        const uint64_t k = cl_of.size();
        NewOrderCmd n;
        n.cl = ClientId::From(absl::StrCat("c", k));
        n.acct = names[(k + k / accounts) % accounts];
        n.sym = sym;
        n.side = w.side;
        n.tif = w.tif;
        n.px = PriceField::Ticks(w.px);
        n.qty = w.qty;
        cl_of.push_back(n.cl);
        account_of.push_back(static_cast<uint32_t>((k + k / accounts) % accounts));
        commands.push_back(n);
        break;
      }
      case WorkItem::Op::kCancel: {
        CancelCmd c;
        c.orig = cl_of[w.target - 1];
        c.acct = names[account_of[w.target - 1]];
        commands.push_back(c);
        break;
      }
      case WorkItem::Op::kReplace: {
        ReplaceCmd r;
        r.cl = ClientId::From(absl::StrCat("r", i));
        r.orig = cl_of[w.target - 1];
        r.acct = names[account_of[w.target - 1]];
        r.px = PriceField::Ticks(w.px);
        r.has_qty = true;
        r.qty = w.qty;
        cl_of[w.target - 1] = r.cl;
        commands.push_back(r);
        break;
      }
    }
  }
  return commands;
}

BenchFigures RunEngineBench(const std::vector<Command>& commands, EventCounts* counts) {
  // Sized for the stream, as RunBookBench, so the timed loops never grow the pool or map.
  const size_t ids = ClientIdCount(commands);
  return TimeStream(
      commands, [&] { return std::make_unique<BenchEngine>(ids, ids); },
      [&](const BenchEngine& e) { *counts = e.counts(); });
}

EventCounts RunEngineOnce(const std::vector<Command>& commands) {
  // The pool as RunBookOnce's; the id map reserved (reserving is cheap, growing is not).
  auto engine = std::make_unique<BenchEngine>(1 << 16, ClientIdCount(commands));
  for (const Command& c : commands) engine->Apply(c);
  return engine->counts();
}

}  // namespace cfx::engine
