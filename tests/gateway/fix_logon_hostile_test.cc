// Hostile Logons that must leave a session as it was: a Logon QuickFIX and the gateway could
// read differently, a refused Logon asking for a reset, stale Logons slowed like wrong
// passwords (SPEC §6; docs/fix.md, "Logon"). Raw sockets, as fix_hostile_test.cc. C++14.
#include <chrono>
#include <string>
#include <thread>

#include "fix_hostile.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

// SPEC §6: a Logon refused for its SendingTime is a failed Logon, counted and slowed like a
// wrong password: the next Logon of the CompID (or from the address) waits out the back-off,
// and only the wait's first refusal is answered. Until 2026-12-07 stale Logons were only
// audited, and each took a Logout, one of the session's MsgSeqNums, at the connection rate
// (a review).
TEST_F(FixHostileTest, StaleLogonsAreSlowedLikeWrongPasswords) {
  const auto logon_reply = [this](const std::string& sending_time) {
    RawSocket s(port_);
    s.Write(Frame("35=A|49=ALPHA_T1|56=CFX|34=1|52=" + sending_time +
                  "|98=0|108=30|554=alpha-secret|"));
    bool closed = false;
    std::string reply = s.ReadUntil(kLogout, 2000, &closed);
    if (!closed) s.Read(500, &closed);
    EXPECT_TRUE(closed);
    return reply;
  };
  const std::string stale = "20200101-00:00:00.000";
  EXPECT_EQ(logon_reply(stale).find("35=A"), std::string::npos);  // refused
  // The right password with a good SendingTime, in the wait: refused unverified.
  const uint64_t verified = gateway_->PasswordVerifications();
  EXPECT_NE(logon_reply(UtcNow()).find("too many failed logons"), std::string::npos);
  EXPECT_EQ(gateway_->PasswordVerifications(), verified);
  for (int i = 0; i < 3; ++i) {  // the same wait: closed without an answer
    const std::string reply = logon_reply(stale);
    EXPECT_EQ(reply.find("35=5"), std::string::npos) << i << ": " << reply;
  }
  EXPECT_FALSE(gateway_->IsLoggedOn("ALPHA_T1"));
  ExpectStillServing();
}

// QuickFIX resets a session's sequence numbers, and empties its message store, for a Logon
// with ResetSeqNumFlag (141=Y) before the application decides the Logon. A refused one (a
// wrong password, a back-off, a HeartBtInt out of bounds) must change nothing: the absent
// client's next Logon goes on from its numbers, and what was stored for it is still there.
// The gateway decides a Logon on its raw text while QuickFIX reads `0141` as 141 and `049`
// as 49: a refused Logon that asked for its reset as `0141=Y`, or named a session twice,
// reset that session and emptied its store until 2026-12-07 (the gateway took out `141=Y`
// only as written; a review). Such a Logon is closed before any session sees it: another
// firm's sequence numbers and stored reports stay as they were.
TEST_F(FixHostileTest, ALogonWithATagNotInPlainFormOrTwiceIsClosedUnread) {
  {
    auto alpha = Connect("ALPHA_T1", "alpha-secret");
    Msg m;
    alpha->Send(NewOrderMsg("keep", "A1", '1', 1, "5.000"));
    ASSERT_TRUE(alpha->WaitExec("keep", '0', &m));
    alpha->Stop();
    ASSERT_TRUE(alpha->WaitLoggedOut());
  }
  for (int i = 0; i < 100 && gateway_->IsLoggedOn("ALPHA_T1"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FixSeqNums before;
  ASSERT_TRUE(gateway_->SeqNums("ALPHA_T1", &before));
  ASSERT_GT(before.next_sender, 2);
  const std::string now = UtcNow();
  for (const std::string& logon :
       {"35=A|49=ALPHA_T1|56=CFX|34=1|52=" + now + "|98=0|108=30|0141=Y|554=guess|",
        "35=A|049=ALPHA_T1|49=BETA_T1|56=CFX|34=1|52=" + now + "|98=0|108=30|141=Y|554=guess|",
        "35=A|49=ALPHA_T1|56=CFX|34=1|52=" + now + "|98=0|108=30|141=N|141=Y|554=guess|"}) {
    SCOPED_TRACE(logon);
    RawSocket s(port_);
    ASSERT_TRUE(s.Write(Frame(logon)));
    bool closed = false;
    const std::string reply = s.Read(1000, &closed);
    EXPECT_TRUE(closed) << reply;
    EXPECT_EQ(reply.find(kLogonAnswer), std::string::npos) << reply;
    FixSeqNums after;
    ASSERT_TRUE(gateway_->SeqNums("ALPHA_T1", &after));
    EXPECT_EQ(after.next_target, before.next_target);
    EXPECT_EQ(after.next_sender, before.next_sender) << "the session was reset or answered";
  }
  ExpectStillServing();
}

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
  {
    // A stale SendingTime: QuickFIX refuses it, but acted on the 141=Y first (sequence
    // numbers reset, the store emptied) until the gateway decided it ahead.
    RawSocket stale(port_);
    ASSERT_TRUE(stale.Write(
        Frame("35=A|49=BETA_DC|56=CFX|34=1|52=20200101-00:00:00.000|98=0|108=30|141=Y|")));
    bool stale_closed = false;
    const std::string stale_reply = stale.Read(1500, &stale_closed);
    EXPECT_EQ(stale_reply.find(kLogonAnswer), std::string::npos) << stale_reply;
    FixSeqNums stale_after;
    ASSERT_TRUE(gateway_->SeqNums("BETA_DC", &stale_after));
    EXPECT_EQ(stale_after.next_target, dc_before.next_target);
    EXPECT_GE(stale_after.next_sender, dc_before.next_sender);
    dc_before = stale_after;
  }
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

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
