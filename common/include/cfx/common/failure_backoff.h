// Exponential back-off after failed attempts, per key (a CompID, a peer address): after the
// n-th failure in a row a key waits min(max_ms, initial_ms * 2^(n-f-1)) before it may try
// again, f being `free_failures` (no wait for n <= f). The FIX gateway uses it for failed
// logons, the HTTP server for 401s (SPEC §6, docs/fix.md, docs/http.md).
//
//   FailureBackoff peers(BackoffOptions{});
//   if (peers.RemainingMs(peer) > 0) return Refuse();  // refused without verifying anything
//   if (Verify(credential)) peers.Succeeded(peer); else peers.Failed(peer);
//
// Bounded: at most `max_keys` keys are held. A key is forgotten on success, or once a whole
// `max_ms` has passed after its wait ended without another failure; when the table is full,
// the key whose wait ends first makes room. A client inventing keys (peer addresses) can so
// shorten the shortest waits, never grow the table.
//
// C++14-clean (the FIX gateway's QuickFIX side includes it).
// Thread safety: every method is thread-safe (one mutex; each call is O(1) but an insertion
// into a full table, O(max_keys)). While no key is held, RemainingMs and Succeeded take no
// lock (the hot path of a server with no failures).
#ifndef CFX_COMMON_FAILURE_BACKOFF_H_
#define CFX_COMMON_FAILURE_BACKOFF_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace cfx {
namespace common {

// What the per-peer bounds (connections a peer, the failed-logon and 401 back-offs) count a
// client address under: an IPv4 address as it is, an IPv6 one by its /64
// ("2001:db8:1:2::/64"), the least a single host is given (RFC 6177), so that one host cannot
// pass for thousands of peers by drawing addresses from its own prefix. An IPv4 address in
// IPv6 form (a dual-stack listener) and anything it cannot read, as it is.
std::string PeerKey(const std::string& address);

struct BackoffOptions {
  int64_t initial_ms = 1000;  // the wait after the first failure; 0 turns back-off off
  // Failures in a row that cost no wait: the first wait (initial_ms) follows failure
  // free_failures + 1. 0 (FIX logons): every failure waits.
  int free_failures = 0;
  int64_t max_ms = 60000;     // the cap
  size_t max_keys = 4096;     // keys held at most
};

class FailureBackoff {
 public:
  using Clock = std::function<int64_t()>;  // monotonic nanoseconds; null: steady_clock

  explicit FailureBackoff(BackoffOptions options, Clock clock = nullptr);

  // Milliseconds `key` must still wait (rounded up); 0 when it may try now.
  int64_t RemainingMs(const std::string& key) const;
  // Records a failure of `key` and returns the wait it now has, in milliseconds.
  int64_t Failed(const std::string& key);
  // Forgets `key`: its next failure waits initial_ms again.
  void Succeeded(const std::string& key);
  // Keys held (for tests of the bound).
  size_t size() const;

 private:
  struct Entry {
    int failures = 0;
    int64_t until_ns = 0;  // may not try before
  };
  int64_t Now() const { return clock_(); }
  bool Stale(const Entry& e, int64_t now) const { return now >= e.until_ns + max_ns_; }
  void MakeRoom(int64_t now);  // REQUIRES: mu_ held

  const BackoffOptions options_;
  const int64_t max_ns_;
  Clock clock_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // under mu_
  std::atomic<size_t> held_{0};                      // entries_.size(), written under mu_
};

}  // namespace common
}  // namespace cfx

#endif  // CFX_COMMON_FAILURE_BACKOFF_H_
