// A bounded, preallocated single-producer single-consumer ring.
//
//   SpscRing<Event> ring(1 << 16);
//   if (!ring.TryPush(event)) { /* full: the producer decides to spin, yield or drop */ }
//   Event e;
//   while (ring.TryPop(e)) Handle(e);
//
// Thread safety: exactly one producer thread calls TryPush and exactly one consumer thread
// calls TryPop (each may change over time only with an external happens-before). The
// producer publishes `tail_` with a release store after writing the slot; the consumer
// reads it with acquire before reading the slot, and publishes `head_` with release after
// moving the value out, so the producer may reuse the slot. Each side keeps a private
// cached copy of the other side's index and rereads the shared one only when the cache
// says full/empty, which keeps the shared lines quiet under load.
#ifndef CFX_CONCURRENCY_SPSC_RING_H_
#define CFX_CONCURRENCY_SPSC_RING_H_

#include <atomic>
#include <memory>
#include <utility>

#include "cfx/concurrency/ring_common.h"

namespace cfx::concurrency {

template <typename T>
class SpscRing {
 public:
  // REQUIRES: capacity is a power of two >= 2. All slots are allocated here, none later.
  explicit SpscRing(size_t capacity)
      : capacity_(capacity), mask_(capacity - 1), slots_(new T[capacity]) {
    assert(IsPowerOfTwo(capacity));
  }
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  // Returns false, leaving the ring unchanged, when it is full. Producer thread only.
  bool TryPush(const T& value) { return Push(value); }
  bool TryPush(T&& value) { return Push(std::move(value)); }

  // Moves the oldest value into *out; returns false when empty. Consumer thread only.
  bool TryPop(T& out) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == cached_tail_) {
      cached_tail_ = tail_.load(std::memory_order_acquire);
      if (head == cached_tail_) return false;
    }
    out = std::move(slots_[head & mask_]);
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  // In-place use, for values too large to copy twice. Producer: TryClaim() returns the slot
  // the next push fills (nullptr when full), to be written in place and made visible by
  // Publish(); no other push in between. Consumer: Front() returns the next value in place
  // (nullptr when empty), valid until PopFront() gives its slot back.
  T* TryClaim() {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - cached_head_ == capacity_) {
      cached_head_ = head_.load(std::memory_order_acquire);
      if (tail - cached_head_ == capacity_) return nullptr;
    }
    return &slots_[tail & mask_];
  }
  void Publish() {
    tail_.store(tail_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  T* Front() {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == cached_tail_) {
      cached_tail_ = tail_.load(std::memory_order_acquire);
      if (head == cached_tail_) return nullptr;
    }
    return &slots_[head & mask_];
  }
  void PopFront() {
    head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

  // The value `k` places behind the next one to pop (k = 0: the next), or nullptr when the
  // consumer's cached view of the producer's index does not reach it (a caller wanting a hint
  // need not see the newest push). Valid until that value is popped. Consumer thread only.
  const T* PeekAhead(size_t k) const {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (cached_tail_ - head <= k) return nullptr;
    return &slots_[(head + k) & mask_];
  }

  // The slot `k` places behind the one the next TryClaim returns (k = 0: that one), or nullptr
  // when the producer's cached view of the consumer's index does not show it free. A hint
  // only: to prefetch for writing; never written before it is claimed. Producer thread only.
  T* PeekFreeAhead(size_t k) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail + k - cached_head_ >= capacity_) return nullptr;
    return &slots_[(tail + k) & mask_];
  }

  // True when nothing is ready to pop (rereads the producer's index only if the cached one
  // says so). Consumer thread only.
  bool Empty() {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head != cached_tail_) return false;
    cached_tail_ = tail_.load(std::memory_order_acquire);
    return head == cached_tail_;
  }

  // Approximate when read by a thread that is neither the producer nor the consumer.
  size_t SizeApprox() const {
    return static_cast<size_t>(tail_.load(std::memory_order_acquire) -
                               head_.load(std::memory_order_acquire));
  }
  size_t capacity() const { return capacity_; }

 private:
  template <typename U>
  bool Push(U&& value) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - cached_head_ == capacity_) {
      cached_head_ = head_.load(std::memory_order_acquire);
      if (tail - cached_head_ == capacity_) return false;
    }
    slots_[tail & mask_] = std::forward<U>(value);
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }

  // Producer-owned line.
  alignas(kCacheLineSize) std::atomic<uint64_t> tail_{0};
  uint64_t cached_head_ = 0;
  // Consumer-owned line.
  alignas(kCacheLineSize) std::atomic<uint64_t> head_{0};
  uint64_t cached_tail_ = 0;
  // Read-only after construction.
  alignas(kCacheLineSize) const uint64_t capacity_;
  const uint64_t mask_;
  const std::unique_ptr<T[]> slots_;
};

}  // namespace cfx::concurrency

#endif  // CFX_CONCURRENCY_SPSC_RING_H_
