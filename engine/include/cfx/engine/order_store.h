// Preallocated pool of orders plus the one index the engine needs on every path: the live
// slots.
//
// No oid -> slot map (issue #13): the engine reaches an order by its client id, whose record
// holds the slot (ClientIdIndex), and by the book's links. A map by oid cost a probe at
// every acceptance and, when an order accepted long ago ended, a cold miss and a
// backward-shift delete (3% of `cfx bench book --engine`), and 32 bytes an order of
// capacity. The rare lookups by oid (restoring a snapshot, the bench harness's cancels)
// build their own.
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
// Steady state allocates nothing: slots come from a free list sized up front.
// Growth (the pool beyond the configured capacity) allocates and is logged as a warm-up
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

  // Returns a fresh slot (fields default) holding `oid`, live.
  // REQUIRES: `oid` is above every oid allocated before (ids are given in acceptance order).
  uint32_t Allocate(OrderId oid, AccountId acct);
  // Takes the order out of the live slots and returns its slot to the pool.
  void Release(uint32_t slot);
  // Whether `slot` holds the live order `oid` (a slot remembered elsewhere may since have
  // been released and reused). `slot` may be kNoSlot.
  bool HoldsLive(uint32_t slot, OrderId oid) const {
    return slot < pool_.size() && pool_[slot].live && pool_[slot].oid == oid;
  }

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
    OrderId oid = 0;
    uint32_t slot = kNoSlot;
  };
  // The live orders' entries into *out, by oid.
  void LiveByOid(std::vector<MapEntry>* out) const;
  void GrowPool();

  // Huge pages where the kernel allows: orders are reached at random.
  std::vector<Order, HugePageAllocator<Order>> pool_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t> live_slots_;  // Order::live_idx is each one's place
  OrderId last_oid_ = 0;  // the highest allocated (Allocate's REQUIRES)
  // ForEachLive's list, kept between walks so that a walk allocates only when the live
  // orders outgrow every earlier walk (steady state allocates nothing).
  mutable std::vector<MapEntry> walk_;
  mutable bool walking_ = false;
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_ORDER_STORE_H_
