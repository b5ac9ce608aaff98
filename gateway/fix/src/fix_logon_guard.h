// LogonGuard: the password check of a FIX Logon, with back-off after failures (SPEC §6,
// docs/fix.md "Logon"). Per CompID and per peer address, a failure starts a wait (1 s,
// doubling, capped: FixGatewayConfig::logon_backoff) during which a Logon is refused
// without its password being verified; a success resets both. At most
// max_concurrent_verifications argon2id verifications run at once: each takes ~0.1 s of a
// core and 64 MiB at the interactive limits, so a burst of Logons cannot take every core
// and gigabytes; the others wait on their own connection threads, so no logged-on session
// waits for a verification.
//
//   LogonGuard guard(config);
//   LogonVerdict v = guard.Check(spec, peer, username, password);
//   if (!v.accepted) throw FIX::RejectLogon(v.reason);
//
// Failed and refused Logons are logged to stderr with the CompID and the peer address;
// the password never is. C++14 (built with the QuickFIX side).
// Thread safety: thread-safe; QuickFIX calls it from each connection's own thread.
#ifndef CFX_GATEWAY_SRC_FIX_LOGON_GUARD_H_
#define CFX_GATEWAY_SRC_FIX_LOGON_GUARD_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "cfx/common/failure_backoff.h"
#include "cfx/gateway/fix_gateway.h"

namespace cfx {
namespace gateway {
namespace internal {

struct LogonVerdict {
  bool accepted = false;
  std::string reason;  // the Logout text (58) when refused
  // Refused during a back-off whose refusal this CompID was answered already: the
  // connection is closed without an answer. An answer is a Logout from the session, which
  // takes one of its MsgSeqNums and a place in its store: answered every time, Logons
  // without a password grew a session's store and numbers at will (an audit: 1,147 in 20 s).
  bool silent = false;
};

class LogonGuard {
 public:
  // `clock` (monotonic ns) is for tests; null is the steady clock.
  explicit LogonGuard(const FixGatewayConfig& config,
                      common::FailureBackoff::Clock clock = nullptr);

  // Decides the Logon of `spec` from `peer` ("" when unknown) carrying 553 `username` and
  // 554 `password`. A session without a password (allow_no_password) is always accepted.
  LogonVerdict Check(const FixSessionSpec& spec, const std::string& peer,
                     const std::string& username, const std::string& password);

  // A Logon for a CompID (or TargetCompID) no session has, from `peer`: a failed Logon
  // too (SPEC §6), slowed per peer address as a wrong password is (there is no CompID to
  // key). During the peer's wait it is counted as refused in back-off and waits no longer.
  void UnknownCompId(const std::string& comp_id, const std::string& peer);

  // A Logon of a known CompID refused before its password is looked at (a stale
  // SendingTime): a failed Logon too, counted for the CompID and the peer and slowed like a
  // wrong password; during their wait it is refused in back-off (and after the wait's first
  // answer, silently) like any other. `reason` is the refusal's text when not backing off.
  LogonVerdict Refuse(const std::string& comp_id, const std::string& peer,
                      const std::string& reason);

  // argon2id verifications run so far (tests: a refusal during back-off runs none).
  uint64_t verifications() const { return verifications_.load(std::memory_order_relaxed); }
  // Logons refused for a wrong password or username, and refused during a back-off.
  uint64_t failed() const { return failed_.load(std::memory_order_relaxed); }
  uint64_t backed_off() const { return backed_off_.load(std::memory_order_relaxed); }
  // Log lines not written: at most kLogLinesPerSecond a second reach stderr (the next one
  // written says how many were left out), so a flood of Logons cannot fill the log's disk;
  // the audit log has its own bound (docs/audit.md).
  uint64_t log_lines_suppressed() const {
    return log_suppressed_total_.load(std::memory_order_relaxed);
  }
  static constexpr int kLogLinesPerSecond = 20;

 private:
  // One whole line to stderr (one write: lines of several threads do not interleave), or
  // none past the rate above.
  void Log(const std::string& comp_id, const std::string& peer, const std::string& what);
  int64_t Now() const;
  // The longer of the CompID's and the peer's remaining waits, in ms.
  int64_t RemainingMs(const std::string& comp_id, const std::string& peer) const;
  // The refusal of a Logon during a wait of `wait_ms` (> 0): counted, logged, and silent
  // after the wait's first answer.
  LogonVerdict BackedOff(const std::string& comp_id, const std::string& peer, int64_t wait_ms);
  // A verification slot: AcquireTurn waits until fewer than max_verifying_ are in use.
  void AcquireTurn();
  void ReleaseTurn();

  common::FailureBackoff::Clock clock_;  // null: steady_clock
  // Per configured CompID (Check is asked of configured sessions only): until when a
  // refusal during its current wait has been answered (LogonVerdict::silent).
  std::mutex answered_mu_;
  std::map<std::string, int64_t> answered_until_;  // under answered_mu_
  std::mutex log_mu_;
  int64_t log_window_ns_ = 0;    // under log_mu_: the second the count is of
  int log_lines_ = 0;            // under log_mu_: lines written in it
  uint64_t log_suppressed_ = 0;  // under log_mu_: left out since the last line written
  std::atomic<uint64_t> log_suppressed_total_{0};
  common::FailureBackoff comp_ids_;
  common::FailureBackoff peers_;
  const int max_verifying_;
  std::mutex mu_;
  std::condition_variable turn_;
  int verifying_ = 0;  // under mu_
  std::atomic<uint64_t> verifications_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<uint64_t> backed_off_{0};
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_SRC_FIX_LOGON_GUARD_H_
