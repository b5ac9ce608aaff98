// Malformed and hostile input over a raw TCP socket, and logons the gateway refuses. After
// each attack, a well-behaved session must still trade: the gateway keeps serving other
// sessions. SPEC §6's bounds on what a client can make the exchange hold are in
// fix_bounds_test.cc.
#include "fix_hostile.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace cfx {
namespace gateway {
namespace test {
namespace {

TEST_F(FixHostileTest, GarbageBytesCloseOnlyThatConnection) {
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  s.Write(std::string("GET / HTTP/1.1\r\nHost: x\r\n\r\n") + std::string(5000, '\x01'));
  bool closed = false;
  s.Read(800, &closed);
  ExpectStillServing();
}

// A connection's first message must be a Logon: any other is closed before a session sees
// it, as QuickFIX's own acceptor does. Until 2026-12-07 the gateway attached the session named
// by any first message's CompIDs: a SequenceReset sent first, with no password, set the
// session's expected MsgSeqNum to 2^31 - 1 (its Logons then refused as "too low") and the
// connection held the session with no Logon timeout.
TEST_F(FixHostileTest, AFirstMessageThatIsNotALogonReachesNoSession) {
  {
    RawSocket s(port_);
    ASSERT_TRUE(s.ok());
    s.Write(Frame("35=4|49=ALPHA_T2|56=CFX|34=1|52=" + UtcNow() + "|36=2130706431|"));
    bool closed = false;
    s.Read(800, &closed);
    EXPECT_TRUE(closed) << "the connection was kept";
  }
  RawSocket s(port_);
  s.Write(Frame(Logon("ALPHA_T2", 1)));
  bool closed = false;
  std::string reply;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
  while (reply.find("35=A") == std::string::npos && !closed &&
         std::chrono::steady_clock::now() < give_up) {
    reply += s.Read(100, &closed);
  }
  EXPECT_NE(reply.find("35=A"), std::string::npos) << reply;
  EXPECT_TRUE(gateway_->IsLoggedOn("ALPHA_T2"));
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

// SPEC §6: failed Logons are slowed per peer address. A Logon for a CompID no session has
// is one: until 2026-12-06 it was audited and counted but not slowed, so CompIDs could be
// tried at full speed. Right after it, the right password from the same address waits out
// the back-off; sessions without a password are not affected (ExpectStillServing).
TEST_F(FixHostileTest, AnUnknownCompIdSlowsItsAddresssNextLogons) {
  {
    RawSocket s(port_);
    s.Write(Frame(Logon("MALLORY", 1)));
    bool closed = false;
    s.Read(800, &closed);
    EXPECT_TRUE(closed);
  }
  RawSocket s(port_);
  s.Write(Frame(Logon("ALPHA_T1", 1, "141=Y|554=alpha-secret|")));
  bool closed = false;
  const std::string reply = s.ReadUntil(kLogout, 2000, &closed);
  EXPECT_NE(reply.find("too many failed logons"), std::string::npos) << reply;
  EXPECT_EQ(reply.find("35=A"), std::string::npos) << reply;
  EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T1"));
  ExpectStillServing();
}

// During a back-off only the wait's first refusal is answered (a Logout from the session,
// which takes one of its MsgSeqNums and a place in its store); the others are closed without
// one, so Logons without a password cannot grow a session's store and numbers at will.
TEST_F(FixHostileTest, OnlyTheFirstLogonRefusedInAWaitIsAnswered) {
  const auto logon_reply = [this](const std::string& password) {
    RawSocket s(port_);
    s.Write(Frame(Logon("ALPHA_T1", 1, "554=" + password + "|")));
    bool closed = false;
    std::string reply = s.ReadUntil(kLogout, 2000, &closed);
    if (!closed) s.Read(500, &closed);
    EXPECT_TRUE(closed);
    return reply;
  };
  EXPECT_NE(logon_reply("guess").find("invalid username or password"), std::string::npos);
  EXPECT_NE(logon_reply("alpha-secret").find("too many failed logons"), std::string::npos);
  for (int i = 0; i < 3; ++i) {
    const std::string reply = logon_reply("alpha-secret");
    EXPECT_EQ(reply.find("35=5"), std::string::npos) << i << ": " << reply;
    EXPECT_EQ(reply.find("35=A"), std::string::npos) << i << ": " << reply;
  }
  EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T1"));
  ExpectStillServing();
}

// A Logon in mid-session (a sequence reset, 141=Y) comes from the connection that
// authenticated: its password is not verified again, so repeating it costs the gateway no
// argon2id check (until 2026-12-07 each ran one, and a few clients repeating them held the
// check's slots and the CPUs). Its HeartBtInt is still bounded.
TEST_F(FixHostileTest, ALogonInMidSessionIsNotVerifiedAgain) {
  RawSocket s(port_);
  s.Write(Frame(Logon("ALPHA_T1", 1, "141=Y|554=alpha-secret|")));
  bool closed = false;
  ASSERT_NE(s.ReadUntil(kLogonAnswer, kWaitMs, &closed).find(kLogonAnswer), std::string::npos);
  const uint64_t verified = gateway_->PasswordVerifications();
  EXPECT_GE(verified, 1u);
  for (int i = 0; i < 5; ++i) {
    s.Write(Frame(Logon("ALPHA_T1", 1, "141=Y|554=alpha-secret|")));
    const std::string reply = s.ReadUntil(kLogonAnswer, kWaitMs, &closed);
    ASSERT_NE(reply.find("141=Y"), std::string::npos) << i << ": " << reply;
  }
  EXPECT_EQ(gateway_->PasswordVerifications(), verified);
  EXPECT_TRUE(gateway_->IsLoggedOn("ALPHA_T1"));
  // A mid-session Logon that would switch the heartbeat off is refused.
  s.Write(Frame(Logon("ALPHA_T1", 1, "141=Y|554=alpha-secret|", "CFX", 0)));
  const std::string refused = s.ReadUntil(kLogout, kWaitMs, &closed);
  EXPECT_NE(refused.find("HeartBtInt"), std::string::npos) << refused;
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
  EXPECT_EQ(reply.find(std::string(100, 'x')), std::string::npos) << "the refused id is echoed";
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

// FIX 4.4 requires Side and OrdType on a G (docs/fix.md, "Cancel, replace, status"): one
// without either gets a session-level Reject naming the tag (373=1, required tag missing)
// and nothing is replaced. The dictionary let both through until 2026-12-04.
TEST_F(FixHostileTest, AReplaceWithoutSideOrOrdTypeGetsASessionReject) {
  auto c = Connect("ALPHA_T1", "alpha-secret");
  FIX::Message er;
  c->Send(NewOrderMsg("rq1", "A1", '1', 4, "5.000"));
  ASSERT_TRUE(c->WaitExec("rq1", '0', &er));
  int n = 0;
  for (int tag : {54, 40}) {
    SCOPED_TRACE(tag);
    FIX::Message g = ReplaceMsg("rq1-r" + std::to_string(++n), "rq1", "A1", "5.001", 2);
    g.removeField(tag);
    c->Send(g);
    FIX::Message reject;
    ASSERT_TRUE(c->WaitType("3", &reject));
    EXPECT_EQ(F(reject, 371), std::to_string(tag));
    EXPECT_EQ(F(reject, 373), "1");
  }
  // Nothing was replaced: the order is still rq1, and a replace with both terms is served.
  c->Send(ReplaceMsg("rq1-r3", "rq1", "A1", "5.001", 2));
  ASSERT_TRUE(c->WaitExec("rq1-r3", '5', &er));
  EXPECT_EQ(F(er, 41), "rq1");
  EXPECT_EQ(F(er, 151), "2");
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
    EXPECT_EQ(reply.find(bad), std::string::npos) << bad << " is echoed: " << reply;
    // The same id as a replace's new ClOrdID: an OrderCancelReject, nothing replaced.
    s.Write(Frame("35=G|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) + "|52=" + UtcNow() +
                  "|11=" + bad + "|41=orig1|1=A2|55=" + kSym +
                  "|54=1|38=2|40=2|44=5.000|60=" + UtcNow() + "|"));
    reply = s.ReadUntil("invalid_field", kWaitMs, &closed);
    EXPECT_NE(reply.find("35=9"), std::string::npos) << bad << ": " << reply;
    EXPECT_NE(reply.find("invalid_field"), std::string::npos) << bad << ": " << reply;
    EXPECT_EQ(reply.find(bad), std::string::npos) << bad << " is echoed: " << reply;
  }
  EXPECT_FALSE(closed);
  ExpectStillServing();
}

// The request ids an answer echoes (OrdStatusReqID 790, MDReqID 262, SecurityReqID 320) are
// held to the ClOrdID's rule: not printable ASCII, or over 64 characters, is a session
// Reject naming the tag (373=5), never echoed in an answer.
TEST_F(FixHostileTest, RequestIdsThatAreNotPrintableAsciiAreRejectedNotEchoed) {
  RawSocket s(port_);
  ASSERT_TRUE(LogOnAlphaT2(s));
  bool closed = false;
  int seq = 2;
  const std::string sym = kSym;
  for (const std::string& bad : {std::string("ab\xff\xfe"), std::string("del\x7f"),
                                 std::string("sp ace"), std::string(65, 'r')}) {
    SCOPED_TRACE(bad);
    const std::string bodies[] = {
        "35=H|11=o1|1=A2|55=" + sym + "|54=1|790=" + bad + "|",
        "35=V|262=" + bad + "|263=0|264=1|267=1|269=0|146=1|55=" + sym + "|",
        "35=x|320=" + bad + "|559=4|"};
    const char* tags[] = {"790", "262", "320"};
    for (int i = 0; i < 3; ++i) {
      SCOPED_TRACE(tags[i]);
      const std::string body = bodies[i];
      s.Write(Frame(body.substr(0, 5) + "49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) +
                    "|52=" + UtcNow() + "|" + body.substr(5)));
      const std::string reply = s.ReadUntil(
          "\001"
          "373=",
          kWaitMs, &closed);
      EXPECT_NE(reply.find("35=3\001"), std::string::npos) << reply;
      EXPECT_NE(reply.find(std::string("\001"
                                       "371=") +
                           tags[i] + "\001"),
                std::string::npos)
          << reply;
      EXPECT_NE(reply.find("\001"
                           "373=5\001"),
                std::string::npos)
          << reply;
      EXPECT_EQ(reply.find("=" + bad + "\001"), std::string::npos) << "echoed: " << reply;
    }
  }
  EXPECT_FALSE(closed);
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

// A FIX UTC timestamp `seconds` before now (SendingTime 52).
std::string UtcSecondsAgo(int seconds) {
  const std::time_t t = std::time(nullptr) - seconds;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%d-%H:%M:%S.000", &tm);
  return buf;
}

class FixSendingTimeTest : public FixHostileTest {
 protected:
  void WaitAlphaT2Out() {
    for (int i = 0; i < 100 && gateway_->IsLoggedOn("ALPHA_T2"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  // An order from a fresh ALPHA_T2 connection dated `age` seconds ago: true if it was
  // acknowledged, false if it got the session-level Reject 373=10 (the session is then out).
  ::testing::AssertionResult OrderOfAgeIsTaken(int age, int n);
};

::testing::AssertionResult FixSendingTimeTest::OrderOfAgeIsTaken(int age, int n) {
  WaitAlphaT2Out();
  RawSocket s(port_);
  if (!LogOnAlphaT2(s)) return ::testing::AssertionFailure() << "no logon";
  const std::string cl = "age" + std::to_string(age) + "-" + std::to_string(n);
  s.Write(Frame("35=D|49=ALPHA_T2|56=CFX|34=2|52=" + UtcSecondsAgo(age) + "|11=" + cl +
                "|1=A2|55=" + kSym + "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|"));
  bool closed = false;
  const std::string reply = s.ReadUntil(kAck, kWaitMs, &closed);
  if (reply.find(kAck) != std::string::npos) return ::testing::AssertionSuccess() << reply;
  if (reply.find("\001"
                 "373=10\001") != std::string::npos) {
    return ::testing::AssertionFailure() << "rejected 373=10";
  }
  return ::testing::AssertionFailure() << "neither ack nor 373=10: " << reply;
}

// SPEC §6: the SendingTime check is at max_latency_secs (default 120). The tests above date
// their messages 2020, which any threshold refuses: an order 100 s old is taken, one 150 s
// old is rejected.
TEST_F(FixSendingTimeTest, TheSendingTimeCheckIsAtTheDefaultThreshold) {
  EXPECT_TRUE(OrderOfAgeIsTaken(100, 1));
  EXPECT_FALSE(OrderOfAgeIsTaken(150, 2));
  ExpectStillServing();
}

// The configured threshold is the one applied, in a session and at Logon.
class FixSendingTimeConfiguredTest : public FixSendingTimeTest {
 protected:
  FixSendingTimeConfiguredTest() {
    configure_ = [](FixGatewayConfig& c) { c.max_latency_secs = 30; };
  }
};

TEST_F(FixSendingTimeConfiguredTest, AConfiguredSendingTimeThresholdIsTheOneApplied) {
  EXPECT_TRUE(OrderOfAgeIsTaken(10, 1));
  EXPECT_FALSE(OrderOfAgeIsTaken(60, 2));
  WaitAlphaT2Out();
  RawSocket s(port_);
  s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=" + UtcSecondsAgo(60) + "|98=0|108=30|141=Y|"));
  bool closed = false;
  const std::string reply = s.Read(1500, &closed);
  EXPECT_EQ(reply.find("35=A"), std::string::npos) << reply;
  EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T2"));
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
