#include "http_rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace cfx::gateway::internal {

RateLimiter::RateLimiter(const std::vector<std::string>& keys, double rate_per_sec, double burst,
                         Clock clock)
    : rate_(rate_per_sec), burst_(std::max(1.0, burst)), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
  int64_t now = clock_();
  for (const std::string& k : keys) {
    auto b = std::make_unique<Bucket>();
    b->tokens = burst_;
    b->last_ns = now;
    buckets_.emplace(k, std::move(b));
  }
}

int64_t RateLimiter::TryAcquire(const std::string& key) {
  if (rate_ <= 0) return 0;
  auto it = buckets_.find(key);
  if (it == buckets_.end()) return 0;
  Bucket& b = *it->second;
  std::lock_guard<std::mutex> lock(b.mu);
  int64_t now = clock_();
  if (now > b.last_ns) {
    b.tokens = std::min(burst_, b.tokens + (now - b.last_ns) * 1e-9 * rate_);
    b.last_ns = now;
  }
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return 0;
  }
  double wait_s = (1.0 - b.tokens) / rate_;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(wait_s)));
}

}  // namespace cfx::gateway::internal
