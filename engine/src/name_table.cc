// NameTable: dense names by id plus a linear-probing table of (hash bits, id).
#include "cfx/engine/name_table.h"

#include <algorithm>
#include <bit>

#include "fixed_hash.h"

namespace cfx::engine {

NameTable::NameTable(size_t capacity, uint64_t seed)
    : seed_(seed != 0 ? seed : internal::DrawHashSeed()),
      table_(std::bit_ceil(std::max<size_t>(capacity, 8) * 2)) {
  names_.reserve(capacity);
}

uint64_t NameTable::Hash(const Name& name) const {
  return internal::HashFinalize(internal::HashFixed(seed_, name));
}

uint32_t NameTable::Find(const Name& name, uint64_t h) const {
  const auto tag = static_cast<uint32_t>(h >> 32);
  const size_t mask = table_.size() - 1;
  for (size_t b = h & mask;; b = (b + 1) & mask) {
    const BucketEntry& e = table_[b];
    if (e.id == kNone) return kNone;
    if (e.tag == tag && e.name == name) return e.id;
  }
}

uint32_t NameTable::Find(std::string_view name) const {
  Name n;
  if (!n.Assign(name)) return kNone;
  return Find(n);
}

uint32_t NameTable::Intern(const Name& name, uint64_t hash) {
  const uint32_t found = Find(name, hash);
  if (found != kNone) return found;
  const auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(name);
  if (names_.size() * 2 > table_.size()) {
    table_.assign(table_.size() * 2, BucketEntry{});
    for (uint32_t i = 0; i < names_.size(); ++i) Place(i, Hash(names_[i]));
  } else {
    Place(id, hash);
  }
  return id;
}

void NameTable::Place(uint32_t id, uint64_t hash) {
  const size_t mask = table_.size() - 1;
  size_t b = hash & mask;
  while (table_[b].id != kNone) b = (b + 1) & mask;
  table_[b] = BucketEntry{static_cast<uint32_t>(hash >> 32), id, names_[id]};
}

}  // namespace cfx::engine
