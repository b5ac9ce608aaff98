// How a pipeline consumer waits for work: spin briefly, then park on a futex until a
// producer signals. A fixed sleep (the old BackoffIdle tail) makes a lone
// order's latency a sum of sleep quanta (20 µs requested, 60–80 µs with timer slack, per
// idle stage); a parked thread instead wakes as soon as the producer publishes, and costs no
// CPU while the exchange is quiet — which matters on small machines where the stages share
// cores with each other and with the FIX threads.
//
// No yield phase: on a shared 2-core box `sched_yield` hands the core to whatever else is
// runnable (a compiler, the FIX threads) for a whole time slice, and a single yield before
// parking raised the p99 of `cfx bench pipeline --rate 10000` from ~0.1 ms to 1.3–2.9 ms
// (docs/performance.md, Durability). A parked thread is woken by the producer instead.
//
//   WakeSignal signal;                       // one per consumer, shared with its producers
//   // consumer thread:
//   ParkingIdle idle(&signal);
//   for (;;) {
//     const bool done = upstream_done.load(std::memory_order_acquire);
//     if (ring.TryPop(x)) { idle.Reset(); Handle(x); continue; }
//     if (done) break;
//     idle.Idle();                           // spin, announce, park
//   }
//   // producer threads, after ring.TryPush(x) (or after setting `upstream_done`):
//   signal.Notify();                          // a syscall only if the consumer parked
//
// Why no wake-up is lost (a Dekker handshake): the consumer first *announces* (stores
// parked = 1, then a seq_cst fence), then polls its ring and flags once more, and only then
// waits on the futex while parked is still 1. A producer publishes (release store), issues a
// seq_cst fence, then reads `parked`. By the fences, either the consumer's last poll sees
// the new item, or the producer sees parked == 1, clears it and wakes the futex (a wait that
// starts after the clear returns at once because the value is no longer 1). A park is also
// bounded by kMaxPark, so a missed signal (a bug) would cost latency, never progress.
//
// Thread safety: WakeSignal::Notify from any number of threads; Announce/Park/Retract (via
// ParkingIdle) from the one consumer thread that owns the signal. Producers stay lock-free:
// Notify is a fence and a load, plus one exchange and a futex wake only when the consumer
// has announced that it parks.
#ifndef CFX_CONCURRENCY_PARKING_IDLE_H_
#define CFX_CONCURRENCY_PARKING_IDLE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>
#endif

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cfx/concurrency/ring_common.h"

namespace cfx::concurrency {

class WakeSignal {
 public:
  // Longest park: a safety net only; every state change a consumer waits for is signalled.
  static constexpr std::chrono::milliseconds kMaxPark{50};

  // Producer side: call after the work (ring slot, flag) is published.
  void Notify() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (parked_.load(std::memory_order_relaxed) == 0) return;
    if (parked_.exchange(0, std::memory_order_seq_cst) != 0) Wake();
  }

  // Consumer side. Announce, then poll once more, then Park (or Retract if work came).
  void Announce() {
    parked_.store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  void Park() {
#if defined(__linux__)
    timespec timeout{0, static_cast<long>(
                            std::chrono::nanoseconds(kMaxPark).count())};  // relative
    // Returns at once (EAGAIN) if a producer already cleared `parked_`.
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&parked_), FUTEX_WAIT_PRIVATE, 1, &timeout,
            nullptr, 0);
#else
    if (parked_.load(std::memory_order_acquire) != 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
#endif
    parked_.store(0, std::memory_order_relaxed);
  }
  void Retract() { parked_.store(0, std::memory_order_relaxed); }

 private:
  void Wake() {
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&parked_), FUTEX_WAKE_PRIVATE, 1, nullptr,
            nullptr, 0);
#endif
  }

  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                std::atomic<uint32_t>::is_always_lock_free);
  // Own cache line: producers read it on every Notify, the consumer writes it when idle.
  alignas(kCacheLineSize) std::atomic<uint32_t> parked_{0};
};

// One instance per consumer thread. Idle() per empty poll, Reset() after useful work.
class ParkingIdle {
 public:
  // Spins cost ~2–4 µs on current x86 (pause is 40–140 cycles): enough to catch a producer
  // that is mid-burst without taking the core from it for long on a 2-core box. Measured:
  // 16–64 spins gave the lowest tails; 256 and more raised p50 (the spinner holds the core).
  static constexpr int kSpins = 64;

  explicit ParkingIdle(WakeSignal* signal) : signal_(signal) {}

  void Idle() {
    if (count_ < kSpins) {
#if defined(__x86_64__)
      _mm_pause();
#endif
      ++count_;
    } else if (!announced_) {
      // The caller polls once more after this, which closes the race with Notify.
      signal_->Announce();
      announced_ = true;
    } else {
      signal_->Park();
      announced_ = false;
    }
  }

  void Reset() {
    count_ = 0;
    if (announced_) {  // work arrived between Announce and Park: producers need not wake us
      signal_->Retract();
      announced_ = false;
    }
  }

 private:
  WakeSignal* const signal_;
  int count_ = 0;
  bool announced_ = false;
};

}  // namespace cfx::concurrency

#endif  // CFX_CONCURRENCY_PARKING_IDLE_H_
