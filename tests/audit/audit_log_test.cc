#include "cfx/audit/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "temp_dir.h"

namespace cfx::audit {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(AuditLogTest, EventsAreJsonLinesWithSeqUtcMicrosecondsKindAndFields) {
  testsupport::TempDir dir("cfx_audit_test");
  const std::string path = dir.path() + "/audit.log";
  auto log = AuditLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ((*log)->Record("fix_logon", {{"comp_id", "ALPHA_T1"}, {"reason", "a \"quoted\"\n"}}),
            1u);
  EXPECT_EQ((*log)->Record("fix_logout", {{"comp_id", "ALPHA_T1"}}), 2u);
  const std::string text = ReadAll(path);
  std::vector<nlohmann::json> events;
  for (size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
    events.push_back(nlohmann::json::parse(text.substr(at, nl - at)));
  }
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["seq"], 1);
  EXPECT_EQ(events[0]["kind"], "fix_logon");
  EXPECT_EQ(events[0]["reason"], "a \"quoted\"\n");
  const std::string ts = events[0]["ts"];
  ASSERT_EQ(ts.size(), 27u) << ts;  // 2027-03-01T09:00:00.123456Z
  EXPECT_EQ(ts[10], 'T');
  EXPECT_EQ(ts[19], '.');
  EXPECT_EQ(ts.back(), 'Z');
  EXPECT_EQ(events[1]["seq"], 2);
}

TEST(AuditLogTest, FileIsPrivateWhateverTheUmask) {
  testsupport::TempDir dir("cfx_audit_test");
  const std::string path = dir.path() + "/audit.log";
  const mode_t old = ::umask(0);
  {
    auto log = AuditLog::Open(path);
    ASSERT_TRUE(log.ok());
    (*log)->Record("config_load", {});
  }
  ::umask(old);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  // A file made wider by hand is narrowed at open.
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  ASSERT_TRUE(AuditLog::Open(path).ok());
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  // Never through a link put in its place: the file it names is neither written nor
  // narrowed (until 2026-12-07 it was chmod-ed to 0600 and appended to, a review).
  const std::string other = dir.path() + "/other";
  ASSERT_EQ(::close(::open(other.c_str(), O_WRONLY | O_CREAT, 0644)), 0);
  ASSERT_EQ(::chmod(other.c_str(), 0644), 0);
  const std::string link = dir.path() + "/linked.log";
  ASSERT_EQ(::symlink(other.c_str(), link.c_str()), 0);
  EXPECT_FALSE(AuditLog::Open(link).ok());
  ASSERT_EQ(::stat(other.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(st.st_size, 0);
}

TEST(AuditLogTest, ReopeningContinuesTheNumberingAndAppends) {
  testsupport::TempDir dir("cfx_audit_test");
  const std::string path = dir.path() + "/audit.log";
  {
    auto log = AuditLog::Open(path);
    ASSERT_TRUE(log.ok());
    (*log)->Record("a", {});
    (*log)->Record("b", {});
  }
  auto log = AuditLog::Open(path);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ((*log)->Record("c", {}), 3u);
  auto page = (*log)->Read(0, 10);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->events.size(), 3u);
  EXPECT_NE(page->events[0].find("\"kind\":\"a\""), std::string::npos);
}

TEST(AuditLogTest, ReadPagesAfterASeqWithABoundedLimit) {
  testsupport::TempDir dir("cfx_audit_test");
  auto log = AuditLog::Open(dir.path() + "/audit.log");
  ASSERT_TRUE(log.ok());
  for (int i = 0; i < 25; ++i) (*log)->Record("e", {{"i", std::to_string(i)}});
  std::vector<std::string> seen;
  uint64_t after = 0;
  for (;;) {
    auto page = (*log)->Read(after, 10);
    ASSERT_TRUE(page.ok());
    for (const std::string& e : page->events) seen.push_back(e);
    after = page->next_after;
    if (!page->more) break;
    EXPECT_EQ(page->events.size(), 10u);
  }
  ASSERT_EQ(seen.size(), 25u);
  EXPECT_EQ(nlohmann::json::parse(seen[24])["seq"], 25);
  EXPECT_EQ(after, 25u);
  auto empty = (*log)->Read(25, 10);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->events.empty());
  EXPECT_EQ(empty->next_after, 25u);
  EXPECT_FALSE(empty->more);
}

TEST(AuditLogTest, ThreadsAndAnotherProcessAppendWithoutLosingOrRepeatingASeq) {
  testsupport::TempDir dir("cfx_audit_test");
  const std::string path = dir.path() + "/audit.log";
  auto log = AuditLog::Open(path);
  ASSERT_TRUE(log.ok());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // another process (cfx settle beside cfx serve)
    auto other = AuditLog::Open(path);
    for (int i = 0; i < 200 && other.ok(); ++i) (*other)->Record("child", {});
    _exit(other.ok() ? 0 : 1);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) (*log)->Record("thread", {});
    });
  }
  for (std::thread& t : threads) t.join();
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  auto page = (*log)->Read(0, 1000);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->events.size(), 600u);
  for (size_t i = 0; i < page->events.size(); ++i) {
    EXPECT_EQ(nlohmann::json::parse(page->events[i])["seq"], i + 1);
  }
  EXPECT_EQ((*log)->write_errors(), 0u);
}

TEST(AuditLogTest, ALineCutShortByACrashIsSkippedAndTheNextEventStartsItsOwnLine) {
  testsupport::TempDir dir("cfx_audit_test");
  const std::string path = dir.path() + "/audit.log";
  {
    auto log = AuditLog::Open(path);
    ASSERT_TRUE(log.ok());
    (*log)->Record("before", {});
  }
  {
    std::ofstream out(path, std::ios::app);
    out << "{\"seq\":2,\"ts\":\"2027-";  // a writer died mid-line
  }
  auto log = AuditLog::Open(path);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ((*log)->Record("after", {}), 2u);
  auto page = (*log)->Read(0, 10);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->events.size(), 2u);
  EXPECT_NE(page->events[1].find("\"kind\":\"after\""), std::string::npos);
  EXPECT_NO_THROW(nlohmann::json::parse(page->events[1]));
}

TEST(AuditLogTest, AnUnwritableLogIsRefusedAtOpenNamingThePath) {
  auto log = AuditLog::Open("/nonexistent-dir-cfx/audit.log");
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("/nonexistent-dir-cfx/audit.log"), std::string::npos);
}

TEST(AuditLogTest, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  testsupport::TempDir dir("cfx_audit_test");
  auto log = AuditLog::Open(dir.path() + "/audit.log");
  ASSERT_TRUE(log.ok());
  (*log)->Record("fix_logon", {{"comp_id", "A\xff\xfe\x01" "B"}, {"peer", "caf\xc3\xa9"}});
  auto page = (*log)->Read(0, 1);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->events.size(), 1u);
  const nlohmann::json e = nlohmann::json::parse(page->events[0]);  // valid JSON and UTF-8
  EXPECT_EQ(e["comp_id"], "A\xef\xbf\xbd\xef\xbf\xbd\x01" "B");
  EXPECT_EQ(e["peer"], "caf\xc3\xa9");
}

// The index keeps one entry for every AuditLog::kEventsPerCheckpoint events (a flood of
// refusals, rate-bounded only, used to grow the process by 24 bytes an event), and Read
// scans the file from the entry before what it is asked for. Against a model (every event
// in order), for pages after any seq and of any size, across checkpoints, with junk lines
// (a crash's cut line, a line with a lower seq, a non-event) and events another writer
// (another AuditLog on the file) appended, in a log reopened (indexed by CatchUp) and not.
TEST(AuditLogTest, PagesReadFromTheSparseIndexAreTheModelsOnesAcrossCheckpoints) {
  testsupport::TempDir dir("cfx_audit_test");
  const std::string path = dir.path() + "/audit.log";
  constexpr uint64_t kEvents = 3 * AuditLog::kEventsPerCheckpoint + 37;
  std::vector<std::string> model;  // event n is model[n - 1]
  std::mt19937_64 rng(7);
  auto check = [&](AuditLog& log) {
    for (int round = 0; round < 200; ++round) {
      const uint64_t after = rng() % (kEvents + 3);
      const size_t limit = rng() % 3 == 0 ? 1 + rng() % 3 : rng() % 700;
      absl::StatusOr<AuditPage> page = log.Read(after, limit);
      ASSERT_TRUE(page.ok()) << page.status();
      const uint64_t first = std::min<uint64_t>(after, kEvents);
      const uint64_t n = std::min<uint64_t>(limit, kEvents - first);
      ASSERT_EQ(page->events.size(), n) << "after " << after << " limit " << limit;
      for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(page->events[i], model[first + i]);
      EXPECT_EQ(page->next_after, n == 0 ? after : first + n);
      EXPECT_EQ(page->more, first + n < kEvents) << "after " << after << " limit " << limit;
    }
  };
  {
    auto log = AuditLog::Open(path);
    auto other = AuditLog::Open(path);
    ASSERT_TRUE(log.ok() && other.ok());
    for (uint64_t i = 1; i <= kEvents; ++i) {
      AuditLog& w = i % 7 == 0 ? **other : **log;
      ASSERT_EQ(w.Record("test_event", {{"n", std::to_string(i)}}), i);
      if (i % 200 == 0) {  // junk between events: not events, never paged
        std::ofstream(path, std::ios::app) << "{\"seq\":3,\"kind\":\"stale\"}\nnot json\n";
      }
    }
    const std::string text = ReadAll(path);
    for (size_t at = 0; at < text.size();) {
      const size_t nl = text.find('\n', at);
      const std::string line = text.substr(at, nl - at);
      at = nl + 1;
      if (line.find("\"test_event\"") != std::string::npos) model.push_back(line);
    }
    ASSERT_EQ(model.size(), kEvents);
    EXPECT_LT((*log)->IndexBytes(), kEvents * 24 / 64) << "the index holds every event";
    check(**log);  // indexed as it wrote, and caught up with the other's events
    check(**other);
  }
  auto reopened = AuditLog::Open(path);  // indexed by reading the file
  ASSERT_TRUE(reopened.ok());
  check(**reopened);
}

TEST(TokenFingerprintTest, IsTheFirstEightHexDigitsOfSha256) {
  // SHA-256("abc") = ba7816bf 8f01cfea ...
  EXPECT_EQ(TokenFingerprint("abc"), "ba7816bf");
  EXPECT_EQ(TokenFingerprint("tok-alpha").size(), 8u);
  EXPECT_NE(TokenFingerprint("tok-alpha"), TokenFingerprint("tok-beta"));
}

}  // namespace
}  // namespace cfx::audit
