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

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "cfx/engine/engine.h"
#include "cfx/engine/order_book.h"
#include "time_stream.h"

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
      : ctx_(capacity), book_(Config(), &ctx_), slot_of_(capacity + 1, kNoSlot) {
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
        const OrderId oid = next_oid_++;
        uint32_t slot = ctx_.store.Allocate(oid, 0);
        // The store keeps no oid map (the engine reaches orders by client id); the stream's
        // cancels and replaces name oids, so the harness remembers each one's slot.
        if (oid >= slot_of_.size()) slot_of_.resize(std::max<size_t>(oid + 1, 2 * slot_of_.size()));
        slot_of_[oid] = slot;
        Order& o = ctx_.store.at(slot);
        o.side = w.side;
        o.tif = w.tif;
        o.px = w.px;
        o.qty = w.qty;
        o.firm = o.stp = static_cast<uint32_t>(o.oid);  // distinct parties: no STP
        book_.Submit(slot);
        break;
      }
      case WorkItem::Op::kCancel: {
        const uint32_t slot = SlotOf(w.target);
        if (slot != kNoSlot) book_.Cancel(slot, CancelReason::kUser);
        break;
      }
      case WorkItem::Op::kReplace: {
        const uint32_t slot = SlotOf(w.target);
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
  uint32_t SlotOf(OrderId oid) const {
    const uint32_t slot = oid < slot_of_.size() ? slot_of_[oid] : kNoSlot;
    return ctx_.store.HoldsLive(slot, oid) ? slot : kNoSlot;
  }

  MatchContext ctx_;
  OrderBook book_;
  std::vector<uint32_t> slot_of_;  // by oid: the slot it was given (it may have ended since)
  OrderId next_oid_ = 1;
  uint64_t trades_ = 0;
};

constexpr std::string_view kBenchSymbol = "BENCH";

// One benchmark engine: the bench contract listed (band off, max qty unlimited), a counting
// listener, the order pool and the client-id map reserved for `orders` and `client_ids`.
class BenchEngine {
 public:
  BenchEngine(size_t orders, size_t client_ids, size_t accounts)
      : engine_(Config(orders, client_ids, accounts)) {
    ProductCmd p;
    p.sym = Name::From(kBenchSymbol);
    p.band_percent = 0;
    p.max_order_qty = Qty(INT64_MAX);
    engine_.Process(p);
    engine_.set_listener(&listener_);
  }
  static EngineConfig Config(size_t orders, size_t client_ids, size_t accounts) {
    EngineConfig c;
    c.order_capacity = orders;
    c.client_id_capacity = client_ids;
    c.account_capacity = accounts;
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

// The accounts the commands name, as a service that configures its accounts knows them.
size_t AccountCount(const std::vector<Command>& commands) {
  absl::flat_hash_set<std::string_view> names;
  for (const Command& c : commands) {
    if (const auto* n = std::get_if<NewOrderCmd>(&c)) names.insert(n->acct.view());
  }
  return std::max<size_t>(names.size(), 16);
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
  return internal::TimeStream(
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
  const size_t accounts = AccountCount(commands);
  return internal::TimeStream(
      commands, [&] { return std::make_unique<BenchEngine>(ids, ids, accounts); },
      [&](const BenchEngine& e) { *counts = e.counts(); });
}

EventCounts RunEngineOnce(const std::vector<Command>& commands) {
  // The pool as RunBookOnce's; the id map reserved (reserving is cheap, growing is not).
  auto engine =
      std::make_unique<BenchEngine>(1 << 16, ClientIdCount(commands), AccountCount(commands));
  for (const Command& c : commands) engine->Apply(c);
  return engine->counts();
}

}  // namespace cfx::engine
