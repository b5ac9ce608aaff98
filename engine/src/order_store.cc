#include "cfx/engine/order_store.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <type_traits>

namespace cfx::engine {

OrderStore::OrderStore(size_t capacity) {
  if (capacity < 16) capacity = 16;
  pool_.resize(capacity);
  free_.reserve(capacity);
  for (size_t i = capacity; i-- > 0;) free_.push_back(static_cast<uint32_t>(i));
  live_slots_.reserve(capacity);
}

void OrderStore::GrowPool() {
  size_t old = pool_.size();
  pool_.resize(old * 2);
  free_.reserve(pool_.size());
  live_slots_.reserve(pool_.size());
  for (size_t i = pool_.size(); i-- > old;) free_.push_back(static_cast<uint32_t>(i));
}

void OrderStore::LiveByOid(std::vector<MapEntry>* out) const {
  out->clear();
  // As many as the live list holds before it grows: allocated again only when it was.
  out->reserve(live_slots_.capacity());
  for (const uint32_t s : live_slots_) out->push_back(MapEntry{pool_[s].oid, s});
  std::sort(out->begin(), out->end(),
            [](const MapEntry& a, const MapEntry& b) { return a.oid < b.oid; });
}

uint32_t OrderStore::Allocate(OrderId oid, AccountId acct) {
  assert(oid > last_oid_);
  last_oid_ = oid;
  if (free_.empty()) GrowPool();
  uint32_t slot = free_.back();
  free_.pop_back();
  // The next order's slot, for writing: a fresh slot is a cold miss (the pool is hundreds of
  // MiB), which then overlaps this order's and the next command's work.
  if (!free_.empty()) {
    const char* next = reinterpret_cast<const char*>(&pool_[free_.back()]);
    for (size_t off = 0; off < sizeof(Order); off += 64) __builtin_prefetch(next + off, 1, 3);
    __builtin_prefetch(next + sizeof(Order) - 1, 1, 3);
  }
  // Copied from a constant rather than assigned from a fresh Order{}: that built the
  // default on the stack (`rep stos`) and copied it, a tenth of the Engine path.
  static_assert(std::is_trivially_copyable_v<Order>);
  static const Order kFresh{};
  Order& o = pool_[slot];
  std::memcpy(static_cast<void*>(&o), &kFresh, sizeof(Order));
  o.oid = oid;
  o.acct = acct;
  o.live = true;
  o.live_idx = static_cast<uint32_t>(live_slots_.size());
  live_slots_.push_back(slot);
  return slot;
}

void OrderStore::Release(uint32_t slot) {
  Order& o = pool_[slot];
  assert(o.live);
  const uint32_t moved = live_slots_.back();
  live_slots_[o.live_idx] = moved;
  pool_[moved].live_idx = o.live_idx;
  live_slots_.pop_back();
  o.live = false;
  o.live_idx = kNoSlot;
  free_.push_back(slot);
}

}  // namespace cfx::engine
