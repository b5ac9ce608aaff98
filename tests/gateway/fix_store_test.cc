// The gateway's message store (gateway/fix/src/fix_store.h): QuickFIX FileStore's files, byte
// for byte, written only when a connection is about to send; and, through the gateway, a
// restart that resends from it what a client asks for.
#include "fix_store.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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

using internal::BatchedFileStore;
using internal::BatchedFileStoreFactory;

const FIX::SessionID kId("FIX.4.4", "CFX", "ALPHA_T1");
const char kPrefix[] = "/FIX.4.4-CFX-ALPHA_T1.";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

off_t SizeOf(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

// A FIX-looking message of `n` bytes for sequence number `seq`.
std::string Message(int seq, size_t n) {
  std::string m =
      "8=FIX.4.4\x01"
      "34=" +
      std::to_string(seq) +
      "\x01"
      "58=";
  while (m.size() + 1 < n) m += static_cast<char>('a' + (m.size() % 26));
  return m + "\x01";
}

// That `s` expects to send `next_sender` and to receive `next_target` next, and holds
// `sent` as its messages 1, 2, ...
void ExpectHolds(FIX::MessageStore* s, int next_sender, int next_target,
                 const std::vector<std::string>& sent) {
  EXPECT_EQ(s->getNextSenderMsgSeqNum(), next_sender);
  EXPECT_EQ(s->getNextTargetMsgSeqNum(), next_target);
  std::vector<std::string> got;
  s->get(1, static_cast<int>(sent.size()), got);
  EXPECT_EQ(got, sent);
}

class BatchedFileStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = TempDir(); }
  void TearDown() override {
    if (dir_.rfind("/tmp/cfx_fix_test_", 0) == 0) {
      const std::string rm = "rm -rf '" + dir_ + "'";
      if (std::system(rm.c_str()) != 0) ADD_FAILURE() << rm;
    }
  }
  std::string dir_;
};

// The same random calls on QuickFIX's FileStore and on the batched store leave the same
// bytes in the body, header and seqnums files: with a connection attached, at each of its
// flushes (random points) and when the store closes; with none, after every call.
TEST_F(BatchedFileStoreTest, WritesTheFilesOfQuickFixsFileStoreByteForByte) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    const bool attached = seed % 2 == 1;
    const std::string a = dir_ + "/qf" + std::to_string(seed);
    const std::string b = dir_ + "/batched" + std::to_string(seed);
    FIX::FileStoreFactory stock_factory(a);
    BatchedFileStoreFactory batched_factory(b);
    FIX::MessageStore* stock = stock_factory.create(kId);
    FIX::MessageStore* batched = batched_factory.create(kId);
    if (attached) batched_factory.FilesOf(kId)->Attach();
    auto same_files = [&](const char* when) {
      for (const char* file : {"body", "header", "seqnums"}) {
        const std::string x = ReadFile(a + kPrefix + file);
        ASSERT_FALSE(std::string(file) == "seqnums" && x.empty());
        ASSERT_EQ(x, ReadFile(b + kPrefix + file)) << file << " " << when << ", seed " << seed;
      }
    };
    std::map<int, std::string> model;  // sequence number -> message, since the last reset
    for (int op = 0; op < 300; ++op) {
      const int what = static_cast<int>(rng() % 100);
      if (what < 50) {
        const int seq = stock->getNextSenderMsgSeqNum();
        const std::string m = Message(seq, 20 + rng() % 300);
        stock->set(seq, m);
        batched->set(seq, m);
        model[seq] = m;
        stock->incrNextSenderMsgSeqNum();
        batched->incrNextSenderMsgSeqNum();
      } else if (what < 80) {
        stock->incrNextTargetMsgSeqNum();
        batched->incrNextTargetMsgSeqNum();
      } else if (what < 85) {
        const int v = 1 + static_cast<int>(rng() % 5000);
        stock->setNextTargetMsgSeqNum(v);
        batched->setNextTargetMsgSeqNum(v);
      } else if (what < 87) {
        const int v = stock->getNextSenderMsgSeqNum() + static_cast<int>(rng() % 10);
        stock->setNextSenderMsgSeqNum(v);
        batched->setNextSenderMsgSeqNum(v);
      } else if (what < 88) {
        stock->reset();
        batched->reset();
        model.clear();
      } else {
        batched_factory.FilesOf(kId)->Flush();
        same_files("after a flush");
      }
      ASSERT_EQ(stock->getNextSenderMsgSeqNum(), batched->getNextSenderMsgSeqNum());
      ASSERT_EQ(stock->getNextTargetMsgSeqNum(), batched->getNextTargetMsgSeqNum());
      if (!attached) same_files("with no connection");
    }
    // What the batched store gives back: every message set since the last reset. (Not
    // compared with FileStore's: QuickFIX 1.15's keeps the offsets of before a reset and
    // fails to read those numbers again; the files are what must agree.)
    const int last = batched->getNextSenderMsgSeqNum() - 1;
    std::vector<std::string> want, got;
    for (int seq = 1; seq <= last; ++seq) {
      auto it = model.find(seq);
      if (it != model.end()) want.push_back(it->second);
    }
    batched->get(1, last, got);
    EXPECT_EQ(got, want) << "seed " << seed;
    stock_factory.destroy(stock);
    batched_factory.destroy(batched);
    same_files("after closing");
  }
}

// Each reads what the other wrote: a data dir of an older cfx (QuickFIX's FileStore) opens
// under the batched store, and back.
TEST_F(BatchedFileStoreTest, ReadsWhatQuickFixsFileStoreWroteAndBack) {
  std::vector<std::string> sent;
  {
    FIX::FileStoreFactory f(dir_);
    FIX::MessageStore* s = f.create(kId);
    for (int seq = 1; seq <= 40; ++seq) {
      sent.push_back(Message(seq, 50 + seq));
      s->set(seq, sent.back());
      s->incrNextSenderMsgSeqNum();
    }
    s->setNextTargetMsgSeqNum(17);
    f.destroy(s);
  }
  FIX::UtcTimeStamp created;
  {
    BatchedFileStoreFactory f(dir_);
    FIX::MessageStore* s = f.create(kId);
    ExpectHolds(s, 41, 17, sent);
    created = s->getCreationTime();
    for (int seq = 41; seq <= 60; ++seq) {
      sent.push_back(Message(seq, 70 + seq));
      s->set(seq, sent.back());
      s->incrNextSenderMsgSeqNum();
    }
    s->incrNextTargetMsgSeqNum();
    f.destroy(s);  // flushes
  }
  FIX::FileStoreFactory f(dir_);
  FIX::MessageStore* s = f.create(kId);
  ExpectHolds(s, 61, 18, sent);
  EXPECT_EQ(FIX::UtcTimeStampConvertor::convert(s->getCreationTime()),
            FIX::UtcTimeStampConvertor::convert(created));
  f.destroy(s);
}

// FlushAll writes what every session's store holds back for its connection: the exchange
// calls it (through FixGateway::FlushStores) before it records how far the stores hold its
// reports, so that record is never ahead of the files (docs/durability.md).
TEST_F(BatchedFileStoreTest, FlushAllWritesWhatEveryConnectionHoldsBack) {
  BatchedFileStoreFactory f(dir_);
  const FIX::SessionID other("FIX.4.4", "CFX", "BETA_T1");
  FIX::MessageStore* a = f.create(kId);
  FIX::MessageStore* b = f.create(other);
  f.FilesOf(kId)->Attach();
  f.FilesOf(other)->Attach();
  a->set(1, Message(1, 100));
  b->set(1, Message(1, 70));
  EXPECT_TRUE(f.FilesOf(kId)->Pending());
  EXPECT_TRUE(f.FilesOf(other)->Pending());
  EXPECT_TRUE(f.FlushAll());
  EXPECT_FALSE(f.FilesOf(kId)->Pending());
  EXPECT_FALSE(f.FilesOf(other)->Pending());
  EXPECT_EQ(SizeOf(dir_ + kPrefix + "body"), 100);
  f.destroy(a);
  f.destroy(b);
}

// While a connection serves the session, what QuickFIX hands the store stays in memory until
// the connection flushes it (before its bytes go out) or ends; a resend reads it either way.
// With no connection (a client away: its cancel-on-disconnect reports, its drop copies)
// every change is written at once.
TEST_F(BatchedFileStoreTest, WritesWhenTheConnectionSendsOrEndsAndAtOnceWithNone) {
  BatchedFileStoreFactory f(dir_);
  FIX::MessageStore* s = f.create(kId);
  std::shared_ptr<internal::StoreFiles> files = f.FilesOf(kId);
  ASSERT_NE(files, nullptr);
  files->Attach();
  EXPECT_FALSE(files->Pending());
  const std::string body = dir_ + kPrefix + "body";
  const std::string seqnums = dir_ + kPrefix + "seqnums";
  EXPECT_EQ(ReadFile(seqnums), "0000000001 : 0000000001");
  s->set(1, Message(1, 100));
  s->incrNextSenderMsgSeqNum();
  s->incrNextTargetMsgSeqNum();
  EXPECT_TRUE(files->Pending());
  EXPECT_EQ(SizeOf(body), 0);
  EXPECT_EQ(ReadFile(seqnums), "0000000001 : 0000000001");
  files->Flush();
  EXPECT_FALSE(files->Pending());
  EXPECT_EQ(SizeOf(body), 100);
  EXPECT_EQ(ReadFile(seqnums), "0000000002 : 0000000002");
  s->set(2, Message(2, 60));
  std::vector<std::string> got;
  s->get(1, 2, got);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1], Message(2, 60));
  s->set(3, Message(3, 40));
  s->incrNextSenderMsgSeqNum();
  EXPECT_EQ(SizeOf(body), 160);
  files->Detach();  // the connection ended
  EXPECT_FALSE(files->Pending());
  EXPECT_EQ(SizeOf(body), 200);
  EXPECT_EQ(ReadFile(seqnums), "0000000003 : 0000000002");
  s->set(4, Message(4, 50));  // the client is away
  s->incrNextSenderMsgSeqNum();
  s->incrNextTargetMsgSeqNum();
  EXPECT_FALSE(files->Pending());
  EXPECT_EQ(SizeOf(body), 250);
  EXPECT_EQ(ReadFile(seqnums), "0000000004 : 0000000003");
  // refresh() reads the files back to the same state, but for the next sender number:
  // message 4 is stored (set without an incr here), and a seqnums file behind the body is
  // not believed (DamagedSequenceNumbersAreRefusedNamingTheFile).
  s->refresh();
  EXPECT_EQ(s->getNextSenderMsgSeqNum(), 5);
  EXPECT_EQ(s->getNextTargetMsgSeqNum(), 3);
  s->get(1, 4, got);
  EXPECT_EQ(got.size(), 4u);
  f.destroy(s);
  EXPECT_EQ(f.FilesOf(kId), nullptr);
  files->Flush();  // a connection's late flush: the store is closed, nothing is written
  EXPECT_EQ(SizeOf(body), 250);
}

// A long day's header file reads in one pass (a parse that rescans the rest of the text at
// each entry would take minutes here).
TEST_F(BatchedFileStoreTest, ALargeHeaderFileReadsBackEveryEntry) {
  constexpr int kEntries = 200000;
  std::string header, body;
  for (int seq = 1; seq <= kEntries; ++seq) {
    const std::string m = Message(seq, 40);
    header += std::to_string(seq) + "," + std::to_string(body.size()) + "," +
              std::to_string(m.size()) + " ";
    body += m;
  }
  std::ofstream(dir_ + kPrefix + "header") << header;
  std::ofstream(dir_ + kPrefix + "body") << body;
  std::ofstream(dir_ + kPrefix + "seqnums") << "0000200001 : 0000000007";
  const auto start = std::chrono::steady_clock::now();
  BatchedFileStoreFactory f(dir_);
  FIX::MessageStore* s = f.create(kId);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(s->getNextSenderMsgSeqNum(), kEntries + 1);
  std::vector<std::string> got;
  s->get(kEntries - 1, kEntries + 5, got);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], Message(kEntries - 1, 40));
  EXPECT_EQ(got[1], Message(kEntries, 40));
  s->get(1, 1, got);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], Message(1, 40));
  f.destroy(s);
}

// Header entries that name bytes the body does not hold (a body cut short, a damaged size)
// are left out at start: a resend gets what can be read, and nothing huge is allocated.
TEST_F(BatchedFileStoreTest, EntriesPastTheBodysEndAreLeftOut) {
  const std::string m1 = Message(1, 40), m2 = Message(2, 50);
  std::ofstream(dir_ + kPrefix + "body") << m1 << m2;
  std::ofstream(dir_ + kPrefix + "header")
      << "1,0,40 2,40,50 3,90,60 4,10,999999999999 5,-5,10 6,88,2 ";
  std::ofstream(dir_ + kPrefix + "seqnums") << "0000000007 : 0000000001";
  BatchedFileStoreFactory f(dir_);
  FIX::MessageStore* s = f.create(kId);
  std::vector<std::string> got;
  s->get(1, 6, got);
  // 1 and 2; not 3, 4 or 5 (past the end), nor 6 (the last two bytes of 2: not a message
  // stored as 6, which would end QuickFIX's resend without an answer; left out, it is
  // gap-filled).
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], m1);
  EXPECT_EQ(got[1], m2);
  f.destroy(s);
}

// A stored message of type `type` (35) numbered `seq` (34).
std::string Typed(int seq, const std::string& type) {
  const std::string soh = "\x01";
  return "8=FIX.4.4" + soh + "35=" + type + soh + "34=" + std::to_string(seq) + soh + "58=x" + soh;
}

// Market data (W, X, Y) is not kept for a resend (a resend gap-fills it; a client asks for
// a new snapshot): a subscriber's stream does not grow the files or their index. Until
// 2026-12-06 it did, without bound. Other messages are kept as ever.
TEST_F(BatchedFileStoreTest, MarketDataIsNotKeptForAResend) {
  BatchedFileStoreFactory f(dir_);
  FIX::MessageStore* s = f.create(kId);
  const std::string report = Typed(1, "8"), snapshot = Typed(2, "W"), update = Typed(3, "X"),
                    refused = Typed(4, "Y"), wide = Typed(5, "WX"), cancel_reject = Typed(6, "9");
  for (const std::string& m : {report, snapshot, update, refused, wide, cancel_reject}) {
    const size_t at = m.find("34=") + 3;
    s->set(std::stoi(m.substr(at)), m);
  }
  s->setNextSenderMsgSeqNum(7);
  std::vector<std::string> got;
  s->get(1, 6, got);
  EXPECT_EQ(got, (std::vector<std::string>{report, wide, cancel_reject}));
  EXPECT_EQ(s->getNextSenderMsgSeqNum(), 7);  // numbered all the same
  f.destroy(s);
  EXPECT_EQ(ReadFile(dir_ + kPrefix + "body"), report + wide + cancel_reject);
}

// Session-level messages are gap-filled by QuickFIX's resend whether stored or not, so the
// store keeps none: kept, a client's TestRequests grew the files by a Heartbeat each, and its
// garbled messages by a Reject each. A BusinessMessageReject (j) is an application message
// and is kept.
TEST_F(BatchedFileStoreTest, SessionMessagesAreNotKeptForAResend) {
  BatchedFileStoreFactory f(dir_);
  FIX::MessageStore* s = f.create(kId);
  const std::vector<std::string> types = {"A", "0", "1", "2", "3", "4", "5", "8", "j", "AE"};
  std::vector<std::string> kept;
  int seq = 0;
  for (const std::string& type : types) {
    const std::string m = Typed(++seq, type);
    s->set(seq, m);
    if (type == "8" || type == "j" || type == "AE") kept.push_back(m);
  }
  s->setNextSenderMsgSeqNum(seq + 1);
  std::vector<std::string> got;
  s->get(1, seq, got);
  EXPECT_EQ(got, kept);
  EXPECT_EQ(s->getNextSenderMsgSeqNum(), seq + 1);  // numbered all the same
  f.destroy(s);
  std::string body;
  for (const std::string& m : kept) body += m;
  EXPECT_EQ(ReadFile(dir_ + kPrefix + "body"), body);
}

// Damaged sequence numbers (a power loss: the files are not synced) are not taken for a new
// session's: starting again at 1 would send the client numbers it has seen. A store that
// holds messages its seqnums file lags behind goes on after the last of them.
TEST_F(BatchedFileStoreTest, DamagedSequenceNumbersAreRefusedNamingTheFile) {
  const std::string m1 = Message(1, 40), m2 = Message(2, 50);
  const std::string seqnums = dir_ + kPrefix + "seqnums";
  std::ofstream(dir_ + kPrefix + "body") << m1 << m2;
  std::ofstream(dir_ + kPrefix + "header") << "1,0,40 2,40,50 ";
  for (const std::string& damaged :
       {std::string(), std::string("garbage"), std::string(24, '\0'), std::string("0 : 0")}) {
    SCOPED_TRACE(damaged);
    std::ofstream(seqnums, std::ios::trunc) << damaged;
    BatchedFileStoreFactory f(dir_);
    try {
      FIX::MessageStore* s = f.create(kId);
      f.destroy(s);
      ADD_FAILURE() << "a damaged seqnums file was taken";
    } catch (const FIX::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(seqnums + ": damaged"), std::string::npos) << e.what();
    }
  }
  // Behind the body: the next message is 3, not 2.
  std::ofstream(seqnums, std::ios::trunc) << "0000000002 : 0000000005";
  BatchedFileStoreFactory f(dir_);
  FIX::MessageStore* s = f.create(kId);
  EXPECT_EQ(s->getNextSenderMsgSeqNum(), 3);
  EXPECT_EQ(s->getNextTargetMsgSeqNum(), 5);
  f.destroy(s);
}

TEST_F(BatchedFileStoreTest, ItsFilesAreTheUsersOnly) {
  BatchedFileStoreFactory f(dir_);
  FIX::MessageStore* s = f.create(kId);
  for (const char* file : {"body", "header", "seqnums", "session"}) {
    struct stat st;
    ASSERT_EQ(::stat((dir_ + kPrefix + file).c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << file;
  }
  f.destroy(s);
}

TEST_F(BatchedFileStoreTest, AStoreThatCannotBeOpenedNamesTheFile) {
  std::ofstream(dir_ + "/plain") << "a file, not a directory";
  BatchedFileStoreFactory f(dir_ + "/plain/store");
  try {
    f.create(kId);
    ADD_FAILURE() << "created a store under a file";
  } catch (const FIX::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(dir_ + "/plain/store" + kPrefix), std::string::npos)
        << e.what();
  }
}

// Through the gateway: two orders acknowledged, the gateway restarted (its store read back
// from the files), and a ResendRequest from 1 gets both ExecutionReports again as PossDup.
// ALPHA_T2 logs on (141=Y) on `s` and has orders resend2 and resend3 acknowledged: the
// session's store holds its messages 1..3.
void OrderTwiceAsAlphaT2(RawSocket& s) {
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(
      s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")));
  bool closed = false;
  for (int seq = 2; seq <= 3; ++seq) {
    const std::string cl = "resend" + std::to_string(seq);
    ASSERT_TRUE(s.Write(Frame("35=D|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) +
                              "|52=" + UtcNow() + "|11=" + cl + "|1=A2|55=" + kSym +
                              "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|")));
  }
  const std::string got = s.ReadUntil("\00111=resend3\001", kWaitMs, &closed);
  ASSERT_NE(got.find("\00111=resend3\001"), std::string::npos) << got;
}

// A body the machine's crash damaged (zeros where the messages were): the restarted
// gateway answers a ResendRequest with a GapFill over what it cannot read back. QuickFIX,
// given bytes it cannot parse, ended the resend with no answer at all, and the client's gap
// stayed open.
TEST_F(FixGatewayTest, AResendOverADamagedStoreIsGapFilled) {
  {
    RawSocket s(port_);
    OrderTwiceAsAlphaT2(s);
  }
  exchange_->Drain();
  StopGateway();
  const std::string body = dir_ + "/gw/fix/store/FIX.4.4-CFX-ALPHA_T2.body";
  const size_t size = ReadFile(body).size();
  ASSERT_GT(size, 0u);
  std::ofstream(body, std::ios::binary | std::ios::trunc) << std::string(size, '\0');
  StartGateway();
  RawSocket s(port_);
  ASSERT_TRUE(s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=4|52=" + UtcNow() + "|98=0|108=30|")));
  bool closed = false;
  std::string got = s.ReadUntil("\00135=A\001", kWaitMs, &closed);
  ASSERT_NE(got.find("\00135=A\001"), std::string::npos) << got;
  ASSERT_TRUE(s.Write(Frame("35=2|49=ALPHA_T2|56=CFX|34=5|52=" + UtcNow() + "|7=1|16=0|")));
  got = s.ReadUntil("\00135=4\001", kWaitMs, &closed);
  const size_t at = got.find("\00135=4\001");
  ASSERT_NE(at, std::string::npos) << "no answer to the ResendRequest: " << got;
  const std::string fill = got.substr(got.rfind("8=FIX.4.4", at));
  EXPECT_NE(fill.find("\001123=Y\001"), std::string::npos) << fill;
  EXPECT_NE(fill.find("\00136="), std::string::npos) << fill;
  EXPECT_EQ(got.find("\00111=resend"), std::string::npos) << got;
  EXPECT_FALSE(closed);
}

TEST_F(FixGatewayTest, ARestartedGatewayResendsFromItsStore) {
  {
    RawSocket s(port_);
    OrderTwiceAsAlphaT2(s);
    // What the client holds is in the store's files already (written before the bytes left).
    const std::string store = dir_ + "/gw/fix/store/FIX.4.4-CFX-ALPHA_T2.";
    EXPECT_NE(ReadFile(store + "body").find("\00111=resend3\001"), std::string::npos);
    EXPECT_GE(std::atoi(ReadFile(store + "seqnums").c_str()), 4);  // the next to send
  }
  exchange_->Drain();
  StopGateway();
  StartGateway();
  RawSocket s(port_);
  ASSERT_TRUE(s.ok());
  // The session's numbers went on: the client's next is 4 (its Logout went unsent).
  ASSERT_TRUE(s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=4|52=" + UtcNow() + "|98=0|108=30|")));
  bool closed = false;
  std::string got = s.ReadUntil("\00135=A\001", kWaitMs, &closed);
  ASSERT_NE(got.find("\00135=A\001"), std::string::npos) << got;
  ASSERT_TRUE(s.Write(Frame("35=2|49=ALPHA_T2|56=CFX|34=5|52=" + UtcNow() + "|7=1|16=0|")));
  got += s.ReadUntil("\00111=resend3\001", kWaitMs, &closed);
  for (const char* cl : {"resend2", "resend3"}) {
    const size_t at = got.find(std::string("\00111=") + cl + "\001");
    ASSERT_NE(at, std::string::npos) << cl << " not resent: " << got;
    const size_t begin = got.rfind("8=FIX.4.4", at);
    const std::string report = got.substr(begin, at - begin);
    EXPECT_NE(report.find("\00143=Y\001"), std::string::npos) << "not PossDup: " << report;
    EXPECT_NE(report.find("\00135=8\001"), std::string::npos) << report;
  }
}

// A client cannot take its session's numbers past what the store holds: a SequenceReset to
// 2147483647 (then one message) wrapped the next expected number negative, and no later
// start of the exchange loaded the store (an audit, 2026-12-06). Now the store refuses the
// number, the connection is dropped, the files keep the last good numbers, and the gateway
// restarts on them; the session logs on again with ResetSeqNumFlag.
TEST_F(FixGatewayTest, AClientCannotTakeItsSequenceNumbersPastWhatTheStoreHolds) {
  const std::string seqnums = dir_ + "/gw/fix/store/FIX.4.4-CFX-ALPHA_T2.seqnums";
  auto expect_loadable = [&] {
    int sender = 0, target = 0;
    ASSERT_EQ(std::sscanf(ReadFile(seqnums).c_str(), "%d : %d", &sender, &target), 2);
    EXPECT_GE(sender, 1);
    EXPECT_GE(target, 1);
    EXPECT_LT(target, 2147483647 - (1 << 24) + 1);
  };
  // Logs ALPHA_T2 on with ResetSeqNumFlag (its next number 2).
  auto LogOnWithReset = [](RawSocket& s) {
    bool closed = false;
    return s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")) &&
           s.ReadUntil("\00135=A\001", kWaitMs, &closed).find("\00135=A\001") != std::string::npos;
  };
  // The last: past the top, at the bound, and at the bound written 2^32 higher (QuickFIX
  // reads a number modulo 2^32).
  for (const std::string& reset :
       {std::string("2147483647"), std::to_string(2147483647 - (1 << 24)),
        std::to_string(4294967296LL + 2147483647 - (1 << 24))}) {
    RawSocket s(port_);
    ASSERT_TRUE(LogOnWithReset(s));
    bool closed = false;
    s.Write(Frame("35=4|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() + "|36=" + reset + "|"));
    // At the last number the store takes, one more message would pass it.
    s.Write(Frame("35=0|49=ALPHA_T2|56=CFX|34=" + reset + "|52=" + UtcNow() + "|"));
    s.ReadUntil("\001never\001", kWaitMs, &closed);
    EXPECT_TRUE(closed) << "reset to " << reset;
    expect_loadable();
  }
  // An order numbered just below the last the store takes is acted on (the next number is
  // then the last); the one numbered at it is refused before QuickFIX acts on it.
  {
    const int last = 2147483647 - (1 << 24);
    RawSocket s(port_);
    ASSERT_TRUE(LogOnWithReset(s));
    bool closed = false;
    s.Write(Frame("35=4|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() +
                  "|36=" + std::to_string(last - 1) + "|"));
    auto order = [&](int seq) {
      return Frame("35=D|49=ALPHA_T2|56=CFX|34=" + std::to_string(seq) + "|52=" + UtcNow() +
                   "|11=top" + std::to_string(seq) + "|1=A2|55=" + kSym +
                   "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|");
    };
    const std::string first = "\00111=top" + std::to_string(last - 1) + "\001";
    s.Write(order(last - 1));
    const std::string acked = s.ReadUntil(first, kWaitMs, &closed);
    EXPECT_NE(acked.find(first), std::string::npos) << acked;
    s.Write(order(last));
    const std::string got = s.ReadUntil("\001never\001", kWaitMs, &closed);
    EXPECT_TRUE(closed);
    EXPECT_EQ(got.find("\00111=top" + std::to_string(last) + "\001"), std::string::npos) << got;
    expect_loadable();
  }
  exchange_->Drain();
  StopGateway();
  StartGateway();
  expect_loadable();
  RawSocket s(port_);
  EXPECT_TRUE(LogOnWithReset(s));
}

// A client away: the report of its order canceled on disconnect is stored for its resend,
// and in the files at once (no connection will flush it), with the gateway still running.
// FixGateway::FlushStores (what the exchange calls before recording how far the stores hold
// its reports): true while the gateway runs; false once it stopped, when what is handed to it
// is stored nowhere, so that the record does not move past it.
TEST_F(FixGatewayTest, FlushStoresHoldsWhileRunningAndFailsOnceStopped) {
  auto alpha = Connect("ALPHA_T2");
  EXPECT_TRUE(gateway_->FlushStores());
  gateway_->Stop();
  EXPECT_FALSE(gateway_->FlushStores());
}

TEST_F(FixGatewayTest, WhatIsStoredForAnAbsentClientIsInTheFilesAtOnce) {
  auto drop_copy = Connect("ALPHA_DC");
  {
    RawSocket s(port_);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(
        s.Write(Frame("35=A|49=ALPHA_T2|56=CFX|34=1|52=" + UtcNow() + "|98=0|108=30|141=Y|")));
    ASSERT_TRUE(s.Write(Frame("35=D|49=ALPHA_T2|56=CFX|34=2|52=" + UtcNow() + "|11=away1|1=A2|55=" +
                              kSym + "|54=1|38=1|40=2|44=5.000|60=" + UtcNow() + "|")));
    bool closed = false;
    const std::string got = s.ReadUntil("\00111=away1\001", kWaitMs, &closed);
    ASSERT_NE(got.find("\00111=away1\001"), std::string::npos) << got;
  }  // the connection drops: cancel-on-disconnect
  FIX::Message m;
  ASSERT_TRUE(drop_copy->WaitExec("away1", '4', &m));  // sent after ALPHA_T2's own report
  const std::string body = ReadFile(dir_ + "/gw/fix/store/FIX.4.4-CFX-ALPHA_T2.body");
  const size_t at = body.rfind("\00111=away1\001");
  ASSERT_NE(at, std::string::npos) << body;
  const size_t begin = body.rfind("8=FIX.4.4", at);
  EXPECT_NE(body.find("\001150=4\001", begin), std::string::npos)
      << "the cancel's report is not in the files: " << body.substr(begin);
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
