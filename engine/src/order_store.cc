#include "cfx/engine/order_store.h"

#include <algorithm>
#include <bit>
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
  // Load factor ≤ 1/2 keeps linear-probe chains short.
  size_t buckets = std::bit_ceil(capacity * 2);
  map_.assign(buckets, MapEntry{});
  shift_ = 64 - std::countr_zero(buckets);
}

void OrderStore::GrowPool() {
  size_t old = pool_.size();
  pool_.resize(old * 2);
  free_.reserve(pool_.size());
  live_slots_.reserve(pool_.size());
  for (size_t i = pool_.size(); i-- > old;) free_.push_back(static_cast<uint32_t>(i));
}

void OrderStore::GrowMap() {
  auto old = std::move(map_);
  map_.assign(old.size() * 2, MapEntry{});
  shift_ -= 1;
  map_size_ = 0;
  for (const MapEntry& e : old) {
    if (e.oid != 0) MapInsert(e.oid, e.slot);
  }
}

void OrderStore::MapInsert(OrderId oid, uint32_t slot) {
  if ((map_size_ + 1) * 2 > map_.size()) GrowMap();
  size_t mask = map_.size() - 1;
  size_t i = Bucket(oid);
  while (map_[i].oid != 0) i = (i + 1) & mask;
  map_[i] = MapEntry{oid, slot};
  ++map_size_;
}

void OrderStore::LiveByOid(std::vector<MapEntry>* out) const {
  out->clear();
  // As many as the live list holds before it grows: allocated again only when it was.
  out->reserve(live_slots_.capacity());
  for (const uint32_t s : live_slots_) out->push_back(MapEntry{pool_[s].oid, s});
  std::sort(out->begin(), out->end(),
            [](const MapEntry& a, const MapEntry& b) { return a.oid < b.oid; });
}

uint32_t OrderStore::Find(OrderId oid) const {
  if (oid == 0) return kNoSlot;
  size_t mask = map_.size() - 1;
  for (size_t i = Bucket(oid);; i = (i + 1) & mask) {
    if (map_[i].oid == oid) return map_[i].slot;
    if (map_[i].oid == 0) return kNoSlot;
  }
}

void OrderStore::MapErase(OrderId oid) {
  size_t mask = map_.size() - 1;
  size_t i = Bucket(oid);
  while (map_[i].oid != oid) {
    assert(map_[i].oid != 0);
    i = (i + 1) & mask;
  }
  // Backward-shift deletion: move later entries of the probe chain into the hole when
  // their home bucket does not lie cyclically in (hole, j].
  size_t hole = i;
  for (size_t j = (hole + 1) & mask; map_[j].oid != 0; j = (j + 1) & mask) {
    size_t home = Bucket(map_[j].oid);
    bool home_in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!home_in_range) {
      map_[hole] = map_[j];
      hole = j;
    }
  }
  map_[hole] = MapEntry{};
  --map_size_;
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
  MapInsert(oid, slot);
  o.live_idx = static_cast<uint32_t>(live_slots_.size());
  live_slots_.push_back(slot);
  return slot;
}

void OrderStore::Release(uint32_t slot) {
  Order& o = pool_[slot];
  assert(o.live);
  MapErase(o.oid);
  const uint32_t moved = live_slots_.back();
  live_slots_[o.live_idx] = moved;
  pool_[moved].live_idx = o.live_idx;
  live_slots_.pop_back();
  o.live = false;
  o.live_idx = kNoSlot;
  free_.push_back(slot);
}

}  // namespace cfx::engine
