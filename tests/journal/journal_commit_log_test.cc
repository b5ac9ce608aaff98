// The journal with its commit log (docs/durability.md, "The commit log"): records only the
// log holds are found by every open, copied into LMDB once, and read beside a running
// writer. A run that stops before the copier moved its records into LMDB is made with fork()
// and _exit(), which skips every destructor, as a kill -9 would. The file itself:
// commit_log_test.cc.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/journal/journal.h"
#include "commit_log_payload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_dir.h"

namespace cfx::journal {
namespace {

using ::testing::HasSubstr;

JournalOptions WithLog(const std::string& dir) {
  return {.data_dir = dir, .defer_commit_sync = true, .commit_log = true};
}

std::vector<std::pair<uint64_t, std::string>> ReadAll(const Journal& j) {
  std::vector<std::pair<uint64_t, std::string>> out;
  absl::Status s = j.ReadFrom(1, [&](uint64_t seq, absl::string_view payload) {
    out.emplace_back(seq, std::string(payload));
    return true;
  });
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

void ExpectSeqs(const std::vector<std::pair<uint64_t, std::string>>& records, uint64_t last,
                int round_after = 0, uint64_t cut = UINT64_MAX) {
  ASSERT_EQ(records.size(), last);
  for (uint64_t i = 0; i < records.size(); ++i) {
    const uint64_t seq = i + 1;
    EXPECT_EQ(records[i].first, seq);
    EXPECT_EQ(records[i].second, Payload(seq, seq > cut ? round_after : 0)) << "seq " << seq;
  }
}

absl::Status AppendRange(Journal& j, uint64_t from, uint64_t to, int round = 0, size_t batch = 5) {
  std::vector<std::string> owned;
  for (uint64_t seq = from; seq <= to; ++seq) {
    owned.push_back(Payload(seq, round));
    if (owned.size() == batch || seq == to) {
      std::vector<absl::string_view> views(owned.begin(), owned.end());
      auto last = j.AppendBatch(views);
      if (!last.ok()) return last.status();
      owned.clear();
    }
  }
  return absl::OkStatus();
}

// Runs `body` in a child that ends with _exit(0): no destructor runs, so what the copier had
// not moved into LMDB is only in the commit log.
void RunAndVanish(const std::function<void()>& body) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    body();
    _exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
}

TEST(JournalCommitLogTest, InputsOnlyTheLogHoldsAreFoundByEveryOpenAndCopiedOnce) {
  TestDir dir;
  RunAndVanish([&] {
    JournalOptions o = WithLog(dir.path());
    o.commit_log_copy_every_ms = 3'600'000;  // the copier never runs before the exit
    auto j = *Journal::Open(o);
    if (!AppendRange(*j, 1, 40).ok()) _exit(3);
    if (j->DurableSeq() != 40) _exit(4);
    _exit(0);
  });
  {
    // Read-only: LMDB has none of them; the log has all forty.
    auto reader = Journal::Open({.data_dir = dir.path(), .read_only = true});
    ASSERT_TRUE(reader.ok()) << reader.status();
    EXPECT_EQ((*reader)->LastSeq(), 40u);
    EXPECT_EQ((*reader)->RecoveredFromCommitLog(), 40u);
    ExpectSeqs(ReadAll(**reader), 40);
    auto stats = (*reader)->Verify();
    ASSERT_TRUE(stats.ok()) << stats.status();
    EXPECT_EQ(stats->records, 40u);
  }
  {
    // Writable, even without the option: into LMDB, and the log starts over.
    auto j = Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(j.ok()) << j.status();
    EXPECT_EQ((*j)->RecoveredFromCommitLog(), 40u);
    EXPECT_EQ((*j)->LastSeq(), 40u);
    ASSERT_TRUE(AppendRange(**j, 41, 45).ok());
  }
  auto j = *Journal::Open(WithLog(dir.path()));
  EXPECT_EQ(j->RecoveredFromCommitLog(), 0u);  // copied once, never again
  ExpectSeqs(ReadAll(*j), 45);
}

// A commit log that is missing after a run that did not stop cleanly may have held
// acknowledged records LMDB does not (docs/durability.md, "The commit log"): every open
// refuses it, naming the file and the last record LMDB holds, and changes nothing; only the
// operator's cut accepts the loss.
TEST(JournalCommitLogTest, ALogMissingAfterARunThatDidNotStopCleanlyIsDataLoss) {
  TestDir dir;
  const std::string log = dir.path() + "/journal/commit.log";
  {
    auto j = *Journal::Open(WithLog(dir.path()));
    ASSERT_TRUE(AppendRange(*j, 1, 20).ok());
  }  // a clean stop: LMDB holds 1..20
  RunAndVanish([&] {
    JournalOptions o = WithLog(dir.path());
    o.commit_log_copy_every_ms = 3'600'000;  // the copier never runs before the exit
    auto j = *Journal::Open(o);
    if (!AppendRange(*j, 21, 40).ok()) _exit(3);
    _exit(0);
  });
  ASSERT_EQ(std::remove(log.c_str()), 0);
  for (JournalOptions o : {JournalOptions{.data_dir = dir.path(), .read_only = true},
                           JournalOptions{.data_dir = dir.path()}, WithLog(dir.path())}) {
    auto j = Journal::Open(o);
    ASSERT_FALSE(j.ok()) << "read_only " << o.read_only << " commit_log " << o.commit_log;
    EXPECT_TRUE(absl::IsDataLoss(j.status())) << j.status();
    EXPECT_THAT(j.status().message(), HasSubstr(log + " is missing"));
    EXPECT_THAT(j.status().message(), HasSubstr("acknowledged after record 20 "));
    EXPECT_NE(access(log.c_str(), F_OK), 0) << "a refused open creates no log";
  }
  {
    JournalOptions o = WithLog(dir.path());
    o.cut_damaged_commit_log = true;  // the operator accepts the loss
    auto j = Journal::Open(o);
    ASSERT_TRUE(j.ok()) << j.status();
    EXPECT_TRUE((*j)->CommitLogMissing());
    EXPECT_FALSE((*j)->CommitLogCutShort());
    EXPECT_EQ((*j)->CommitLogCut(), 21u);
    EXPECT_EQ((*j)->LastSeq(), 20u);
    ExpectSeqs(ReadAll(**j), 20);
    ASSERT_TRUE(AppendRange(**j, 21, 25, /*round=*/1).ok());
  }
  auto j = Journal::Open(WithLog(dir.path()));
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_FALSE((*j)->CommitLogMissing());
  EXPECT_EQ((*j)->CommitLogCut(), 0u);
  ExpectSeqs(ReadAll(**j), 25, /*round_after=*/1, /*cut=*/20);
}

// The operator's cut of a missing log without the log (as `cfx journal verify` opens it)
// keeps the mark until AcceptCommitLogLoss, which the tool calls once it has recorded what
// the cut needs: an open in between still finds the loss.
TEST(JournalCommitLogTest, AMissingLogsLossIsAcceptedOnlyOnceTheCallerSaysSo) {
  TestDir dir;
  RunAndVanish([&] {
    JournalOptions o = WithLog(dir.path());
    o.commit_log_copy_every_ms = 3'600'000;
    auto j = *Journal::Open(o);
    if (!AppendRange(*j, 1, 10).ok()) _exit(3);
    _exit(0);
  });
  const std::string log = dir.path() + "/journal/commit.log";
  ASSERT_EQ(std::remove(log.c_str()), 0);
  const JournalOptions cut{.data_dir = dir.path(), .cut_damaged_commit_log = true};
  {
    auto j = Journal::Open(cut);
    ASSERT_TRUE(j.ok()) << j.status();
    EXPECT_TRUE((*j)->CommitLogMissing());
    EXPECT_EQ((*j)->CommitLogCut(), 1u);
  }
  EXPECT_TRUE(absl::IsDataLoss(Journal::Open(WithLog(dir.path())).status()))
      << "not accepted yet: the loss is found again";
  {
    auto j = Journal::Open(cut);
    ASSERT_TRUE(j.ok()) << j.status();
    ASSERT_TRUE((*j)->AcceptCommitLogLoss().ok());
  }
  auto j = Journal::Open(WithLog(dir.path()));
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ((*j)->LastSeq(), 0u);
}

// A damaged mark says nothing of whether a log was in use: a start is refused (naming the
// cut), a reader reads on, and the operator's cut writes it again.
TEST(JournalCommitLogTest, ADamagedMarkIsRefusedUntilTheOperatorsCutWritesItAgain) {
  TestDir dir;
  {
    auto j = *Journal::Open(WithLog(dir.path()));
    ASSERT_TRUE(AppendRange(*j, 1, 5).ok());
  }
  {
    auto j = *Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(j->WriteRawRecordForTest(0, "not a mark").ok());
  }
  auto start = Journal::Open(WithLog(dir.path()));
  ASSERT_FALSE(start.ok());
  EXPECT_TRUE(absl::IsDataLoss(start.status())) << start.status();
  EXPECT_THAT(start.status().message(), HasSubstr("--truncate-corrupt-tail writes the mark again"));
  {
    auto reader = Journal::Open({.data_dir = dir.path(), .read_only = true});
    ASSERT_TRUE(reader.ok()) << reader.status();
    ExpectSeqs(ReadAll(**reader), 5);
  }
  {
    JournalOptions o = WithLog(dir.path());
    o.cut_damaged_commit_log = true;
    ASSERT_TRUE(Journal::Open(o).ok());
  }
  auto j = Journal::Open(WithLog(dir.path()));
  ASSERT_TRUE(j.ok()) << j.status();
  ExpectSeqs(ReadAll(**j), 5);
}

// After a clean stop LMDB holds everything the log did: a log deleted then loses nothing,
// and the next open starts a new one; so does a journal that never used one.
TEST(JournalCommitLogTest, ALogDeletedAfterACleanStopLosesNothing) {
  TestDir dir;
  const std::string log = dir.path() + "/journal/commit.log";
  {
    JournalOptions o = WithLog(dir.path());
    o.commit_log_copy_every_ms = 3'600'000;  // the stop's own copy moves them into LMDB
    auto j = *Journal::Open(o);
    ASSERT_TRUE(AppendRange(*j, 1, 30).ok());
  }
  ASSERT_EQ(std::remove(log.c_str()), 0);
  {
    auto reader = Journal::Open({.data_dir = dir.path(), .read_only = true});
    ASSERT_TRUE(reader.ok()) << reader.status();
    ExpectSeqs(ReadAll(**reader), 30);
  }
  {
    auto j = Journal::Open(WithLog(dir.path()));
    ASSERT_TRUE(j.ok()) << j.status();
    EXPECT_FALSE((*j)->CommitLogMissing());
    ExpectSeqs(ReadAll(**j), 30);
    ASSERT_TRUE(AppendRange(**j, 31, 35).ok());
  }
  TestDir plain;
  {
    auto j = *Journal::Open({.data_dir = plain.path()});
    ASSERT_TRUE(AppendRange(*j, 1, 5).ok());
  }
  auto j = Journal::Open(WithLog(plain.path()));
  ASSERT_TRUE(j.ok()) << j.status();
  ExpectSeqs(ReadAll(**j), 5);
}

TEST(JournalCommitLogTest, TheCopierMovesRecordsIntoLmdbWhileTheJournalRuns) {
  TestDir dir;
  RunAndVanish([&] {
    auto j = *Journal::Open(WithLog(dir.path()));  // copies every 10 ms
    if (!AppendRange(*j, 1, 30).ok()) _exit(3);
    usleep(500'000);
    _exit(0);
  });
  auto j = *Journal::Open(WithLog(dir.path()));
  EXPECT_EQ(j->RecoveredFromCommitLog(), 0u) << "LMDB had them before the exit";
  ExpectSeqs(ReadAll(*j), 30);
}

TEST(JournalCommitLogTest, TheLogRestartsWhenFullAndReadersSeeEveryRecordOnceInOrder) {
  TestDir dir;
  std::mt19937_64 rng(7);
  JournalOptions o = WithLog(dir.path());
  o.commit_log_bytes = 16 << 10;  // a restart every few dozen records
  uint64_t last = 0;
  {
    auto j = *Journal::Open(o);
    for (int batch = 0; batch < 300; ++batch) {
      const uint64_t n = 1 + rng() % 9;
      ASSERT_TRUE(AppendRange(*j, last + 1, last + n, 0, n).ok());
      last += n;
      EXPECT_EQ(j->DurableSeq(), last);
      if (batch % 50 == 0) ExpectSeqs(ReadAll(*j), last);  // LMDB and the log together
    }
    ExpectSeqs(ReadAll(*j), last);
  }
  {
    auto j = *Journal::Open(o);
    ExpectSeqs(ReadAll(*j), last);
  }
  // And a run that vanishes with records after a restart of the log only in it.
  RunAndVanish([&] {
    JournalOptions slow = o;
    slow.commit_log_copy_every_ms = 3'600'000;
    auto k = *Journal::Open(slow);
    if (!AppendRange(*k, last + 1, last + 200, 0, 3).ok()) _exit(3);
    _exit(0);
  });
  auto k = *Journal::Open(o);
  EXPECT_GT(k->RecoveredFromCommitLog(), 0u);
  ExpectSeqs(ReadAll(*k), last + 200);
}

// `cfx journal verify` and the replicas' readers open the journal read-only beside the
// running exchange. Between reading LMDB's last record and reading the log, the writer may
// copy the log into LMDB and restart it: the log then seems to skip records, and the reader
// reads both again. A writer in another process restarts its small log every few dozen
// batches, copying every millisecond, while this process opens read-only as often as it
// can: every open succeeds and reads records 1..n, each once, in order, n at least the
// LastSeq() the open found.
TEST(JournalCommitLogTest, ReadOnlyOpensBesideARunningWriterSeeEveryRecordOnceInOrder) {
  TestDir dir;
  // The writer runs until this process closes `stop` (after at least 1.5 s and 10 opens:
  // a fixed life could end before 10 opens under TSan with a busy disk; closing, not
  // writing, so that a writer gone already raises no SIGPIPE, and one whose parent died
  // stops too), or 60 s.
  int ready[2], stop[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(stop), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    close(stop[1]);
    fcntl(stop[0], F_SETFL, O_NONBLOCK);
    JournalOptions o = WithLog(dir.path());
    o.commit_log_bytes = 2 << 10;  // a restart every few batches
    o.commit_log_copy_every_ms = 1;
    auto j = Journal::Open(o);
    if (!j.ok()) _exit(3);
    uint64_t last = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto stopped = [&] {
      char byte;
      return read(stop[0], &byte, 1) >= 0 || errno != EAGAIN;  // EOF (0) or an error
    };
    for (int batch = 0; std::chrono::steady_clock::now() < until && !stopped(); ++batch) {
      if (!AppendRange(**j, last + 1, last + 4, 0, 4).ok()) _exit(4);
      last += 4;
      if (batch == 0) (void)!write(ready[1], "r", 1);
    }
    _exit(0);
  }
  // A failed assertion returns at once: the writer goes with it.
  struct Reaper {
    pid_t pid;
    int stop_fd;
    ~Reaper() {
      if (stop_fd >= 0) close(stop_fd);
      if (pid <= 0) return;
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  } reaper{pid, stop[1]};
  close(ready[1]);
  close(stop[0]);
  char byte;
  ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the writer did not start";
  close(ready[0]);
  const auto started = std::chrono::steady_clock::now();
  bool told_to_stop = false;
  int opens = 0, status = 0;
  uint64_t seen = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (!told_to_stop && opens >= 10 &&
        std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(1500)) {
      close(stop[1]);
      reaper.stop_fd = -1;
      told_to_stop = true;
    }
    auto reader = Journal::Open({.data_dir = dir.path(), .read_only = true});
    ASSERT_TRUE(reader.ok()) << "open " << opens << ": " << reader.status();
    auto records = ReadAll(**reader);
    // At least what the open found; LMDB's read in ReadFrom may already hold more.
    ASSERT_GE(records.size(), (*reader)->LastSeq()) << "open " << opens;
    for (uint64_t i = 0; i < records.size(); ++i) {
      ASSERT_EQ(records[i].first, i + 1) << "open " << opens;
      ASSERT_EQ(records[i].second, Payload(i + 1)) << "open " << opens;
    }
    EXPECT_GE(records.size(), seen) << "an open saw fewer records than the one before";
    seen = records.size();
    ++opens;
  }
  reaper.pid = 0;  // reaped by the loop's waitpid
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  std::fprintf(stderr, "%d read-only opens beside the writer, the last saw %llu records\n", opens,
               static_cast<unsigned long long>(seen));
  EXPECT_GE(opens, 10);
}

TEST(JournalCommitLogTest, AnOperatorsCutIsNotUndoneByWhatTheLogHeldBeforeIt) {
  TestDir dir;
  // Entries of 80 bytes (a 16-byte prefix, a 24-byte record header, 40) before the cut, and
  // after it entries three times that size: the four new records 9..12 end exactly where the
  // old record 13 begins, whose seq would follow 12. Only the generation tells the old one
  // apart.
  const std::string old_payload(40, 'o'), new_payload(3 * 80 - 16 - 24, 'n');
  RunAndVanish([&] {
    JournalOptions o = WithLog(dir.path());
    o.commit_log_copy_every_ms = 3'600'000;
    auto j = *Journal::Open(o);
    for (int i = 0; i < 20; ++i) {
      std::vector<absl::string_view> one = {old_payload};
      if (!j->AppendBatch(one).ok()) _exit(3);
    }
    if (!j->TruncateAfter(8).ok()) _exit(4);
    for (int i = 0; i < 4; ++i) {
      std::vector<absl::string_view> one = {new_payload};
      if (!j->AppendBatch(one).ok()) _exit(5);
    }
    _exit(0);
  });
  auto j = *Journal::Open(WithLog(dir.path()));
  EXPECT_EQ(j->RecoveredFromCommitLog(), 4u);
  auto records = ReadAll(*j);
  ASSERT_EQ(records.size(), 12u);
  for (const auto& [seq, payload] : records) {
    EXPECT_EQ(payload, seq <= 8 ? old_payload : new_payload) << "seq " << seq;
  }
}

// A power loss in the middle of a batch's append that left a later sector of it on the disk
// and an earlier one not: nothing of that batch was acknowledged, so the journal opens (the
// exchange starts), holding what came before the damage and reporting where it is; the
// batch's surviving entries are never read again, not even after the next appends
// (docs/durability.md, "An append torn out of order"). Before the log's version 4 the open
// refused it as damage inside acknowledged records.
TEST(JournalCommitLogTest, ABatchWhoseSectorsReachedTheDiskOutOfOrderIsATornTail) {
  TestDir dir;
  // Payloads of 1,000 bytes: each entry spans sectors.
  const auto payload = [](uint64_t seq) { return std::string(1000, static_cast<char>('a' + seq)); };
  RunAndVanish([&] {
    JournalOptions o = WithLog(dir.path());
    o.commit_log_copy_every_ms = 3'600'000;
    auto j = *Journal::Open(o);
    for (uint64_t seq = 1; seq <= 2; ++seq) {
      const std::string p = payload(seq);
      std::vector<absl::string_view> one = {p};
      if (!j->AppendBatch(one).ok()) _exit(3);
    }
    const std::string p3 = payload(3), p4 = payload(4), p5 = payload(5), p6 = payload(6);
    std::vector<absl::string_view> batch = {p3, p4, p5, p6};  // one append
    if (!j->AppendBatch(batch).ok()) _exit(4);
    _exit(0);
  });
  const std::string log = dir.path() + "/journal/commit.log";
  std::string bytes;
  {
    std::FILE* f = std::fopen(log.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buf[1 << 16];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.append(buf, n);
    std::fclose(f);
  }
  // A sector inside record 4's entry (a 16-byte prefix and a 24-byte header before its
  // payload) never reached the disk; record 5, after it in the same append, did.
  const size_t entry4 = bytes.find(payload(4)) - 16 - 24;
  const size_t lost = (entry4 / 512 + 1) * 512;
  ASSERT_LT(lost + 512, bytes.find(payload(5)) - 16 - 24);
  {
    const int fd = open(log.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    const std::string zeros(512, '\0');
    ASSERT_EQ(pwrite(fd, zeros.data(), zeros.size(), static_cast<off_t>(lost)), 512);
    close(fd);
  }
  {
    auto j = Journal::Open(WithLog(dir.path()));
    ASSERT_TRUE(j.ok()) << j.status();
    EXPECT_EQ((*j)->RecoveredFromCommitLog(), 3u);
    EXPECT_EQ((*j)->LastSeq(), 3u);
    EXPECT_EQ((*j)->CommitLogTornAt(), entry4);
    const auto records = ReadAll(**j);
    ASSERT_EQ(records.size(), 3u);
    for (uint64_t seq = 1; seq <= 3; ++seq) EXPECT_EQ(records[seq - 1].second, payload(seq));
    ASSERT_TRUE(AppendRange(**j, 4, 4, 1).ok());  // a new record 4
  }
  auto j = Journal::Open(WithLog(dir.path()));
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ((*j)->LastSeq(), 4u) << "the torn batch's records 5 and 6 are gone for good";
  const auto records = ReadAll(**j);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[3].second, Payload(4, 1));
}

TEST(JournalCommitLogTest, RecordsAfterABatchThatWentStraightToLmdbAreNotLost) {
  TestDir dir;
  // A batch larger than a quarter of the log goes to LMDB directly; the small ones before
  // and after it go through the log, and the run vanishes before any copy.
  RunAndVanish([&] {
    JournalOptions o = WithLog(dir.path());
    o.commit_log_bytes = 16 << 10;
    o.commit_log_copy_every_ms = 3'600'000;
    auto j = *Journal::Open(o);
    if (!AppendRange(*j, 1, 3).ok()) _exit(3);
    const std::string big(2000, 'b');
    std::vector<absl::string_view> large(5, big);
    if (!j->AppendBatch(large).ok()) _exit(4);
    if (!AppendRange(*j, 9, 12).ok()) _exit(5);
    _exit(0);
  });
  auto j = *Journal::Open(WithLog(dir.path()));
  EXPECT_EQ(j->RecoveredFromCommitLog(), 4u);
  auto records = ReadAll(*j);
  ASSERT_EQ(records.size(), 12u);
  EXPECT_EQ(records[11].second, Payload(12));
}

TEST(JournalCommitLogTest, AFullMapIsRefusedBeforeAnythingIsAcknowledged) {
  TestDir dir;
  JournalOptions o = WithLog(dir.path());
  o.map_size_bytes = 1 << 20;
  uint64_t acked = 0;
  absl::Status refused;
  {
    auto j = *Journal::Open(o);
    const std::string big(2000, 'b');
    std::vector<absl::string_view> batch(4, big);
    for (int i = 0; i < 1000 && refused.ok(); ++i) {
      auto last = j->AppendBatch(batch);
      if (last.ok()) {
        acked = *last;
      } else {
        refused = last.status();
      }
    }
    ASSERT_FALSE(refused.ok()) << "1 MiB cannot hold 8 MB";
    EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
    EXPECT_THAT(refused.message(), HasSubstr(dir.path()));
    // Nothing of the refused batch is written; near the end the batches went straight into
    // LMDB, where the last one is durable at the next commit or sync (DurableSeq says so).
    EXPECT_EQ(j->LastSeq(), acked);
    EXPECT_LE(j->DurableSeq(), acked);
    ASSERT_TRUE(j->Sync().ok());
    EXPECT_EQ(j->DurableSeq(), acked);
  }
  auto j = *Journal::Open(o);
  EXPECT_EQ(j->LastSeq(), acked);
  auto stats = j->Verify();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->records, acked);
}

}  // namespace
}  // namespace cfx::journal
