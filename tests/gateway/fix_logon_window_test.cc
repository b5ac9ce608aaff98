// What a FIX session is sent while a Logon is processed (docs/fix.md, "Messages numbered
// during a Logon"). QuickFIX numbers and stores every message sent to a session but writes it
// only once the session counts as logged on, and processes a Logon without the session's
// lock: the gateway holds its sends to the session meanwhile, so the answer to a Logon with
// ResetSeqNumFlag is number 1 and what was sent meanwhile follows it (FixLogonWindowTest);
// the connection sends anything still stored unsent before the next message, and never
// twice (FixUnsentTest).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fix_hostile.h"
#include "fix_test_client.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

class FixLogonWindowTest : public FixGatewayTest {};

// A client whose connection drops while it has orders resting (cancel-on-disconnect) and
// that logs on again at once, with ResetSeqNumFlag: the cancels' reports meet its Logon. The
// Logon answer must still be number 1, what the session sends meanwhile after it, numbered
// on from 2 (a QuickFIX client takes the answer as 1 and would never ask for messages
// numbered ahead of it).
TEST_F(FixLogonWindowTest, AReconnectWhileItsOrdersAreCanceledGetsTheLogonAnswerFirst) {
  for (int round = 0; round < 12; ++round) {
    {
      RawSocket s(port_);
      ASSERT_TRUE(
          s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")));
      bool closed = false;
      ASSERT_NE(s.ReadUntil(kLogonAnswer, kWaitMs, &closed).find(kLogonAnswer), std::string::npos);
      std::string orders;
      for (int i = 0; i < 40; ++i) {
        orders +=
            Frame("35=D|49=ALPHA_T2|56=CFX|34=" + std::to_string(i + 2) + "|52=" + UtcNow() +
                  "|11=r" + std::to_string(round) + "-" + std::to_string(i) + "|1=A2|55=" + kSym +
                  "|54=1|38=1|40=2|44=4.5" + std::to_string(i % 10) + "|60=" + UtcNow() + "|");
      }
      ASSERT_TRUE(s.Write(orders));
      const std::string acks =
          s.ReadUntil("11=r" + std::to_string(round) + "-39\001", kWaitMs, &closed);
      ASSERT_NE(acks.find("11=r" + std::to_string(round) + "-39\001"), std::string::npos);
    }  // dropped: the 40 orders are canceled
    RawSocket again(port_);
    ASSERT_TRUE(
        again.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")));
    bool closed = false;
    std::string got = again.ReadUntil(kLogonAnswer, kWaitMs, &closed);
    got += again.Read(50, &closed);
    std::vector<std::string> messages;
    SplitChecked(got.substr(got.find("8=FIX") == std::string::npos ? 0 : got.find("8=FIX")),
                 &messages);
    ASSERT_FALSE(messages.empty()) << got;
    std::replace(got.begin(), got.end(), '\001', '|');
    ASSERT_EQ(WireField(messages[0], 35), "A") << "round " << round << ": " << got;
    ASSERT_EQ(WireField(messages[0], 34), "1") << "round " << round << ": " << got;
    for (size_t i = 1; i < messages.size(); ++i) {
      ASSERT_EQ(WireField(messages[i], 34), std::to_string(i + 1))
          << "round " << round << ": " << got;
    }
    ASSERT_TRUE(again.Write(Frame("35=5|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() + "|")));
    while (!closed) again.Read(kWaitMs, &closed);
  }
}

// The same for a Logon with ResetSeqNumFlag on a session logged on (a reset in mid-session),
// while another session's orders keep its drop copies coming: each answer is 1, and the
// drop copies after it are numbered on from 2.
TEST_F(FixLogonWindowTest, AResetInMidSessionGetsTheLogonAnswerFirst) {
  StopGateway();
  configure_ = [](FixGatewayConfig& c) {
    for (FixSessionSpec& s : c.sessions) {
      if (s.sender_comp_id == "BETA_T1") s.throttle_msgs_per_sec = 1000000;
    }
  };
  StartGateway();
  std::unique_ptr<TestClient> trader = Connect("BETA_T1");
  ASSERT_NE(trader, nullptr);
  RawSocket dc(port_);
  std::atomic<bool> stop{false};
  std::thread load([&] {
    for (int n = 0; !stop.load(); ++n) {
      trader->Send(NewOrderMsg("L" + std::to_string(n), "B1", n % 2 ? '1' : '2', 1, "5.000"));
      if (n % 4 == 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  std::string failure;
  int resets = 0;
  std::string got;
  for (int round = 0; round < 30 && failure.empty(); ++round) {
    ASSERT_TRUE(
        dc.Write(Frame("35=A|49=BETA_DC|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")));
    bool closed = false;
    got = dc.ReadUntil(kLogonAnswer, kWaitMs, &closed);
    // What follows this round's Logon answer, until the next round's Logon.
    const size_t answer = got.rfind("8=FIX", got.rfind(kLogonAnswer));
    ASSERT_NE(answer, std::string::npos) << got;
    got = got.substr(answer) + dc.Read(30, &closed);
    ASSERT_FALSE(closed);
    ++resets;
    std::vector<std::string> messages;
    SplitChecked(got, &messages);
    int expect = 1;
    for (const std::string& m : messages) {
      if (WireField(m, 43) == "Y") continue;
      if (WireField(m, 34) != std::to_string(expect)) {
        std::replace(got.begin(), got.end(), '\001', '|');
        failure = "round " + std::to_string(round) + ": " + WireField(m, 35) + " numbered " +
                  WireField(m, 34) + " where " + std::to_string(expect) + " was due: " + got;
        break;
      }
      ++expect;
    }
  }
  stop.store(true);
  load.join();
  EXPECT_EQ(failure, "");
  EXPECT_EQ(resets, 30);
}

// Messages the session numbered and stored without sending them (docs/fix.md, "Messages
// numbered during a Logon"). QuickFIX does that to a message another thread sends after the
// Logon answer went out and before it counts the session as logged on. The gateway holds
// its own sends during a Logon; these tests check the connection's check behind that, and
// leave the session as that window would: a message stored under the next number, the
// number taken, nothing sent.
class FixUnsentTest : public FixGatewayTest {
 protected:
  // Logs BETA_T1 on over a raw socket; the Logon answer is 1.
  void LogOn() {
    client_.reset(new RawSocket(port_));
    ASSERT_TRUE(client_->Write(
        Frame("35=A|49=BETA_T1|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")));
    bool closed = false;
    const std::string got = client_->ReadUntil(kLogonAnswer, kWaitMs, &closed);
    ASSERT_NE(got.find(kLogonAnswer), std::string::npos) << got;
    received_ = got.substr(got.find("8=FIX"));
    ASSERT_EQ(WireField(received_, 35), "A");
    ASSERT_EQ(WireField(received_, 34), "1");
  }

  // What QuickFIX leaves when a report is sent in the window: stored as number `seq`, the
  // session's next number past it, nothing on the wire.
  void NumberedAndStoredUnsent(int seq, const std::string& cl_ord_id) {
    FIX::Session* session =
        FIX::Session::lookupSession(FIX::SessionID("FIX.4.4", "CFX", "BETA_T1"));
    ASSERT_NE(session, nullptr);
    ASSERT_EQ(session->getExpectedSenderNum(), seq);
    auto* store = const_cast<FIX::MessageStore*>(session->getStore());
    ASSERT_TRUE(
        store->set(seq, Frame("35=8|49=CFX|56=BETA_T1|34=" + std::to_string(seq) +
                              "|52=" + UtcNow() + "|37=o1|11=" + cl_ord_id +
                              "|17=e1|150=4|39=4|1=B1|55=" + kSym + "|54=1|38=1|151=0|14=0|6=0|")));
    store->incrNextSenderMsgSeqNum();
  }

  // Reads until `count` messages arrived after the Logon answer; their MsgSeqNums and
  // types, as "2:8 3:0".
  std::string Next(size_t count) {
    bool closed = false;
    std::vector<std::string> messages;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
    while (std::chrono::steady_clock::now() < give_up && !closed) {
      messages.clear();
      SplitChecked(received_, &messages);
      if (messages.size() > count) break;
      received_ += client_->Read(20, &closed);
    }
    std::string seqs;
    for (size_t i = 1; i < messages.size(); ++i) {
      seqs += (seqs.empty() ? "" : " ") + WireField(messages[i], 34) + ":" +
              WireField(messages[i], 35) + (WireField(messages[i], 43) == "Y" ? "(resent)" : "");
    }
    return seqs;
  }

  std::unique_ptr<RawSocket> client_;
  std::string received_;
};

TEST_F(FixUnsentTest, AStoredUnsentMessageGoesOutBeforeTheNextOne) {
  LogOn();
  NumberedAndStoredUnsent(2, "lost");
  // The next message the gateway sends (the Heartbeat answering this TestRequest) would
  // have been numbered 3 after 1.
  ASSERT_TRUE(client_->Write(Frame("35=1|49=BETA_T1|56=CFX|34=2|52=" + UtcNow() + "|112=t|")));
  EXPECT_EQ(Next(2), "2:8 3:0");
  EXPECT_NE(received_.find("11=lost\001"), std::string::npos);
}

TEST_F(FixUnsentTest, AStoredUnsentMessageResentOnRequestIsNotSentAgain) {
  LogOn();
  NumberedAndStoredUnsent(2, "asked");
  // The client asks for everything: the Logon gap-filled, 2 resent (PossDupFlag). The next
  // fresh message (the Heartbeat answering a TestRequest) is 3, with no second, fresh 2
  // ahead of it (a QuickFIX client would take that as numbered too low, and log out).
  ASSERT_TRUE(client_->Write(Frame("35=2|49=BETA_T1|56=CFX|34=2|52=" + UtcNow() + "|7=1|16=0|")));
  EXPECT_EQ(Next(2), "1:4(resent) 2:8(resent)");
  ASSERT_TRUE(client_->Write(Frame("35=1|49=BETA_T1|56=CFX|34=3|52=" + UtcNow() + "|112=t|")));
  EXPECT_EQ(Next(3), "1:4(resent) 2:8(resent) 3:0");
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
