#include "cfx/audit/refusal_throttle.h"

#include <algorithm>
#include <utility>

namespace cfx::audit {

RefusalThrottle::RefusalThrottle(double per_sec, double burst, Clock now)
    : per_sec_(per_sec), burst_(burst), now_(std::move(now)), tokens_(burst), last_(now_()) {}

bool RefusalThrottle::Admit(uint64_t* suppressed) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = now_();
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(burst_, tokens_ + per_sec_ * std::max(0.0, elapsed));
  last_ = now;
  if (tokens_ < 1) {
    ++suppressed_;
    return false;
  }
  tokens_ -= 1;
  *suppressed = std::exchange(suppressed_, 0);
  return true;
}

}  // namespace cfx::audit
