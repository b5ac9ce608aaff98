// The pipeline with a replicated log on a real 3-server NATS cluster: a standby follows the
// primary input by input to the same state; promoted, it takes over where the log ends; a
// primary that keeps running after a standby took over is fenced at its next batch and
// acknowledges nothing more; a restarted primary catches up as a standby from its own
// journal and the log.
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "cfx/journal/counter_machine.h"
#include "cfx/journal/journal.h"
#include "cfx/journal/pipeline.h"
#include "cfx/replication/jetstream_log.h"
#include "nats_test_cluster.h"
#include "pipeline_node.h"
#include "temp_dir.h"

namespace cfx::replication {
namespace {

TEST(ReplicatedPipelineTest, StandbyFollowsToTheSameStateTakesOverAndFencesTheOldPrimary) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("pipeline");
  testsupport::TempDir dir_a("cfx_node_a"), dir_b("cfx_node_b");
  std::mt19937_64 rng(11);
  auto a = std::make_unique<Node>(o, dir_a.path());
  Node b(o, dir_b.path());
  // A standby takes no orders.
  EXPECT_EQ(b.pipeline->TryOffer(1, CounterCommand{1, 1, 1}), OfferResult::kNotLeader);
  ASSERT_TRUE(a->Lead());
  constexpr size_t kFirst = 3000;
  ASSERT_EQ(a->Offer(1, kFirst, rng), kFirst);
  ASSERT_TRUE(a->WaitFor([&] { return a->recorder.acks() == kFirst; }));
  ASSERT_TRUE(b.WaitFor([&] { return b.pipeline->stats().followed_inputs == kFirst; }));

  // The standby takes over (it would hold the lease now); the old primary keeps running.
  ASSERT_TRUE(b.Lead());
  constexpr size_t kSecond = 1000;
  ASSERT_EQ(b.Offer(100000, kSecond, rng), kSecond);
  ASSERT_TRUE(b.WaitFor([&] { return b.recorder.acks() == kFirst + kSecond; }));
  // The old primary's next batch is refused by the log: it stops and acknowledges none of it.
  a->Offer(200000, 50, rng);
  ASSERT_TRUE(a->WaitFor([&] { return !a->recorder.error().ok(); }));
  EXPECT_TRUE(absl::IsFailedPrecondition(a->recorder.error())) << a->recorder.error();
  for (uint64_t id : a->recorder.acked()) EXPECT_LT(id, 200000u) << "acked after being fenced";
  const std::set<uint64_t> acked_by_a = a->recorder.acked();
  EXPECT_EQ(acked_by_a.size(), kFirst);
  (void)a->pipeline->Stop();
  a.reset();

  // The old primary restarts on its own journal as a standby and catches up from the log.
  Node a2(o, dir_a.path());
  ASSERT_TRUE(a2.WaitFor([&] { return a2.pipeline->stats().followed_inputs == kSecond; }));
  // The standby compared its state with the primary's while following (every 500 inputs).
  ASSERT_TRUE(a2.WaitFor([&] { return a2.pipeline->stats().state_checked_seq == kFirst + kSecond; }));
  const uint64_t hb = b.StopAndHash();
  EXPECT_EQ(a2.StopAndHash(), hb);
  EXPECT_EQ(a2.machine.applied(), kFirst + kSecond);
}

// The promoted node's fence races whatever the deposed primary still publishes (its idle
// checkpoint, most often: in a clean-clone run under load, one landed between the standby
// reading the log's end and its fence, and the standby stopped instead of leading). Here
// another writer appends a checkpoint in exactly that window: the new leader reads it and
// fences again, then takes orders.
TEST(ReplicatedPipelineTest, AnAppendBetweenTheLogsEndAndTheFenceIsReadAndFencedAgain) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("refence");
  testsupport::TempDir dir_a("cfx_node_a"), dir_b("cfx_node_b");
  std::mt19937_64 rng(3);
  Node a(o, dir_a.path());
  Node b(o, dir_b.path());
  ASSERT_TRUE(a.Lead());
  constexpr size_t kFirst = 100;
  ASSERT_EQ(a.Offer(1, kFirst, rng), kFirst);
  ASSERT_TRUE(a.WaitFor([&] { return a.recorder.acks() == kFirst; }));
  ASSERT_TRUE(b.WaitFor([&] { return b.pipeline->stats().followed_inputs == kFirst; }));

  std::atomic<bool> appended{false};
  b.interposed->after_end = [&] {
    // Another writer reads the stream to its end and appends a checkpoint on its own.
    auto other = JetStreamLog::Open(o);
    ASSERT_TRUE(other.ok()) << other.status();
    journal::ReplicatedBatch rb;
    uint64_t next = 1;
    // Up to the end known now, each read may wait long (a loaded server can be slow to
    // push); past it, 200 ms of silence is the end.
    const absl::StatusOr<uint64_t> known_end = (*other)->EndSeq();
    while ((*other)->Read(next, known_end.ok() && next < *known_end ? 10000 : 200, &rb).ok()) {
      next += rb.payloads.size();
    }
    absl::StatusOr<uint64_t> end = (*other)->EndSeq();
    ASSERT_TRUE(end.ok()) << end.status();
    ASSERT_EQ(*end, next);
    absl::Status s = (*other)->Append(next, {}, journal::StateCheckpoint{});
    EXPECT_TRUE(s.ok()) << s;
    appended = s.ok();
  };
  ASSERT_TRUE(b.Lead()) << b.recorder.error();
  EXPECT_TRUE(appended);
  constexpr size_t kSecond = 100;
  ASSERT_EQ(b.Offer(100000, kSecond, rng), kSecond);
  ASSERT_TRUE(b.WaitFor([&] { return b.recorder.acks() == kFirst + kSecond; }));
  EXPECT_TRUE(b.recorder.error().ok()) << b.recorder.error();
}

TEST(ReplicatedPipelineTest, AStandbyThatDivergesStopsAndNeverLeads) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("diverge");
  testsupport::TempDir dir_a("cfx_node_a"), dir_b("cfx_node_b"), dir_c("cfx_node_c");
  std::mt19937_64 rng(5);
  Node a(o, dir_a.path());
  Node b(o, dir_b.path(), /*skewed=*/true);
  Node c(o, dir_c.path());
  ASSERT_TRUE(a.Lead());
  ASSERT_EQ(a.Offer(1, 3000, rng), 3000u);
  ASSERT_TRUE(a.WaitFor([&] { return a.recorder.acks() == 3000; }));
  ASSERT_TRUE(c.WaitFor([&] { return c.pipeline->stats().followed_inputs == 3000; }));
  // The healthy standby compared hashes (the primary sends its latest with each batch and,
  // idle, on its own: at least the one after input 3000).
  ASSERT_TRUE(c.WaitFor([&] { return c.pipeline->stats().state_checked_seq == 3000; }));
  EXPECT_TRUE(c.recorder.error().ok()) << c.recorder.error();
  // The skewed one stops at the first hash compared after input 777.
  ASSERT_TRUE(b.WaitFor([&] { return !b.recorder.error().ok(); }));
  EXPECT_EQ(b.recorder.error().code(), absl::StatusCode::kDataLoss) << b.recorder.error();
  EXPECT_NE(b.recorder.error().message().find("this standby diverged"), std::string::npos)
      << b.recorder.error();
  b.pipeline->Promote();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(b.pipeline->leading());
}

// A standby promoted while its matcher is behind the log compares its last hashes before it
// leads: here its matcher is held at input 1000 (a snapshot seq) while the primary's hash
// after 1000 is already in the log, and it diverged at input 777. Promoted, it waits for its
// matcher, finds the difference and never leads. Until 2026-12-07 it led at once, and its hash
// after 1000, recorded once leading, was compared with nothing (a review).
TEST(ReplicatedPipelineTest, AStandbyPromotedWithItsMatcherBehindComparesBeforeItLeads) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("diverge_behind");
  testsupport::TempDir dir_a("cfx_node_a"), dir_b("cfx_node_b"), dir_c("cfx_node_c");
  std::mt19937_64 rng(5);
  Node a(o, dir_a.path());
  auto held = std::make_unique<HeldSkewedMachine>(1000);
  HeldSkewedMachine& b_machine = *held;
  Node b(o, dir_b.path(), std::move(held));
  Node c(o, dir_c.path());
  ASSERT_TRUE(a.Lead());
  ASSERT_EQ(a.Offer(1, 1000, rng), 1000u);
  ASSERT_TRUE(a.WaitFor([&] { return a.recorder.acks() == 1000; }));
  // The primary's hash after 1000 is in the log: the healthy standby compared it.
  ASSERT_TRUE(c.WaitFor([&] { return c.pipeline->stats().state_checked_seq == 1000; }));
  ASSERT_TRUE(b.WaitFor([&] { return b_machine.reached(); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // b reads the hash of 1000
  EXPECT_TRUE(b.recorder.error().ok()) << "found before the promotion: nothing tested";
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    b_machine.Release();
  });
  b.pipeline->Promote();
  release.join();
  ASSERT_TRUE(b.WaitFor([&] { return !b.recorder.error().ok(); }, 10000))
      << "the diverged standby led: " << b.pipeline->leading();
  EXPECT_EQ(b.recorder.error().code(), absl::StatusCode::kDataLoss) << b.recorder.error();
  EXPECT_NE(b.recorder.error().message().find("this standby diverged"), std::string::npos)
      << b.recorder.error();
  EXPECT_FALSE(b.pipeline->leading());
}

// R3: with one of the three servers killed (the one both nodes connected to first), the
// primary keeps acknowledging and the standby keeps following; nothing is lost or doubled.
TEST(ReplicatedPipelineTest, LosingOneNatsServerLosesNothing) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("one_down");
  testsupport::TempDir dir_a("cfx_node_a"), dir_b("cfx_node_b");
  std::mt19937_64 rng(3);
  Node a(o, dir_a.path());
  Node b(o, dir_b.path());
  ASSERT_TRUE(a.Lead());
  ASSERT_EQ(a.Offer(1, 2000, rng), 2000u);
  ASSERT_TRUE(a.WaitFor([&] { return a.recorder.acks() == 2000; }));
  SharedNatsCluster::Get()->Kill(0);
  ASSERT_EQ(a.Offer(2001, 2000, rng), 2000u);
  const bool all_acked = a.WaitFor([&] { return a.recorder.acks() == 4000; }, 60000);
  const bool followed = b.WaitFor([&] { return b.pipeline->stats().followed_inputs == 4000; }, 60000);
  ASSERT_TRUE(SharedNatsCluster::Get()->Restart(0).ok());
  ASSERT_TRUE(all_acked) << a.recorder.acks() << " " << a.recorder.error();
  ASSERT_TRUE(followed) << b.pipeline->stats().followed_inputs;
  EXPECT_TRUE(a.recorder.error().ok()) << a.recorder.error();
  const uint64_t ha = a.StopAndHash();
  EXPECT_EQ(b.StopAndHash(), ha);
  EXPECT_EQ(b.machine.applied(), 4000u);
}

TEST(ReplicatedPipelineTest, AJournalAheadOfTheLogRefusesToLead) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("ahead");
  testsupport::TempDir dir("cfx_node");
  {  // inputs journaled without replication: the log never had them
    auto j = journal::Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(j.ok());
    CounterCodec codec;
    std::string bytes;
    journal::EncodeInput(0, codec, CounterCommand{1, 1, 1}, &bytes);
    const std::vector<absl::string_view> v = {bytes};
    ASSERT_TRUE((*j)->AppendBatch(v).ok());
  }
  Node n(o, dir.path());
  n.pipeline->Promote();
  ASSERT_TRUE(n.WaitFor([&] { return !n.recorder.error().ok(); }, 10000));
  EXPECT_TRUE(absl::IsFailedPrecondition(n.recorder.error())) << n.recorder.error();
  EXPECT_NE(n.recorder.error().message().find("local journal holds inputs up to 1"),
            std::string::npos);
  EXPECT_FALSE(n.pipeline->leading());
}

}  // namespace
}  // namespace cfx::replication
