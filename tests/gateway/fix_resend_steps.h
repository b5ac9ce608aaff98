// Steps the FIX resend tests share (fix_resend_test.cc, fix_resend_flow_test.cc): cutting
// raw bytes into messages, a status-request history to resend, a ResendRequest for all of
// it, and counting what came back resent. C++14, like every file that includes QuickFIX.
#ifndef CFX_TESTS_GATEWAY_FIX_RESEND_STEPS_H_
#define CFX_TESTS_GATEWAY_FIX_RESEND_STEPS_H_

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cfx/gateway/fix_gateway.h"
#include "fix_test_client.h"
#include "gtest/gtest.h"

namespace cfx {
namespace gateway {
namespace test {

// The whole messages in `bytes`, in order (a partial one at the end is left out).
inline std::vector<std::string> Messages(const std::string& bytes) {
  std::vector<std::string> out;
  size_t at = bytes.find("8=FIX.4.4\001");
  while (at != std::string::npos) {
    const size_t sum = bytes.find("\00110=", at);
    if (sum == std::string::npos || sum + 8 > bytes.size()) break;
    out.push_back(bytes.substr(at, sum + 8 - at));
    at = bytes.find("8=FIX.4.4\001", sum + 8);
  }
  return out;
}

inline bool IsAdmin(const std::string& type) {
  return type == "0" || type == "1" || type == "2" || type == "3" || type == "4" || type == "5" ||
         type == "A";
}

// Logs `s` on as ALPHA_T2 (141=Y), has one order acknowledged and `requests` status
// requests answered (a report of about 250 bytes each), reading as it goes. Returns the
// MsgSeqNum the client sends next; 0 on failure (a test failure recorded).
inline int BuildStatusHistory(RawSocket& s, int requests) {
  bool closed = false;
  EXPECT_TRUE(
      s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")));
  if (s.ReadUntil("\00135=A\001", kWaitMs, &closed).find("\00135=A\001") == std::string::npos) {
    ADD_FAILURE() << "no Logon answer";
    return 0;
  }
  EXPECT_TRUE(s.Write(Frame("35=D|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() + "|11=big|1=A2|55=" +
                            kSym + "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|")));
  if (s.ReadUntil("\00111=big\001", kWaitMs, &closed).find("\00111=big\001") == std::string::npos) {
    ADD_FAILURE() << "the order was not acknowledged";
    return 0;
  }
  int seq = 3;
  std::string answers;
  for (int done = 0; done < requests && !closed; done += 500) {
    std::string bytes;
    for (int i = 0; i < 500 && done + i < requests; ++i) {
      bytes += Frame("35=H|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) + "|52=" + UtcNow() +
                     "|11=big|1=A2|55=" + kSym + "|54=1|");
    }
    EXPECT_TRUE(s.Write(bytes));
    answers += s.Read(20, &closed);
  }
  size_t reports = Messages(answers).size();
  while (reports < static_cast<size_t>(requests) && !closed) {
    const std::string got = s.Read(2000, &closed);
    if (got.empty()) break;
    answers += got;
    reports = Messages(answers).size();
  }
  if (reports != static_cast<size_t>(requests)) {
    ADD_FAILURE() << reports << " of " << requests << " status requests answered";
    return 0;
  }
  return seq;
}

// Writes a ResendRequest from 1 to infinity, then a second one for the Logon alone (a
// GapFill; it waits for the first resend to end) and a TestRequest behind that (which waits
// with it: its Heartbeat comes after the whole resend), and reads until that Heartbeat,
// every `pause_ms` reading for 3 ms (0: as fast as it can). Returns what arrived; *closed if
// the gateway closed the connection.
inline std::string ResendEverything(RawSocket& s, int seq, int pause_ms, bool* closed) {
  EXPECT_TRUE(s.Write(Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) +
                            "|52=" + UtcNow() + "|7=1|16=0|") +
                      Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq + 1) +
                            "|52=" + UtcNow() + "|7=1|16=1|") +
                      Frame("35=1|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq + 2) +
                            "|52=" + UtcNow() + "|112=done|")));
  std::string resent;
  *closed = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (resent.find("\001112=done\001") == std::string::npos && !*closed &&
         std::chrono::steady_clock::now() < give_up) {
    resent += s.Read(pause_ms > 0 ? 3 : 50, closed);
    if (pause_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
  }
  return resent;
}

// Application messages resent (PossDup) in `resent`.
inline size_t PossDupApplicationMessages(const std::string& resent) {
  size_t n = 0;
  for (const std::string& m : Messages(resent)) {
    if (!IsAdmin(WireField(m, 35)) && WireField(m, 43) == "Y") ++n;
  }
  return n;
}

inline void RaiseAlphaT2sLimits(FixGatewayConfig& c) {
  c.max_messages_per_sec = 1'000'000'000;
  for (FixSessionSpec& spec : c.sessions) {
    if (spec.sender_comp_id == "ALPHA_T2") spec.throttle_msgs_per_sec = 1'000'000;
  }
}

}  // namespace test
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_TESTS_GATEWAY_FIX_RESEND_STEPS_H_
