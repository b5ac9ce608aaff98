// The commit log's version 4 (docs/durability.md, "An append torn out of order"): the bytes
// each entry is written as, an append whose sectors reached the disk out of order read as a
// torn append and what is refused still, the end of a clean log after a restart, and the
// version-3 logs it still reads. The rest of the file's tests: commit_log_test.cc.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "commit_log_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_dir.h"

namespace cfx::journal::commit_log_testing {  // with the helpers they share
namespace {

using ::testing::HasSubstr;

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
}  // namespace cfx::journal::commit_log_testing
