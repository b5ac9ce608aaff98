// A bounded, preallocated multi-producer single-consumer ring.
//
//   MpscRing<Input> ring(1 << 16);
//   if (!ring.TryPush(input)) { /* full: spin, yield, or reject as `throttled` */ }
//   Input in;
//   while (ring.TryPop(in)) Sequence(in);
//
// Thread safety: any number of producer threads call TryPush; exactly one consumer thread
// calls TryPop. Each slot carries a sequence number that says whose turn it is: a producer
// claims position p with a CAS on `tail_` only when slot p's sequence equals p (free), writes
// the value, then stores p + 1 with release (published). The consumer reads the sequence
// with acquire, and after moving the value out stores p + capacity with release (free for
// the next lap). A full ring is seen as a slot whose sequence lags, and reported, never
// waited on. A producer preempted between its claim and its publish delays the consumer
// (never other producers); nothing is lost.
#ifndef CFX_CONCURRENCY_MPSC_RING_H_
#define CFX_CONCURRENCY_MPSC_RING_H_

#include <atomic>
#include <memory>
#include <utility>

#include "cfx/concurrency/ring_common.h"

namespace cfx::concurrency {

template <typename T>
class MpscRing {
 public:
  // REQUIRES: capacity is a power of two >= 2. All slots are allocated here, none later.
  explicit MpscRing(size_t capacity)
      : capacity_(capacity), mask_(capacity - 1), slots_(new Slot[capacity]) {
    assert(IsPowerOfTwo(capacity));
    for (size_t i = 0; i < capacity; ++i) slots_[i].sequence.store(i, std::memory_order_relaxed);
  }
  MpscRing(const MpscRing&) = delete;
  MpscRing& operator=(const MpscRing&) = delete;

  // Returns false, leaving the ring unchanged, when it is full. Any thread.
  bool TryPush(const T& value) { return Push(value); }
  bool TryPush(T&& value) { return Push(std::move(value)); }

  // Moves the oldest published value into *out; returns false when none is ready.
  // Consumer thread only.
  bool TryPop(T& out) {
    Slot& slot = slots_[head_ & mask_];
    if (slot.sequence.load(std::memory_order_acquire) != head_ + 1) return false;
    out = std::move(slot.value);
    slot.sequence.store(head_ + capacity_, std::memory_order_release);
    ++head_;
    return true;
  }

  // Whether no producer has claimed a slot past the head (one may be writing it). A hint:
  // a push may land right after. Consumer thread only.
  bool NothingClaimed() const { return tail_.load(std::memory_order_relaxed) == head_; }

  size_t capacity() const { return capacity_; }

 private:
  struct Slot {
    std::atomic<uint64_t> sequence;
    T value;
  };

  template <typename U>
  bool Push(U&& value) {
    uint64_t pos = tail_.load(std::memory_order_relaxed);
    Slot* slot;
    for (;;) {
      slot = &slots_[pos & mask_];
      const uint64_t seq = slot->sequence.load(std::memory_order_acquire);
      const int64_t lag = static_cast<int64_t>(seq - pos);
      if (lag == 0) {
        // relaxed suffices: the slot's own sequence carries the data's ordering.
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) break;
      } else if (lag < 0) {
        return false;  // the slot still holds the previous lap's value: full
      } else {
        pos = tail_.load(std::memory_order_relaxed);  // another producer took it
      }
    }
    slot->value = std::forward<U>(value);
    slot->sequence.store(pos + 1, std::memory_order_release);
    return true;
  }

  // Shared by producers.
  alignas(kCacheLineSize) std::atomic<uint64_t> tail_{0};
  // Consumer-owned.
  alignas(kCacheLineSize) uint64_t head_ = 0;
  alignas(kCacheLineSize) const uint64_t capacity_;
  const uint64_t mask_;
  const std::unique_ptr<Slot[]> slots_;
};

}  // namespace cfx::concurrency

#endif  // CFX_CONCURRENCY_MPSC_RING_H_
