// Preallocated pool of orders plus the indexes the engine needs: oid -> slot (open
// addressing, linear probing, backward-shift deletion) and the live orders in acceptance
// order.
//
// No per-account list (issue #13): an intrusive list per account links an order to its
// account's previous order, which with 100,000 accounts was accepted long ago, so accepting
// and releasing touched two or three cold order slots and `cfx bench book --engine
// --accounts 100000` ran at half the 16-account speed; block chains per account cost about
// 40% of the book's throughput in the same way. Mass cancel by account walks the acceptance
// list instead, as cancel-on-disconnect and `close` do: its cost grows with the live orders,
// and no order's cost grows with the accounts.
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

  // Returns a fresh slot (fields default) with `oid` indexed and linked at the end of the
  // acceptance list.
  uint32_t Allocate(OrderId oid, AccountId acct);
  // Unlinks the order from every index and returns its slot to the pool.
  void Release(uint32_t slot);
  // Returns kNoSlot when `oid` is not live.
  uint32_t Find(OrderId oid) const;

  Order& at(uint32_t slot) { return pool_[slot]; }
  const Order& at(uint32_t slot) const { return pool_[slot]; }
  size_t live_count() const { return live_; }
  // Calls fn(slot) for every live order, in acceptance order. fn may release the order it is
  // given (the next one is read before the call), not others.
  template <typename Fn>
  void ForEachLive(Fn&& fn) const {
    for (uint32_t s = all_head_; s != kNoSlot;) {
      const uint32_t next = pool_[s].all_next;
      fn(s);
      s = next;
    }
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
  size_t live_ = 0;
  uint32_t all_head_ = kNoSlot, all_tail_ = kNoSlot;
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_ORDER_STORE_H_
