// Per-token request rate limiting: one token bucket per configured bearer token.
#ifndef CFX_GATEWAY_HTTP_RATE_LIMITER_H_
#define CFX_GATEWAY_HTTP_RATE_LIMITER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cfx::gateway::internal {

// Thread safety: TryAcquire may be called from any thread; each bucket has its own mutex,
// so tokens do not contend with each other. The set of keys is fixed at construction
// (the config's tokens), so the map itself is never written after that.
class RateLimiter {
 public:
  using Clock = std::function<int64_t()>;  // monotonic nanoseconds

  // `rate_per_sec` <= 0 disables limiting. Buckets start full (`burst` requests).
  RateLimiter(const std::vector<std::string>& keys, double rate_per_sec, double burst,
              Clock clock = nullptr);

  // Takes one request from `key`'s bucket. Returns 0 when allowed, else the whole seconds
  // (>= 1) after which a retry will be allowed (the Retry-After value). Unknown keys are
  // allowed (only authenticated callers reach the limiter).
  int64_t TryAcquire(const std::string& key);

 private:
  struct Bucket {
    std::mutex mu;
    double tokens = 0;
    int64_t last_ns = 0;
  };
  double rate_;
  double burst_;
  Clock clock_;
  std::map<std::string, std::unique_ptr<Bucket>> buckets_;
};

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_HTTP_RATE_LIMITER_H_
