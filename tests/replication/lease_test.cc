#include "cfx/replication/lease.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "cfx/replication/jetstream_log.h"
#include "cfx/replication/lease_keeper.h"
#include "nats_test_cluster.h"

namespace cfx::replication {
namespace {

std::unique_ptr<Lease> OpenLease(NatsOptions o, const std::string& node) {
  o.node_id = node;
  auto l = Lease::Open(o);
  EXPECT_TRUE(l.ok()) << l.status();
  return l.ok() ? std::move(*l) : nullptr;
}

TEST(LeaseTest, OneHolderAtATimeAndRenewalMovesTheRevision) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("lease_one");
  auto a = OpenLease(o, "node-a");
  auto b = OpenLease(o, "node-b");
  ASSERT_TRUE(a && b);
  auto rev = a->TryAcquire();
  ASSERT_TRUE(rev.ok()) << rev.status();
  auto other = b->TryAcquire();
  EXPECT_TRUE(absl::IsFailedPrecondition(other.status())) << other.status();
  EXPECT_NE(other.status().message().find("node-a"), std::string::npos);
  auto rev2 = a->Renew(*rev);
  ASSERT_TRUE(rev2.ok()) << rev2.status();
  EXPECT_GT(*rev2, *rev);
  // The old revision is no fencing token for anyone else (a's own retry from it is:
  // LeaseTest.ARenewalAppliedButUnansweredIsNoLossButATwinCannotRenew).
  EXPECT_TRUE(absl::IsFailedPrecondition(b->Renew(*rev).status()));
  auto holder = b->Holder();
  ASSERT_TRUE(holder.ok());
  EXPECT_EQ(holder->first, "node-a");
  EXPECT_EQ(holder->second, *rev2);
  // Released, it is free at once.
  ASSERT_TRUE(a->Release(*rev2).ok());
  auto taken = b->TryAcquire();
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_TRUE(absl::IsFailedPrecondition(a->Renew(*rev2).status()));
}

// A create NATS applied but whose answer was lost: the retry finds the key holding this
// Lease's own token and takes it (renewed from its revision), where it answered "held by"
// itself until the key lapsed, and nobody led meanwhile (a review, 2026-12-07). A twin under
// the same node id (another process) is refused.
TEST(LeaseTest, ACreateAppliedButUnansweredIsTakenOnTheRetry) {
  CFX_REQUIRE_NATS();
  NatsOptions o = TestNatsOptions("lease_create_retry");
  o.timeout_ms = o.lease_ttl_ms / 2;  // semantics, not timing (as below)
  auto a = OpenLease(o, "node-a");
  auto twin = OpenLease(o, "node-a");
  ASSERT_TRUE(a && twin);
  auto created = a->TryAcquire();  // its answer "lost"
  ASSERT_TRUE(created.ok()) << created.status();
  auto retried = a->TryAcquire();
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_GT(*retried, *created);
  auto by_twin = twin->TryAcquire();
  EXPECT_TRUE(absl::IsFailedPrecondition(by_twin.status())) << by_twin.status();
  EXPECT_NE(by_twin.status().message().find("held by node-a"), std::string::npos)
      << by_twin.status();
  EXPECT_TRUE(a->Renew(*retried).ok());
}

// A renewal NATS applied but whose answer was lost leaves the holder with the old revision:
// its retry from that revision is no loss (until 2026-12-07 it deposed the leader), while
// another process under the same node id (a restart, a twin) cannot renew by it.
TEST(LeaseTest, ARenewalAppliedButUnansweredIsNoLossButATwinCannotRenew) {
  CFX_REQUIRE_NATS();
  NatsOptions o = TestNatsOptions("lease_retry");
  // Semantics, not timing: a request answered late on a loaded machine (a clean-clone run
  // beside other builds timed one out at 2 s) is waited for, up to half the lease's term.
  o.timeout_ms = o.lease_ttl_ms / 2;
  auto a = OpenLease(o, "node-a");
  auto twin = OpenLease(o, "node-a");
  ASSERT_TRUE(a && twin);
  auto rev = a->TryAcquire();
  ASSERT_TRUE(rev.ok()) << rev.status();
  auto applied = a->Renew(*rev);  // its answer "lost": the caller still holds *rev
  ASSERT_TRUE(applied.ok()) << applied.status();
  auto retried = a->Renew(*rev);
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_GT(*retried, *applied);
  auto by_twin_old = twin->Renew(*rev);
  EXPECT_TRUE(absl::IsFailedPrecondition(by_twin_old.status())) << by_twin_old.status();
  auto holder = twin->Holder();
  ASSERT_TRUE(holder.ok()) << holder.status();
  EXPECT_EQ(holder->first, "node-a");  // the node id, not the token
  EXPECT_EQ(holder->second, *retried);
  EXPECT_TRUE(a->Renew(*retried).ok());
}

TEST(LeaseTest, ALapsedLeaseIsTakenAndItsOldHolderCannotRenew) {
  CFX_REQUIRE_NATS();
  NatsOptions o = TestNatsOptions("lease_ttl");
  o.lease_ttl_ms = 1000;
  auto a = OpenLease(o, "node-a");
  auto b = OpenLease(o, "node-b");
  ASSERT_TRUE(a && b);
  // Before the acquisition: the server stamps the key between this and the answer, so the
  // TTL runs from after `start` however slow the answer (taken after it, an answer 100 ms
  // late on a loaded machine made the wait look shorter than the TTL).
  const auto start = std::chrono::steady_clock::now();
  auto rev = a->TryAcquire();
  ASSERT_TRUE(rev.ok()) << rev.status();
  absl::StatusOr<uint64_t> taken = absl::UnknownError("not tried");
  auto tried = start;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    tried = std::chrono::steady_clock::now();
    taken = b->TryAcquire();
    if (taken.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(taken.ok()) << taken.status();
  const auto waited = std::chrono::steady_clock::now() - start;
  // Not before the TTL: the holder had it for its whole term.
  EXPECT_GE(waited, std::chrono::milliseconds(900));
  auto renewed = a->Renew(*rev);
  EXPECT_TRUE(absl::IsFailedPrecondition(renewed.status())) << renewed.status();
  // Within node-b's own term the error names it. On a loaded machine node-b's term can
  // lapse too before the renewal is tried; then the lease is free, and still not node-a's.
  if (std::chrono::steady_clock::now() - tried < std::chrono::milliseconds(900)) {
    EXPECT_NE(renewed.status().message().find("node-b"), std::string::npos) << renewed.status();
  } else {
    EXPECT_TRUE(renewed.status().message().find("node-b") != std::string::npos ||
                renewed.status().message().find("nobody holds it") != std::string::npos)
        << renewed.status();
  }
}

// A release deletes the key only while the releasing revision is its last write: a holder
// whose lease lapsed and was taken meanwhile leaves the new holder's key alone. Until
// 2026-12-07 Release read the key and then deleted it unconditionally, so a lease taken
// between the two lost its key and, for a moment, nobody led (a review). That window is too
// short for a test to hit; this one fails for any release that deletes without the
// condition (Release reads nothing first now).
TEST(LeaseTest, AReleaseFromALapsedRevisionLeavesTheNextHolderAlone) {
  CFX_REQUIRE_NATS();
  NatsOptions o = TestNatsOptions("lease_stale_release");
  o.lease_ttl_ms = 1000;
  auto a = OpenLease(o, "node-a");
  auto b = OpenLease(o, "node-b");
  ASSERT_TRUE(a && b);
  auto rev = a->TryAcquire();
  ASSERT_TRUE(rev.ok()) << rev.status();
  absl::StatusOr<uint64_t> taken = absl::UnknownError("not tried");
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < give_up) {
    taken = b->TryAcquire();
    if (taken.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_TRUE(a->Release(*rev).ok());  // not a's any more: nothing to do
  auto holder = a->Holder();
  ASSERT_TRUE(holder.ok()) << holder.status();
  EXPECT_EQ(holder->first, "node-b") << "a stale release deleted the next holder's key";
  EXPECT_EQ(holder->second, *taken);
  // The holder's own release still frees it at once.
  ASSERT_TRUE(b->Release(*taken).ok());
  auto again = a->TryAcquire();
  EXPECT_TRUE(again.ok()) << again.status();
}

TEST(LeaseTest, ALeaseThatLapsedUntakenIsFreeAndItsOldHolderCannotRenew) {
  CFX_REQUIRE_NATS();
  NatsOptions o = TestNatsOptions("lease_lapsed");
  o.lease_ttl_ms = 1000;
  auto a = OpenLease(o, "node-a");
  auto b = OpenLease(o, "node-b");
  ASSERT_TRUE(a && b);
  auto rev = a->TryAcquire();
  ASSERT_TRUE(rev.ok()) << rev.status();
  // Wait for the term to lapse with nobody taking it.
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    auto holder = b->Holder();
    ASSERT_TRUE(holder.ok()) << holder.status();
    if (holder->first.empty()) break;
    ASSERT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto renewed = a->Renew(*rev);
  EXPECT_TRUE(absl::IsFailedPrecondition(renewed.status())) << renewed.status();
  EXPECT_NE(renewed.status().message().find("nobody holds it"), std::string::npos)
      << renewed.status();
  // Free: the other node takes it at once.
  auto taken = b->TryAcquire();
  EXPECT_TRUE(taken.ok()) << taken.status();
}

// A keeper's lease (node-a, a TTL of 3 s: renewed every second) and log, and node-b's lease
// to contend with.
struct KeeperParts {
  explicit KeeperParts(const std::string& name) {
    NatsOptions o = TestNatsOptions(name);
    o.lease_ttl_ms = 3000;
    o.timeout_ms = 1000;
    lease = OpenLease(o, "node-a");
    other = OpenLease(o, "node-b");
    auto l = JetStreamLog::Open(o);
    EXPECT_TRUE(l.ok()) << l.status();
    if (l.ok()) log = std::move(*l);
  }
  bool ok() const { return lease && other && log; }
  // node-b's try to take the lease, again until `want` holds (a release or a renewal can
  // take a NATS round trip or two to be seen).
  absl::Status OtherTakes(const std::function<bool(const absl::Status&)>& want) {
    absl::Status last;
    WaitFor(
        [&] {
          last = other->TryAcquire().status();
          return want(last);
        },
        10000);
    return last;
  }
  std::unique_ptr<Lease> lease, other;
  std::unique_ptr<JetStreamLog> log;
};

// A promotion longer than the lease's TTL (a standby far behind the log) keeps the lease: the
// keeper renews it while on_acquired runs. Until 2026-12-07 the renewals waited for the
// promotion, the lease lapsed in the middle of it, and the new leader lost it and exited.
TEST(LeaseKeeperTest, APromotionLongerThanTheTtlKeepsTheLease) {
  CFX_REQUIRE_NATS();
  KeeperParts parts("keeper_slow");
  ASSERT_TRUE(parts.ok());
  std::atomic<bool> promoted{false}, lost{false}, on_callback_thread{false};
  std::atomic<uint64_t> rev_before{0}, rev_after{0};
  LeaseKeeper* self = nullptr;
  LeaseKeeper keeper(parts.lease.get(), parts.log.get(),
                     {.on_acquired =
                          [&] {
                            on_callback_thread = self->OnCallbackThread();
                            rev_before = self->revision();
                            std::this_thread::sleep_for(std::chrono::milliseconds(4500));
                            rev_after = self->revision();
                            promoted = true;
                            return absl::OkStatus();
                          },
                      .on_lost = [&](const absl::Status&) { lost = true; }});
  self = &keeper;
  EXPECT_FALSE(keeper.OnCallbackThread());
  keeper.Start();
  ASSERT_TRUE(WaitFor([&] { return promoted.load(); }, 30000));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // a renewal after it
  EXPECT_TRUE(on_callback_thread.load());
  EXPECT_GT(rev_after.load(), rev_before.load()) << "no renewal during the promotion";
  EXPECT_FALSE(lost.load());
  EXPECT_TRUE(keeper.leading());
  absl::Status taken = parts.OtherTakes([](const absl::Status& s) { return !s.ok(); });
  EXPECT_TRUE(absl::IsFailedPrecondition(taken)) << taken;
  keeper.Stop();
  EXPECT_FALSE(lost.load()) << "a clean stop is no loss";
  taken = parts.OtherTakes([](const absl::Status& s) { return s.ok(); });  // given back
  EXPECT_TRUE(taken.ok()) << taken;
}

// A stop asked for during the promotion waits for it, renewing meanwhile, and then gives the
// lease back: no loss reported, and the promotion never ran without a lease (with the
// release first, its appends were refused and a clean stop was recorded as a deposition).
TEST(LeaseKeeperTest, AStopDuringThePromotionWaitsForItUnderTheLease) {
  CFX_REQUIRE_NATS();
  KeeperParts parts("keeper_stop");
  ASSERT_TRUE(parts.ok());
  std::atomic<bool> promoting{false}, abandon{false}, lost{false}, leading_at_end{false};
  LeaseKeeper* self = nullptr;
  LeaseKeeper keeper(parts.lease.get(), parts.log.get(),
                     {.on_acquired =
                          [&] {
                            promoting = true;
                            // As the server's: abandoned by its stop, after a while.
                            while (!abandon.load()) {
                              std::this_thread::sleep_for(std::chrono::milliseconds(10));
                            }
                            std::this_thread::sleep_for(std::chrono::milliseconds(3500));
                            leading_at_end = self->leading();
                            return absl::CancelledError("the server stops");
                          },
                      .on_lost = [&](const absl::Status&) { lost = true; }});
  self = &keeper;
  keeper.Start();
  ASSERT_TRUE(WaitFor([&] { return promoting.load(); }, 30000));
  abandon = true;
  keeper.Stop();
  EXPECT_TRUE(leading_at_end.load()) << "the lease went back before the promotion ended";
  EXPECT_FALSE(lost.load()) << "a stop is no loss, even if the promotion it ended failed";
  EXPECT_FALSE(keeper.leading());
  absl::Status taken = parts.OtherTakes([](const absl::Status& s) { return s.ok(); });
  EXPECT_TRUE(taken.ok()) << taken;
}

// A promotion that fails gives the lease back and reports the failure through on_lost.
TEST(LeaseKeeperTest, AFailedPromotionGivesTheLeaseBackAndIsReported) {
  CFX_REQUIRE_NATS();
  KeeperParts parts("keeper_fail");
  ASSERT_TRUE(parts.ok());
  std::mutex mu;
  std::string why;
  std::atomic<bool> lost{false};
  LeaseKeeper keeper(parts.lease.get(), parts.log.get(),
                     {.on_acquired = [] { return absl::UnavailableError("no promotion today"); },
                      .on_lost =
                          [&](const absl::Status& s) {
                            std::lock_guard<std::mutex> lock(mu);
                            why = std::string(s.message());
                            lost = true;
                          }});
  keeper.Start();
  ASSERT_TRUE(WaitFor([&] { return lost.load(); }, 30000));
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(why, "no promotion today");
  }
  EXPECT_FALSE(keeper.leading());
  EXPECT_TRUE(keeper.lost());
  absl::Status taken = parts.OtherTakes([](const absl::Status& s) { return s.ok(); });
  EXPECT_TRUE(taken.ok()) << taken;
  keeper.Stop();
}

}  // namespace
}  // namespace cfx::replication
