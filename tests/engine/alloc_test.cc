// Steady state allocates nothing: after a warm-up, a long random run through the Engine
// (new/cancel/replace/market/ioc/fok/icebergs/stops) performs zero heap allocations.
// Global operator new is replaced in this test binary with a counting one.
#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include "cfx/engine/engine.h"
#include "gtest/gtest.h"

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

void* operator new(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
// The nothrow forms too (std::stable_sort's temporary buffer uses them): every new of the
// binary must pair with this file's delete, or ASan reports an alloc-dealloc mismatch.
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace cfx::engine {
namespace {

class Count : public EngineListener {
 public:
  void OnTrade(const Event&) override { ++trades; }
  uint64_t trades = 0;
};

TEST(AllocationTest, SteadyStateRunAllocatesNothing) {
  EngineConfig cfg;
  cfg.order_capacity = 1 << 16;
  cfg.client_id_capacity = 1 << 20;
  Engine engine(cfg);
  Count count;
  engine.set_listener(&count);
  ProductCmd p;
  p.sym.Assign("S");
  p.ref = PriceField::Ticks(PriceTicks(5000));
  engine.Process(p);
  const char* accts[] = {"A1", "A2", "B1", "C1"};
  std::mt19937_64 rng(42);
  uint64_t next = 1;
  auto step = [&]() {
    int roll = static_cast<int>(rng() % 100);
    const char* acct = accts[rng() % 4];
    char cl[32];
    if (roll < 15 && next > 10) {
      CancelCmd c;
      std::snprintf(cl, sizeof cl, "o%llu", static_cast<unsigned long long>(next - 1 - rng() % 10));
      c.orig.Assign(cl);
      c.acct.Assign(acct);
      engine.Process(c);
      return;
    }
    if (roll < 35 && next > 10) {
      ReplaceCmd c;
      std::snprintf(cl, sizeof cl, "o%llu", static_cast<unsigned long long>(next - 1 - rng() % 10));
      c.orig.Assign(cl);
      c.acct.Assign(acct);
      std::snprintf(cl, sizeof cl, "o%llu", static_cast<unsigned long long>(next++));
      c.cl.Assign(cl);
      c.px = PriceField::Ticks(PriceTicks(4990 + static_cast<int64_t>(rng() % 21)));
      engine.Process(c);
      return;
    }
    NewOrderCmd n;
    std::snprintf(cl, sizeof cl, "o%llu", static_cast<unsigned long long>(next++));
    n.cl.Assign(cl);
    n.acct.Assign(acct);
    n.sym.Assign("S");
    n.side = rng() % 2 ? Side::kBuy : Side::kSell;
    int t = static_cast<int>(rng() % 20);
    n.type = t < 15 ? OrderType::kLimit : t < 17 ? OrderType::kMarket : OrderType::kStopLimit;
    n.tif = static_cast<TimeInForce>(rng() % 4);
    n.px = PriceField::Ticks(PriceTicks(4990 + static_cast<int64_t>(rng() % 21)));
    n.stop = PriceField::Ticks(PriceTicks(4990 + static_cast<int64_t>(rng() % 21)));
    n.qty = Qty(1 + static_cast<int64_t>(rng() % 30));
    if (n.type == OrderType::kLimit && rng() % 5 == 0) {
      n.has_display = true;
      n.display = Qty(1 + static_cast<int64_t>(rng() % 5));
    }
    engine.Process(n);
    if (roll > 97) {
      MassCancelCmd m;
      m.acct.Assign(acct);
      engine.Process(m);
    }
  };
  for (int i = 0; i < 50000; ++i) step();  // warm-up: names interned, buffers at size
  uint64_t before = g_allocations.load();
  for (int i = 0; i < 300000; ++i) step();
  uint64_t after = g_allocations.load();
  EXPECT_EQ(after - before, 0u);
  EXPECT_GT(count.trades, 1000u);
}

}  // namespace
}  // namespace cfx::engine
