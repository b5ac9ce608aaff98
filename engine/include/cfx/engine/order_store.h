// Preallocated pool of orders plus the indexes the engine needs: oid -> slot (open
// addressing, linear probing, backward-shift deletion), the live orders in acceptance order,
// and each account's live orders in acceptance order (AccountOrders, which reads the dense
// slot -> live oid array kept here).
//
// Steady state allocates nothing: slots come from a free list, the map is sized up front.
// Growth (pool or map beyond the configured capacity) allocates and is logged as a warm-up
// cost, never an error.
// Thread safety: none; owned by one matcher thread.
#ifndef CFX_ENGINE_ORDER_STORE_H_
#define CFX_ENGINE_ORDER_STORE_H_

#include <vector>

#include "cfx/engine/account_orders.h"
#include "cfx/engine/huge_page_allocator.h"
#include "cfx/engine/order.h"

namespace cfx::engine {

class OrderStore {
 public:
  explicit OrderStore(size_t capacity = 1 << 16);

  // Returns a fresh slot (fields default) with `oid` indexed and linked at the end of the
  // acceptance lists.
  uint32_t Allocate(OrderId oid, AccountId acct);
  // Unlinks the order from every index and returns its slot to the pool.
  void Release(uint32_t slot);
  // Returns kNoSlot when `oid` is not live.
  uint32_t Find(OrderId oid) const;

  Order& at(uint32_t slot) { return pool_[slot]; }
  const Order& at(uint32_t slot) const { return pool_[slot]; }
  size_t live_count() const { return live_; }
  uint32_t first_live() const { return all_head_; }
  // Calls fn(slot) for every live order of `acct`, in acceptance order. fn may release
  // orders (the one given or others: they are skipped after), never allocate one.
  template <typename Fn>
  void ForEachOfAccount(AccountId acct, Fn&& fn) const {
    accounts_.ForEach(acct, slot_oid_, fn);
  }
  // Makes room for accounts [0, n) (allocates; call when an account is interned).
  void ReserveAccounts(size_t n);

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
  std::vector<OrderId> slot_oid_;  // by slot: the live order's oid, 0 when free
  std::vector<MapEntry, HugePageAllocator<MapEntry>> map_;
  int shift_ = 64;
  size_t map_size_ = 0;
  size_t live_ = 0;
  uint32_t all_head_ = kNoSlot, all_tail_ = kNoSlot;
  AccountOrders accounts_;
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_ORDER_STORE_H_
