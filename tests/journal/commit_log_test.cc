// The journal's commit log file (docs/durability.md, "The commit log"): CommitLog, an
// internal class. The journal on top of it: journal_commit_log_test.cc.
#include "commit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/journal/crc32c.h"
#include "commit_log_payload.h"
#include "commit_log_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "record_format.h"
#include "test_dir.h"

namespace cfx::journal::commit_log_testing {  // with the helpers they share
namespace {

using ::testing::HasSubstr;

// A log in `dir` holding records 1..6, one append each; returns its path.
std::string LogOfSixRecords(const TestDir& dir) {
  const std::string path = dir.path() + "/commit.log";
  CommitLogTail tail;
  auto log = OpenLog(path, 0, &tail);
  EXPECT_TRUE(log);
  if (log) AppendSeqs(*log, 1, 6);
  return path;
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
  Overwrite(path, OffsetOf(5) + kPrefix + kRecordHeader + 2, 1, '#');
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
  const std::string path = LogOfSixRecords(dir);
  CommitLogTail tail;
  for (const uint64_t at : {OffsetOf(3) + kPrefix + kRecordHeader + 2,  // a payload byte of 3
                            OffsetOf(3) + kPrefix + 16,  // its length: the entry cannot be skipped
                            OffsetOf(3) + 1,             // its prefix
                            OffsetOf(3) + 9}) {          // its append's extent

    SCOPED_TRACE(at);
    const std::string before = ReadFile(path);
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
    torn = EntryV4(log->generation(), 5, "a new record 5, never acknowledged", 0, 0);
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

// A log always extends past its last entry (grown and synced before the entry is
// written), so a file that ends right after an entry, a few bytes later, or inside one whose
// prefix checks out was cut: a copy that stopped early, a truncation. The open refuses it
// instead of taking the end for a torn append and losing the acknowledged records the cut
// took without a word (until 2026-12-06); the operator's cut accepts it. Damage within the
// file's size, as a crash leaves it, is still a torn append (the test above).
TEST(CommitLogTest, AFileCutShortIsDataLossNotATornAppend) {
  TestDir dir;
  const std::string path = LogOfSixRecords(dir);
  CommitLogTail tail;
  const std::string whole = path + ".whole";
  std::filesystem::copy_file(path, whole);
  ASSERT_GE(std::filesystem::file_size(path), OffsetOf(7) + kPrefix + kRecordHeader);
  struct Cut {
    uint64_t at;
    uint64_t last;  // the last record before it
  };
  for (const Cut& cut :
       {Cut{OffsetOf(7), 6}, Cut{OffsetOf(7) + 5, 6},
        Cut{OffsetOf(6) + kPrefix + kRecordHeader + 3, 5}, Cut{OffsetOf(6) + 4, 5}}) {
    SCOPED_TRACE(cut.at);
    std::filesystem::copy_file(whole, path, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::resize_file(path, cut.at);
    for (bool read_only : {true, false}) {
      auto log = CommitLog::Open({.path = path, .read_only = read_only}, 0, &tail);
      ASSERT_TRUE(absl::IsDataLoss(log.status())) << log.status();
      EXPECT_THAT(log.status().message(), HasSubstr("cut short"));
      EXPECT_THAT(log.status().message(), HasSubstr(absl::StrCat("after record ", cut.last)));
    }
    auto accepted =
        CommitLog::Open({.path = path, .read_only = true, .stop_at_damage = true}, 0, &tail);
    ASSERT_TRUE(accepted.ok()) << accepted.status();
    EXPECT_EQ(tail.last, cut.last);
    EXPECT_EQ(tail.cut_short_at, cut.at);
  }
}

// A log written by the first version (each entry's prefix the bare generation) is read as it
// is; appends wait for the restart every writable open makes, which writes version 4.
TEST(CommitLogTest, AVersionOneLogIsReadAndRestartedAsTheCurrentVersion) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  std::string file = LogHeader(1, 7);  // generation 7
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
    EXPECT_EQ(log->Append(&entry).code(), absl::StatusCode::kFailedPrecondition);
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

// A reader beside a running writer asks for LMDB's last only once it holds the log's bytes.
// Here the writer copies records 1..4 into LMDB, restarts the log and appends 5..8 while the
// reader is between the two reads: the reader finds nothing past LMDB's 4 (a prefix of the
// journal, as of its read) instead of a log that seems to start at 5 after LMDB's 0.
TEST(CommitLogTest, AReaderAsksForLmdbsLastAfterReadingSoARestartBetweenCannotSkipRecords) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  CommitLogTail tail;
  auto writer = OpenLog(path, 0, &tail);
  ASSERT_TRUE(writer);
  AppendSeqs(*writer, 1, 4);
  uint64_t lmdb_last = 0;
  int asked = 0;
  auto read = CommitLog::Open(
      {.path = path, .read_only = true},
      [&]() -> absl::StatusOr<uint64_t> {
        ++asked;
        lmdb_last = 4;  // the copier's commit of 1..4
        if (absl::Status s = writer->Restart(); !s.ok()) return s;
        AppendSeqs(*writer, 5, 8);
        return lmdb_last;
      },
      &tail);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(tail.records, 0u);
  EXPECT_EQ(tail.last, 4u);
  // The next read finds the new generation's records after LMDB's 4.
  ASSERT_TRUE(CommitLog::Open({.path = path, .read_only = true}, lmdb_last, &tail).ok());
  EXPECT_EQ(tail.records, 4u);
  EXPECT_EQ(tail.last, 8u);
  // An error from the question is the open's, and an absent log is asked too.
  auto failed = CommitLog::Open(
      {.path = path, .read_only = true},
      []() -> absl::StatusOr<uint64_t> { return absl::InternalError("lmdb: begin read"); }, &tail);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kInternal);
  auto absent = CommitLog::Open(
      {.path = dir.path() + "/none", .read_only = true},
      []() -> absl::StatusOr<uint64_t> { return 9; }, &tail);
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(tail.last, 9u);
}

}  // namespace
}  // namespace cfx::journal::commit_log_testing
