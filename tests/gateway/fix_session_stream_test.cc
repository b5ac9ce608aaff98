// The FIX session layer under a random stream (docs/fix.md, "Sequence gaps" and "Resend"):
// a seeded generator plays a client that numbers its messages past gaps, too low, with
// leading zeros or past 2^31; asks for resends of any range; sends SequenceResets of both
// kinds, garbled frames and Logouts; answers some of the gateway's ResendRequests with a
// GapFill and ignores others; and reconnects whenever the gateway closes it. Whatever it
// sends:
//   * everything the gateway writes is whole FIX messages (BodyLength and CheckSum right);
//     only the last one on a connection the gateway closed may be cut short;
//   * on each connection the gateway's own messages (not resent: no PossDupFlag) are
//     numbered 1 (the Logon answer), 2, 3, ... with none skipped or repeated;
//   * another firm's session is served all along, and afterwards the session logs on again
//     and trades.
// A seed fixes the stream the client sends (its answers to the gateway's ResendRequests draw
// from a generator of their own, since how many arrive depends on timing); a failure prints
// the stream step by step.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fix_test_client.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

using Msg = FIX::Message;

constexpr char kLogonAnswer[] = "\00135=A\001";
constexpr char kAck[] = "\001150=0\001";

// The client side of the stream: one connection at a time, its numbers, and what the
// gateway sent on it.
class StreamClient {
 public:
  StreamClient(int port, uint64_t seed) : port_(port), rng_(seed), answer_rng_(seed) {}

  // Opens a connection and logs on with ResetSeqNumFlag. The gateway numbers from 1 again,
  // and its Logon answer is 1: what it had for the session as the reset happened (the
  // previous connection's orders canceled as it closed) is sent after the answer, not
  // numbered ahead of it, where a QuickFIX client would never ask for it (it takes a Logon
  // answer with ResetSeqNumFlag as number 1, whatever its MsgSeqNum; docs/fix.md, "Messages
  // numbered during a Logon").
  ::testing::AssertionResult Connect() {
    socket_.reset(new RawSocket(port_));
    received_.clear();
    checked_upto_ = 0;
    answered_upto_ = 0;
    originals_.clear();
    if (!socket_->ok()) return ::testing::AssertionFailure() << "no connection";
    next_ = 1;
    if (!Send(Framed("A", next_++, "98=0|108=30|141=Y|"))) {
      return ::testing::AssertionFailure() << "Logon not written";
    }
    bool closed = false;
    received_ += socket_->ReadUntil(kLogonAnswer, kWaitMs, &closed);
    std::vector<std::string> messages;
    SplitChecked(received_, &messages);
    if (messages.empty() || WireField(messages.front(), 35) != "A") {
      return ::testing::AssertionFailure() << "no Logon answer first: " << Printable(received_);
    }
    if (WireField(messages.front(), 34) != "1") {
      return ::testing::AssertionFailure()
             << "Logon answer numbered " << WireField(messages.front(), 34) << ": "
             << Printable(received_);
    }
    last_out_ = 0;
    return ::testing::AssertionSuccess();
  }

  // Sends one random step; reads what came back. Returns false when the gateway closed the
  // connection (the caller checks what it got, then connects again).
  bool Step(std::string* log) {
    const std::string bytes = NextBytes(log);
    bool open = Send(bytes);
    bool closed = false;
    received_ += socket_->Read(2, &closed);
    open = open && !closed;
    AnswerResendRequests();
    return open;
  }

  // Checks the frames and the numbering of what arrived since the last check.
  std::string Check() {
    std::vector<std::string> messages;
    std::string error = SplitChecked(received_.substr(checked_upto_), &messages);
    if (!error.empty()) return error;
    for (const std::string& m : messages) {
      checked_upto_ += m.size();
      const int seq = std::atoi(WireField(m, 34).c_str());
      if (WireField(m, 43) == "Y") {  // resent, or a GapFill standing in for resent messages
        // Only numbers already used, and a GapFill never goes back.
        const bool gap_fill = WireField(m, 35) == "4";
        if (seq > last_out_ + 1 || (gap_fill && std::atoi(WireField(m, 36).c_str()) < seq)) {
          return "gateway resent " + Printable(m) + " after its own " + std::to_string(last_out_) +
                 "; the connection received:\n" + Printable(received_);
        }
        continue;
      }
      if (seq != last_out_ + 1) {
        return "gateway MsgSeqNum " + std::to_string(seq) + " after " + std::to_string(last_out_) +
               " in " + Printable(m) + "; the connection received:\n" + Printable(received_);
      }
      last_out_ = seq;
      originals_[seq] = Gist(m);
    }
    return "";
  }

  // Asks for everything again (7=1, 16=0) and checks that what comes back covers every
  // number the gateway has sent on this connection (a resent message, or a GapFill over
  // admin messages), each resent message the one first sent under its number. "" when it
  // does, or when the gateway closed the connection instead (the request numbered too low
  // after the stream's own jumps).
  std::string ResendAll(bool* open) {
    const int upto = last_out_;
    const size_t from = checked_upto_;  // a message boundary (a read may end inside one)
    *open = Send(Framed("2", next_++, "7=1|16=0|"));
    const auto start = std::chrono::steady_clock::now();
    const auto give_up = start + std::chrono::milliseconds(kWaitMs);
    bool asked_again = false;
    while (*open && std::chrono::steady_clock::now() < give_up) {
      // A message cut short just before makes the framing wait for the rest of its declared
      // length, which the request's bytes only partly supply: a second request completes it,
      // the framing finds the garbled one and goes on from the next message.
      if (!asked_again && std::chrono::steady_clock::now() - start > std::chrono::seconds(2)) {
        asked_again = true;
        *open = Send(Framed("2", next_++, "7=1|16=0|"));
      }
      std::vector<bool> covered(upto + 1, false);
      covered[0] = true;
      std::vector<std::string> messages;
      SplitChecked(received_.substr(from), &messages);
      for (const std::string& m : messages) {
        if (WireField(m, 43) != "Y") continue;
        const int seq = std::atoi(WireField(m, 34).c_str());
        const bool gap_fill = WireField(m, 35) == "4";
        const int end = gap_fill ? std::atoi(WireField(m, 36).c_str()) : seq + 1;
        for (int n = std::max(seq, 1); n < std::min(end, upto + 1); ++n) covered[n] = true;
        const auto original = originals_.find(seq);
        if (!gap_fill && original != originals_.end() && original->second != Gist(m)) {
          return "resent " + std::to_string(seq) + " as " + Gist(m) + ", first sent as " +
                 original->second;
        }
      }
      if (std::find(covered.begin(), covered.end(), false) == covered.end()) return "";
      bool closed = false;
      received_ += socket_->Read(20, &closed);
      if (closed) *open = false;
    }
    if (!*open) return "";
    return "a ResendRequest 1..0 did not bring back 1.." + std::to_string(upto) +
           "; the connection received:\n" + Printable(received_);
  }

  void Close() { socket_.reset(); }
  int reconnects = 0;

 private:
  // What identifies a message's content across a resend: its type, ClOrdID and ExecID.
  static std::string Gist(const std::string& m) {
    return WireField(m, 35) + " 11=" + WireField(m, 11) + " 17=" + WireField(m, 17);
  }

  static std::string Printable(std::string s) {
    std::replace(s.begin(), s.end(), '\001', '|');
    return s;
  }

  bool Send(const std::string& bytes) { return bytes.empty() || socket_->Write(bytes); }

  int Rand(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Chance(int percent) { return Rand(1, 100) <= percent; }

  // A MsgSeqNum as written: mostly plain, sometimes with leading zeros, or as the same
  // number plus 2^32 (which QuickFIX's reader wraps back to it).
  std::string Num(long long n) {
    const int how = Rand(1, 20);
    char buf[32];
    if (how == 1) {
      std::snprintf(buf, sizeof buf, "%012lld", n);
    } else if (how == 2 && n > 0) {
      std::snprintf(buf, sizeof buf, "%lld", n + 4294967296LL);
    } else {
      std::snprintf(buf, sizeof buf, "%lld", n);
    }
    return buf;
  }

  std::string Framed(const std::string& type, long long seq, const std::string& fields,
                     bool corrupt = false) {
    return Frame(
        "35=" + type + "|49=ALPHA_T2|56=CFX|34=" + Num(seq) + "|52=" + UtcNow() + "|" + fields,
        corrupt);
  }

  std::string OrderFields() {
    char px[16];
    std::snprintf(px, sizeof px, "%.3f", 4.990 + 0.001 * Rand(0, 20));
    const bool market = Chance(10);
    return "11=c" + std::to_string(Rand(0, 40)) + "|1=A2|55=" + kSym +
           "|54=" + std::to_string(Rand(1, 2)) + "|38=" + std::to_string(Rand(1, 5)) +
           "|40=" + (market ? "1" : "2|44=" + std::string(px)) + "|60=" + UtcNow() + "|";
  }

  // Mostly orders; cancels, replaces, status and mass-cancel requests naming the ids the
  // orders used; TestRequests and Heartbeats.
  std::string AppOrAdmin() {
    const int pick = Rand(1, 100);
    if (pick <= 45) return "D";
    if (pick <= 55) return "F";
    if (pick <= 63) return "G";
    if (pick <= 68) return "H";
    if (pick <= 70) return "q";
    return Chance(50) ? "1" : "0";
  }

  std::string Id() { return "c" + std::to_string(Rand(0, 40)); }

  std::string Body(const std::string& type) {
    const std::string side = "|54=" + std::to_string(Rand(1, 2));
    const std::string instrument = "|1=A2|55=" + std::string(kSym);
    if (type == "D") return OrderFields();
    if (type == "F") {
      return "11=" + Id() + "|41=" + Id() + instrument + side + "|60=" + UtcNow() + "|";
    }
    if (type == "G") {
      return "11=" + Id() + "|41=" + Id() + instrument + side +
             "|38=" + std::to_string(Rand(1, 5)) + "|40=2|44=5.00" + std::to_string(Rand(0, 9)) +
             "|60=" + UtcNow() + "|";
    }
    if (type == "H") return "11=" + Id() + instrument + side + "|";
    if (type == "q")
      return "11=m" + std::to_string(Rand(0, 9)) + "|530=7|1=A2|60=" + UtcNow() + "|";
    if (type == "1") return "112=t" + std::to_string(Rand(0, 1 << 20)) + "|";
    return "";
  }

  // One step of the stream, as bytes.
  std::string NextBytes(std::string* log) {
    const int pick = Rand(1, 100);
    std::ostringstream what;
    std::string bytes;
    if (pick <= 36) {  // in order
      const std::string type = AppOrAdmin();
      what << "in order " << type << " " << next_;
      bytes = Framed(type, next_, Body(type));
      ++next_;
    } else if (pick <= 50) {  // past a gap: held by QuickFIX until the gap is filled
      const std::string type = AppOrAdmin();
      const long long seq = next_ + Rand(1, 40);
      what << "past a gap " << type << " " << seq;
      bytes = Framed(type, seq, Body(type));
      if (Chance(30)) next_ = seq + 1;
    } else if (pick <= 60) {  // GapFill
      const long long from = Chance(70) ? next_ : next_ + Rand(-3, 10);
      const long long to = next_ + Rand(-3, 40);
      what << "GapFill " << from << "->" << to;
      bytes = Framed("4", from, "43=Y|122=" + UtcNow() + "|123=Y|36=" + Num(to) + "|");
      if (from == next_) next_ = std::max(next_ + 1, to);
    } else if (pick <= 64) {  // SequenceReset-Reset
      const long long to = std::max<long long>(1, next_ + Rand(-5, 40));
      what << "Reset ->" << to;
      bytes = Framed("4", Rand(1, 1000), "36=" + Num(to) + "|");
      if (to > next_) next_ = to;
    } else if (pick <= 76) {  // ResendRequest of any range
      const int out = last_out_ + 5;
      static const char* const kBegins[] = {"1", "0", "-1", "0007", "2147483647", "x"};
      static const char* const kEnds[] = {"0", "999999", "-2", "00000", "1"};
      const std::string begin = Chance(50) ? std::to_string(Rand(0, out)) : kBegins[Rand(0, 5)];
      const std::string end = Chance(50) ? std::to_string(Rand(0, out)) : kEnds[Rand(0, 4)];
      what << "ResendRequest " << next_ << " 7=" << begin << " 16=" << end;
      bytes = Framed("2", next_, "7=" + begin + "|16=" + end + "|");
      ++next_;
    } else if (pick <= 82) {  // too low, as a possible duplicate or not
      const long long seq = std::max<long long>(1, next_ - Rand(1, 4));
      const bool poss_dup = Chance(70);
      what << "too low " << seq << (poss_dup ? " PossDup" : "");
      const std::string type = AppOrAdmin();
      bytes = Framed(type, seq, (poss_dup ? "43=Y|122=" + UtcNow() + "|" : "") + Body(type));
    } else if (pick <= 90) {  // garbled
      const int how = Rand(1, 4);
      what << "garbled " << how;
      if (how == 1) {
        bytes = Framed("D", next_, OrderFields(), /*corrupt=*/true);
      } else if (how == 2) {  // a BodyLength too short (a longer one would swallow what follows)
        bytes = Framed("D", next_, OrderFields());
        const size_t len_end = bytes.find('\001', 10);
        const int length = std::atoi(bytes.substr(12, len_end - 12).c_str());
        bytes.replace(12, len_end - 12, std::to_string(length - Rand(1, 40)));
      } else if (how == 3) {  // cut short: the next message's start is read as its rest
        bytes = Framed("1", next_, "112=x|");
        bytes.resize(Rand(1, static_cast<int>(bytes.size()) - 1));
      } else {
        const int n = Rand(1, 120);
        for (int i = 0; i < n; ++i) {
          bytes += Chance(15) ? '\001' : static_cast<char>(Rand(32, 126));
        }
      }
    } else if (pick <= 92) {  // Logout
      what << "Logout " << next_;
      bytes = Framed("5", next_, "");
      ++next_;
    } else {  // a field the session layer reads, with an odd value
      what << "odd number";
      static const char* const kSeqs[] = {"-1", "0", "abc", "", "99999999999999999999"};
      bytes = Frame("35=0|49=ALPHA_T2|56=CFX|34=" + std::string(kSeqs[Rand(0, 4)]) +
                    "|52=" + UtcNow() + "|");
    }
    *log += what.str() + "\n";
    return bytes;
  }

  // The gateway asks for what it missed: answered, most times, with a GapFill over it.
  void AnswerResendRequests() {
    std::vector<std::string> messages;
    SplitChecked(received_.substr(answered_upto_), &messages);
    for (const std::string& m : messages) {
      answered_upto_ += m.size();
      if (WireField(m, 35) != "2" || std::uniform_int_distribution<int>(1, 10)(answer_rng_) > 7) {
        continue;
      }
      const long long begin = std::atoll(WireField(m, 7).c_str());
      if (begin <= 0 || begin >= next_) continue;
      Send(Frame("35=4|49=ALPHA_T2|56=CFX|34=" + std::to_string(begin) + "|43=Y|52=" + UtcNow() +
                 "|122=" + UtcNow() + "|123=Y|36=" + std::to_string(next_) + "|"));
    }
  }

  int port_;
  std::mt19937_64 rng_;         // the stream
  std::mt19937_64 answer_rng_;  // whether a ResendRequest of the gateway's is answered
  std::unique_ptr<RawSocket> socket_;
  std::string received_;
  size_t checked_upto_ = 0;
  size_t answered_upto_ = 0;
  long long next_ = 1;
  int last_out_ = 0;
  std::map<int, std::string> originals_;  // this connection's messages by number: their Gist
};

class FixSessionStreamTest : public FixGatewayTest {
 protected:
  void RunStream(uint64_t seed, int steps) {
    if (good_ == nullptr) good_ = Connect("BETA_T1");
    StreamClient client(port_, seed);
    ASSERT_TRUE(client.Connect()) << "seed " << seed;
    std::string log;
    for (int i = 0; i < steps; ++i) {
      bool open = client.Step(&log);
      std::string error = client.Check();
      ASSERT_EQ(error, "") << "seed " << seed << ", step " << i << "; the stream:\n" << log;
      if (open && i % 40 == 39) {
        log += "ResendRequest 1..0, checked\n";
        error = client.ResendAll(&open);
        ASSERT_EQ(error, "") << "seed " << seed << ", step " << i << "; the stream:\n" << log;
        error = client.Check();
        ASSERT_EQ(error, "") << "seed " << seed << ", step " << i << "; the stream:\n" << log;
      }
      if (!open) {
        log += "-- reconnected\n";
        client.Close();
        ++client.reconnects;
        ASSERT_TRUE(client.Connect()) << "seed " << seed << ", step " << i << "\n" << log;
      }
      if (i % 100 == 99) ExpectStillServing();
    }
    client.Close();
    ExpectStillServing();
    // The session logs on again and trades.
    RawSocket again(port_);
    ASSERT_TRUE(
        again.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")));
    bool closed = false;
    ASSERT_NE(again.ReadUntil(kLogonAnswer, kWaitMs, &closed).find(kLogonAnswer),
              std::string::npos);
    ASSERT_TRUE(again.Write(Frame("35=D|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() + "|11=after" +
                                  std::to_string(seed) + "|1=A2|55=" + kSym +
                                  "|54=1|38=1|40=2|44=4.000|60=" + UtcNow() + "|")));
    EXPECT_NE(again.ReadUntil(kAck, kWaitMs, &closed).find(kAck), std::string::npos);
    std::printf("seed %llu: %d steps, %d reconnects\n", static_cast<unsigned long long>(seed),
                steps, client.reconnects);
  }

  void ExpectStillServing() {
    Msg m;
    const std::string cl = "ok" + std::to_string(++n_);
    good_->Send(NewOrderMsg(cl, "B1", '1', 1, "5.000"));
    EXPECT_TRUE(good_->WaitExec(cl, '0', &m)) << "gateway stopped serving";
  }

  std::unique_ptr<TestClient> good_;
  int n_ = 0;
};

TEST_F(FixSessionStreamTest, ARandomSessionStreamKeepsTheGatewayWholeAndServing) {
  for (const uint64_t seed : {1u, 2u, 3u}) RunStream(seed, 400);
}

// The same with the bounds small enough that a stream reaches them: resends in pieces of
// two stored messages and paced, little room past a gap, a small outbound queue.
TEST_F(FixSessionStreamTest, ARandomSessionStreamAtSmallBounds) {
  StopGateway();
  configure_ = [](FixGatewayConfig& c) {
    c.resend_piece_messages = 2;
    c.max_bytes_past_gap = 4096;  // below the config file's least: reached within a stream
    c.max_outbound_bytes = 64 << 10;
    c.max_resent_per_sec = 2000;  // resends paced: the client is served during the waits
  };
  StartGateway();
  for (const uint64_t seed : {4u, 5u}) RunStream(seed, 400);
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
