// Hashing of the engine's fixed strings (ids, names) for its own tables (ClientIdIndex,
// NameTable): word at a time straight from the fixed array, seeded per table.
// Internal to cfx_engine.
#ifndef CFX_ENGINE_SRC_FIXED_HASH_H_
#define CFX_ENGINE_SRC_FIXED_HASH_H_

#include <cstdint>
#include <cstring>
#include <random>

#include "cfx/engine/types.h"

namespace cfx::engine::internal {

inline constexpr uint64_t kHashMul = 0x9E3779B97F4A7C15ull;

inline uint64_t HashMixWord(uint64_t h, uint64_t w) {
  h ^= w;
  h *= kHashMul;
  return h ^ (h >> 29);
}

// Eight bytes at a time (no call, no branch per byte): the last word masked to the string's
// length, the length mixed in, so "a" and "a\0" differ and bytes past the length (left over
// from a longer value) do not count.
inline uint64_t HashFixed(uint64_t h, const FixedString<kMaxIdLength>& s) {
  static_assert(kMaxIdLength % 8 == 0);
  const size_t words = (s.len + 7) / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, s.data + 8 * i, 8);
    const size_t left = s.len - 8 * i;
    if (left < 8) w &= (uint64_t{1} << (8 * left)) - 1;
    h = HashMixWord(h, w);
  }
  return HashMixWord(h, s.len);
}

// The finalizer of MurmurHash3: every output bit depends on every input bit, so the low bits
// (a bucket) and the high bits (a tag) are both well spread.
inline uint64_t HashFinalize(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

// A table's seed, so that a client cannot choose strings that collide.
inline uint64_t DrawHashSeed() {
  std::random_device rd;
  return ((static_cast<uint64_t>(rd()) << 32) ^ rd() ^ kHashMul) | 1;
}

}  // namespace cfx::engine::internal

#endif  // CFX_ENGINE_SRC_FIXED_HASH_H_
