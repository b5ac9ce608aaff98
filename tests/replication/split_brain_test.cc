// Split brain: a primary cut off from NATS (every byte between it and the three servers
// dropped, its connections left open, as behind a failed switch) stops acknowledging within
// the lease's TTL; the standby, which still reaches NATS, takes the lease once it lapses and
// leads; when the network heals, the old primary acknowledges nothing more, and everything
// it did acknowledge is in the stream the new primary leads.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "cfx/replication/lease.h"
#include "cfx/replication/lease_keeper.h"
#include "cuttable_proxy.h"
#include "pipeline_node.h"
#include "temp_dir.h"

namespace cfx::replication {
namespace {

using Clock = std::chrono::steady_clock;

// A pipeline node with a lease keeper: it promotes when the keeper takes the lease.
struct LeasedNode {
  LeasedNode(const NatsOptions& o, const std::string& dir) : node(o, dir) {
    auto l = Lease::Open(o);
    EXPECT_TRUE(l.ok()) << l.status();
    lease = std::move(*l);
    keeper = std::make_unique<LeaseKeeper>(
        lease.get(), node.log.get(),
        LeaseKeeper::Callbacks{.on_acquired =
                                   [this] {
                                     return node.Lead() ? absl::OkStatus()
                                                        : absl::UnavailableError("no lead");
                                   },
                               .on_lost = [this](const absl::Status&) { lost.store(true); }});
  }
  Node node;
  std::unique_ptr<Lease> lease;
  std::unique_ptr<LeaseKeeper> keeper;
  std::atomic<bool> lost{false};
};

TEST(SplitBrainTest, APrimaryCutOffFromNatsStopsAcknowledgingWithinTheLeaseTtl) {
  CFX_REQUIRE_NATS();
  NatsOptions o = TestNatsOptions("split");
  o.lease_ttl_ms = 3000;
  o.timeout_ms = 1000;
  // The primary reaches the three servers only through proxies that the test can cut.
  std::vector<std::unique_ptr<CuttableProxy>> proxies;
  NatsOptions cut_off = o;
  cut_off.servers = ProxiedUrls(o.servers, &proxies);
  ASSERT_EQ(cut_off.servers.size(), o.servers.size());
  cut_off.node_id = "node-a";
  o.node_id = "node-b";
  testsupport::TempDir dir_a("cfx_split_a"), dir_b("cfx_split_b");
  LeasedNode a(cut_off, dir_a.path());
  a.keeper->Start();
  ASSERT_TRUE(WaitFor([&] { return a.node.pipeline->leading(); }, 20000));
  LeasedNode b(o, dir_b.path());
  b.keeper->Start();

  // Orders flow into the primary until it stops taking them.
  std::atomic<bool> stop_flow{false};
  std::thread flow([&] {
    std::mt19937_64 rng(5);
    for (uint64_t id = 1; !stop_flow.load(); ++id) {
      const OfferResult r =
          a.node.pipeline->TryOffer(id, CounterCommand{id, rng() % 64, 1});
      if (r == OfferResult::kFull) std::this_thread::yield();
      if (r == OfferResult::kStopped || r == OfferResult::kNotLeader) return;
      if (id % 32 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  struct JoinAtExit {
    std::atomic<bool>& stop;
    std::thread& t;
    ~JoinAtExit() {
      stop.store(true);
      if (t.joinable()) t.join();
    }
  } join_flow{stop_flow, flow};
  ASSERT_TRUE(WaitFor([&] { return a.node.recorder.acks() > 2000; }, 20000));

  const Clock::time_point cut_at = Clock::now();
  for (auto& p : proxies) p->Cut();
  // The standby takes the lease once it lapses, and leads.
  ASSERT_TRUE(WaitFor([&] { return b.node.pipeline->leading(); }, 30000));
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - cut_at);
  const auto last_ack = std::chrono::duration_cast<std::chrono::milliseconds>(
      a.node.recorder.last_ack() - cut_at);
  std::cout << "cut off: last ack of the old primary " << last_ack.count()
            << " ms after the cut; the standby leads " << took.count() << " ms after it"
            << std::endl;
  EXPECT_LT(last_ack.count(), o.lease_ttl_ms) << "acknowledged after its lease could lapse";
  EXPECT_GE(took.count(), last_ack.count());
  // The old primary knows it: its keeper gives up once a renewal fails past the deadline
  // (90% of the TTL after the last renewal it sent), at most a renewal period and a
  // request timeout later.
  ASSERT_TRUE(WaitFor([&] { return a.lost.load(); }, 20000)) << "the old primary still leads";
  const auto lost = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - cut_at);
  std::cout << "the old primary gave up leading " << lost.count() << " ms after the cut"
            << std::endl;
  EXPECT_LT(lost.count(), o.lease_ttl_ms + o.lease_ttl_ms / 3 + o.timeout_ms + 1000);
  const size_t acked_by_a = a.node.recorder.acks();

  // The network heals: the old primary acknowledges nothing more (its deadline passed and
  // the stream has moved on), and the new primary's stream holds all it acknowledged.
  for (auto& p : proxies) p->Heal();
  constexpr size_t kNew = 200;
  std::mt19937_64 rng(9);
  ASSERT_EQ(b.node.Offer(1'000'000, kNew, rng), kNew);
  auto new_acked = [&] {
    size_t n = 0;
    for (uint64_t id : b.node.recorder.acked()) n += id >= 1'000'000;
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return new_acked() == kNew; }))
      << new_acked() << " acknowledged, error " << b.node.recorder.error();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(a.node.recorder.acks(), acked_by_a) << "the old primary acknowledged after the cut";
  EXPECT_GE(b.node.pipeline->stats().followed_inputs, acked_by_a)
      << "an input the old primary acknowledged is missing from the stream";
  a.keeper->Stop();
  b.keeper->Stop();
  (void)a.node.pipeline->Stop();
  (void)b.node.pipeline->Stop();
}

}  // namespace
}  // namespace cfx::replication
