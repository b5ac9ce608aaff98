// The journal's commit log (docs/durability.md, "The commit log"): the file itself
// (CommitLog, an internal class) and the journal on top of it. A run that stops before the
// copier moved its records into LMDB is made with fork() and _exit(), which skips every
// destructor, as a kill -9 would.
#include "commit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/journal/crc32c.h"
#include "cfx/journal/journal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "record_format.h"
#include "test_dir.h"

namespace cfx::journal {
namespace {

using internal::CommitLog;
using internal::CommitLogTail;
using ::testing::HasSubstr;

std::string Payload(uint64_t seq, int round = 0) {
  return absl::StrCat("input-", seq, "-round-", round, "-", std::string(seq % 50, 'x'));
}

// Appends one entry per seq in [from, to], one Append each.
void AppendSeqs(CommitLog& log, uint64_t from, uint64_t to, int round = 0) {
  for (uint64_t seq = from; seq <= to; ++seq) {
    std::string entries;
    log.EncodeEntry(seq, Payload(seq, round), &entries);
    ASSERT_TRUE(log.Append(entries).ok());
  }
}

std::unique_ptr<CommitLog> OpenLog(const std::string& path, uint64_t after, CommitLogTail* tail,
                                   uint64_t max_bytes = 64 << 20) {
  auto log = CommitLog::Open({.path = path, .max_bytes = max_bytes}, after, tail);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? std::move(*log) : nullptr;
}

// Overwrites `n` bytes at `offset` of `path` with `byte`.
void Overwrite(const std::string& path, uint64_t offset, size_t n, char byte) {
  int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  std::string bytes(n, byte);
  ASSERT_EQ(pwrite(fd, bytes.data(), n, static_cast<off_t>(offset)), static_cast<ssize_t>(n));
  close(fd);
}

// Offset of the entry for `seq` when seqs 1.. were appended one entry each from the start.
uint64_t OffsetOf(uint64_t seq) {
  uint64_t at = internal::kCommitLogHeaderSize;
  for (uint64_t s = 1; s < seq; ++s) at += 8 + 24 + Payload(s).size();
  return at;
}

TEST(CommitLogTest, RecordsReadBackAndReadingStopsAtAnEntryCutShortOrDamaged) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  CommitLogTail tail;
  {
    auto log = OpenLog(path, 0, &tail);
    ASSERT_TRUE(log);
    EXPECT_EQ(tail.records, 0u);
    AppendSeqs(*log, 1, 6);
  }
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_GE(static_cast<uint64_t>(st.st_size), internal::kCommitLogHeaderSize + (1u << 20))
      << "the file's blocks are written ahead of the appends";
  ASSERT_TRUE(OpenLog(path, 0, &tail));
  EXPECT_EQ(tail.records, 6u);
  EXPECT_EQ(tail.last, 6u);
  EXPECT_EQ(tail.torn_at, 0u) << "the log ended cleanly: nothing to report";
  // After LMDB's last record only what follows it.
  ASSERT_TRUE(OpenLog(path, 4, &tail));
  EXPECT_EQ(tail.records, 2u);
  EXPECT_EQ(tail.last, 6u);
  // The last append cut short (its second half never reached the disk): five.
  Overwrite(path, OffsetOf(6) + 20, 30, '\0');
  ASSERT_TRUE(OpenLog(path, 0, &tail));
  EXPECT_EQ(tail.records, 5u);
  EXPECT_EQ(tail.torn_at, OffsetOf(6)) << "where it stopped is reported (SPEC §5)";
  // A damaged byte in the payload of the last intact record (5): reading stops before it,
  // as at an append cut short (nothing intact follows).
  Overwrite(path, OffsetOf(5) + 8 + 24 + 2, 1, '#');
  ASSERT_TRUE(OpenLog(path, 0, &tail));
  EXPECT_EQ(tail.records, 4u);
  EXPECT_EQ(tail.last, 4u);
  EXPECT_EQ(tail.torn_at, OffsetOf(5));
}

// Damage inside the log, with intact acknowledged records after it, is not an append cut
// short by a crash: the open refuses it (SPEC §5: a corrupt tail is reported, never applied;
// an acknowledged order is never lost), unless LMDB holds every record the damage hides, or
// the operator asked for the cut.
TEST(CommitLogTest, DamageThatIntactRecordsFollowFailsTheOpenUnlessLmdbHoldsWhatItHides) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  CommitLogTail tail;
  {
    auto log = OpenLog(path, 0, &tail);
    ASSERT_TRUE(log);
    AppendSeqs(*log, 1, 6);
  }
  for (const uint64_t at : {OffsetOf(3) + 8 + 24 + 2,  // a payload byte of record 3
                            OffsetOf(3) + 8 + 16,      // its length: the entry cannot be skipped
                            OffsetOf(3) + 1}) {        // its prefix
    SCOPED_TRACE(at);
    std::string before;
    {
      std::ifstream in(path, std::ios::binary);
      before.assign(std::istreambuf_iterator<char>(in), {});
    }
    Overwrite(path, at, 1, '#');
    auto refused = CommitLog::Open({.path = path}, 0, &tail);
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(absl::IsDataLoss(refused.status())) << refused.status();
    EXPECT_THAT(refused.status().message(), HasSubstr("commit.log"));
    EXPECT_THAT(refused.status().message(), HasSubstr("after record 2"));
    EXPECT_THAT(refused.status().message(), HasSubstr("record 4 at byte"));
    // Read-only the same.
    EXPECT_TRUE(
        absl::IsDataLoss(CommitLog::Open({.path = path, .read_only = true}, 0, &tail).status()));
    // LMDB holds 1..3: the damage hides nothing it lacks, so reading goes on after it.
    ASSERT_TRUE(OpenLog(path, 3, &tail));
    EXPECT_EQ(tail.records, 3u);
    EXPECT_EQ(tail.last, 6u);
    // LMDB holds 1..2 only: refused.
    EXPECT_FALSE(CommitLog::Open({.path = path}, 2, &tail).ok());
    // The operator's cut: stops before the damage and says what intact record followed.
    auto cut = CommitLog::Open({.path = path, .stop_at_damage = true}, 0, &tail);
    ASSERT_TRUE(cut.ok()) << cut.status();
    EXPECT_EQ(tail.records, 2u);
    EXPECT_EQ(tail.last, 2u);
    EXPECT_EQ(tail.damaged_at, OffsetOf(3));
    EXPECT_EQ(tail.intact_after_damage, 4u);
    cut->reset();
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << before;  // undamaged again for the next case
    }
    ASSERT_TRUE(OpenLog(path, 0, &tail));
    EXPECT_EQ(tail.records, 6u);
  }
}

TEST(CommitLogTest, ARestartHidesEverythingBeforeItEvenEntriesWithTheNextSeqs) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  CommitLogTail tail;
  {
    auto log = OpenLog(path, 0, &tail);
    ASSERT_TRUE(log);
    AppendSeqs(*log, 1, 10);
    // As after an operator's cut back to 0: the same seqs again, other payloads. The entry
    // after the new ones is the old record 4, whose seq would follow record 3.
    ASSERT_TRUE(log->Restart().ok());
    AppendSeqs(*log, 1, 3);
  }
  ASSERT_TRUE(OpenLog(path, 0, &tail));
  EXPECT_EQ(tail.records, 3u);
  EXPECT_EQ(tail.last, 3u);
}

// A torn append after a restart: its prefix reached the disk, its record did not, and an
// older generation's record starts at that very offset (here one an operator cut). Read as
// the new generation's, it would come back from the cut; the prefix's check, over the
// record it was written for, stops the reading there instead.
TEST(CommitLogTest, ATornAppendCannotPassAnOlderGenerationsRecordForItsOwn) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  CommitLogTail tail;
  std::string torn;
  {
    auto log = OpenLog(path, 0, &tail);
    ASSERT_TRUE(log);
    AppendSeqs(*log, 5, 7);  // then cut back to 4 in LMDB, and the log restarted
    ASSERT_TRUE(log->Restart().ok());
    log->EncodeEntry(5, "a new record 5, never acknowledged", &torn);
  }
  {
    const int fd = open(path.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(pwrite(fd, torn.data(), internal::kCommitLogEntryPrefix,
                     static_cast<off_t>(internal::kCommitLogHeaderSize)),
              static_cast<ssize_t>(internal::kCommitLogEntryPrefix));
    close(fd);
  }
  ASSERT_TRUE(OpenLog(path, 4, &tail));
  EXPECT_EQ(tail.records, 0u);  // not the cut record 5 of the older generation
  EXPECT_EQ(tail.last, 4u);
}

// A log written by the first version (each entry's prefix the bare generation) is read as it
// is; appends wait for the restart every writable open makes, which writes version 2.
TEST(CommitLogTest, AVersionOneLogIsReadAndRestartedAsVersionTwo) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  std::string file(internal::kCommitLogHeaderSize, '\0');
  internal::PutLe(file.data(), 0x4C584643, 4);  // "CFXL"
  internal::PutLe(file.data() + 4, 1, 2);
  internal::PutLe(file.data() + 8, 7, 8);  // generation 7
  internal::PutLe(file.data() + 16, Crc32c(file.data(), 16), 4);
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    char gen[8];
    internal::PutLe(gen, 7, 8);
    file.append(gen, 8);
    file += internal::EncodeValue(internal::kRecordMagic, seq, Payload(seq));
  }
  file.append(4096, '\0');
  {
    std::ofstream out(path, std::ios::binary);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  CommitLogTail tail;
  auto read = CommitLog::Open({.path = path, .read_only = true}, 0, &tail);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(tail.records, 3u);
  EXPECT_EQ(tail.last, 3u);
  read->reset();
  {
    auto log = OpenLog(path, 0, &tail);
    ASSERT_TRUE(log);
    EXPECT_EQ(tail.records, 3u);
    std::string entry;
    log->EncodeEntry(4, Payload(4), &entry);
    EXPECT_EQ(log->Append(entry).code(), absl::StatusCode::kFailedPrecondition);
    ASSERT_TRUE(log->Restart().ok());  // LMDB would hold 1..3 by now
    AppendSeqs(*log, 4, 5);
  }
  ASSERT_TRUE(OpenLog(path, 3, &tail));
  EXPECT_EQ(tail.records, 2u);
  EXPECT_EQ(tail.last, 5u);
}

TEST(CommitLogTest, RecordsPastAGapAfterTheJournalsLastAreDataLossNamingTheFile) {
  TestDir dir;
  CommitLogTail tail;
  // A log that starts at record 5, read after a journal whose last record is 2.
  const std::string path2 = dir.path() + "/commit.log";
  {
    auto log = OpenLog(path2, 0, &tail);
    ASSERT_TRUE(log);
    AppendSeqs(*log, 5, 7);
  }
  auto gap = CommitLog::Open({.path = path2}, 2, &tail);
  ASSERT_FALSE(gap.ok());
  EXPECT_EQ(gap.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(gap.status().message(), HasSubstr(path2));
  EXPECT_THAT(gap.status().message(), HasSubstr("records 3..4"));
  ASSERT_TRUE(OpenLog(path2, 4, &tail));
  EXPECT_EQ(tail.records, 3u);
  // A gap further on, within one generation: DataLoss too, not a silent stop.
  const std::string path3 = dir.path() + "/gap_later.log";
  {
    auto log = OpenLog(path3, 0, &tail);
    ASSERT_TRUE(log);
    AppendSeqs(*log, 1, 3);
    AppendSeqs(*log, 6, 7);
  }
  auto later = CommitLog::Open({.path = path3}, 0, &tail);
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(later.status().message(), HasSubstr("record 6 follows record 3"));
  // Records up to LMDB's last may have gaps between them (batches that went into LMDB).
  ASSERT_TRUE(OpenLog(path3, 5, &tail));
  EXPECT_EQ(tail.records, 2u);
  EXPECT_EQ(tail.last, 7u);
}

TEST(CommitLogTest, ADamagedHeaderIsDataLossNamingTheFile) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  CommitLogTail tail;
  ASSERT_TRUE(OpenLog(path, 0, &tail));
  Overwrite(path, 9, 1, '\x7f');  // inside the generation
  auto damaged = CommitLog::Open({.path = path}, 0, &tail);
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(damaged.status().message(), HasSubstr(path));
  // Read-only and absent: nothing to read, nothing created.
  auto absent = CommitLog::Open({.path = dir.path() + "/none", .read_only = true}, 0, &tail);
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(*absent, nullptr);
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/none"));
}

// --- the journal with its commit log ---------------------------------------------------

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

absl::Status AppendRange(Journal& j, uint64_t from, uint64_t to, int round = 0,
                         size_t batch = 5) {
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
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    JournalOptions o = WithLog(dir.path());
    o.commit_log_bytes = 2 << 10;  // a restart every few batches
    o.commit_log_copy_every_ms = 1;
    auto j = Journal::Open(o);
    if (!j.ok()) _exit(3);
    uint64_t last = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    for (int batch = 0; std::chrono::steady_clock::now() < until; ++batch) {
      if (!AppendRange(**j, last + 1, last + 4, 0, 4).ok()) _exit(4);
      last += 4;
      if (batch == 0) (void)!write(ready[1], "r", 1);
    }
    _exit(0);
  }
  close(ready[1]);
  char byte;
  ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the writer did not start";
  close(ready[0]);
  int opens = 0, status = 0;
  uint64_t seen = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
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
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  std::fprintf(stderr, "%d read-only opens beside the writer, the last saw %llu records\n", opens,
               static_cast<unsigned long long>(seen));
  EXPECT_GE(opens, 10);
}

TEST(JournalCommitLogTest, AnOperatorsCutIsNotUndoneByWhatTheLogHeldBeforeIt) {
  TestDir dir;
  // Entries of 72 bytes (8 + 24 + 40) before the cut, and after it entries three times that
  // size: the four new records 9..12 end exactly where the old record 13 begins, whose seq
  // would follow 12. Only the generation tells the old one apart.
  const std::string old_payload(40, 'o'), new_payload(3 * 72 - 32, 'n');
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
