// Bounded multi-producer single-consumer ring (capacity N, a power of two), one sequence
// number per slot (Vyukov's bounded queue, single consumer).
//
// Thread safety: any number of producers call TryPush; one consumer calls TryPop.
// A producer claims a position by CAS on `tail_`, writes the slot, then publishes it with a
// release store of the slot's sequence (pos + 1); the consumer acquires that sequence before
// reading, then releases the slot for the next lap with sequence pos + N.
#ifndef CFX_ENGINE_MPSC_RING_H_
#define CFX_ENGINE_MPSC_RING_H_

#include <array>
#include <atomic>
#include <cstdint>

#include "cfx/engine/spsc_ring.h"

namespace cfx::engine {

template <typename T, size_t N>
class MpscRing {
  static_assert(N >= 2 && (N & (N - 1)) == 0, "capacity must be a power of two");

 public:
  MpscRing() {
    for (size_t i = 0; i < N; ++i) slots_[i].seq.store(i, std::memory_order_relaxed);
  }

  // Never blocks: returns kFull when every slot is taken.
  OfferResult TryPush(const T& value) {
    uint64_t pos = tail_.load(std::memory_order_relaxed);
    while (true) {
      Slot& slot = slots_[pos & (N - 1)];
      const uint64_t seq = slot.seq.load(std::memory_order_acquire);
      const int64_t diff = static_cast<int64_t>(seq) - static_cast<int64_t>(pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          slot.value = value;
          slot.seq.store(pos + 1, std::memory_order_release);
          return OfferResult::kOk;
        }
        // pos was reloaded by the failed CAS.
      } else if (diff < 0) {
        return OfferResult::kFull;  // the consumer has not freed this slot yet
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  // Returns false when empty (or the next slot is claimed but not yet published).
  bool TryPop(T* out) {
    Slot& slot = slots_[head_ & (N - 1)];
    const uint64_t seq = slot.seq.load(std::memory_order_acquire);
    if (seq != head_ + 1) return false;
    *out = std::move(slot.value);
    slot.seq.store(head_ + N, std::memory_order_release);
    ++head_;
    return true;
  }

  static constexpr size_t capacity() { return N; }

 private:
  struct alignas(kCacheLine) Slot {
    std::atomic<uint64_t> seq;
    T value{};
  };
  alignas(kCacheLine) std::atomic<uint64_t> tail_{0};  // producers
  alignas(kCacheLine) uint64_t head_ = 0;              // consumer only
  alignas(kCacheLine) std::array<Slot, N> slots_;
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_MPSC_RING_H_
