// Malformed and hostile input over a raw TCP socket. After each attack, a well-behaved
// session must still trade: the gateway keeps serving other sessions.
#include <chrono>
#include <thread>
#include <vector>

#include "fix_test_client.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

using Msg = FIX::Message;

std::string Logon(const std::string& sender, int seq, const std::string& extra = "",
                  const std::string& target = "CFX") {
  return "35=A|49=" + sender + "|56=" + target + "|34=" + std::to_string(seq) + "|52=" + UtcNow() +
         "|98=0|108=30|" + extra;
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
  s.Write(Frame(Logon("ALPHA_T2", 1, "141=Y|")));
  bool closed = false;
  std::string reply = s.Read(600, &closed);
  ASSERT_NE(reply.find("35=A"), std::string::npos) << reply;
  // A 10 kB ClOrdID (under max_message_bytes): parsed, then refused as invalid_field; the
  // session stays up.
  std::string huge(10000, 'x');
  s.Write(Frame("35=D|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() + "|11=" + huge +
                "|1=A2|55=" + kSym + "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|"));
  reply = s.Read(800, &closed);
  EXPECT_NE(reply.find("58=invalid_field"), std::string::npos);
  EXPECT_FALSE(closed);
  // A field the dictionary does not know -> session-level Reject, still connected.
  s.Write(Frame("35=D|49=ALPHA_T2|56=CFX|34=3|52=" + UtcNow() + "|11=z1|1=A2|55=" + kSym +
                "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|9999=boom|"));
  reply = s.Read(600, &closed);
  EXPECT_NE(reply.find("35=3"), std::string::npos) << reply;
  // A bad enum value (OrdType 9) -> session-level Reject.
  s.Write(Frame("35=D|49=ALPHA_T2|56=CFX|34=4|52=" + UtcNow() + "|11=z2|1=A2|55=" + kSym +
                "|54=1|38=1|40=9|44=5.000|60=" + UtcNow() + "|"));
  reply = s.Read(600, &closed);
  EXPECT_NE(reply.find("35=3"), std::string::npos) << reply;
  // Garbled bytes mid-session and a body length lying about the size.
  s.Write("8=FIX.4.4\x01" "9=99999\x01" "35=D\x01" + std::string(1000, 'y'));
  s.Read(600, &closed);
  ExpectStillServing();
}

// SPEC §5 poison input: an id that is not printable ASCII is refused at the gateway, never
// acknowledged (a stored non-UTF-8 ClOrdID used to abort the trade recorder on every restart).
TEST_F(FixHostileTest, IdsThatAreNotPrintableAsciiAreRefused) {
  RawSocket s(port_);
  s.Write(Frame(Logon("ALPHA_T2", 1, "141=Y|")));
  bool closed = false;
  std::string reply = s.Read(600, &closed);
  ASSERT_NE(reply.find("35=A"), std::string::npos) << reply;
  int seq = 2;
  for (const std::string& bad : {std::string("ab\xff\xfe"), std::string("caf\xc3\xa9"),
                                 std::string("del\x7f"), std::string("sp ace"),
                                 std::string("tab\tx")}) {
    s.Write(Frame("35=D|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) + "|52=" + UtcNow() +
                  "|11=" + bad + "|1=A2|55=" + kSym + "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() +
                  "|"));
    reply = s.Read(800, &closed);
    EXPECT_NE(reply.find("58=invalid_field"), std::string::npos) << bad << ": " << reply;
    EXPECT_EQ(reply.find("150=0"), std::string::npos) << bad << " was acknowledged";
    // The same id as a replace's new ClOrdID: an OrderCancelReject, nothing replaced.
    s.Write(Frame("35=G|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) + "|52=" + UtcNow() +
                  "|11=" + bad + "|41=orig1|1=A2|55=" + kSym + "|54=1|38=2|40=2|44=5.000|60=" +
                  UtcNow() + "|"));
    reply = s.Read(800, &closed);
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
    s.Write("8=FIX.4.4\x01" "9=999999999\x01" "35=A\x01" + std::string(100000, 'y'));
    bool closed = false;
    s.Read(2000, &closed);
    EXPECT_TRUE(closed);
  }
  RawSocket s(port_);
  s.Write(Frame(Logon("ALPHA_T2", 1, "141=Y|")));
  bool closed = false;
  std::string reply = s.Read(600, &closed);
  ASSERT_NE(reply.find("35=A"), std::string::npos) << reply;
  s.Write(Frame("35=D|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() + "|11=" + std::string(40000, 'x') +
                "|1=A2|55=" + kSym + "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|"));
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
  dribble.Write("8=FIX.4.4\x01" "9=");  // a slow client that never finishes its Logon
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
