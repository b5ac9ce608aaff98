// A ResendRequest served in pieces (docs/fix.md, "Resend"): what the client receives is the
// stream QuickFIX's one-piece answer would be, each piece reads at most
// resend_piece_messages stored messages, odd and empty ranges are gap-filled at the right
// numbers, and a refused or garbled ResendRequest is not served. The resend as a flow
// (bounds, pacing, what the client is served meanwhile) is in fix_resend_flow_test.cc.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cfx/gateway/fix_quickfix.h"
#include "fix_resend_steps.h"
#include "fix_test_client.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

// What a resend of `original` (the messages the client received, in order) from `begin` on
// must deliver, one line a message: an application message again (its MsgSeqNum, type,
// ClOrdID and ExecID, PossDup), each run of admin messages as one SequenceReset-GapFill to
// the next application message.
std::vector<std::string> ExpectedResend(const std::vector<std::string>& original, int begin) {
  std::vector<std::string> out;
  int gap_from = 0;
  for (const std::string& m : original) {
    const int seq = std::atoi(WireField(m, 34).c_str());
    if (seq < begin) continue;
    const std::string type = WireField(m, 35);
    if (IsAdmin(type)) {
      if (gap_from == 0) gap_from = seq;
      continue;
    }
    if (gap_from != 0)
      out.push_back("gapfill " + std::to_string(gap_from) + "->" + std::to_string(seq));
    gap_from = 0;
    out.push_back(std::to_string(seq) + " " + type + " 11=" + WireField(m, 11) +
                  " 17=" + WireField(m, 17) + " 43=Y");
  }
  return out;
}

// The same lines from what a resend delivered; gap fills that follow on from each other
// (one's NewSeqNo the next one's MsgSeqNum: a run of admin messages cut by a piece's end)
// are one.
std::vector<std::string> Delivered(const std::vector<std::string>& resent) {
  std::vector<std::string> out;
  int gap_from = 0;
  int gap_to = 0;
  auto close_gap = [&]() {
    if (gap_from != 0)
      out.push_back("gapfill " + std::to_string(gap_from) + "->" + std::to_string(gap_to));
    gap_from = 0;
  };
  for (const std::string& m : resent) {
    const std::string type = WireField(m, 35);
    const int seq = std::atoi(WireField(m, 34).c_str());
    if (type == "4" && WireField(m, 123) == "Y") {
      if (gap_from != 0 && seq == gap_to) {
        gap_to = std::atoi(WireField(m, 36).c_str());
      } else {
        close_gap();
        gap_from = seq;
        gap_to = std::atoi(WireField(m, 36).c_str());
      }
      continue;
    }
    close_gap();
    out.push_back(std::to_string(seq) + " " + type + " 11=" + WireField(m, 11) +
                  " 17=" + WireField(m, 17) + " 43=" + WireField(m, 43));
  }
  close_gap();
  return out;
}

// The MsgSeqNums of the messages in `original` the session's store keeps: its application
// messages (session messages are only numbered and sent; a resend gap-fills them).
std::set<int> StoredNumbers(const std::vector<std::string>& original) {
  std::set<int> stored;
  for (const std::string& m : original) {
    const std::string type = WireField(m, 35);
    if (type.size() != 1 || std::string("0A12345").find(type) == std::string::npos) {
      stored.insert(std::atoi(WireField(m, 34).c_str()));
    }
  }
  return stored;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

class FixResendTest : public FixGatewayTest {
 protected:
  void SetUp() override {
    FixGatewayTest::SetUp();
    StopGateway();
  }

  // Logs on as ALPHA_T2 (141=Y) and sends `orders` orders, a TestRequest after every
  // third and two after every seventh (admin messages inside the history, runs of them
  // too). Returns what came back, through the last order's acknowledgement.
  std::string BuildHistory(RawSocket& s, int orders, int* next_seq) {
    bool closed = false;
    EXPECT_TRUE(
        s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")));
    std::string got = s.ReadUntil("\00135=A\001", kWaitMs, &closed);
    int seq = 2;
    for (int i = 1; i <= orders; ++i) {
      const std::string cl = "h" + std::to_string(i);
      std::string bytes =
          Frame("35=D|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) + "|52=" + UtcNow() +
                "|11=" + cl + "|1=A2|55=" + kSym + "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|");
      const int tests = i % 7 == 0 ? 2 : (i % 3 == 0 ? 1 : 0);
      for (int t = 0; t < tests; ++t) {
        bytes += Frame("35=1|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) + "|52=" + UtcNow() +
                       "|112=t" + std::to_string(i) + "-" + std::to_string(t) + "|");
      }
      EXPECT_TRUE(s.Write(bytes));
      // One order at a time: the reports and heartbeats come back in a known order.
      const std::string needle =
          tests > 0 ? "\001112=t" + std::to_string(i) + "-" + std::to_string(tests - 1) + "\001"
                    : "\00111=" + cl + "\001";
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
      while (got.find(needle) == std::string::npos && !closed &&
             std::chrono::steady_clock::now() < give_up) {
        got += s.Read(20, &closed);
      }
      EXPECT_NE(got.find(needle), std::string::npos) << "order " << i;
    }
    *next_seq = seq;
    return got;
  }

  // Every "Received ResendRequest FROM: a TO: b" in the session's event log, as {a, b}.
  std::vector<std::pair<int, int>> ResendsInEventLog() {
    std::ifstream in(dir_ + "/gw/fix/log/FIX.4.4-CFX-ALPHA_T2.event.log");
    std::vector<std::pair<int, int>> out;
    std::string line;
    while (std::getline(in, line)) {
      const size_t at = line.find("Received ResendRequest FROM: ");
      if (at == std::string::npos) continue;
      int a = 0;
      int b = 0;
      if (std::sscanf(line.c_str() + at, "Received ResendRequest FROM: %d TO: %d", &a, &b) == 2) {
        out.emplace_back(a, b);
      }
    }
    return out;
  }

  // The history, a ResendRequest from 2 to infinity, and the comparison with the model.
  void ResendTheHistory(int piece) {
    configure_ = [piece](FixGatewayConfig& c) {
      c.resend_piece_messages = piece;
      c.message_log = true;
    };
    StartGateway();
    RawSocket s(port_);
    ASSERT_TRUE(s.ok());
    int seq = 0;
    constexpr int kOrders = 30;
    const std::vector<std::string> original = Messages(BuildHistory(s, kOrders, &seq));
    ASSERT_GE(original.size(), static_cast<size_t>(kOrders + 1 + kOrders / 3));
    const int last_sent = std::atoi(WireField(original.back(), 34).c_str());
    ASSERT_TRUE(s.Write(Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) +
                              "|52=" + UtcNow() + "|7=2|16=0|")));
    bool closed = false;
    const std::string last = "\00111=h" + std::to_string(kOrders) + "\001";
    const std::string bytes = s.ReadUntil(last, kWaitMs, &closed);
    ASSERT_FALSE(closed);
    std::vector<std::string> resent = Messages(bytes);
    // Anything after the last order's report (a heartbeat) is not the resend's.
    while (!resent.empty() && resent.back().find(last) == std::string::npos) resent.pop_back();
    EXPECT_EQ(Join(Delivered(resent)), Join(ExpectedResend(original, 2)));

    // The session goes on: its next message is numbered after everything sent before.
    ASSERT_TRUE(s.Write(Frame("35=1|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq + 1) +
                              "|52=" + UtcNow() + "|112=after|")));
    const std::string after = s.ReadUntil("\001112=after\001", kWaitMs, &closed);
    const std::vector<std::string> heartbeat = Messages(after.substr(after.rfind("8=FIX.4.4")));
    ASSERT_EQ(heartbeat.size(), 1u) << after;
    EXPECT_EQ(std::atoi(WireField(heartbeat[0], 34).c_str()), last_sent + 1) << after;

    // What QuickFIX was asked for: pieces tiling 2..last_sent, each holding at most `piece`
    // stored messages (the application messages: session messages are not stored, and
    // QuickFIX gap-fills them), each but the last ending on one.
    const std::set<int> stored = StoredNumbers(original);
    const std::vector<std::pair<int, int>> asked = ResendsInEventLog();
    ASSERT_FALSE(asked.empty());
    int next = 2;
    for (const auto& range : asked) {
      const int to = range.second == 0 ? last_sent : range.second;  // 0: infinity
      EXPECT_EQ(range.first, next);
      const auto held = std::distance(stored.lower_bound(range.first), stored.upper_bound(to));
      EXPECT_LE(held, piece) << range.first << ".." << to;
      if (to != last_sent) EXPECT_EQ(stored.count(to), 1u) << range.first << ".." << to;
      next = to + 1;
    }
    EXPECT_EQ(next, last_sent + 1);
  }
};

// Pieces of 4 stored messages span runs of session messages (gap-filled, not stored) and fall
// between a message and the gap fill before it; the client still gets what one answer would
// give.
TEST_F(FixResendTest, AResendServedInPiecesDeliversWhatOneAnswerWould) { ResendTheHistory(4); }

// A piece larger than the range: one answer, QuickFIX's own.
TEST_F(FixResendTest, AResendWithinOnePieceIsQuickFixsOwnAnswer) { ResendTheHistory(1000); }

// A BeginSeqNo of 0 or below, numbers written with leading zeros, or past the range of
// QuickFIX's int (which wraps them), are read as QuickFIX reads them and served from 1 in
// pieces like any range (QuickFIX alone would read 0 or a negative BeginSeqNo as the whole
// history, in one piece), and deliver what a resend from 1 must.
TEST_F(FixResendTest, RangesWrittenOddlyAreServedInPiecesToo) {
  configure_ = [](FixGatewayConfig& c) {
    c.resend_piece_messages = 4;
    c.message_log = true;
  };
  StartGateway();
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  int seq = 0;
  constexpr int kOrders = 12;
  const std::vector<std::string> original = Messages(BuildHistory(s, kOrders, &seq));
  const std::string last = "\00111=h" + std::to_string(kOrders) + "\001";
  // 4294967297 is 2^32 + 1, which QuickFIX's int reads as 1.
  for (const char* range : {"7=0|16=0|", "7=-5|16=0|", "7=0001|16=0000|", "7=4294967297|16=0|"}) {
    SCOPED_TRACE(range);
    ASSERT_TRUE(s.Write(Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) +
                              "|52=" + UtcNow() + "|" + range)));
    bool closed = false;
    std::vector<std::string> resent = Messages(s.ReadUntil(last, kWaitMs, &closed));
    ASSERT_FALSE(closed);
    while (!resent.empty() && resent.back().find(last) == std::string::npos) resent.pop_back();
    EXPECT_EQ(Join(Delivered(resent)), Join(ExpectedResend(original, 1)));
  }
  const std::set<int> stored = StoredNumbers(original);
  for (const auto& asked : ResendsInEventLog()) {
    EXPECT_GE(asked.first, 1);
    EXPECT_GE(asked.second, asked.first);
    const auto held =
        std::distance(stored.lower_bound(asked.first), stored.upper_bound(asked.second));
    EXPECT_LE(held, 4) << asked.first << ".." << asked.second;
  }
}

// A ResendRequest QuickFIX refuses is refused once: the pieces after the first are not
// served. One with a field its type does not have gets one Reject (the session goes on);
// one whose SendingTime is an hour old gets a Reject and a Logout.
TEST_F(FixResendTest, ARefusedResendRequestIsNotServedPieceByPiece) {
  configure_ = [](FixGatewayConfig& c) { c.resend_piece_messages = 4; };
  StartGateway();
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  int seq = 0;
  BuildHistory(s, 12, &seq);
  auto count = [](const std::string& got, const char* type) {
    size_t n = 0;
    for (const std::string& m : Messages(got)) n += WireField(m, 35) == type ? 1 : 0;
    return n;
  };
  ASSERT_TRUE(s.Write(Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) +
                            "|52=" + UtcNow() + "|7=2|16=0|55=X|") +
                      Frame("35=1|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq + 1) +
                            "|52=" + UtcNow() + "|112=next|")));
  bool closed = false;
  std::string got = s.ReadUntil("\001112=next\001", kWaitMs, &closed);
  ASSERT_NE(got.find("\001112=next\001"), std::string::npos) << got;
  EXPECT_EQ(count(got, "3"), 1u) << got;
  EXPECT_EQ(PossDupApplicationMessages(got), 0u) << got;

  const int64_t hour_ago_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count() -
                              3600LL * 1000 * 1000;
  const std::string stale = ::cfx::gateway::internal::TransactTimeFix(hour_ago_us);
  ASSERT_TRUE(s.Write(Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq + 2) +
                            "|52=" + stale + "|7=2|16=0|")));
  got = s.ReadUntil("\00135=5\001", kWaitMs, &closed);
  got += s.Read(500, &closed);  // anything served after the Logout
  EXPECT_EQ(count(got, "3"), 1u) << got;
  EXPECT_EQ(count(got, "5"), 1u) << got;
  EXPECT_EQ(PossDupApplicationMessages(got), 0u) << got;
}

// A range whose end holds nothing stored (the sender's number jumped, as on a node taking
// over a session) is gap-filled numbered from where the stored messages end: in one piece
// QuickFIX would number that gap fill with the request's BeginSeqNo, which the client has
// passed, and the client would never see the gap closed.
TEST_F(FixResendTest, NothingStoredAtTheEndOfARangeIsGapFilledFromWhereItStarts) {
  configure_ = [](FixGatewayConfig& c) { c.resend_piece_messages = 4; };
  StartGateway();
  int seq = 0;
  int last_stored = 0;
  {
    RawSocket s(port_);
    ASSERT_TRUE(s.ok());
    BuildHistory(s, 6, &seq);
  }
  exchange_->Drain();
  StopGateway();
  // The next number the gateway sends jumps 50 past what it stored.
  const std::string seqnums = dir_ + "/gw/fix/store/FIX.4.4-CFX-ALPHA_T2.seqnums";
  {
    std::ifstream in(seqnums);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    int sender = 0;
    int target = 0;
    ASSERT_EQ(std::sscanf(text.c_str(), "%d : %d", &sender, &target), 2) << text;
    last_stored = sender - 1;  // the reports of its orders canceled on disconnect too
    char jumped[64];
    std::snprintf(jumped, sizeof jumped, "%10.10d : %10.10d", last_stored + 51, target);
    std::ofstream(seqnums, std::ios::trunc) << jumped;
  }
  StartGateway();
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) +
                            "|52=" + UtcNow() + "|98=0|108=30|")));
  bool closed = false;
  ASSERT_NE(s.ReadUntil("\00135=A\001", kWaitMs, &closed).find("\00135=A\001"), std::string::npos);
  // From 2 to a number inside the jump: the stored messages, then one gap fill from the
  // first number not stored to the one after the range.
  const int end = last_stored + 10;
  ASSERT_TRUE(s.Write(Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq + 1) +
                            "|52=" + UtcNow() + "|7=2|16=" + std::to_string(end) + "|")));
  const std::string needle = "\00136=" + std::to_string(end + 1) + "\001";
  const std::vector<std::string> resent = Messages(s.ReadUntil(needle, kWaitMs, &closed));
  ASSERT_FALSE(resent.empty());
  const std::string& fill = resent.back();
  EXPECT_EQ(WireField(fill, 35), "4");
  EXPECT_EQ(WireField(fill, 123), "Y");
  EXPECT_EQ(WireField(fill, 34), std::to_string(last_stored + 1))
      << "numbered where nothing is stored";
  EXPECT_EQ(WireField(fill, 36), std::to_string(end + 1));
}

// A range of numbers never sent (starting past the last one, up to 2^31 - 1) or ending
// before it starts is answered with a GapFill from the next number to itself: QuickFIX would
// number its GapFill with the BeginSeqNo and give it a NewSeqNo below that, a message
// numbered past everything sent that a client takes for a gap of its own. The session goes
// on: the next message is numbered as the GapFill was.
TEST_F(FixResendTest, ARangeOfNumbersNeverSentIsAnEmptyGapFillAtTheNextNumber) {
  StartGateway();
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  int seq = 0;
  const std::vector<std::string> original = Messages(BuildHistory(s, 3, &seq));
  ASSERT_FALSE(original.empty());
  const int next_out = std::atoi(WireField(original.back(), 34).c_str()) + 1;
  for (const char* range :
       {"7=2147483647|16=0|", "7=100|16=200|", "7=3|16=2|", "7=0005|16=0001|"}) {
    SCOPED_TRACE(range);
    ASSERT_TRUE(s.Write(Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) +
                              "|52=" + UtcNow() + "|" + range)));
    bool closed = false;
    const std::vector<std::string> got = Messages(s.ReadUntil("35=4", kWaitMs, &closed));
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(WireField(got[0], 123), "Y");
    EXPECT_EQ(WireField(got[0], 34), std::to_string(next_out));
    EXPECT_EQ(WireField(got[0], 36), std::to_string(next_out));
  }
  ASSERT_TRUE(s.Write(Frame("35=1|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq++) +
                            "|52=" + UtcNow() + "|112=after|")));
  bool closed = false;
  const std::vector<std::string> got = Messages(s.ReadUntil("112=after", kWaitMs, &closed));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(WireField(got[0], 34), std::to_string(next_out));
}

// A ResendRequest whose CheckSum is wrong is ignored, as QuickFIX ignores any garbled
// message: nothing resent and its number not counted (a resend served in pieces is
// re-serialized with a CheckSum of its own, so the connection checks the client's first).
TEST_F(FixResendTest, AResendRequestWithAWrongCheckSumIsIgnored) {
  configure_ = [](FixGatewayConfig& c) { c.resend_piece_messages = 4; };
  StartGateway();
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  int seq = 0;
  BuildHistory(s, 6, &seq);
  for (const char* range : {"7=1|16=0|", "7=500|16=0|"}) {
    SCOPED_TRACE(range);
    ASSERT_TRUE(s.Write(
        Frame("35=2|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) + "|52=" + UtcNow() + "|" + range,
              /*corrupt_checksum=*/true)));
    bool closed = false;
    const std::string got = s.Read(500, &closed);
    EXPECT_FALSE(closed);
    EXPECT_EQ(got.find("\00143=Y\001"), std::string::npos) << got;
  }
  // The same number again, whole: counted now (a TestRequest answered, not a Logout).
  ASSERT_TRUE(s.Write(Frame("35=1|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) +
                            "|52=" + UtcNow() + "|112=same-number|")));
  bool closed = false;
  const std::string got = s.ReadUntil("\001112=same-number\001", kWaitMs, &closed);
  EXPECT_NE(got.find("\001112=same-number\001"), std::string::npos) << got;
  EXPECT_EQ(got.find("\00135=5\001"), std::string::npos) << got;
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
