// FixFraming: whole messages through, garbled ones dropped with resynchronisation, oversized
// and non-FIX streams refused.
#include "fix_framing.h"

#include <cstdint>
#include <cstdio>
#include <string>

#include "gtest/gtest.h"

namespace cfx::gateway::internal {
namespace {

// A framed message: BodyLength computed (unless `body_length` is given), CheckSum field
// present (its value is QuickFIX's to check, not the framing's).
std::string Msg(const std::string& body, int body_length = -1) {
  const int n = body_length >= 0 ? body_length : static_cast<int>(body.size());
  return "8=FIX.4.4\x01" "9=" + std::to_string(n) + "\x01" + body + "10=123\x01";
}

const std::string kLogon = Msg("35=A\x01" "34=1\x01" "49=TW\x01" "56=ISLD\x01");
const std::string kHeartbeat = Msg("35=0\x01" "34=2\x01" "49=TW\x01" "56=ISLD\x01");
const std::string kHeartbeat3 = Msg("35=0\x01" "34=3\x01" "49=TW\x01" "56=ISLD\x01");

TEST(FixFramingTest, WholeMessagesPassUnchangedHoweverTheBytesArrive) {
  const std::string stream = kLogon + kHeartbeat + kHeartbeat3;
  for (size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    FixFraming f(1024);
    std::string out;
    for (size_t i = 0; i < stream.size(); i += chunk) {
      ASSERT_EQ(f.Consume(stream.data() + i, std::min(chunk, stream.size() - i), &out),
                FixFraming::Result::kOk);
    }
    EXPECT_EQ(out, stream) << "chunk " << chunk;
    EXPECT_EQ(f.messages(), 3u);
    EXPECT_EQ(f.garbled(), 0u);
  }
}

TEST(FixFramingTest, APartialMessageIsHeldBack) {
  FixFraming f(1024);
  std::string out;
  const std::string half = kLogon.substr(0, kLogon.size() - 3);
  ASSERT_EQ(f.Consume(half.data(), half.size(), &out), FixFraming::Result::kOk);
  EXPECT_EQ(out, "");
  ASSERT_EQ(f.Consume(kLogon.data() + half.size(), 3, &out), FixFraming::Result::kOk);
  EXPECT_EQ(out, kLogon);
}

TEST(FixFramingTest, GarbageBeforeTheFirstMessageRefusesTheStream) {
  for (const std::string& junk : {std::string("GET / HTTP/1.1\r\n"), std::string("35=0\x01" "8=FIX"),
                                  Msg("35=A\x01", 3)}) {
    FixFraming f(1024);
    std::string out;
    EXPECT_EQ(f.Consume(junk.data(), junk.size(), &out), FixFraming::Result::kMalformed) << junk;
    EXPECT_EQ(out, "");
    EXPECT_EQ(f.Consume(kLogon.data(), kLogon.size(), &out), FixFraming::Result::kMalformed)
        << "a refused stream stays refused";
  }
}

TEST(FixFramingTest, AGarbledMessageInASessionIsDroppedAndTheNextOnePasses) {
  // A BodyLength too short, too long (it swallows the next message's start), fields out of
  // order, and a checksum field cut short: each dropped, the stream picked up at "8=FIX".
  const std::string garbled[] = {
      Msg("35=0\x01" "34=2\x01" "49=TW\x01" "56=ISLD\x01", 10),
      Msg("35=0\x01" "34=2\x01" "49=TW\x01" "56=ISLD\x01", 40),
      "35=0\x01" "34=2\x01" "10=000\x01",
      "8=FIX.4.4\x01" "9=5\x01" "34=2\x01" "10=1\x01",
  };
  for (const std::string& bad : garbled) {
    const std::string stream = kLogon + bad + kHeartbeat3;
    for (size_t chunk : {size_t{1}, size_t{7}, stream.size()}) {
      FixFraming f(1024);
      std::string out;
      for (size_t i = 0; i < stream.size(); i += chunk) {
        ASSERT_EQ(f.Consume(stream.data() + i, std::min(chunk, stream.size() - i), &out),
                  FixFraming::Result::kOk)
            << f.error();
      }
      EXPECT_EQ(out, kLogon + kHeartbeat3) << "chunk " << chunk;
      EXPECT_GE(f.garbled(), 1u);
      EXPECT_EQ(f.messages(), 2u);
    }
  }
}

TEST(FixFramingTest, ManyGarbledMessagesInARowRefuseTheStream) {
  FixFraming f(1024);
  std::string out;
  ASSERT_EQ(f.Consume(kLogon.data(), kLogon.size(), &out), FixFraming::Result::kOk);
  const std::string bad = Msg("35=0\x01", 2);
  FixFraming::Result r = FixFraming::Result::kOk;
  int sent = 0;
  while (r == FixFraming::Result::kOk && sent < 100) {
    r = f.Consume(bad.data(), bad.size(), &out);
    ++sent;
  }
  EXPECT_EQ(r, FixFraming::Result::kMalformed);
  EXPECT_LE(sent, FixFraming::kMaxGarbledInARow + 2);
  EXPECT_EQ(out, kLogon);
}

TEST(FixFramingTest, AWholeMessageBetweenGarbledOnesResetsTheCount) {
  FixFraming f(1024);
  std::string out;
  ASSERT_EQ(f.Consume(kLogon.data(), kLogon.size(), &out), FixFraming::Result::kOk);
  const std::string bad = Msg("35=0\x01", 2);
  for (int round = 0; round < 5; ++round) {
    for (int k = 0; k < FixFraming::kMaxGarbledInARow; ++k) {
      ASSERT_EQ(f.Consume(bad.data(), bad.size(), &out), FixFraming::Result::kOk);
    }
    ASSERT_EQ(f.Consume(kHeartbeat.data(), kHeartbeat.size(), &out), FixFraming::Result::kOk);
  }
  EXPECT_EQ(f.messages(), 6u);
}

TEST(FixFramingTest, ABodyLengthOverTheLimitIsRefusedAtItsDigits) {
  const std::string big = "8=FIX.4.4\x01" "9=999999999\x01";
  for (size_t upto : {std::string("8=FIX.4.4\x01" "9=99999").size(), big.size()}) {
    FixFraming f(16384);
    std::string out;
    EXPECT_EQ(f.Consume(big.data(), upto, &out), FixFraming::Result::kTooLarge);
    EXPECT_EQ(out, "");
  }
  FixFraming f(16384);  // inside a session too
  std::string out;
  ASSERT_EQ(f.Consume(kLogon.data(), kLogon.size(), &out), FixFraming::Result::kOk);
  EXPECT_EQ(f.Consume(big.data(), big.size(), &out), FixFraming::Result::kTooLarge);
}

TEST(FixFramingTest, ResyncFindsABeginStringSplitAcrossReads) {
  FixFraming f(1024);
  std::string out;
  ASSERT_EQ(f.Consume(kLogon.data(), kLogon.size(), &out), FixFraming::Result::kOk);
  const std::string bad = "8=FIX.4.4\x01" "9=3\x01" "xxxxxxxxxxxx 8=FI";
  ASSERT_EQ(f.Consume(bad.data(), bad.size(), &out), FixFraming::Result::kOk);
  const std::string rest = kHeartbeat.substr(4);  // "X.4.4..."
  ASSERT_EQ(f.Consume(rest.data(), rest.size(), &out), FixFraming::Result::kOk);
  EXPECT_EQ(out, kLogon + kHeartbeat);
}

// The checksum QuickFIX checks: the byte sum up to and including the SOH before "10=".
std::string WithChecksum(const std::string& up_to_soh) {
  unsigned sum = 0;
  for (unsigned char c : up_to_soh) sum += c;
  char digits[4];
  std::snprintf(digits, sizeof digits, "%03u", sum % 256);
  return up_to_soh + "10=" + digits + "\x01";
}

TEST(FixFramingTest, FieldValueFindsAWholeTag) {
  const std::string m =
      Msg("35=A\x01"
          "34=1\x01"
          "49=TW\x01"
          "554=pw\x01"
          "1554=x\x01");
  EXPECT_EQ(FieldValue(m, "35"), "A");
  EXPECT_EQ(FieldValue(m, "554"), "pw");  // not 1554's
  EXPECT_EQ(FieldValue(m, "553"), "");
}

TEST(FixFramingTest, TakeOutResetRequestTurnsYIntoNWithTheChecksumRecomputed) {
  const std::string head =
      "8=FIX.4.4\x01"
      "9=30\x01"
      "35=A\x01"
      "34=1\x01"
      "49=TW\x01";
  std::string m = WithChecksum(head +
                               "141=Y\x01"
                               "108=30\x01");
  ASSERT_TRUE(TakeOutResetRequest(&m));
  EXPECT_EQ(m, WithChecksum(head + "141=N\x01"
                                   "108=30\x01"));
  std::string none = WithChecksum(head + "141=N\x01");
  const std::string before = none;
  EXPECT_FALSE(TakeOutResetRequest(&none));
  EXPECT_EQ(none, before);
  std::string other = WithChecksum(head + "1141=Y\x01");  // another tag ending in 141
  EXPECT_FALSE(TakeOutResetRequest(&other));
}

// MsgSeqNum as QuickFIX reads it: modulo 2^32, and only an all-digit value.
TEST(FixFramingTest, QuickFixMsgSeqNumReadsTheNumberAsQuickFixDoes) {
  int seq = 0;
  EXPECT_TRUE(QuickFixMsgSeqNum("8=FIX.4.4\0019=5\00135=0\00134=17\00110=000\001", &seq));
  EXPECT_EQ(seq, 17);
  EXPECT_TRUE(QuickFixMsgSeqNum("35=0\00134=4294967297\001", &seq));
  EXPECT_EQ(seq, 1);
  EXPECT_TRUE(QuickFixMsgSeqNum("35=0\00134=2147483648\001", &seq));
  EXPECT_EQ(seq, INT32_MIN);
  EXPECT_FALSE(QuickFixMsgSeqNum("35=0\00134=-1\001", &seq));
  EXPECT_FALSE(QuickFixMsgSeqNum("35=0\00134=\001", &seq));
  EXPECT_FALSE(QuickFixMsgSeqNum("35=0\001341=5\001", &seq));
  EXPECT_FALSE(QuickFixMsgSeqNum("35=0\00134=12", &seq));  // no SOH after it
}

}  // namespace
}  // namespace cfx::gateway::internal
