// Malformed and hostile input over a raw TCP socket. After each attack, a well-behaved
// session must still trade: the gateway keeps serving other sessions.
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "fix_test_client.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

using Msg = FIX::Message;

std::string Logon(const std::string& sender, int seq, const std::string& extra = "",
                  const std::string& target = "CFX", int heartbeat_secs = 30) {
  return "35=A|49=" + sender + "|56=" + target + "|34=" + std::to_string(seq) + "|52=" + UtcNow() +
         "|98=0|108=" + std::to_string(heartbeat_secs) + "|" + extra;
}

// A framed NewOrderSingle from ALPHA_T2: buy 1 of kSym for A2 at 5.000 (it rests), OrdType
// `ord_type`, with `extra` fields ("tag=value|...") at the end.
std::string RawOrder(int seq, const std::string& cl, const std::string& ord_type = "2",
                     const std::string& extra = "") {
  return Frame("35=D|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) + "|52=" + UtcNow() +
               "|11=" + cl + "|1=A2|55=" + kSym + "|54=1|38=1|40=" + ord_type +
               "|44=5.000|60=" + UtcNow() + "|" + extra);
}

// A framed OrderStatusRequest from ALPHA_T2 for `cl`: answered with an ExecutionReport.
std::string RawStatus(int seq, const std::string& cl) {
  return Frame("35=H|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) + "|52=" + UtcNow() +
               "|11=" + cl + "|1=A2|55=" + kSym + "|54=1|");
}

// Needles in what the gateway sends (\001 is SOH).
constexpr char kLogonAnswer[] = "\00135=A\001";
constexpr char kLogout[] = "\00135=5\001";
constexpr char kTestRequest[] = "\00135=1\001";
constexpr char kAck[] = "\001150=0\001";
constexpr char kSessionReject[] = "\00135=3\001";

// Logs `s` on as ALPHA_T2 with ResetSeqNumFlag, so its next MsgSeqNum is 2.
::testing::AssertionResult LogOnAlphaT2(RawSocket& s) {
  if (!s.Write(Frame(Logon("ALPHA_T2", 1, "141=Y|")))) {
    return ::testing::AssertionFailure() << "Logon not written";
  }
  bool closed = false;
  const std::string reply = s.ReadUntil(kLogonAnswer, kWaitMs, &closed);
  if (reply.find(kLogonAnswer) == std::string::npos) {
    return ::testing::AssertionFailure() << "no Logon answer: " << reply;
  }
  return ::testing::AssertionSuccess();
}

class FixHostileTest : public FixGatewayTest {
 protected:
  void SetUp() override {
    FixGatewayTest::SetUp();
    good_ = Connect("BETA_T1");
  }
  // The honest session still gets its orders acknowledged.
  void ExpectStillServing() {
    Msg m;
    const std::string cl = "ok" + std::to_string(++n_);
    good_->Send(NewOrderMsg(cl, "B1", '1', 1, "5.000"));
    EXPECT_TRUE(good_->WaitExec(cl, '0', &m)) << "gateway stopped serving";
  }
  // After ALPHA_T2's connection was closed: the session is logged out (cancel on
  // disconnect), the gateway serves others, and a new connection logs the session on.
  void ExpectAlphaT2OutAndTheGatewayServing() {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
    while (gateway_->IsLoggedOn("ALPHA_T2") && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T2"));
    ExpectStillServing();
    RawSocket again(port_);
    EXPECT_TRUE(LogOnAlphaT2(again));
  }
  std::unique_ptr<TestClient> good_;
  int n_ = 0;
};

TEST_F(FixHostileTest, GarbageBytesCloseOnlyThatConnection) {
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  s.Write(std::string("GET / HTTP/1.1\r\nHost: x\r\n\r\n") + std::string(5000, '\x01'));
  bool closed = false;
  s.Read(800, &closed);
  ExpectStillServing();
}

TEST_F(FixHostileTest, BadChecksumLogonIsNotAccepted) {
  RawSocket s(port_);
  s.Write(Frame(Logon("ALPHA_T2", 1), /*corrupt_checksum=*/true));
  bool closed = false;
  std::string reply = s.Read(600, &closed);
  EXPECT_EQ(reply.find("35=A"), std::string::npos);
  EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T2"));
  ExpectStillServing();
}

TEST_F(FixHostileTest, UnknownCompIdsAreDisconnected) {
  for (const auto& ids : std::vector<std::pair<std::string, std::string>>{
           {"MALLORY", "CFX"}, {"ALPHA_T2", "NOT_CFX"}}) {
    RawSocket s(port_);
    s.Write(Frame(Logon(ids.first, 1, "", ids.second)));
    bool closed = false;
    std::string reply = s.Read(800, &closed);
    EXPECT_EQ(reply.find("35=A"), std::string::npos) << ids.first;
    EXPECT_TRUE(closed) << ids.first << "/" << ids.second;
  }
  ExpectStillServing();
}

TEST_F(FixHostileTest, BadPasswordGetsLogoutText) {
  RawSocket s(port_);
  s.Write(Frame(Logon("ALPHA_T1", 1, "554=guess|")));
  bool closed = false;
  std::string reply = s.Read(800, &closed);
  EXPECT_NE(reply.find("35=5"), std::string::npos) << reply;
  EXPECT_NE(reply.find("password"), std::string::npos) << reply;
  EXPECT_EQ(reply.find("35=A"), std::string::npos);
  EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T1"));
  ExpectStillServing();
}

TEST_F(FixHostileTest, SecondLogonForALiveSessionIsRefused) {
  RawSocket s(port_);
  s.Write(Frame(Logon("BETA_T1", 1)));
  bool closed = false;
  std::string reply = s.Read(800, &closed);
  EXPECT_EQ(reply.find("35=A"), std::string::npos) << reply;
  EXPECT_TRUE(good_->logged_on());
  ExpectStillServing();
}

TEST_F(FixHostileTest, HugeFieldsAndGarbledMessagesInASession) {
  RawSocket s(port_);
  ASSERT_TRUE(LogOnAlphaT2(s));
  bool closed = false;
  std::string reply;
  // A 10 kB ClOrdID (under max_message_bytes): parsed, then refused as invalid_field; the
  // session stays up.
  std::string huge(10000, 'x');
  s.Write(RawOrder(2, huge));
  reply = s.ReadUntil("58=invalid_field", kWaitMs, &closed);
  EXPECT_NE(reply.find("58=invalid_field"), std::string::npos);
  EXPECT_FALSE(closed);
  // A field the dictionary does not know -> session-level Reject, still connected.
  s.Write(RawOrder(3, "z1", "2", "9999=boom|"));
  reply = s.ReadUntil(kSessionReject, kWaitMs, &closed);
  EXPECT_NE(reply.find("35=3"), std::string::npos) << reply;
  // A bad enum value (OrdType 9) -> session-level Reject.
  s.Write(RawOrder(4, "z2", "9"));
  reply = s.ReadUntil(kSessionReject, kWaitMs, &closed);
  EXPECT_NE(reply.find("35=3"), std::string::npos) << reply;
  // Garbled bytes mid-session and a body length lying about the size.
  s.Write(
      "8=FIX.4.4\x01"
      "9=99999\x01"
      "35=D\x01" +
      std::string(1000, 'y'));
  s.Read(600, &closed);
  ExpectStillServing();
}

// FIX session layer (QuickFIX acceptance 2d, 2m, 3b): a garbled message inside a session is
// ignored, not a reason to close; the next message shows the gap and the exchange asks for
// the missing one again.
TEST_F(FixHostileTest, GarbledMessageInASessionIsIgnoredAndAskedForAgain) {
  RawSocket s(port_);
  ASSERT_TRUE(LogOnAlphaT2(s));
  bool closed = false;
  std::string reply;
  // Message 2 with a BodyLength that does not end at its CheckSum.
  std::string garbled = Frame("35=0|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() + "|");
  const size_t nine = garbled.find(
                          "\x01"
                          "9=") +
                      3;
  garbled.replace(nine, garbled.find('\x01', nine) - nine, "7");
  s.Write(garbled);
  // Message 3, well formed: QuickFIX sees 2 missing.
  s.Write(Frame("35=1|49=ALPHA_T2|56=CFX|34=3|52=" + UtcNow() + "|112=HELLO|"));
  reply = s.ReadUntil("35=2", kWaitMs, &closed);
  EXPECT_NE(reply.find("35=2"), std::string::npos) << "no ResendRequest: " << reply;
  EXPECT_NE(reply.find("\x01"
                       "7=2\x01"),
            std::string::npos)
      << reply;
  EXPECT_FALSE(closed);
  // Fill the gap: the queued TestRequest is answered.
  s.Write(Frame("35=4|49=ALPHA_T2|56=CFX|34=2|43=Y|52=" + UtcNow() + "|122=" + UtcNow() +
                "|123=Y|36=3|"));
  reply = s.ReadUntil("112=HELLO", kWaitMs, &closed);
  EXPECT_NE(reply.find("112=HELLO"), std::string::npos) << reply;
  EXPECT_FALSE(closed);
  ExpectStillServing();
}

// HandlInst (21), which many FIX 4.4 engines send on every order, is accepted and ignored.
TEST_F(FixHostileTest, HandlInstIsAcceptedOnOrdersAndReplaces) {
  auto c = Connect("ALPHA_T1", "alpha-secret");
  FIX::Message d = NewOrderMsg("hi1", "A1", '1', 1, "5.000");
  d.setField(21, "1");
  c->Send(d);
  FIX::Message er;
  ASSERT_TRUE(c->WaitExec("hi1", '0', &er)) << "an order with HandlInst was not acknowledged";
  FIX::Message g = ReplaceMsg("hi2", "hi1", "A1", "5.001", 2);
  g.setField(21, "1");
  c->Send(g);
  EXPECT_TRUE(c->WaitExec("hi2", '5', &er)) << "a replace with HandlInst was not accepted";
}

// SPEC §5 poison input: an id that is not printable ASCII is refused at the gateway, never
// acknowledged (a stored non-UTF-8 ClOrdID used to abort the trade recorder on every restart).
TEST_F(FixHostileTest, IdsThatAreNotPrintableAsciiAreRefused) {
  RawSocket s(port_);
  ASSERT_TRUE(LogOnAlphaT2(s));
  bool closed = false;
  std::string reply;
  int seq = 2;
  for (const std::string& bad :
       {std::string("ab\xff\xfe"), std::string("caf\xc3\xa9"), std::string("del\x7f"),
        std::string("sp ace"), std::string("tab\tx")}) {
    s.Write(RawOrder(seq++, bad));
    reply = s.ReadUntil("58=invalid_field", kWaitMs, &closed);
    EXPECT_NE(reply.find("58=invalid_field"), std::string::npos) << bad << ": " << reply;
    EXPECT_EQ(reply.find("150=0"), std::string::npos) << bad << " was acknowledged";
    // The same id as a replace's new ClOrdID: an OrderCancelReject, nothing replaced.
    s.Write(Frame("35=G|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) + "|52=" + UtcNow() +
                  "|11=" + bad + "|41=orig1|1=A2|55=" + kSym +
                  "|54=1|38=2|40=2|44=5.000|60=" + UtcNow() + "|"));
    reply = s.ReadUntil("invalid_field", kWaitMs, &closed);
    EXPECT_NE(reply.find("35=9"), std::string::npos) << bad << ": " << reply;
    EXPECT_NE(reply.find("invalid_field"), std::string::npos) << bad << ": " << reply;
  }
  EXPECT_FALSE(closed);
  ExpectStillServing();
}

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

// SPEC §6 bounds: connections in all are capped, below the cap per peer.
TEST_F(FixHostileTest, ConnectionsBeyondTheTotalLimitAreRefused) {
  good_.reset();
  StopGateway();
  configure_ = [](FixGatewayConfig& c) { c.max_connections = 3; };  // 16 per peer
  StartGateway();
  good_ = Connect("BETA_T1");  // one of the three
  RawSocket second(port_);
  RawSocket third(port_);
  RawSocket extra(port_);
  ASSERT_TRUE(second.ok() && third.ok() && extra.ok());
  bool closed = false;
  extra.Read(1500, &closed);
  EXPECT_TRUE(closed) << "a fourth connection was kept";
  closed = false;
  third.Read(100, &closed);
  EXPECT_FALSE(closed) << "a connection within the cap was closed";
  ExpectStillServing();
}

// SPEC §6: SendingTime accuracy. A Logon dated more than max_latency_secs away is refused.
TEST_F(FixHostileTest, LogonWithAStaleSendingTimeIsRefused) {
  RawSocket s(port_);
  s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=20200101-00:00:00.000|98=0|108=30|"));
  bool closed = false;
  std::string reply = s.Read(1500, &closed);
  EXPECT_EQ(reply.find("35=A"), std::string::npos) << reply;
  EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T2"));
  ExpectStillServing();
}

// SPEC §6: the SendingTime check and the CompID check hold inside a session too, not only
// at Logon: an order whose 52 is 2020's, or one that names another session as its sender,
// gets a session-level Reject (373=10, 373=9) and a Logout, and reaches no book.
TEST_F(FixHostileTest, AStaleSendingTimeOrAForeignSenderInASessionIsRejectedAndLoggedOut) {
  struct Case {
    std::string order;
    std::string reason;  // 373
  };
  const Case cases[] = {
      {Frame("35=D|49=ALPHA_T2|56=CFX|34=2|52=20200101-00:00:00.000|11=stale|1=A2|55=" +
             std::string(kSym) + "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|"),
       "\001"
       "373=10\001"},
      {Frame("35=D|49=ALPHA_T1|56=CFX|34=2|52=" + UtcNow() + "|11=foreign|1=A2|55=" +
             std::string(kSym) + "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|"),
       "\001"
       "373=9\001"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.reason);
    for (int i = 0; i < 100 && gateway_->IsLoggedOn("ALPHA_T2"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    RawSocket s(port_);
    ASSERT_TRUE(LogOnAlphaT2(s));
    ASSERT_TRUE(s.Write(c.order));
    bool closed = false;
    const std::string reply = s.ReadUntil(kLogout, kWaitMs, &closed);
    EXPECT_NE(reply.find(kSessionReject), std::string::npos) << reply;
    EXPECT_NE(reply.find(c.reason), std::string::npos) << reply;
    EXPECT_NE(reply.find(kLogout), std::string::npos) << reply;
    EXPECT_EQ(reply.find(kAck), std::string::npos) << "the order reached the book: " << reply;
  }
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
  ASSERT_TRUE(drop_copy->WaitExec("rest1", '4', &m)) << "no cancel-on-disconnect";
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

// QuickFIX resets a session's sequence numbers, and empties its message store, for a Logon
// with ResetSeqNumFlag (141=Y) before the application decides the Logon. A refused one (a
// wrong password, a back-off, a HeartBtInt out of bounds) must change nothing: the absent
// client's next Logon goes on from its numbers, and what was stored for it is still there.
TEST_F(FixHostileTest, ARefusedLogonAskingForAResetResetsNothing) {
  {
    auto alpha = Connect("ALPHA_T1", "alpha-secret");
    Msg m;
    for (int i = 0; i < 3; ++i) {
      alpha->Send(NewOrderMsg("keep" + std::to_string(i), "A1", '1', 1, "5.000"));
      ASSERT_TRUE(alpha->WaitExec("keep" + std::to_string(i), '0', &m));
    }
    alpha->Stop();
    ASSERT_TRUE(alpha->WaitLoggedOut());
  }
  for (int i = 0; i < 100 && gateway_->IsLoggedOn("ALPHA_T1"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(gateway_->IsLoggedOn("ALPHA_T1"));
  FixSeqNums before;
  ASSERT_TRUE(gateway_->SeqNums("ALPHA_T1", &before));
  ASSERT_GT(before.next_sender, 4);
  for (const std::string& extra : {std::string("141=Y|554=guess|"),            // wrong password
                                   std::string("141=Y|554=alpha-secret|")}) {  // in the back-off
    RawSocket s(port_);
    ASSERT_TRUE(s.Write(Frame(Logon("ALPHA_T1", 1, extra))));
    bool closed = false;
    const std::string reply = s.ReadUntil(kLogout, kWaitMs, &closed);
    EXPECT_NE(reply.find(kLogout), std::string::npos) << extra << ": " << reply;
    EXPECT_EQ(reply.find(kLogonAnswer), std::string::npos) << extra << ": " << reply;
    FixSeqNums after;
    ASSERT_TRUE(gateway_->SeqNums("ALPHA_T1", &after));
    EXPECT_EQ(after.next_target, before.next_target) << extra;
    // The refusal's Logout took the next number (at most one), never a reset to 1 or 2.
    EXPECT_GE(after.next_sender, before.next_sender) << extra;
    EXPECT_LE(after.next_sender, before.next_sender + 1) << extra;
    before = after;
  }
  // A password-less session refused for its HeartBtInt: the same.
  {
    auto beta = Connect("BETA_DC");
    beta->Stop();
    ASSERT_TRUE(beta->WaitLoggedOut());
  }
  for (int i = 0; i < 100 && gateway_->IsLoggedOn("BETA_DC"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FixSeqNums dc_before;
  ASSERT_TRUE(gateway_->SeqNums("BETA_DC", &dc_before));
  ASSERT_GT(dc_before.next_target, 1);
  RawSocket s(port_);
  ASSERT_TRUE(s.Write(Frame(Logon("BETA_DC", 1, "141=Y|", "CFX", 0))));
  bool closed = false;
  const std::string reply = s.ReadUntil(kLogout, kWaitMs, &closed);
  EXPECT_NE(reply.find(kLogout), std::string::npos) << reply;
  EXPECT_EQ(reply.find(kLogonAnswer), std::string::npos) << reply;
  FixSeqNums dc_after;
  ASSERT_TRUE(gateway_->SeqNums("BETA_DC", &dc_after));
  EXPECT_EQ(dc_after.next_target, dc_before.next_target);
  EXPECT_GE(dc_after.next_sender, dc_before.next_sender);
  // And an accepted Logon asking for a reset still gets it.
  RawSocket ok(port_);
  ASSERT_TRUE(ok.Write(Frame(Logon("BETA_DC", 1, "141=Y|", "CFX", 30))));
  const std::string answer = ok.ReadUntil(kLogonAnswer, kWaitMs, &closed);
  ASSERT_NE(answer.find(kLogonAnswer), std::string::npos) << answer;
  FixSeqNums reset;
  ASSERT_TRUE(gateway_->SeqNums("BETA_DC", &reset));
  EXPECT_EQ(reset.next_target, 2);
  ExpectStillServing();
}

// A stop is graceful: each logged-on session is sent a Logout, and the stop returns once
// the sessions have answered, well inside its 10 s bound for clients that never do.
TEST_F(FixHostileTest, StopSendsEachSessionALogoutAndEndsWhenTheyAnswer) {
  RawSocket s(port_);
  ASSERT_TRUE(LogOnAlphaT2(s));
  const auto start = std::chrono::steady_clock::now();
  std::thread stopper([this] { StopGateway(); });
  bool closed = false;
  const std::string reply = s.ReadUntil(kLogout, kWaitMs, &closed);
  const bool got_logout = reply.find(kLogout) != std::string::npos;
  if (got_logout) s.Write(Frame("35=5|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() + "|"));
  stopper.join();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  std::fprintf(stderr, "stop with two sessions logged on: %lld ms\n",
               static_cast<long long>(took.count()));
  EXPECT_TRUE(got_logout) << "the stop sent no Logout: " << reply;
  EXPECT_LT(took, std::chrono::seconds(5)) << "the stop waited past the sessions' answers";
}

TEST_F(FixHostileTest, FloodFromManyConnectionsDoesNotStopTheGateway) {
  std::vector<std::unique_ptr<RawSocket>> sockets;
  for (int i = 0; i < 20; ++i) {
    sockets.emplace_back(new RawSocket(port_));
    sockets.back()->Write(std::string(20000, static_cast<char>('a' + i % 26)));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  sockets.clear();
  ExpectStillServing();
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
