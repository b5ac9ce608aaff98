// Per-session message throttle: a token bucket refilled at `rate` tokens per second, holding
// at most one second's worth, so a session may burst up to its rate and then sustain it.
#ifndef CFX_GATEWAY_FIX_THROTTLE_H_
#define CFX_GATEWAY_FIX_THROTTLE_H_

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace cfx {
namespace gateway {
namespace internal {

// Thread safety: none; the owner serialises calls (the gateway holds its session lock).
class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  explicit TokenBucket(int rate_per_sec = 500)
      : rate_(rate_per_sec > 0 ? rate_per_sec : 1), tokens_(rate_), last_(Clock::now()) {}

  // Takes one token; false when the bucket is empty (the message is over the limit).
  bool TryTake(Clock::time_point now = Clock::now()) {
    double elapsed = std::chrono::duration<double>(now - last_).count();
    if (elapsed > 0) {
      tokens_ = std::min<double>(rate_, tokens_ + elapsed * rate_);
      last_ = now;
    }
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

 private:
  double rate_;
  double tokens_;  // a rate, not a price: double is fine here
  Clock::time_point last_;
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_THROTTLE_H_
