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
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "record_format.h"
#include "test_dir.h"

namespace cfx::journal {
namespace {

using internal::CommitLog;
using internal::CommitLogTail;
using ::testing::HasSubstr;

// Appends one entry per seq in [from, to], one Append each.
void AppendSeqs(CommitLog& log, uint64_t from, uint64_t to, int round = 0) {
  for (uint64_t seq = from; seq <= to; ++seq) {
    std::string entries;
    log.EncodeEntry(seq, Payload(seq, round), &entries);
    ASSERT_TRUE(log.Append(&entries).ok());
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

constexpr uint64_t kPrefix = internal::kCommitLogEntryPrefix;  // 16 (version 4)
constexpr uint64_t kRecordHeader = internal::kHeaderSize;      // 24

// Offset of the entry for `seq` when seqs 1.. were appended from the start.
uint64_t OffsetOf(uint64_t seq) {
  uint64_t at = internal::kCommitLogHeaderSize;
  for (uint64_t s = 1; s < seq; ++s) at += kPrefix + kRecordHeader + Payload(s).size();
  return at;
}

// A commit log's 4,096-byte header of `version` and `generation` (docs/formats.md).
std::string LogHeader(uint16_t version, uint64_t generation) {
  std::string header(internal::kCommitLogHeaderSize, '\0');
  internal::PutLe(header.data(), 0x4C584643, 4);  // "CFXL"
  internal::PutLe(header.data() + 4, version, 2);
  internal::PutLe(header.data() + 8, generation, 8);
  internal::PutLe(header.data() + 16, Crc32c(header.data(), 16), 4);
  return header;
}

// One entry as version 4 writes it, written by hand from docs/formats.md: the generation's
// low 32 bits, the CRC-32C of the generation, the prefix's bytes 8..15 and the record's
// header, then how far back the entry's append begins and how far ahead it ends.
std::string EntryV4(uint64_t generation, uint64_t seq, absl::string_view payload, uint32_t back,
                    uint32_t ahead) {
  const std::string value = internal::EncodeValue(internal::kRecordMagic, seq, payload);
  std::string prefix(kPrefix, '\0');
  internal::PutLe(prefix.data(), generation & 0xFFFFFFFF, 4);
  internal::PutLe(prefix.data() + 8, back, 4);
  internal::PutLe(prefix.data() + 12, ahead, 4);
  char gen[8];
  internal::PutLe(gen, generation, 8);
  const uint32_t crc =
      Crc32cExtend(Crc32cExtend(Crc32c(gen, 8), prefix.data() + 8, 8), value.data(), kRecordHeader);
  internal::PutLe(prefix.data() + 4, crc, 4);
  return prefix + value;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

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

// The entries the writer leaves are docs/formats.md's, byte for byte: an entry alone in its
// append, and the two entries of one append, each with its append's extent.
TEST(CommitLogTest, TheWrittenEntriesAreTheFormatsByteForByte) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  CommitLogTail tail;
  uint64_t generation = 0;
  {
    auto log = OpenLog(path, 0, &tail);
    ASSERT_TRUE(log);
    generation = log->generation();
    AppendSeqs(*log, 1, 1);
    std::string entries;
    log->EncodeEntry(2, Payload(2), &entries);
    log->EncodeEntry(3, Payload(3), &entries);
    ASSERT_TRUE(log->Append(&entries).ok());
  }
  const std::string file = ReadFile(path);
  EXPECT_EQ(file.substr(0, internal::kCommitLogHeaderSize), LogHeader(4, generation));
  const auto size = [](uint64_t seq) {
    return static_cast<uint32_t>(kPrefix + kRecordHeader + Payload(seq).size());
  };
  EXPECT_EQ(file.substr(OffsetOf(1), size(1)), EntryV4(generation, 1, Payload(1), 0, size(1)));
  EXPECT_EQ(file.substr(OffsetOf(2), size(2)),
            EntryV4(generation, 2, Payload(2), 0, size(2) + size(3)));
  EXPECT_EQ(file.substr(OffsetOf(3), size(3)),
            EntryV4(generation, 3, Payload(3), size(2), size(3)));
  EXPECT_EQ(file.substr(OffsetOf(4), kPrefix), std::string(kPrefix, '\0'))
      << "zeros after the last append, written with it";
}

// Records for the sector tests: 1,000-byte payloads, so that each entry (1,040 bytes) spans
// sectors. Entry k (1-based) begins at BigOffsetOf(k) when 1.. were appended from the start.
constexpr uint64_t kSector = 512;
constexpr uint64_t kBigEntry = kPrefix + kRecordHeader + 1000;
std::string BigPayload(uint64_t seq) { return std::string(1000, static_cast<char>('a' + seq)); }
uint64_t BigOffsetOf(uint64_t seq) {
  return internal::kCommitLogHeaderSize + (seq - 1) * kBigEntry;
}

// A log `name` in `dir` holding records 1 and 2 (an append each), 3..6 (one append) and, with
// `then_seven`, 7 (an append after it), all BigPayload; returns its path. *before: the file
// as it was before the append of 3..6 (what its sectors hold if that write never lands).
std::string LogWithABatchOfBigRecords(const TestDir& dir, const std::string& name, bool then_seven,
                                      std::string* before) {
  const std::string path = dir.path() + "/" + name;
  CommitLogTail tail;
  auto log = OpenLog(path, 0, &tail);
  EXPECT_TRUE(log);
  if (!log) return path;
  const auto append = [&](uint64_t from, uint64_t to) {
    std::string entries;
    for (uint64_t seq = from; seq <= to; ++seq) log->EncodeEntry(seq, BigPayload(seq), &entries);
    EXPECT_TRUE(log->Append(&entries).ok());
  };
  append(1, 1);
  append(2, 2);
  *before = ReadFile(path);
  append(3, 6);
  if (then_seven) append(7, 7);
  return path;
}

// Puts back the sectors [first, first + count) of `path` as `before` holds them: a write that
// never reached them.
void RevertSectors(const std::string& path, const std::string& before, uint64_t first,
                   uint64_t count) {
  const int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  const uint64_t at = first * kSector, n = count * kSector;
  ASSERT_EQ(pwrite(fd, before.data() + at, n, static_cast<off_t>(at)), static_cast<ssize_t>(n));
  close(fd);
}

// A power loss in the middle of one append can leave a later sector of it on the disk and an
// earlier one not (a file's pages, and a page's sectors, reach the disk in any order; a sector
// is written whole or not at all). Nothing of that append was acknowledged (an append is
// acknowledged once all of it is synced), so with nothing of a later append after it, the
// open reports a torn append where the damage begins and reads what came before it, as for
// an append cut short. Until version 4 the log could not tell this from damage inside
// acknowledged records, and `cfx serve` refused to start until the operator cut the log.
// Refused still: damage inside an append that a later append follows (the later one was
// written only once the earlier one was synced), damage in an earlier append (the guard that
// the intact entry's append began at or before the damage), and damage in the sector the
// intact entry begins in (that sector was written: the damage came after).
TEST(CommitLogTest, AnAppendWhoseSectorsReachedTheDiskOutOfOrderIsTornNotDataLoss) {
  TestDir dir;
  std::string before;
  const std::string path = LogWithABatchOfBigRecords(dir, "commit.log", false, &before);
  const std::string whole = ReadFile(path);
  const auto restore = [&] {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << whole;
  };
  CommitLogTail tail;
  struct Loss {
    uint64_t first, count;  // the sectors the append's write never reached
    uint64_t last;          // the last record read
  };
  const uint64_t s3 = BigOffsetOf(3) / kSector, s4 = BigOffsetOf(4) / kSector;
  const uint64_t s6 = BigOffsetOf(6) / kSector;
  for (const Loss& loss : {Loss{s4 + 1, 1, 3},        // inside record 4
                           Loss{s3, s4 - s3 + 1, 2},  // 3's start to 4's start
                           Loss{s3, s6 - s3, 2}}) {   // all but the sector 6 begins in
    SCOPED_TRACE(absl::StrCat("sectors ", loss.first, "+", loss.count));
    restore();
    RevertSectors(path, before, loss.first, loss.count);
    for (const bool read_only : {true, false}) {
      auto log = CommitLog::Open({.path = path, .read_only = read_only}, 0, &tail);
      ASSERT_TRUE(log.ok()) << log.status();
      EXPECT_EQ(tail.last, loss.last);
      EXPECT_EQ(tail.records, loss.last);
      EXPECT_EQ(tail.torn_at, BigOffsetOf(loss.last + 1)) << "reported where the damage begins";
      EXPECT_EQ(tail.damaged_at, 0u);
      if (!read_only) {
        // Appending in this generation would leave records 5 and 6 readable after the new
        // ones: the log is restarted first.
        std::string entry;
        (*log)->EncodeEntry(loss.last + 1, Payload(loss.last + 1, 1), &entry);
        EXPECT_EQ((*log)->Append(&entry).code(), absl::StatusCode::kFailedPrecondition);
        ASSERT_TRUE((*log)->Restart().ok());  // LMDB would hold 1..last by now
        AppendSeqs(**log, loss.last + 1, loss.last + 1, 1);
      }
    }
    ASSERT_TRUE(OpenLog(path, loss.last, &tail));
    EXPECT_EQ(tail.records, 1u) << "only the record appended after the restart";
    EXPECT_EQ(tail.torn_at, 0u);
  }
  const auto expect_refused = [&](const std::string& log, const std::string& what) {
    SCOPED_TRACE(what);
    auto refused = CommitLog::Open({.path = log, .read_only = true}, 0, &tail);
    ASSERT_TRUE(absl::IsDataLoss(refused.status())) << refused.status();
  };
  // The same loss with an append after the torn one.
  const std::string later = LogWithABatchOfBigRecords(dir, "later.log", true, &before);
  RevertSectors(later, before, s4 + 1, 1);
  expect_refused(later, "an append follows");
  std::filesystem::resize_file(later, BigOffsetOf(7) + 100);  // its record cut, its prefix whole
  expect_refused(later, "the prefix of an append follows");
  // A sector inside record 2, an append of its own before the batch: 3..6 follow it intact.
  restore();
  Overwrite(path, (BigOffsetOf(2) / kSector + 1) * kSector, kSector, '\0');
  expect_refused(path, "an earlier append");
  // Small entries: one byte of record 4 damaged in the sector record 5 begins in.
  const std::string small = dir.path() + "/small.log";
  {
    auto log = OpenLog(small, 0, &tail);
    ASSERT_TRUE(log);
    AppendSeqs(*log, 1, 2);
    std::string entries;  // 3..6 in one append
    for (uint64_t seq = 3; seq <= 6; ++seq) log->EncodeEntry(seq, Payload(seq), &entries);
    ASSERT_TRUE(log->Append(&entries).ok());
  }
  ASSERT_EQ(OffsetOf(4) / kSector, OffsetOf(5) / kSector);
  Overwrite(small, OffsetOf(4) + kPrefix + kRecordHeader + 1, 1, '#');
  expect_refused(small, "damage in the sector the intact entry begins in");
  // Record 4's prefix and header end one sector, its payload and record 5 begin the next: a
  // damaged byte of that payload lies in the sector record 5 begins in (entries of 164, 164,
  // 164, then 50 bytes: record 4 at 4,588, its payload at 4,628, record 5 at 4,638).
  const std::string straddle = dir.path() + "/straddle.log";
  {
    auto log = OpenLog(straddle, 0, &tail);
    ASSERT_TRUE(log);
    const std::vector<std::string> payloads = {std::string(124, 'a'), std::string(124, 'b'),
                                               std::string(124, 'c'), std::string(10, 'd'),
                                               std::string(20, 'e'),  std::string(20, 'f')};
    for (uint64_t seq = 1; seq <= 2; ++seq) {
      std::string entry;
      log->EncodeEntry(seq, payloads[seq - 1], &entry);
      ASSERT_TRUE(log->Append(&entry).ok());
    }
    std::string entries;
    for (uint64_t seq = 3; seq <= 6; ++seq) log->EncodeEntry(seq, payloads[seq - 1], &entries);
    ASSERT_TRUE(log->Append(&entries).ok());
  }
  ASSERT_EQ(ReadFile(straddle).substr(4628, 10), std::string(10, 'd'));
  Overwrite(straddle, 4630, 1, '#');
  expect_refused(straddle, "a payload that begins in the sector the intact entry begins in");
}

// After a restart the file still holds the earlier generation's bytes past the new entries,
// and four of them can name the new generation by chance (a seq, a length). Where the
// entries end, the open then saw an entry begun by this generation and reported a torn
// append at the end of a clean log (the line `cfx serve` prints at start). Each append now
// writes zeros after its entries in the same write.
TEST(CommitLogTest, TheEndOfACleanLogIsNotReportedTornWhateverAnEarlierGenerationLeftThere) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  CommitLogTail tail;
  {
    auto log = OpenLog(path, 0, &tail);
    ASSERT_TRUE(log);
    AppendSeqs(*log, 1, 6);
    ASSERT_TRUE(log->Restart().ok());  // LMDB would hold 1..6 by now
    // What the earlier generation left where record 7's entry will end: the new generation's
    // number (an old seq or length of that value, say).
    std::string stale(4, '\0');
    internal::PutLe(stale.data(), log->generation() & 0xFFFFFFFF, 4);
    const uint64_t end =
        internal::kCommitLogHeaderSize + kPrefix + kRecordHeader + Payload(7).size();
    const int fd = open(path.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(pwrite(fd, stale.data(), stale.size(), static_cast<off_t>(end)), 4);
    close(fd);
    AppendSeqs(*log, 7, 7);
  }
  ASSERT_TRUE(OpenLog(path, 6, &tail));
  EXPECT_EQ(tail.last, 7u);
  EXPECT_EQ(tail.torn_at, 0u) << "a clean log's end is not a torn append";
}

// A log written by version 3 (8-byte prefixes: the generation's low 32 bits and the check
// over the generation and the record's header) is read as it is: its records, a torn last
// entry reported, damage with an intact entry after it refused (a version-3 entry does not
// say which append it is of), and appends wait for the restart to version 4.
TEST(CommitLogTest, AVersionThreeLogIsReadAndRestartedAsTheCurrentVersion) {
  TestDir dir;
  const std::string path = dir.path() + "/commit.log";
  std::string file = LogHeader(3, 9);
  std::vector<uint64_t> offsets;
  for (uint64_t seq = 1; seq <= 4; ++seq) {
    offsets.push_back(file.size());
    const std::string value = internal::EncodeValue(internal::kRecordMagic, seq, Payload(seq));
    char prefix[8];
    char gen[8];
    internal::PutLe(gen, 9, 8);
    internal::PutLe(prefix, 9, 4);
    internal::PutLe(prefix + 4, Crc32cExtend(Crc32c(gen, 8), value.data(), kRecordHeader), 4);
    file.append(prefix, 8);
    file += value;
  }
  file.append(36, '\0');  // past version 3's tail guard (32 bytes), short of version 4's (40)
  const auto write = [&](const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  };
  write(file);
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  CommitLogTail tail;
  auto read = CommitLog::Open({.path = path, .read_only = true}, 0, &tail);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(tail.records, 4u);
  EXPECT_EQ(tail.last, 4u);
  read->reset();
  std::string torn = file;  // the last entry's payload damaged: torn, reported
  torn[offsets[3] + 8 + kRecordHeader + 1] ^= 1;
  write(torn);
  read = CommitLog::Open({.path = path, .read_only = true}, 0, &tail);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(tail.last, 3u);
  EXPECT_EQ(tail.torn_at, offsets[3]);
  read->reset();
  std::string damaged = file;  // the second entry's: record 3 follows intact
  damaged[offsets[1] + 8 + kRecordHeader + 1] ^= 1;
  write(damaged);
  read = CommitLog::Open({.path = path, .read_only = true}, 0, &tail);
  ASSERT_TRUE(absl::IsDataLoss(read.status())) << read.status();
  EXPECT_THAT(read.status().message(), HasSubstr("record 3 at byte"));
  write(file);
  {
    auto log = OpenLog(path, 0, &tail);
    ASSERT_TRUE(log);
    std::string entry;
    log->EncodeEntry(5, Payload(5), &entry);
    EXPECT_EQ(log->Append(&entry).code(), absl::StatusCode::kFailedPrecondition);
    ASSERT_TRUE(log->Restart().ok());
    AppendSeqs(*log, 5, 6);
  }
  ASSERT_TRUE(OpenLog(path, 4, &tail));
  EXPECT_EQ(tail.records, 2u);
  EXPECT_EQ(tail.last, 6u);
  EXPECT_EQ(ReadFile(path).substr(4, 2), std::string("\x04\x00", 2)) << "restarted as version 4";
}

}  // namespace
}  // namespace cfx::journal
