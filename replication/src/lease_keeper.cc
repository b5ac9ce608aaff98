#include "cfx/replication/lease_keeper.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "steady_micros.h"

namespace cfx::replication {
namespace {

using internal::SteadyMicros;

// The keeper whose callback this thread runs, if any (OnCallbackThread).
thread_local const LeaseKeeper* calling_keeper = nullptr;

}  // namespace

bool LeaseKeeper::OnCallbackThread() const { return calling_keeper == this; }

LeaseKeeper::LeaseKeeper(Lease* lease, JetStreamLog* log, Callbacks callbacks)
    : lease_(lease),
      log_(log),
      callbacks_(std::move(callbacks)),
      ttl_ms_(lease->options().lease_ttl_ms) {
  log_->SetLeaderDeadline(0);  // not leading until the lease is taken
}

LeaseKeeper::~LeaseKeeper() { Stop(); }

void LeaseKeeper::Start() { thread_ = std::thread([this] { Run(); }); }

void LeaseKeeper::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LeaseKeeper::Resign(const absl::Status& why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (resigning_) return;
    resigning_ = true;
    resign_why_ = why;
    log_->SetLeaderDeadline(0);  // no append from now on: a renewal in flight keeps it 0
  }
  cv_.notify_all();
}

bool LeaseKeeper::WaitFor(int64_t ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, std::chrono::milliseconds(ms),
                       [&] { return stopping_ || resigning_; });
}

void LeaseKeeper::Lose(const absl::Status& why) {
  log_->SetLeaderDeadline(0);
  leading_.store(false, std::memory_order_release);
  lost_.store(true, std::memory_order_release);
  if (callbacks_.on_lost) callbacks_.on_lost(why);
}

void LeaseKeeper::Run() {
  calling_keeper = this;
  const int64_t period_ms = std::max<int64_t>(ttl_ms_ / 3, 1);
  // 90% of the TTL from the moment a request was sent: the lease lapses on the servers at
  // the earliest TTL after they wrote it, which is after that moment.
  const int64_t hold_us = ttl_ms_ * 900;
  uint64_t rev = 0;
  int64_t deadline = 0;  // while leading: when this node must stop appending
  // Standby: contend until the lease is ours.
  for (;;) {
    const int64_t sent = SteadyMicros();
    absl::StatusOr<uint64_t> got = lease_->TryAcquire();
    if (got.ok()) {
      rev = *got;
      revision_.store(rev, std::memory_order_release);
      deadline = sent + hold_us;
      log_->SetLeaderDeadline(deadline);
      leading_.store(true, std::memory_order_release);
      break;
    }
    if (!WaitFor(period_ms)) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!resigning_) return;
      lost_.store(true, std::memory_order_release);  // never contends again
      return;
    }
  }
  // The promotion runs beside the renewals: a standby far behind the log takes longer than
  // the TTL to catch up, and until 2026-12-07 lost the lease in the middle of it (the
  // renewals waited for it) and exited.
  std::thread promotion;
  if (callbacks_.on_acquired) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      promotion_running_ = true;
    }
    promotion = std::thread([this] {
      calling_keeper = this;
      absl::Status s = callbacks_.on_acquired();
      {
        std::lock_guard<std::mutex> lock(mu_);
        promotion_running_ = false;
        if (!s.ok()) {
          promotion_failed_ = true;
          promotion_error_ = s;
        }
      }
      cv_.notify_all();
    });
  }
  struct JoinAtExit {
    std::thread& t;
    ~JoinAtExit() {
      if (t.joinable()) t.join();
    }
  } join_promotion{promotion};
  // Leader: renew until stopped or lost. A stop asked for during the promotion waits for it
  // (the server abandons it) with the lease still renewed, so that it ends under a lease of
  // its own and the lease goes back after it.
  // After a renewal NATS did not answer, the next is tried soon, not a period later: with
  // the defaults (TTL 10 s, requests of 2 s) a failed renewal then a period's wait passed
  // the 9 s deadline, so a NATS election of 4 s deposed the leader (a review, 2026-12-07).
  const int64_t retry_ms = std::min<int64_t>(period_ms, 200);
  int64_t wait_ms = period_ms;
  for (;;) {
    bool end = false;
    absl::Status why;
    {
      std::unique_lock<std::mutex> lock(mu_);
      auto ending = [&] {
        return resigning_ || promotion_failed_ || (stopping_ && !promotion_running_);
      };
      cv_.wait_for(lock, std::chrono::milliseconds(wait_ms), ending);
      end = ending();
      // A promotion that failed because the keeper was stopping is a stop, not a loss.
      if (resigning_) {
        why = resign_why_;
      } else if (promotion_failed_ && !stopping_) {
        why = promotion_error_;
      }
    }
    if (end) {
      log_->SetLeaderDeadline(0);
      (void)lease_->Release(rev);
      leading_.store(false, std::memory_order_release);
      if (!why.ok()) Lose(why);
      return;
    }
    const int64_t sent = SteadyMicros();
    absl::StatusOr<uint64_t> renewed = lease_->Renew(rev);
    if (renewed.ok()) {
      wait_ms = period_ms;
      rev = *renewed;
      revision_.store(rev, std::memory_order_release);
      deadline = sent + hold_us;
      // Not after a Resign that came while the renewal was in flight: its deadline of 0
      // stands.
      std::lock_guard<std::mutex> lock(mu_);
      if (!resigning_) log_->SetLeaderDeadline(deadline);
      continue;
    }
    if (absl::IsFailedPrecondition(renewed.status())) {
      Lose(renewed.status());
      return;
    }
    // NATS did not answer: keep trying while the lease may still be ours.
    wait_ms = retry_ms;
    if (SteadyMicros() > deadline) {
      Lose(absl::UnavailableError(
          absl::StrCat("lease not renewed within its TTL: ", renewed.status().message())));
      return;
    }
  }
}

}  // namespace cfx::replication
