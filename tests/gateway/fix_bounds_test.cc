// SPEC §6 bounds over a raw TCP socket: message size, time to Logon, connections in all
// and per address, unread output, bytes held past a sequence gap, messages per second and
// heartbeats. Past a bound the connection is refused or closed; the other sessions go on.
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "fix_hostile.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

// SPEC §6 bounds: a message larger than max_message_bytes closes the connection before
// QuickFIX buffers it (a BodyLength of 999999999 used to make it buffer whatever followed).
TEST_F(FixHostileTest, OversizedMessagesCloseTheConnection) {
  {
    RawSocket s(port_);
    s.Write(
        "8=FIX.4.4\x01"
        "9=999999999\x01"
        "35=A\x01" +
        std::string(100000, 'y'));
    bool closed = false;
    s.Read(2000, &closed);
    EXPECT_TRUE(closed);
  }
  RawSocket s(port_);
  ASSERT_TRUE(LogOnAlphaT2(s));
  s.Write(RawOrder(2, std::string(40000, 'x')));
  bool closed = false;
  s.Read(2000, &closed);
  EXPECT_TRUE(closed);
  ExpectStillServing();
}

// SPEC §6 bounds: a connection that sends no Logon is closed after logon_timeout_ms.
TEST_F(FixHostileTest, ConnectionWithoutALogonIsClosedAfterTheTimeout) {
  good_.reset();
  StopGateway();
  configure_ = [](FixGatewayConfig& c) { c.logon_timeout_ms = 300; };
  StartGateway();
  good_ = Connect("BETA_T1");
  RawSocket idle(port_);
  RawSocket dribble(port_);
  dribble.Write(
      "8=FIX.4.4\x01"
      "9=");  // a slow client that never finishes its Logon
  bool closed = false;
  const auto start = std::chrono::steady_clock::now();
  idle.Read(3000, &closed);
  EXPECT_TRUE(closed);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  closed = false;
  dribble.Read(3000, &closed);
  EXPECT_TRUE(closed);
  ExpectStillServing();
}

// SPEC §6 bounds: connections per peer address are capped; the sessions already up go on.
TEST_F(FixHostileTest, ConnectionsPerPeerBeyondTheLimitAreRefused) {
  good_.reset();
  StopGateway();
  configure_ = [](FixGatewayConfig& c) { c.max_connections_per_peer = 3; };
  StartGateway();
  good_ = Connect("BETA_T1");  // one of the three
  std::vector<std::unique_ptr<RawSocket>> held;
  for (int i = 0; i < 2; ++i) held.emplace_back(new RawSocket(port_));
  RawSocket extra(port_);
  bool closed = false;
  extra.Read(1500, &closed);
  EXPECT_TRUE(closed) << "a fourth connection from one address was kept";
  ExpectStillServing();
  held.clear();
}

// SPEC §6 bounds: connections in all are capped, below the cap per peer. At the cap, the
// connection that has waited longest without sending its Logon is closed to make room:
// sockets held open and silent (a few addresses suffice, 16 each) must not lock the firms
// out. A session logged on is never closed for room; when every connection has sent its
// Logon, a new one is accepted and closed at once. Until 2026-12-05 the new one was always
// closed.
TEST_F(FixHostileTest, AtTheTotalLimitTheOldestConnectionWithoutALogonMakesRoom) {
  good_.reset();
  StopGateway();
  configure_ = [](FixGatewayConfig& c) { c.max_connections = 3; };  // 16 per peer
  StartGateway();
  good_ = Connect("BETA_T1");  // one of the three, logged on
  RawSocket oldest(port_);
  ASSERT_TRUE(oldest.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // accepted first
  RawSocket silent(port_);
  ASSERT_TRUE(silent.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  RawSocket newcomer(port_);  // the cap: the oldest silent one makes room
  ASSERT_TRUE(newcomer.ok());
  bool closed = false;
  oldest.Read(1500, &closed);
  EXPECT_TRUE(closed) << "the oldest connection without a Logon was kept at the cap";
  closed = false;
  silent.Read(100, &closed);
  EXPECT_FALSE(closed) << "a newer connection without a Logon was closed first";
  ASSERT_TRUE(LogOnAlphaT2(newcomer));
  // The next newcomer makes room the same way, then logs on too.
  RawSocket drop_copy(port_);
  closed = false;
  silent.Read(1500, &closed);
  EXPECT_TRUE(closed) << "the connection without a Logon was kept at the cap";
  ASSERT_TRUE(drop_copy.Write(Frame(Logon("ALPHA_DC", 1, "141=Y|"))));
  closed = false;
  const std::string answer = drop_copy.ReadUntil(kLogonAnswer, kWaitMs, &closed);
  ASSERT_NE(answer.find(kLogonAnswer), std::string::npos) << answer;
  // Every connection holds a session: a new one is closed at once and none of them is.
  RawSocket extra(port_);
  ASSERT_TRUE(extra.ok());
  closed = false;
  extra.Read(1500, &closed);
  EXPECT_TRUE(closed) << "a connection past the cap was kept with every session logged on";
  ASSERT_TRUE(newcomer.Write(RawOrder(2, "room1")));
  closed = false;
  const std::string ack = newcomer.ReadUntil(kAck, kWaitMs, &closed);
  EXPECT_NE(ack.find(kAck), std::string::npos) << ack;
  EXPECT_TRUE(gateway_->IsLoggedOn("ALPHA_DC"));
  ExpectStillServing();
}

// SPEC §6 bounds: a client that logs on and then stops reading its socket is disconnected
// once max_outbound_bytes of its output wait at the gateway; cancel-on-disconnect applies,
// and the other sessions are served all along (QuickFIX never blocks on the slow client).
TEST_F(FixHostileTest, ClientThatStopsReadingIsDisconnectedPastTheOutboundBound) {
  good_.reset();
  StopGateway();
  configure_ = [](FixGatewayConfig& c) {
    c.max_outbound_bytes = 64 << 10;
    c.max_messages_per_sec = 1'000'000'000;  // the outbound bound is what this test is about
  };
  StartGateway();
  good_ = Connect("BETA_T1");
  auto drop_copy = Connect("ALPHA_DC");
  RawSocket slow(port_, "127.0.0.1", /*receive_buffer_bytes=*/4096);
  ASSERT_TRUE(LogOnAlphaT2(slow));
  ASSERT_TRUE(slow.Write(RawOrder(2, "rest1")));
  bool closed = false;
  std::string reply = slow.ReadUntil(kAck, kWaitMs, &closed);
  ASSERT_NE(reply.find(kAck), std::string::npos) << reply;

  // From here on the client only writes: every status request is answered with an
  // ExecutionReport (or a throttled reject, 100 bytes or more) that it never reads. The
  // kernel's socket buffers take the first megabytes; past them the gateway queues, up to
  // the bound. 300000 answers are far more than the buffers and the bound together.
  const auto start = std::chrono::steady_clock::now();
  const auto give_up = start + std::chrono::seconds(60);
  constexpr int kMaxRequests = 300000;
  int seq = 3;
  bool write_failed = false;
  for (int burst = 0;
       !write_failed && seq < kMaxRequests && std::chrono::steady_clock::now() < give_up; ++burst) {
    std::string bytes;
    for (int i = 0; i < 200; ++i) bytes += RawStatus(seq++, "rest1");
    write_failed = !slow.Write(bytes);
    if (burst % 25 == 0) ExpectStillServing();  // served while the slow client backs up
  }
  const auto took = std::chrono::steady_clock::now() - start;
  std::fprintf(
      stderr, "slow reader: %d requests written, %lld ms\n", seq - 3,
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
  EXPECT_TRUE(write_failed) << "the gateway kept a client that read nothing for " << seq - 3
                            << " requests";
  Msg m;
  // The drop copy first receives a copy of every status answer the gateway sent before the
  // disconnect (tens of thousands): under a sanitizer on a loaded machine that backlog alone
  // took longer than the usual wait (a clean clone, 2026-12-06).
  ASSERT_TRUE(drop_copy->WaitExec("rest1", '4', &m, 60000)) << "no cancel-on-disconnect";
  EXPECT_EQ(F(m, 58), "disconnect");
  EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T2"));
  ExpectStillServing();
  // The session itself is free again: a new connection logs on.
  RawSocket again(port_);
  EXPECT_TRUE(LogOnAlphaT2(again));
}

// A TestRequest from ALPHA_T2 numbered `seq` as written (leading zeros and all).
std::string RawTestRequest(const std::string& seq, const std::string& id) {
  return Frame("35=1|49=ALPHA_T2|56=CFX|34=" + seq + "|52=" + UtcNow() + "|112=" + id + "|");
}

// The bound FixPastGapTest runs with.
constexpr size_t kBound = 4096;

class FixPastGapTest : public FixHostileTest {
 protected:
  void SetUp() override {
    FixHostileTest::SetUp();
    good_.reset();
    StopGateway();
    configure_ = [](FixGatewayConfig& c) { c.max_bytes_past_gap = kBound; };
    StartGateway();
    good_ = Connect("BETA_T1");
  }
  // Writes TestRequests numbered `first` on (written with leading zeros to ten digits, which
  // QuickFIX reads as the numbers they are), as many as keep `held` + their bytes within
  // the bound, then shows the connection still serves (a ResendRequest, numbered
  // `resend_seq` and never held, is answered), then writes one more and expects the close,
  // the session logged out and the gateway serving others.
  void FillTheBoundThenPassIt(RawSocket& s, int first, size_t held, int resend_seq) {
    char padded[16];
    std::string bytes;
    int seq = first;
    for (;;) {
      std::snprintf(padded, sizeof padded, "%010d", seq);
      const std::string next = RawTestRequest(padded, "p" + std::to_string(seq));
      if (held + bytes.size() + next.size() > kBound) break;
      bytes += next;
      ++seq;
    }
    ASSERT_TRUE(s.Write(bytes));
    ASSERT_TRUE(s.Write(Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(resend_seq) +
                              "|52=" + UtcNow() + "|7=1|16=1|")));
    bool closed = false;
    const std::string got = s.ReadUntil("\00135=4\001", kWaitMs, &closed);
    ASSERT_NE(got.find("\00135=4\001"), std::string::npos) << got;
    ASSERT_FALSE(closed);
    std::snprintf(padded, sizeof padded, "%010d", seq);
    ASSERT_TRUE(s.Write(RawTestRequest(padded, "over")));
    s.Read(kWaitMs, &closed);
    EXPECT_TRUE(closed) << "held past the bound of " << kBound << " bytes";
    ExpectAlphaT2OutAndTheGatewayServing();
  }
};

// QuickFIX holds every message numbered past a gap in the client's MsgSeqNums until the
// gap is filled. A client that fills its gap has what was held processed and starts from
// nothing again; one that never does is closed once what it sent past the gap passes
// max_bytes_past_gap (however its numbers are written), and the gateway goes on serving.
TEST_F(FixPastGapTest, MessagesPastAGapThatIsNeverFilledAreBounded) {
  RawSocket s(port_);
  ASSERT_TRUE(LogOnAlphaT2(s));
  // 30 TestRequests numbered 10..39, past a gap at 2..9, then the gap filled: QuickFIX
  // answers all 30.
  std::string bytes;
  for (int seq = 10; seq < 40; ++seq) {
    bytes += RawTestRequest(std::to_string(seq), "t" + std::to_string(seq));
  }
  ASSERT_LE(bytes.size(), kBound);
  ASSERT_TRUE(s.Write(bytes));
  ASSERT_TRUE(s.Write(Frame("35=4|49=ALPHA_T2|56=CFX|34=2|43=Y|52=" + UtcNow() +
                            "|122=" + UtcNow() + "|123=Y|36=10|")));
  bool closed = false;
  const std::string got = s.ReadUntil("\001112=t39\001", kWaitMs, &closed);
  ASSERT_NE(got.find("\001112=t39\001"), std::string::npos) << got;
  EXPECT_NE(got.find("\001112=t10\001"), std::string::npos) << got;
  // A new gap at 40..49, never filled: the bound's worth past it is held, one more closes.
  FillTheBoundThenPassIt(s, 50, 0, 40);
}

// A SequenceReset-Reset moves the expected number over what QuickFIX holds, which it then
// holds until the connection ends: those bytes stay counted.
TEST_F(FixPastGapTest, MessagesAResetJumpsOverStayCounted) {
  RawSocket s(port_);
  ASSERT_TRUE(LogOnAlphaT2(s));
  std::string bytes;
  for (int seq = 10; seq < 30; ++seq) {
    bytes += RawTestRequest(std::to_string(seq), "s" + std::to_string(seq));
  }
  ASSERT_TRUE(s.Write(bytes));
  // Reset to 40: QuickFIX expects 40 and never processes 10..29.
  ASSERT_TRUE(s.Write(Frame("35=4|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() + "|36=40|")));
  // Numbered 40 and answered: the reset took effect.
  ASSERT_TRUE(s.Write(RawTestRequest("40", "after-reset")));
  bool closed = false;
  const std::string got = s.ReadUntil("\001112=after-reset\001", kWaitMs, &closed);
  ASSERT_NE(got.find("\001112=after-reset\001"), std::string::npos) << got;
  EXPECT_EQ(got.find("\001112=s10\001"), std::string::npos) << "held ones were processed";
  // A gap at 41..49: with what the reset stranded, less fits under the bound.
  FillTheBoundThenPassIt(s, 50, bytes.size(), 41);
}

// SPEC §6: the messages a connection sends per second are bounded, whatever they are (admin
// messages take no throttle token: a TestRequest flood is answered with a Heartbeat each,
// every one stored); past the bound the connection is closed, the session logged out, and
// other sessions are served.
TEST_F(FixHostileTest, AFloodPastTheMessageRateClosesTheConnection) {
  good_.reset();
  StopGateway();
  configure_ = [](FixGatewayConfig& c) { c.max_messages_per_sec = 300; };
  StartGateway();
  good_ = Connect("BETA_T1");
  RawSocket s(port_);
  ASSERT_TRUE(LogOnAlphaT2(s));
  std::string bytes;
  for (int seq = 2; seq < 1002; ++seq) {
    bytes += Frame("35=1|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) + "|52=" + UtcNow() +
                   "|112=t" + std::to_string(seq) + "|");
  }
  s.Write(bytes);
  bool closed = false;
  s.ReadUntil("\00135=Z\001", kWaitMs, &closed);  // nothing is looked for: read to the close
  EXPECT_TRUE(closed) << "a flood of 1000 messages at once was not closed";
  // Below the bound a session is served as always: a new connection logs on.
  ExpectAlphaT2OutAndTheGatewayServing();
}

// A half-open connection: the client logs on with a short HeartBtInt, then sends nothing,
// reads nothing and never closes (a host that lost power, a cable pulled: no FIN). QuickFIX
// sends a TestRequest one interval after the last message and drops the connection 2.4
// intervals after it; the session is logged out and cancel-on-disconnect cancels its orders.
TEST_F(FixHostileTest, SilentConnectionIsDroppedAfterTheHeartbeatTimeoutAndItsOrdersCanceled) {
  auto drop_copy = Connect("ALPHA_DC");
  RawSocket silent(port_);
  ASSERT_TRUE(silent.Write(Frame(Logon("ALPHA_T2", 1, "141=Y|", "CFX", /*heartbeat_secs=*/1))));
  bool closed = false;
  std::string reply = silent.ReadUntil(kLogonAnswer, kWaitMs, &closed);
  ASSERT_NE(reply.find(kLogonAnswer), std::string::npos) << reply;
  ASSERT_TRUE(silent.Write(RawOrder(2, "half1")));
  reply = silent.ReadUntil(kAck, kWaitMs, &closed);
  ASSERT_NE(reply.find(kAck), std::string::npos) << reply;

  // Silence. The timeout is 2.4 s; the wait allows for a slow machine.
  Msg m;
  ASSERT_TRUE(drop_copy->WaitExec("half1", '4', &m, 15000)) << "the silent session was kept";
  EXPECT_EQ(F(m, 58), "disconnect");
  EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T2"));
  // What the gateway sent meanwhile: its TestRequest, unanswered, then the close.
  reply = silent.Read(kWaitMs, &closed);
  EXPECT_NE(reply.find(kTestRequest), std::string::npos) << reply;
  EXPECT_TRUE(closed);
  ExpectStillServing();
}

// SPEC §6 bounds: a Logon may not ask for a HeartBtInt over max_heartbeat_secs (a dead
// connection would hold its session and orders for 2.4 times that) nor 0 (no heartbeats:
// a dead connection would never be noticed). The bound itself is accepted.
TEST_F(FixHostileTest, LogonAskingForNoOrAnEnormousHeartbeatIsRefused) {
  for (int heartbeat_secs : {0, 61, 86400, 999999999}) {
    RawSocket s(port_);
    ASSERT_TRUE(s.Write(Frame(Logon("ALPHA_T2", 1, "141=Y|", "CFX", heartbeat_secs))));
    bool closed = false;
    std::string reply = s.ReadUntil(kLogout, kWaitMs, &closed);
    EXPECT_NE(reply.find(kLogout), std::string::npos) << heartbeat_secs << ": " << reply;
    EXPECT_NE(reply.find("HeartBtInt must be 1 to 60 seconds"), std::string::npos)
        << heartbeat_secs << ": " << reply;
    EXPECT_EQ(reply.find(kLogonAnswer), std::string::npos) << heartbeat_secs << ": " << reply;
    EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T2")) << heartbeat_secs;
  }
  RawSocket s(port_);
  ASSERT_TRUE(s.Write(Frame(Logon("ALPHA_T2", 1, "141=Y|", "CFX", 60))));
  bool closed = false;
  std::string reply = s.ReadUntil(kLogonAnswer, kWaitMs, &closed);
  EXPECT_NE(reply.find(kLogonAnswer), std::string::npos) << reply;
  ExpectStillServing();
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
