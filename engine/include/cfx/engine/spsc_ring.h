// Bounded single-producer single-consumer ring (capacity N, a power of two).
//
// Thread safety: one producer thread calls TryPush, one consumer thread calls TryPop.
// The producer publishes `tail_` with a release store after writing the slot; the consumer
// reads it with acquire before reading the slot, and publishes `head_` with release after
// it has moved the value out, which the producer reads with acquire before reusing a slot.
// Each side caches the other's index to touch the shared line only when it must.
//
// Usage:
//   SpscRing<Command, 1024> ring;
//   if (ring.TryPush(cmd) == OfferResult::kFull) { /* back-pressure */ }
//   Command c; while (ring.TryPop(&c)) Process(c);
#ifndef CFX_ENGINE_SPSC_RING_H_
#define CFX_ENGINE_SPSC_RING_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cfx::engine {

inline constexpr size_t kCacheLine = 64;

enum class OfferResult : uint8_t { kOk, kFull };

template <typename T, size_t N>
class SpscRing {
  static_assert(N >= 2 && (N & (N - 1)) == 0, "capacity must be a power of two");
  static_assert(std::is_nothrow_move_assignable_v<T>);

 public:
  // Never blocks: returns kFull when the consumer has not freed a slot.
  OfferResult TryPush(const T& value) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - cached_head_ == N) {
      cached_head_ = head_.load(std::memory_order_acquire);
      if (tail - cached_head_ == N) return OfferResult::kFull;
    }
    slots_[tail & (N - 1)] = value;
    tail_.store(tail + 1, std::memory_order_release);
    return OfferResult::kOk;
  }

  // Returns false when empty.
  bool TryPop(T* out) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == cached_tail_) {
      cached_tail_ = tail_.load(std::memory_order_acquire);
      if (head == cached_tail_) return false;
    }
    *out = std::move(slots_[head & (N - 1)]);
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  // Approximate when called concurrently.
  size_t size() const {
    return static_cast<size_t>(tail_.load(std::memory_order_acquire) -
                               head_.load(std::memory_order_acquire));
  }
  static constexpr size_t capacity() { return N; }

 private:
  // Consumer side.
  alignas(kCacheLine) std::atomic<uint64_t> head_{0};
  uint64_t cached_tail_ = 0;
  // Producer side.
  alignas(kCacheLine) std::atomic<uint64_t> tail_{0};
  uint64_t cached_head_ = 0;
  alignas(kCacheLine) std::array<T, N> slots_{};
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_SPSC_RING_H_
