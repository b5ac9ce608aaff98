#include "cfx/replication/jetstream_log.h"

#include <gtest/gtest.h>
#include <nats/nats.h>

#include <chrono>
#include <cstring>

#include "cfx/replication/batch_format.h"
#include "cfx/replication/lease.h"
#include "nats_test_cluster.h"

namespace cfx::replication {
namespace {

using journal::ReplicatedBatch;

// Reads everything there is from `next` on; returns the seq after the last input read.
// Up to the end the stream reported at the start each read may wait long (a loaded server
// can be slow to push: a 300 ms silence there is no end); past it, 300 ms of silence is.
uint64_t CatchUp(JetStreamLog& log, uint64_t next, std::vector<std::string>* got = nullptr) {
  ReplicatedBatch b;
  const absl::StatusOr<uint64_t> known_end = log.EndSeq();
  for (;;) {
    const int64_t wait_ms = known_end.ok() && next < *known_end ? 10000 : 300;
    absl::Status s = log.Read(next, wait_ms, &b);
    if (absl::IsDeadlineExceeded(s)) break;
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) break;
    EXPECT_EQ(b.first_seq, next);
    if (got != nullptr) got->insert(got->end(), b.payloads.begin(), b.payloads.end());
    next += b.payloads.size();
  }
  auto end = log.EndSeq();
  EXPECT_TRUE(end.ok()) << end.status();
  EXPECT_EQ(end.ok() ? *end : 0, next);
  return next;
}

absl::Status Append(JetStreamLog& log, uint64_t first, std::vector<std::string> inputs) {
  std::vector<absl::string_view> v(inputs.begin(), inputs.end());
  return log.Append(first, v);
}

TEST(JetStreamLogTest, AFollowerReadsWhatTheLeaderAppendsFromAnyInput) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("follow");
  auto leader = OpenLog(o);
  auto follower = OpenLog(o);
  ASSERT_TRUE(leader && follower);
  ASSERT_EQ(CatchUp(*leader, 1), 1u);  // only the genesis marker
  ASSERT_TRUE(Append(*leader, 1, {"a", "b"}).ok());
  ASSERT_TRUE(Append(*leader, 3, {"c"}).ok());
  std::vector<std::string> got;
  EXPECT_EQ(CatchUp(*follower, 1, &got), 4u);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b", "c"}));
  // A node that already holds input 1 (its local journal) starts at 2: the batch holding 2
  // is found and what comes before 2 in it is dropped.
  auto restarted = OpenLog(o);
  got.clear();
  EXPECT_EQ(CatchUp(*restarted, 2, &got), 4u);
  EXPECT_EQ(got, (std::vector<std::string>{"b", "c"}));
  // A follower past the end waits; it then gets the next append.
  ReplicatedBatch b;
  EXPECT_TRUE(absl::IsDeadlineExceeded(follower->Read(4, 100, &b)));
  ASSERT_TRUE(Append(*leader, 4, {"d"}).ok());
  ASSERT_TRUE(follower->Read(4, 2000, &b).ok());
  EXPECT_EQ(b.first_seq, 4u);
  EXPECT_EQ(b.payloads, (std::vector<std::string>{"d"}));
}

TEST(JetStreamLogTest, OfTwoWritersOnlyTheOneThatReadTheWholeStreamAppends) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("fence");
  auto a = OpenLog(o);
  auto b = OpenLog(o);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(CatchUp(*a, 1), 1u);
  ASSERT_EQ(CatchUp(*b, 1), 1u);
  ASSERT_TRUE(Append(*a, 1, {"a1"}).ok());
  // b last saw the genesis marker: its append names a stale tail and is refused.
  absl::Status s = Append(*b, 1, {"b1"});
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  // Once refused, b cannot append at all until it has read the stream again.
  EXPECT_TRUE(absl::IsFailedPrecondition(Append(*b, 2, {"b2"})));
  std::vector<std::string> got;
  ASSERT_EQ(CatchUp(*b, 1, &got), 2u);
  EXPECT_EQ(got, (std::vector<std::string>{"a1"}));  // b's refused batch is not there
  ASSERT_TRUE(Append(*b, 2, {"b2"}).ok());
  // Now a is the deposed one.
  s = Append(*a, 2, {"a2"});
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  auto reader = OpenLog(o);
  got.clear();
  ASSERT_EQ(CatchUp(*reader, 1, &got), 3u);
  EXPECT_EQ(got, (std::vector<std::string>{"a1", "b2"}));
}

TEST(JetStreamLogTest, RefusesAnAppendBeforeReadingAndAfterTheLeaderDeadline) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("deadline");
  auto log = OpenLog(o);
  ASSERT_TRUE(log);
  EXPECT_TRUE(absl::IsFailedPrecondition(Append(*log, 1, {"x"})));  // never read
  ASSERT_EQ(CatchUp(*log, 1), 1u);
  EXPECT_TRUE(absl::IsFailedPrecondition(Append(*log, 5, {"x"})));  // not the next input
  const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::steady_clock::now().time_since_epoch())
                             .count();
  log->SetLeaderDeadline(now_us - 1);
  absl::Status s = Append(*log, 1, {"x"});
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("lease"), std::string::npos);
  log->SetLeaderDeadline(INT64_MAX);
  EXPECT_TRUE(Append(*log, 1, {"x"}).ok());
}

// The first server's URL with the cluster's user and `password` in it (a raw client).
std::string WithCredentials(const NatsOptions& o, const std::string& password) {
  return "nats://" + o.user + ":" + password + "@" + o.servers[0].substr(std::strlen("nats://"));
}

// The stream carries every firm's orders: a client without the cluster's credentials, or
// with a wrong password, is refused at connect, so it reads nothing, publishes nothing and
// cannot touch the lease (a review, 2026-12-07: the servers took anyone on loopback).
TEST(JetStreamLogTest, OnlyAClientWithTheClustersCredentialsConnects) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("credentials");
  ASSERT_FALSE(o.user.empty());
  ASSERT_TRUE(OpenLog(o));
  for (const std::string& url :
       {o.servers[0], WithCredentials(o, "wrong-" + o.password), WithCredentials(o, "")}) {
    natsConnection* nc = nullptr;
    EXPECT_NE(natsConnection_ConnectTo(&nc, url.c_str()), NATS_OK) << "connected anonymously";
    if (nc != nullptr) natsConnection_Destroy(nc);
  }
  NatsOptions anonymous = o;
  anonymous.user.clear();
  anonymous.password.clear();
  anonymous.timeout_ms = 500;
  EXPECT_FALSE(JetStreamLog::Open(anonymous).ok());
  EXPECT_FALSE(Lease::Open(anonymous).ok());
}

// Hostile or broken bytes in the stream (written around cfx, straight to the subject):
// a follower reports DataLoss naming the stream message, and never applies them.
TEST(JetStreamLogTest, AFollowerRefusesGarbageAndGapsNamingTheMessage) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("garbage");
  auto log = OpenLog(o);
  ASSERT_TRUE(log);
  natsConnection* nc = nullptr;
  ASSERT_EQ(natsConnection_ConnectTo(&nc, WithCredentials(o, o.password).c_str()), NATS_OK);
  jsCtx* js = nullptr;
  ASSERT_EQ(natsConnection_JetStream(&js, nc, nullptr), NATS_OK);
  auto publish = [&](const std::string& bytes) {
    jsPubAck* ack = nullptr;
    ASSERT_EQ(js_Publish(&ack, js, o.subject.c_str(), bytes.data(), static_cast<int>(bytes.size()),
                         nullptr, nullptr),
              NATS_OK);
    jsPubAck_Destroy(ack);
  };
  publish("not a batch");
  ReplicatedBatch b;
  absl::Status s = log->Read(1, 2000, &b);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find("stream message 2"), std::string::npos) << s;

  const NatsOptions o2 = TestNatsOptions("gap");
  auto log2 = OpenLog(o2);
  ASSERT_TRUE(log2);
  std::string gapped;
  const std::vector<absl::string_view> v = {"late"};
  EncodeBatch(7, v, &gapped);  // inputs 1..6 never appended
  jsPubAck* ack = nullptr;
  ASSERT_EQ(js_Publish(&ack, js, o2.subject.c_str(), gapped.data(), static_cast<int>(gapped.size()),
                       nullptr, nullptr),
            NATS_OK);
  jsPubAck_Destroy(ack);
  s = log2->Read(1, 2000, &b);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find("input 1 is missing"), std::string::npos) << s;
  jsCtx_Destroy(js);
  natsConnection_Destroy(nc);
}

}  // namespace
}  // namespace cfx::replication
