// The raw-socket steps and fixture of the hostile-input FIX tests (fix_hostile_test.cc:
// malformed input and refused logons; fix_bounds_test.cc: SPEC §6's bounds). After each
// attack a well-behaved session (BETA_T1) must still trade. C++14, like the QuickFIX test
// translation units that include it.
#ifndef CFX_TESTS_GATEWAY_FIX_HOSTILE_H_
#define CFX_TESTS_GATEWAY_FIX_HOSTILE_H_

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "fix_test_client.h"

namespace cfx {
namespace gateway {
namespace test {

using Msg = FIX::Message;

inline std::string Logon(const std::string& sender, int seq, const std::string& extra = "",
                         const std::string& target = "CFX", int heartbeat_secs = 30) {
  return "35=A|49=" + sender + "|56=" + target + "|34=" + std::to_string(seq) + "|52=" + UtcNow() +
         "|98=0|108=" + std::to_string(heartbeat_secs) + "|" + extra;
}

// A framed NewOrderSingle from ALPHA_T2: buy 1 of kSym for A2 at 5.000 (it rests), OrdType
// `ord_type`, with `extra` fields ("tag=value|...") at the end.
inline std::string RawOrder(int seq, const std::string& cl, const std::string& ord_type = "2",
                            const std::string& extra = "") {
  return Frame("35=D|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) + "|52=" + UtcNow() +
               "|11=" + cl + "|1=A2|55=" + kSym + "|54=1|38=1|40=" + ord_type +
               "|44=5.000|60=" + UtcNow() + "|" + extra);
}

// A framed OrderStatusRequest from ALPHA_T2 for `cl`: answered with an ExecutionReport.
inline std::string RawStatus(int seq, const std::string& cl) {
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
inline ::testing::AssertionResult LogOnAlphaT2(RawSocket& s) {
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

}  // namespace test
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_TESTS_GATEWAY_FIX_HOSTILE_H_
