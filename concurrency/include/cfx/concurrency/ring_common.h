// Shared constants and helpers of the journal's lock-free rings.
#ifndef CFX_CONCURRENCY_RING_COMMON_H_
#define CFX_CONCURRENCY_RING_COMMON_H_

#include <cassert>
#include <cstddef>
#include <cstdint>

namespace cfx::concurrency {

// Two 64-byte lines: x86 prefetches adjacent line pairs, so 64 alone still false-shares.
inline constexpr size_t kCacheLineSize = 128;

inline constexpr bool IsPowerOfTwo(size_t n) { return n >= 2 && (n & (n - 1)) == 0; }

}  // namespace cfx::concurrency

#endif  // CFX_CONCURRENCY_RING_COMMON_H_
