// Each account's live orders in acceptance order (mass cancel by account walks them), kept
// so that an order's accept and release cost the same with 16 accounts or 3 million.
//
// An intrusive list through the orders (what this replaced) links an order to its account's
// previous order, which with 100,000 accounts was accepted long ago: linking in and out
// touched up to three cold order slots, cache misses into a pool of hundreds of MiB, and
// `cfx bench book --engine --accounts 100000` ran at half the 16-account speed. Here:
//   * an account is a chain of one-cache-line blocks of (slot, oid) entries, from a pool
//     preallocated with the order pool (steady state allocates nothing);
//   * accepting an order appends to its account's last block (one line);
//   * releasing an order only counts it out: an entry is live while the store's dense
//     slot -> oid array still holds its oid, so nothing of the account's is touched;
//   * a chain holding more than twice its live orders (+ 8) is compacted in place when its
//     next order comes, so a chain stays O(live orders) and the work is amortized.
//
// Thread safety: none; owned by the OrderStore.
#ifndef CFX_ENGINE_ACCOUNT_ORDERS_H_
#define CFX_ENGINE_ACCOUNT_ORDERS_H_

#include <cstdint>
#include <vector>

#include "cfx/engine/types.h"

namespace cfx::engine {

class AccountOrders {
 public:
  // Blocks for about `order_capacity` live orders (and a few per account, see Reserve).
  explicit AccountOrders(size_t order_capacity);

  // Makes room for accounts [0, n) (allocates when they are new).
  void ReserveAccounts(size_t n);
  // Appends the order (slot, oid) to `acct`'s orders. `slot_oid` is the store's slot -> live
  // oid array (read when the chain is compacted).
  void Add(AccountId acct, uint32_t slot, OrderId oid, const std::vector<OrderId>& slot_oid);
  // Counts one of `acct`'s orders out (its entry goes at the next compaction).
  void Remove(AccountId acct) { --chains_[acct].live; }

  // fn(slot) for every live order of `acct` in acceptance order; fn may release orders
  // (they are skipped after: their slot_oid changed), never add one.
  template <typename Fn>
  void ForEach(AccountId acct, const std::vector<OrderId>& slot_oid, Fn&& fn) const {
    if (acct >= chains_.size()) return;
    for (uint32_t b = chains_[acct].head; b != kNone; b = blocks_[b].next) {
      const Block& blk = blocks_[b];
      for (uint32_t i = 0; i < blk.count; ++i) {
        if (slot_oid[blk.slot[i]] == blk.oid[i]) fn(blk.slot[i]);
      }
    }
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kPerBlock = 4;
  struct alignas(64) Block {
    uint32_t next = kNone;
    uint32_t count = 0;
    uint32_t slot[kPerBlock] = {};
    OrderId oid[kPerBlock] = {};
  };
  static_assert(sizeof(Block) == 64);
  struct Chain {
    uint32_t head = kNone, tail = kNone;
    uint32_t entries = 0;  // live or not, in the chain's blocks
    uint32_t live = 0;
  };

  uint32_t NewBlock();
  void FreeBlock(uint32_t b);
  void Compact(Chain& c, const std::vector<OrderId>& slot_oid);
  // Grows the pool to at least `n` blocks (allocates).
  void GrowBlocks(size_t n);

  size_t order_capacity_;
  std::vector<Block> blocks_;
  std::vector<uint32_t> free_blocks_;
  std::vector<Chain> chains_;  // by account
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_ACCOUNT_ORDERS_H_
