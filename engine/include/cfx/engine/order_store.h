// Preallocated pool of orders plus the indexes the engine needs: oid -> slot (open
// addressing, linear probing, backward-shift deletion) and the live slots.
//
// No acceptance-order list (issue #13): an intrusive list linked each order to the orders
// accepted just before and after it, so releasing an order that had rested wrote two order
// slots accepted as long ago, each a cold miss. The live slots are a dense array instead
// (4 bytes an order; a release moves the array's last entry into the hole and writes that
// one order's place: one slot, often a recent order's), and, order ids being given in
// acceptance order (Allocate's REQUIRES), ForEachLive sorts the live orders by id:
// O(L log L) for L live orders on the rare walks (mass cancel, cancel-on-disconnect, close,
// expiry, snapshots), nothing on the order path.
//
// No per-account list (issue #13): an intrusive list per account links an order to its
// account's previous order, which with 100,000 accounts was accepted long ago, so accepting
// and releasing touched two or three cold order slots and `cfx bench book --engine
// --accounts 100000` ran at half the 16-account speed; block chains per account cost about
// 40% of the book's throughput in the same way. Mass cancel by account walks every live
// order instead, as cancel-on-disconnect and `close` do: its cost grows with the live
// orders, and no order's cost grows with the accounts.
//
// Steady state allocates nothing: slots come from a free list, the map is sized up front.
// Growth (pool or map beyond the configured capacity) allocates and is logged as a warm-up
// cost, never an error.
// Thread safety: none; owned by one matcher thread.
#ifndef CFX_ENGINE_ORDER_STORE_H_
#define CFX_ENGINE_ORDER_STORE_H_

#include <vector>

#include "cfx/engine/huge_page_allocator.h"
#include "cfx/engine/order.h"

namespace cfx::engine {

class OrderStore {
 public:
  explicit OrderStore(size_t capacity = 1 << 16);

  // Returns a fresh slot (fields default) with `oid` indexed.
  // REQUIRES: `oid` is above every oid allocated before (ids are given in acceptance order).
  uint32_t Allocate(OrderId oid, AccountId acct);
  // Unlinks the order from every index and returns its slot to the pool.
  void Release(uint32_t slot);
  // Returns kNoSlot when `oid` is not live.
  uint32_t Find(OrderId oid) const;

  Order& at(uint32_t slot) { return pool_[slot]; }
  const Order& at(uint32_t slot) const { return pool_[slot]; }
  size_t live_count() const { return live_slots_.size(); }
  // Calls fn(slot) for every live order, in acceptance order (by oid). fn may release the
  // order it is given, not others, and allocates none.
  template <typename Fn>
  void ForEachLive(Fn&& fn) const {
    if (walking_) {  // a walk inside a walk (none today) gets a list of its own
      std::vector<MapEntry> own;
      LiveByOid(&own);
      for (const MapEntry& e : own) fn(e.slot);
      return;
    }
    struct Walking {  // cleared however the walk ends (a callback may throw bad_alloc)
      bool& flag;
      ~Walking() { flag = false; }
    } walking{walking_};
    walking_ = true;
    LiveByOid(&walk_);
    for (const MapEntry& e : walk_) fn(e.slot);
  }

 private:
  struct MapEntry {
    OrderId oid = 0;  // 0: empty
    uint32_t slot = kNoSlot;
  };
  // Oids are assigned sequentially and live orders form a moving window, so the identity
  // (mod table size) spreads them without collisions while the window fits the table and
  // keeps neighbouring ids in neighbouring cache lines.
  size_t Bucket(OrderId oid) const { return oid & (map_.size() - 1); }
  // The live orders' entries into *out, by oid.
  void LiveByOid(std::vector<MapEntry>* out) const;
  void MapInsert(OrderId oid, uint32_t slot);
  void MapErase(OrderId oid);
  void GrowMap();
  void GrowPool();

  // Huge pages where the kernel allows: orders and ids are reached at random.
  std::vector<Order, HugePageAllocator<Order>> pool_;
  std::vector<uint32_t> free_;
  std::vector<MapEntry, HugePageAllocator<MapEntry>> map_;
  int shift_ = 64;
  size_t map_size_ = 0;
  std::vector<uint32_t> live_slots_;  // Order::live_idx is each one's place
  OrderId last_oid_ = 0;  // the highest allocated (Allocate's REQUIRES)
  // ForEachLive's list, kept between walks so that a walk allocates only when the live
  // orders outgrow every earlier walk (steady state allocates nothing).
  mutable std::vector<MapEntry> walk_;
  mutable bool walking_ = false;
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_ORDER_STORE_H_
