// Interned names (accounts, firms and STP groups, symbols) -> dense ids, in the order they
// were first seen. Every command names an account, and with 100,000 accounts an
// `absl::flat_hash_map<std::string, uint32_t>` lookup (hash the string, control bytes, slot,
// compare) was a quarter of the Engine path. Here a lookup reads one bucket (32 bits of a
// seeded hash, the id and the name; linear probing, load <= 1/2), which Prefetch can bring
// in ahead of time.
//
// Thread safety: none; owned by the engine's thread.
#ifndef CFX_ENGINE_NAME_TABLE_H_
#define CFX_ENGINE_NAME_TABLE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "cfx/engine/huge_page_allocator.h"
#include "cfx/engine/types.h"

namespace cfx::engine {

class NameTable {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // `seed` 0 draws a random one (so that a client cannot choose colliding STP group ids).
  explicit NameTable(size_t capacity = 64, uint64_t seed = 0);

  // The table's seeded hash of `name`. A caller that looks a name up more than once per
  // command (the engine: the account, then the account's client ids) hashes it once.
  uint64_t Hash(const Name& name) const;
  // The id of `name`, or kNone; `hash` is Hash(name).
  uint32_t Find(const Name& name, uint64_t hash) const;
  uint32_t Find(const Name& name) const { return Find(name, Hash(name)); }
  // The same for a view; kNone also when it is longer than a Name holds.
  uint32_t Find(std::string_view name) const;
  // Brings the bucket Find(name, hash) reads first into the cache (a hint; no effect on state).
  void Prefetch(uint64_t hash) const {
    const char* b = reinterpret_cast<const char*>(&table_[hash & (table_.size() - 1)]);
    __builtin_prefetch(b);
    __builtin_prefetch(b + sizeof(BucketEntry) - 1);  // a bucket may straddle two lines
  }
  // The id of `name`, given the next id when new; `hash` is Hash(name).
  uint32_t Intern(const Name& name, uint64_t hash);
  uint32_t Intern(const Name& name) { return Intern(name, Hash(name)); }

  std::string_view name(uint32_t id) const { return names_[id].view(); }
  const Name& fixed_name(uint32_t id) const { return names_[id]; }
  size_t size() const { return names_.size(); }

 private:
  // The name is kept in its bucket too (not only by id), so that a lookup, once its bucket
  // is in the cache (Prefetch), reads no other line.
  struct BucketEntry {
    uint32_t tag = 0;
    uint32_t id = kNone;  // kNone: empty
    Name name;
  };
  void Place(uint32_t id, uint64_t hash);

  uint64_t seed_;
  std::vector<Name> names_;                                         // by id
  std::vector<BucketEntry, HugePageAllocator<BucketEntry>> table_;  // probed at random
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_NAME_TABLE_H_
