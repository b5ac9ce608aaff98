// Keeps one node's side of the leadership lease on a thread of its own (docs/replication.md,
// "Leadership"): a standby tries to take the lease every TTL/3; once it has it, it calls
// on_acquired (promote the core, open the order ports) on a second thread while it renews
// every TTL/3, so a promotion longer than the TTL (a standby far behind the log) keeps the
// lease. Each renewal
// moves the log's leader deadline to (the moment the renewal was sent + 90% of the TTL), so
// a leader cut off from NATS stops appending, and so acknowledging, before the lease lapses
// and a standby can take over. A renewal refused (someone else holds the lease) or a
// deadline passed calls on_lost once; the keeper then stops for good.
//
//   LeaseKeeper keeper(lease.get(), log.get(), {.on_acquired = ..., .on_lost = ...});
//   keeper.Start();
//   ...
//   keeper.Stop();   // releases the lease if held, so a standby need not wait the TTL
//                    // (during a promotion: once on_acquired has returned, renewing till then)
#ifndef CFX_REPLICATION_LEASE_KEEPER_H_
#define CFX_REPLICATION_LEASE_KEEPER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/status/status.h"
#include "cfx/replication/jetstream_log.h"
#include "cfx/replication/lease.h"

namespace cfx::replication {

class LeaseKeeper {
 public:
  struct Callbacks {
    // On a thread of the keeper's own, right after the lease was taken, while the keeper
    // renews the lease: on_lost may run meanwhile. An error gives the lease back and ends
    // the keeper (on_lost is called with it).
    std::function<absl::Status()> on_acquired;
    // On the keeper's thread, once: leadership lost (or on_acquired failed).
    std::function<void(const absl::Status&)> on_lost;
  };
  // Neither is owned. `log` gets the leader deadline (it refuses appends after it).
  LeaseKeeper(Lease* lease, JetStreamLog* log, Callbacks callbacks);
  ~LeaseKeeper();  // Stop()s
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  void Start();
  void Stop();
  // Gives the lease up now and ends the keeper (on_lost with `why`): the node cannot lead
  // any more (its order path failed). Any thread; returns at once.
  void Resign(const absl::Status& why);
  bool leading() const { return leading_.load(std::memory_order_acquire); }
  uint64_t revision() const { return revision_.load(std::memory_order_acquire); }
  bool lost() const { return lost_.load(std::memory_order_acquire); }
  // True on the threads the keeper calls its callbacks on (its own and the promotion's): a
  // callback must not Stop() the keeper, which waits for it.
  bool OnCallbackThread() const;

 private:
  void Run();
  bool WaitFor(int64_t ms);  // false once stopping
  void Lose(const absl::Status& why);

  Lease* const lease_;
  JetStreamLog* const log_;
  Callbacks callbacks_;
  const int64_t ttl_ms_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool resigning_ = false;   // mu_
  absl::Status resign_why_;  // mu_
  bool promotion_running_ = false;  // mu_: on_acquired has not returned yet
  bool promotion_failed_ = false;   // mu_: on_acquired returned an error
  absl::Status promotion_error_;   // mu_
  std::atomic<bool> leading_{false};
  std::atomic<bool> lost_{false};
  std::atomic<uint64_t> revision_{0};
};

}  // namespace cfx::replication

#endif  // CFX_REPLICATION_LEASE_KEEPER_H_
