// The engine's (account, client id) -> order index: every id taken this trading day, live
// or ended (SPEC §4.2 duplicate_client_id), so it grows to millions of entries and is probed
// by every new order, cancel and replace. A record holds the order's id and its slot in the
// order store, so a cancel or replace goes from the client id to the order with no other
// index (the store keeps no id map: order_store.h). The slot is not cleared when the order
// ends (that would touch the record again); a reader checks that the slot still holds a live
// order of that id (Engine::LookupLive).
//
// Layout, chosen so that a probe costs one cache miss however many ids are taken:
//   * the keys live in an append-only arena of records, in the order they were taken;
//   * the table holds 8 bytes a bucket (32 bits of the key's hash, the record's index), open
//     addressing with linear probing at a load of at most 1/2. Only the newest record is
//     ever removed alone (an order rejected after its id was taken), so no deletion shifts.
// A probe reads one bucket line and compares hash bits; it reads the record (a second line)
// only when those bits match, which for a fresh id almost never happens. A new id's record
// is written at the arena's end, which the cache already holds. A record is one cache line
// (64 bytes, aligned), so reading it is one miss.
//
// Both the arena and the table are allocated and written (touched) at construction for the
// configured capacity, so the first use of a page does not fault inside the timed path;
// growth beyond it doubles and is a warm-up cost.
//
// Both are allocated on huge pages where the kernel allows (HugePageAllocator): a probe into
// tens of MiB then rarely misses the TLB as well as the cache.
//
// The hash is of the account *name*'s hash and the id, seeded per index (so a client cannot
// choose ids that collide), and computed by the caller once per command: Prefetch(hash) lets a
// caller that knows the next commands bring their buckets in ahead of time. Nothing a caller
// can observe depends on the seed: ForEach walks the arena in the order ids were taken.
//
// Thread safety: none; owned by the engine's thread.
#ifndef CFX_ENGINE_CLIENT_ID_INDEX_H_
#define CFX_ENGINE_CLIENT_ID_INDEX_H_

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "cfx/engine/huge_page_allocator.h"
#include "cfx/engine/types.h"

namespace cfx::engine {

class ClientIdIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // `seed` 0 draws a random one.
  explicit ClientIdIndex(size_t capacity = 1 << 16, uint64_t seed = 0);

  // The hash of (account, client id) that every other call takes, from a seeded hash of the
  // account's name (the engine passes its account table's, computed once per command).
  uint64_t HashKey(uint64_t acct_hash, const ClientId& cl) const;
  // The same from the name, hashed with this index's seed (for a caller with no name table).
  uint64_t HashKey(const Name& acct, const ClientId& cl) const;

  // Brings the key's bucket into the cache (a hint; no effect on state).
  void Prefetch(uint64_t hash) const { __builtin_prefetch(&table_[Bucket(hash)], 1, 3); }

  // Takes (acct, cl) with order id 0 (slot kNoSlot) unless already taken. Returns the record and
  // whether it is new; an existing key's record is returned unchanged.
  std::pair<uint32_t, bool> TryInsert(uint64_t hash, AccountId acct, const ClientId& cl);
  // The record of (acct, cl), or kNone.
  uint32_t Find(uint64_t hash, AccountId acct, const ClientId& cl) const;
  // Gives back the most recently inserted record (an order rejected after its id was taken).
  // REQUIRES: size() > 0.
  void EraseLast();

  OrderId oid(uint32_t rec) const { return recs_[rec].oid; }
  // The store slot the order had when the id was given to it (it may since have ended).
  uint32_t slot(uint32_t rec) const { return recs_[rec].slot; }
  // Names the order (oid, slot) by the record's id; (0, kNoSlot): by no order any more.
  void set_order(uint32_t rec, OrderId oid, uint32_t slot) {
    recs_[rec].oid = oid;
    recs_[rec].slot = slot;
  }
  size_t size() const { return size_; }

  // fn(acct, cl, oid) for every record, in the order the ids were taken.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (size_t i = 0; i < size_; ++i) fn(recs_[i].acct, recs_[i].cl, recs_[i].oid);
  }
  // Keeps the records for which keep(oid, slot) is true, in their order, and rebuilds the
  // table.
  template <typename Pred>
  void RetainIf(Pred&& keep) {
    size_t out = 0;
    for (size_t i = 0; i < size_; ++i) {
      if (keep(recs_[i].oid, recs_[i].slot)) recs_[out++] = recs_[i];
    }
    size_ = out;
    Rebuild(table_.size());
  }

 private:
  struct alignas(64) Record {
    uint64_t hash = 0;
    OrderId oid = 0;
    AccountId acct = 0;
    uint32_t slot = kNoSlot;
    ClientId cl;
  };
  static_assert(sizeof(Record) == 64);
  struct BucketEntry {
    uint32_t tag = 0;      // the hash's upper 32 bits
    uint32_t rec = kNone;  // kNone: empty
  };

  size_t Bucket(uint64_t hash) const { return hash & (table_.size() - 1); }
  static uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }
  // Rebuilds the table at `buckets` (a power of two) from the first size_ records.
  void Rebuild(size_t buckets);
  void Place(uint32_t rec);

  uint64_t seed_;
  std::vector<Record, HugePageAllocator<Record>> recs_;  // [0, size_) in use; the rest touched
  size_t size_ = 0;
  std::vector<BucketEntry, HugePageAllocator<BucketEntry>> table_;
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_CLIENT_ID_INDEX_H_
