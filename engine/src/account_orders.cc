// AccountOrders: chains of one-line blocks from a preallocated pool, compacted lazily.
#include "cfx/engine/account_orders.h"

#include <algorithm>
#include <cassert>

namespace cfx::engine {

AccountOrders::AccountOrders(size_t order_capacity) : order_capacity_(order_capacity) {
  GrowBlocks(order_capacity / 2 + 64);
}

void AccountOrders::GrowBlocks(size_t n) {
  const size_t old = blocks_.size();
  if (n <= old) return;
  n = std::max(n, old * 2);  // geometric: accounts interned one by one stay amortized O(1)
  blocks_.resize(n);
  free_blocks_.reserve(n);
  for (size_t b = n; b-- > old;) free_blocks_.push_back(static_cast<uint32_t>(b));
}

void AccountOrders::ReserveAccounts(size_t n) {
  if (chains_.size() >= n) return;
  chains_.resize(n);
  // A chain holds at most 2 x live + 8 entries: live / 2 + 3 blocks. The order pool's share
  // is reserved at construction; each account's few more here.
  GrowBlocks(order_capacity_ / 2 + 64 + 3 * n);
}

uint32_t AccountOrders::NewBlock() {
  if (free_blocks_.empty()) GrowBlocks(blocks_.size() * 2);  // past the capacity: warm-up
  const uint32_t b = free_blocks_.back();
  free_blocks_.pop_back();
  blocks_[b].next = kNone;
  blocks_[b].count = 0;
  return b;
}

void AccountOrders::FreeBlock(uint32_t b) { free_blocks_.push_back(b); }

void AccountOrders::Add(AccountId acct, uint32_t slot, OrderId oid,
                        const std::vector<OrderId>& slot_oid) {
  if (acct >= chains_.size()) ReserveAccounts(acct + 1);
  Chain& c = chains_[acct];
  if (c.entries >= 2 * c.live + 8) Compact(c, slot_oid);
  if (c.tail == kNone || blocks_[c.tail].count == kPerBlock) {
    const uint32_t b = NewBlock();
    if (c.tail == kNone) {
      c.head = b;
    } else {
      blocks_[c.tail].next = b;
    }
    c.tail = b;
  }
  Block& blk = blocks_[c.tail];
  blk.slot[blk.count] = slot;
  blk.oid[blk.count] = oid;
  ++blk.count;
  ++c.entries;
  ++c.live;
}

// Moves the live entries to the front of the chain, in order, and frees the blocks left.
void AccountOrders::Compact(Chain& c, const std::vector<OrderId>& slot_oid) {
  uint32_t wb = c.head;  // write position: block, index
  uint32_t wi = 0;
  uint32_t kept = 0;
  for (uint32_t rb = c.head; rb != kNone; rb = blocks_[rb].next) {
    const uint32_t n = blocks_[rb].count;  // read before the writes below may shrink it
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t s = blocks_[rb].slot[i];
      const OrderId o = blocks_[rb].oid[i];
      if (slot_oid[s] != o) continue;
      if (wi == kPerBlock) {
        blocks_[wb].count = kPerBlock;
        wb = blocks_[wb].next;  // never past rb: the writes trail the reads
        wi = 0;
      }
      blocks_[wb].slot[wi] = s;
      blocks_[wb].oid[wi] = o;
      ++wi;
      ++kept;
    }
  }
  assert(kept == c.live);
  if (kept == 0) {
    for (uint32_t b = c.head; b != kNone;) {
      const uint32_t next = blocks_[b].next;
      FreeBlock(b);
      b = next;
    }
    c.head = c.tail = kNone;
  } else {
    blocks_[wb].count = wi;
    for (uint32_t b = blocks_[wb].next; b != kNone;) {
      const uint32_t next = blocks_[b].next;
      FreeBlock(b);
      b = next;
    }
    blocks_[wb].next = kNone;
    c.tail = wb;
  }
  c.entries = kept;
}

}  // namespace cfx::engine
