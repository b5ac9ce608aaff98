#include "fix_logon_guard.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cfx/common/credentials.h"

namespace cfx {
namespace gateway {
namespace internal {
namespace {

constexpr char kInvalid[] = "invalid username or password";

std::string Seconds(int64_t ms) { return std::to_string((ms + 999) / 1000) + " s"; }

}  // namespace

LogonGuard::LogonGuard(const FixGatewayConfig& config, common::FailureBackoff::Clock clock)
    : clock_(clock),
      comp_ids_(config.logon_backoff, clock),
      peers_(config.logon_backoff, clock),
      max_verifying_(std::max(1, config.max_concurrent_verifications)) {}

int64_t LogonGuard::Now() const {
  if (clock_) return clock_();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void LogonGuard::Log(const std::string& comp_id, const std::string& peer, const std::string& what) {
  uint64_t left_out = 0;
  {
    std::lock_guard<std::mutex> lock(log_mu_);
    const int64_t now = Now();
    if (now - log_window_ns_ >= 1000000000 || now < log_window_ns_) {
      log_window_ns_ = now;
      log_lines_ = 0;
    }
    if (log_lines_ >= kLogLinesPerSecond) {
      ++log_suppressed_;
      log_suppressed_total_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    ++log_lines_;
    left_out = log_suppressed_;
    log_suppressed_ = 0;
  }
  std::string line = "cfx fix: logon " + what + ": CompID " + comp_id + " from " +
                     (peer.empty() ? std::string("?") : peer);
  if (left_out > 0) line += " (" + std::to_string(left_out) + " logon lines left out before it)";
  line += "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

int64_t LogonGuard::RemainingMs(const std::string& comp_id, const std::string& peer) const {
  return std::max(comp_ids_.RemainingMs(comp_id), peers_.RemainingMs(common::PeerKey(peer)));
}

void LogonGuard::AcquireTurn() {
  std::unique_lock<std::mutex> lock(mu_);
  turn_.wait(lock, [this] { return verifying_ < max_verifying_; });
  ++verifying_;
}

void LogonGuard::ReleaseTurn() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --verifying_;
  }
  turn_.notify_one();
}

LogonVerdict LogonGuard::Check(const FixSessionSpec& spec, const std::string& peer,
                               const std::string& username, const std::string& password) {
  LogonVerdict v;
  if (!spec.has_password) {
    v.accepted = true;
    return v;
  }
  const std::string& comp_id = spec.sender_comp_id;
  int64_t wait_ms = RemainingMs(comp_id, peer);
  bool verified = false;
  if (wait_ms == 0) {
    AcquireTurn();
    // Checked again with the turn: a Logon that queued behind a failure of the same CompID
    // or peer is refused without verifying.
    wait_ms = RemainingMs(comp_id, peer);
    if (wait_ms == 0) {
      verifications_.fetch_add(1, std::memory_order_relaxed);
      verified = common::VerifyPassword(spec.password_hash, password);
    }
    ReleaseTurn();
  }
  if (wait_ms > 0) return BackedOff(comp_id, peer, wait_ms);
  // The username is compared after the verification, so timing does not tell it apart.
  if (verified && (spec.username.empty() || username == spec.username)) {
    // The CompID's streak ends; the address's only with a quiet spell (FailureBackoff
    // forgets a key max_ms after its wait ended). Until 2026-12-07 any success from the
    // address ended it too, so a firm that guessed at another firm's CompIDs, or scanned for
    // unknown ones, logged on as its own session after each wait and never waited past 1 s
    // (a review; the HTTP back-off was fixed the same way before).
    comp_ids_.Succeeded(comp_id);
    v.accepted = true;
    return v;
  }
  failed_.fetch_add(1, std::memory_order_relaxed);
  const int64_t next = std::max(comp_ids_.Failed(comp_id), peers_.Failed(common::PeerKey(peer)));
  Log(comp_id, peer, "failed (" + std::string(kInvalid) + "; back-off " + Seconds(next) + ")");
  v.reason = kInvalid;
  return v;
}

LogonVerdict LogonGuard::BackedOff(const std::string& comp_id, const std::string& peer,
                                   int64_t wait_ms) {
  LogonVerdict v;
  backed_off_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(answered_mu_);
    const int64_t now = Now();
    int64_t& until = answered_until_[comp_id];
    if (until > now) {
      v.silent = true;
    } else {
      until = now + wait_ms * 1000000;
    }
  }
  Log(comp_id, peer,
      "refused during back-off (" + Seconds(wait_ms) + " left" +
          (v.silent ? "; closed without an answer, this wait's refusal was answered" : "") + ")");
  v.reason = "too many failed logons: retry in " + Seconds(wait_ms);
  return v;
}

LogonVerdict LogonGuard::Refuse(const std::string& comp_id, const std::string& peer,
                                const std::string& reason) {
  if (const int64_t wait_ms = RemainingMs(comp_id, peer); wait_ms > 0) {
    return BackedOff(comp_id, peer, wait_ms);
  }
  LogonVerdict v;
  failed_.fetch_add(1, std::memory_order_relaxed);
  const int64_t next = std::max(comp_ids_.Failed(comp_id), peers_.Failed(common::PeerKey(peer)));
  Log(comp_id, peer, "failed (" + reason + "; back-off " + Seconds(next) + ")");
  v.reason = reason;
  return v;
}

void LogonGuard::UnknownCompId(const std::string& comp_id, const std::string& peer) {
  // The CompID is the client's text: shown printable only.
  std::string shown = comp_id.substr(0, 64);
  for (char& c : shown) {
    if (c < 0x20 || c > 0x7E) c = '?';
  }
  if (const int64_t wait_ms = peers_.RemainingMs(common::PeerKey(peer)); wait_ms > 0) {
    backed_off_.fetch_add(1, std::memory_order_relaxed);
    Log(shown, peer,
        "for an unknown CompID refused during back-off (" + Seconds(wait_ms) + " left)");
    return;
  }
  failed_.fetch_add(1, std::memory_order_relaxed);
  const int64_t next = peers_.Failed(common::PeerKey(peer));
  Log(shown, peer, "failed (unknown CompID; back-off " + Seconds(next) + ")");
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
