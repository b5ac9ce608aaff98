// A ResendRequest as a flow (docs/fix.md, "Resend"): a resend larger than the outbound
// bound reaches a client that reads it, what one connection resends in a second is bounded,
// the client is served between the pieces of its resend, and a Logout ends one. What a
// resend delivers is checked in fix_resend_test.cc.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cfx/gateway/fix_quickfix.h"
#include "fix_resend_steps.h"
#include "fix_test_client.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

// Each test starts the gateway with limits of its own.
class FixResendFlowTest : public FixGatewayTest {
 protected:
  void SetUp() override {
    FixGatewayTest::SetUp();
    StopGateway();
  }
};

// A resend of more than the socket's buffers and the outbound bound together reaches a
// client that reads it slowly: each piece is written to the client before the next is read.
// Answered in one piece, QuickFIX would queue all of it at once and the connection would be
// closed as a slow consumer.
TEST_F(FixResendFlowTest, AResendLargerThanTheOutboundBoundReachesAClientThatReads) {
  configure_ = [](FixGatewayConfig& c) {
    RaiseAlphaT2sLimits(c);
    c.max_outbound_bytes = 64 << 10;
    c.resend_piece_messages = 64;
  };
  StartGateway();
  RawSocket s(port_, "127.0.0.1", /*receive_buffer_bytes=*/4096);
  ASSERT_TRUE(s.ok());
  // More answers in all than the kernel's socket buffers (up to 4 MiB here) and the bound.
  constexpr int kRequests = 24000;
  const int seq = BuildStatusHistory(s, kRequests);
  ASSERT_NE(seq, 0);
  bool closed = false;
  const std::string resent = ResendEverything(s, seq, /*pause_ms=*/10, &closed);
  ASSERT_FALSE(closed) << "closed after " << Messages(resent).size() << " messages of the resend";
  EXPECT_GE(resent.size(), static_cast<size_t>(5) << 20);
  // The order's acknowledgement and every answer to a status request, again.
  EXPECT_EQ(PossDupApplicationMessages(resent), static_cast<size_t>(kRequests + 1));
}

// What one connection resends in a second is bounded: at 500 a second, a resend of some
// 1,500 messages takes three seconds however fast the client reads, and all of it arrives.
TEST_F(FixResendFlowTest, WhatAConnectionResendsInASecondIsBounded) {
  configure_ = [](FixGatewayConfig& c) {
    RaiseAlphaT2sLimits(c);
    c.resend_piece_messages = 100;
    c.max_resent_per_sec = 500;
  };
  StartGateway();
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  constexpr int kRequests = 1500;
  const int seq = BuildStatusHistory(s, kRequests);
  ASSERT_NE(seq, 0);
  bool closed = false;
  const auto start = std::chrono::steady_clock::now();
  const std::string resent = ResendEverything(s, seq, /*pause_ms=*/0, &closed);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  ASSERT_FALSE(closed);
  EXPECT_EQ(PossDupApplicationMessages(resent), static_cast<size_t>(kRequests + 1));
  // 1,502 stored messages at 500 a second: the last piece goes in the fourth second.
  EXPECT_GE(took.count(), 2900) << "resent " << kRequests + 2 << " messages in " << took.count()
                                << " ms";
}

// The client is served while its resend is (docs/fix.md, "Resend"): a TestRequest and an
// order sent straight after a long ResendRequest are answered between its pieces, not after
// it; a second ResendRequest waits for the first to end, and what the client sent after it
// waits with it, in order.
TEST_F(FixResendFlowTest, TheClientIsServedWhileItsResendIs) {
  configure_ = [](FixGatewayConfig& c) {
    RaiseAlphaT2sLimits(c);
    c.resend_piece_messages = 10;
    c.max_resent_per_sec = 100;  // 302 stored messages: about three seconds
  };
  StartGateway();
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  constexpr int kRequests = 300;
  int seq = BuildStatusHistory(s, kRequests);
  ASSERT_NE(seq, 0);
  const std::string last_stored = std::to_string(kRequests + 2);  // Logon, ack, answers
  auto header = [&seq](const std::string& type) {
    return "35=" + type + "|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) + "|52=" + UtcNow() +
           "|";
  };
  std::string bytes = Frame(header("2") + "7=1|16=0|");
  bytes += Frame(header("1") + "112=during|");
  bytes += Frame(header("D") + "11=during|1=A2|55=" + kSym +
                 "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|");
  bytes += Frame(header("2") + "7=2|16=2|");
  bytes += Frame(header("1") + "112=after|");
  ASSERT_TRUE(s.Write(bytes));
  bool closed = false;
  const std::vector<std::string> got =
      Messages(s.ReadUntil("\001112=after\001", 3 * kWaitMs, &closed));
  ASSERT_FALSE(closed);
  auto first = [&got](size_t from, const std::function<bool(const std::string&)>& is) {
    for (size_t i = from; i < got.size(); ++i) {
      if (is(got[i])) return i;
    }
    return got.size();
  };
  const size_t first_end = first(0, [&](const std::string& m) {
    return WireField(m, 43) == "Y" && WireField(m, 34) == last_stored;
  });
  const size_t heartbeat =
      first(0, [](const std::string& m) { return WireField(m, 112) == "during"; });
  const size_t ack = first(0, [](const std::string& m) {
    return WireField(m, 11) == "during" && WireField(m, 150) == "0" && WireField(m, 43) != "Y";
  });
  ASSERT_LT(first_end, got.size()) << "the first resend did not end";
  EXPECT_LT(heartbeat, first_end) << "the TestRequest waited for the resend";
  EXPECT_LT(ack, first_end) << "the order waited for the resend";
  const size_t second = first(first_end + 1, [](const std::string& m) {
    return WireField(m, 43) == "Y" && WireField(m, 34) == "2";
  });
  const size_t after = first(0, [](const std::string& m) { return WireField(m, 112) == "after"; });
  EXPECT_LT(second, after) << "the second resend was not served, or not before what followed it";
  EXPECT_LT(after, got.size());
}

// A message the client sends during a resend that QuickFIX answers with a Logout (here a
// stale SendingTime) ends the resend: no piece goes out after the Logout.
TEST_F(FixResendFlowTest, ALogoutDuringAResendEndsIt) {
  configure_ = [](FixGatewayConfig& c) {
    RaiseAlphaT2sLimits(c);
    c.resend_piece_messages = 10;
    c.max_resent_per_sec = 100;
  };
  StartGateway();
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  int seq = BuildStatusHistory(s, 300);
  ASSERT_NE(seq, 0);
  std::string bytes = Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) +
                            "|52=" + UtcNow() + "|7=1|16=0|");
  bytes += Frame("35=1|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) +
                 "|52=20200101-00:00:00.000|112=stale|");
  ASSERT_TRUE(s.Write(bytes));
  bool closed = false;
  std::string got = s.ReadUntil("\00135=5\001", kWaitMs, &closed);
  ASSERT_NE(got.find("\00135=5\001"), std::string::npos) << "no Logout";
  got += s.Read(2500, &closed);  // more than two pieces' worth of pacing
  const std::vector<std::string> messages = Messages(got);
  size_t after_logout = 0;
  bool logout_seen = false;
  for (const std::string& m : messages) {
    if (WireField(m, 35) == "5") logout_seen = true;
    if (logout_seen && WireField(m, 43) == "Y") ++after_logout;
  }
  EXPECT_EQ(after_logout, 0u) << "pieces served after the Logout";
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
