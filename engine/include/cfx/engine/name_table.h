// Interned names (accounts, firms and STP groups, symbols) -> dense ids, in the order they
// were first seen. Every command names an account, and with 100,000 accounts an
// `absl::flat_hash_map<std::string, uint32_t>` lookup (hash the string, control bytes, slot,
// compare) was a quarter of the Engine path. Here a lookup is one 8-byte bucket (32 bits of
// a seeded hash, the id; linear probing, load <= 1/2) and one compare against the name in a
// dense array indexed by id.
//
// Thread safety: none; owned by the engine's thread.
#ifndef CFX_ENGINE_NAME_TABLE_H_
#define CFX_ENGINE_NAME_TABLE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "cfx/engine/types.h"

namespace cfx::engine {

class NameTable {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // `seed` 0 draws a random one (so that a client cannot choose colliding STP group ids).
  explicit NameTable(size_t capacity = 64, uint64_t seed = 0);

  // The id of `name`, or kNone.
  uint32_t Find(const Name& name) const;
  // The same for a view; kNone also when it is longer than a Name holds.
  uint32_t Find(std::string_view name) const;
  // Brings the bucket Find(name) reads first into the cache (a hint; no effect on state).
  void Prefetch(const Name& name) const {
    __builtin_prefetch(&table_[Hash(name) & (table_.size() - 1)]);
  }
  // The id of `name`, given the next id when new.
  uint32_t Intern(const Name& name);

  std::string_view name(uint32_t id) const { return names_[id].view(); }
  size_t size() const { return names_.size(); }

 private:
  struct BucketEntry {
    uint32_t tag = 0;
    uint32_t id = kNone;  // kNone: empty
  };
  uint64_t Hash(const Name& name) const;
  void Place(uint32_t id, uint64_t hash);

  uint64_t seed_;
  std::vector<Name> names_;  // by id
  std::vector<BucketEntry> table_;
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_NAME_TABLE_H_
