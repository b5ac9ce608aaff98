// ClientIdIndex: arena of records plus a linear-probing table of (hash bits, record index).
#include "cfx/engine/client_id_index.h"

#include <bit>
#include <cassert>
#include <cstring>

#include "fixed_hash.h"

namespace cfx::engine {
namespace {

using internal::DrawHashSeed;
using internal::HashFinalize;
using internal::HashFixed;

size_t BucketsFor(size_t capacity) { return std::bit_ceil(std::max<size_t>(capacity, 8) * 2); }

}  // namespace

ClientIdIndex::ClientIdIndex(size_t capacity, uint64_t seed)
    : seed_(seed != 0 ? seed : DrawHashSeed()),
      recs_(std::max<size_t>(capacity, 8)),  // value-initialized: every page written now
      table_(BucketsFor(capacity)) {}

uint64_t ClientIdIndex::HashKey(uint64_t acct_hash, const ClientId& cl) const {
  return HashFinalize(HashFixed(acct_hash ^ seed_, cl));
}

uint64_t ClientIdIndex::HashKey(const Name& acct, const ClientId& cl) const {
  return HashKey(HashFinalize(HashFixed(seed_, acct)), cl);
}

std::pair<uint32_t, bool> ClientIdIndex::TryInsert(uint64_t hash, AccountId acct,
                                                   const ClientId& cl) {
  const uint32_t tag = Tag(hash);
  const size_t mask = table_.size() - 1;
  size_t b = hash & mask;
  for (;; b = (b + 1) & mask) {
    const BucketEntry& e = table_[b];
    if (e.rec == kNone) break;
    if (e.tag == tag && recs_[e.rec].acct == acct && recs_[e.rec].cl == cl) {
      return {e.rec, false};
    }
  }
  if (size_ == recs_.size()) recs_.resize(recs_.size() * 2);
  const auto rec = static_cast<uint32_t>(size_++);
  Record& r = recs_[rec];
  r.hash = hash;
  r.oid = 0;
  r.slot = kNoSlot;
  r.acct = acct;
  r.cl = cl;
  if (size_ * 2 > table_.size()) {
    Rebuild(table_.size() * 2);  // places the new record too
  } else {
    table_[b] = BucketEntry{tag, rec};
  }
  return {rec, true};
}

uint32_t ClientIdIndex::Find(uint64_t hash, AccountId acct, const ClientId& cl) const {
  const uint32_t tag = Tag(hash);
  const size_t mask = table_.size() - 1;
  for (size_t b = hash & mask;; b = (b + 1) & mask) {
    const BucketEntry& e = table_[b];
    if (e.rec == kNone) return kNone;
    if (e.tag == tag && recs_[e.rec].acct == acct && recs_[e.rec].cl == cl) return e.rec;
  }
}

void ClientIdIndex::EraseLast() {
  assert(size_ > 0);
  const auto rec = static_cast<uint32_t>(size_ - 1);
  const size_t mask = table_.size() - 1;
  size_t hole = recs_[rec].hash & mask;
  while (table_[hole].rec != rec) hole = (hole + 1) & mask;
  // No later member of the cluster needs moving into the hole: each was placed before this
  // record, when the hole was empty (only the newest record is ever given back), so none
  // probed past it.
  table_[hole] = BucketEntry{};
  recs_[rec] = Record{};
  --size_;
}

void ClientIdIndex::Rebuild(size_t buckets) {
  if (buckets != table_.size()) {
    table_.assign(buckets, BucketEntry{});
  } else {
    std::fill(table_.begin(), table_.end(), BucketEntry{});
  }
  for (size_t i = 0; i < size_; ++i) Place(static_cast<uint32_t>(i));
}

void ClientIdIndex::Place(uint32_t rec) {
  const uint64_t hash = recs_[rec].hash;
  const size_t mask = table_.size() - 1;
  size_t b = hash & mask;
  while (table_[b].rec != kNone) b = (b + 1) & mask;
  table_[b] = BucketEntry{Tag(hash), rec};
}

}  // namespace cfx::engine
