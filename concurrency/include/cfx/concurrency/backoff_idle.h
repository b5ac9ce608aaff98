// What a pipeline thread does when its ring is empty (or full): spin briefly, then yield,
// then sleep a little. Spinning keeps latency low under load; the sleep keeps an idle
// exchange from burning cores it shares (Aeron's BackoffIdleStrategy, simplified).
//
// Thread safety: one instance per thread.
#ifndef CFX_CONCURRENCY_BACKOFF_IDLE_H_
#define CFX_CONCURRENCY_BACKOFF_IDLE_H_

#include <chrono>
#include <thread>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cfx::concurrency {

class BackoffIdle {
 public:
  static constexpr int kSpins = 64;
  static constexpr int kYields = 64;
  static constexpr std::chrono::microseconds kSleep{20};

  // Call once per empty poll.
  void Idle() {
    if (count_ < kSpins) {
#if defined(__x86_64__)
      _mm_pause();
#endif
    } else if (count_ < kSpins + kYields) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(kSleep);
      return;
    }
    ++count_;
  }
  // Call after useful work.
  void Reset() { count_ = 0; }

 private:
  int count_ = 0;
};

}  // namespace cfx::concurrency

#endif  // CFX_CONCURRENCY_BACKOFF_IDLE_H_
