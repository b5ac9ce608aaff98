// How fast refusals are written to the audit log. Every refused credential is an audit
// event, and a client can make refusals as fast as it can connect or send requests, so
// they are admitted at most `per_sec` a second with bursts of `burst`; the ones dropped
// are counted and the next event written says how many (its "suppressed" field).
//
//   RefusalThrottle throttle;  // 100 a second, bursts of 1000
//   uint64_t suppressed = 0;
//   if (throttle.Admit(&suppressed)) log->Record("http_unauthorized", {..., suppressed});
//
// Thread safety: Admit may be called from any thread.
#ifndef CFX_AUDIT_REFUSAL_THROTTLE_H_
#define CFX_AUDIT_REFUSAL_THROTTLE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>

namespace cfx::audit {

class RefusalThrottle {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  static constexpr double kPerSec = 100;
  static constexpr double kBurst = 1000;

  explicit RefusalThrottle(double per_sec = kPerSec, double burst = kBurst,
                           Clock now = std::chrono::steady_clock::now);

  // True when this refusal is to be written; *suppressed is then the number of refusals
  // dropped since the last one admitted (0 when none). False: dropped, and counted.
  bool Admit(uint64_t* suppressed);

 private:
  const double per_sec_;
  const double burst_;
  const Clock now_;
  std::mutex mu_;
  double tokens_;                                // under mu_
  std::chrono::steady_clock::time_point last_;  // under mu_
  uint64_t suppressed_ = 0;                      // under mu_
};

}  // namespace cfx::audit

#endif  // CFX_AUDIT_REFUSAL_THROTTLE_H_
