#include "cfx/journal/journal.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_dir.h"

namespace cfx::journal {
namespace {

using ::testing::HasSubstr;

std::string Payload(uint64_t i) { return absl::StrFormat("PAYLOAD-%08d-%s", i, std::string(40, 'x')); }

absl::Status AppendRange(Journal& j, uint64_t from, uint64_t to, size_t batch = 7) {
  std::vector<std::string> owned;
  std::vector<absl::string_view> views;
  for (uint64_t i = from; i <= to; ++i) {
    owned.push_back(Payload(i));
    if (owned.size() == batch || i == to) {
      views.assign(owned.begin(), owned.end());
      auto last = j.AppendBatch(views);
      if (!last.ok()) return last.status();
      owned.clear();
    }
  }
  return absl::OkStatus();
}

std::vector<std::pair<uint64_t, std::string>> ReadAll(const Journal& j, uint64_t from,
                                                      absl::Status* status) {
  std::vector<std::pair<uint64_t, std::string>> out;
  *status = j.ReadFrom(from, [&](uint64_t seq, absl::string_view p) {
    out.emplace_back(seq, std::string(p));
    return true;
  });
  return out;
}

// Flips one byte at `offset` in every copy of `pattern` in `file` (LMDB copies pages on
// write, so stale copies sit in free pages beside the live one). Returns the copies flipped.
int FlipEveryCopy(const std::string& file, const std::string& pattern, size_t offset) {
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  int flipped = 0;
  for (size_t at = bytes.find(pattern); at != std::string::npos;
       at = bytes.find(pattern, at + 1)) {
    bytes[at + offset] ^= 0x40;
    ++flipped;
  }
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), bytes.size());
  return flipped;
}

// defer_commit_sync: a commit's records are synced but the commit itself (LMDB's meta
// page) only by the next commit or Sync, so DurableSeq trails LastSeq by one commit.
TEST(JournalTest, WithOneFlushPerCommitDurableSeqTrailsByOneCommitUntilSync) {
  TestDir dir;
  {
    auto j = *Journal::Open({.data_dir = dir.path(), .defer_commit_sync = true});
    std::vector<absl::string_view> three = {"a", "b", "c"}, two = {"d", "e"};
    EXPECT_EQ(*j->AppendBatch(three), 3u);
    EXPECT_EQ(j->LastSeq(), 3u);
    EXPECT_EQ(j->DurableSeq(), 0u);
    EXPECT_EQ(*j->AppendBatch(two), 5u);
    EXPECT_EQ(j->DurableSeq(), 3u);  // this commit's flush carried the previous one
    ASSERT_TRUE(j->Sync().ok());
    EXPECT_EQ(j->DurableSeq(), 5u);
    ASSERT_TRUE(j->Sync().ok());  // nothing left: no flush, same answer
    EXPECT_EQ(*j->AppendBatch(two), 7u);
    EXPECT_EQ(j->DurableSeq(), 5u);
    ASSERT_TRUE(j->TruncateAfter(6).ok());  // an operator's cut is durable at once
    EXPECT_EQ(j->LastSeq(), 6u);
    EXPECT_EQ(j->DurableSeq(), 6u);
    EXPECT_EQ(*j->AppendBatch(two), 8u);  // closed with the last commit deferred
  }
  auto j = *Journal::Open({.data_dir = dir.path(), .defer_commit_sync = true});
  EXPECT_EQ(j->LastSeq(), 8u);
  EXPECT_EQ(j->DurableSeq(), 8u);  // what a previous process wrote is synced at open
  EXPECT_TRUE(j->Verify().ok());
  // Without the option every commit is durable on return.
  TestDir plain_dir;
  auto plain = *Journal::Open({.data_dir = plain_dir.path()});
  std::vector<absl::string_view> one = {"x"};
  EXPECT_EQ(*plain->AppendBatch(one), 1u);
  EXPECT_EQ(plain->DurableSeq(), 1u);
}

TEST(JournalTest, GroupCommitAssignsConsecutiveSeqsAndPersistsAcrossReopen) {
  TestDir dir;
  {
    auto j = Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(j.ok()) << j.status();
    EXPECT_EQ((*j)->LastSeq(), 0u);
    std::vector<std::string> a = {"one", "two", "three"};
    std::vector<absl::string_view> va(a.begin(), a.end());
    EXPECT_EQ(*(*j)->AppendBatch(va), 3u);
    EXPECT_EQ(*(*j)->AppendBatch({}), 3u);  // empty batch: nothing written
    std::vector<absl::string_view> vb = {"four", ""};
    EXPECT_EQ(*(*j)->AppendBatch(vb), 5u);
    EXPECT_EQ((*j)->LastSeq(), 5u);
  }
  auto j = Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ((*j)->LastSeq(), 5u);
  absl::Status s;
  auto all = ReadAll(**j, 1, &s);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0], std::make_pair(uint64_t{1}, std::string("one")));
  EXPECT_EQ(all[3], std::make_pair(uint64_t{4}, std::string("four")));
  EXPECT_EQ(all[4], std::make_pair(uint64_t{5}, std::string("")));
  auto tail = ReadAll(**j, 4, &s);
  ASSERT_EQ(tail.size(), 2u);
  EXPECT_EQ(tail[0].first, 4u);
  EXPECT_TRUE(ReadAll(**j, 6, &s).empty());
  auto stats = (*j)->Verify();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->records, 5u);
  EXPECT_EQ(stats->first_seq, 1u);
  EXPECT_EQ(stats->last_seq, 5u);
}

TEST(JournalTest, ReadFromStopsWhenCallbackReturnsFalse) {
  TestDir dir;
  auto j = *Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(AppendRange(*j, 1, 20).ok());
  int calls = 0;
  ASSERT_TRUE(j->ReadFrom(3, [&](uint64_t, absl::string_view) { return ++calls < 4; }).ok());
  EXPECT_EQ(calls, 4);
}

TEST(JournalTest, CorruptRecordIsReportedWithItsSeqAndNeverDelivered) {
  TestDir dir;
  auto j = *Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(AppendRange(*j, 1, 5).ok());
  std::string bad = Journal::EncodeRecordForTest(3, Payload(3));
  bad[bad.size() - 1] ^= 0x01;  // one bit of the payload
  ASSERT_TRUE(j->WriteRawRecordForTest(3, bad).ok());

  absl::Status s;
  auto got = ReadAll(*j, 1, &s);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "journal record 3: checksum mismatch");
  ASSERT_EQ(got.size(), 2u);  // 1 and 2 only
  EXPECT_EQ(j->Verify().status().message(), "journal record 3: checksum mismatch");
}

TEST(JournalTest, BadLengthAndMisplacedRecordsAreDataLoss) {
  TestDir dir;
  auto j = *Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(AppendRange(*j, 1, 2).ok());
  ASSERT_TRUE(j->WriteRawRecordForTest(3, "short").ok());
  auto s = j->Verify().status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(s.message(), HasSubstr("journal record 3: bad length"));

  std::string truncated = Journal::EncodeRecordForTest(3, Payload(3));
  truncated.resize(truncated.size() - 5);  // header length no longer matches
  ASSERT_TRUE(j->WriteRawRecordForTest(3, truncated).ok());
  EXPECT_THAT(j->Verify().status().message(), HasSubstr("journal record 3: bad length"));

  ASSERT_TRUE(j->WriteRawRecordForTest(3, Journal::EncodeRecordForTest(9, "x")).ok());
  EXPECT_THAT(j->Verify().status().message(), HasSubstr("journal record 3: seq mismatch"));
}

TEST(JournalTest, GapInSequenceIsDetected) {
  TestDir dir;
  auto j = *Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(AppendRange(*j, 1, 2).ok());
  ASSERT_TRUE(j->WriteRawRecordForTest(4, Journal::EncodeRecordForTest(4, "four")).ok());
  auto s = j->Verify().status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "journal record 3: missing (gap; next record is 4)");
  // A journal whose first record is not 1 is a gap too.
  TestDir dir2;
  auto j2 = *Journal::Open({.data_dir = dir2.path()});
  ASSERT_TRUE(j2->WriteRawRecordForTest(2, Journal::EncodeRecordForTest(2, "two")).ok());
  EXPECT_THAT(j2->Verify().status().message(), HasSubstr("journal record 1: missing"));
}

// Flips one byte of record 3's payload inside data.mdb itself, behind LMDB's back.
TEST(JournalTest, ByteFlippedInDataFileIsDetectedOnReopen) {
  TestDir dir;
  {
    auto j = *Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(AppendRange(*j, 1, 10).ok());
  }
  ASSERT_GT(FlipEveryCopy(dir.path() + "/journal/data.mdb", Payload(3), 20), 0);
  auto j = Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(j.ok()) << j.status();
  auto s = (*j)->Verify().status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "journal record 3: checksum mismatch");
}

TEST(JournalTest, TruncatedOrGarbageDataFileGivesCleanErrorNotCrash) {
  TestDir dir;
  {
    auto j = *Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(AppendRange(*j, 1, 3000, 100).ok());
  }
  const std::string file = dir.path() + "/journal/data.mdb";
  const auto size = std::filesystem::file_size(file);
  std::filesystem::resize_file(file, size / 2);
  auto j = Journal::Open({.data_dir = dir.path()});
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(j.status().message(), HasSubstr(file));
  EXPECT_THAT(j.status().message(), HasSubstr("truncated"));

  std::filesystem::resize_file(file, 100);
  j = Journal::Open({.data_dir = dir.path()});
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(j.status().message(), HasSubstr(dir.path() + "/journal"));

  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << std::string(16384, 'z');
  }
  j = Journal::Open({.data_dir = dir.path()});
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(j.status().message(), HasSubstr(dir.path() + "/journal"));
}

TEST(JournalTest, UnwritableDataDirIsAClearErrorNamingThePath) {
  TestDir dir;
  const std::string file = dir.path() + "/not_a_dir";
  std::ofstream(file) << "x";
  auto j = Journal::Open({.data_dir = file + "/data"});
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(j.status().message(), HasSubstr(file + "/data/journal"));

  auto absent = Journal::Open({.data_dir = dir.path() + "/absent", .read_only = true});
  EXPECT_EQ(absent.status().code(), absl::StatusCode::kNotFound);
}

TEST(JournalTest, MapFullIsReportedAndNothingOfTheBatchIsWritten) {
  TestDir dir;
  auto j = *Journal::Open({.data_dir = dir.path(), .map_size_bytes = 1 << 20});
  std::string big(1000, 'b');
  std::vector<absl::string_view> batch(50, big);
  absl::Status failure;
  uint64_t acknowledged = 0;  // the last seq an AppendBatch returned
  for (int i = 0; i < 100 && failure.ok(); ++i) {
    auto last = j->AppendBatch(batch);
    if (last.ok()) acknowledged = *last;
    failure = last.status();
  }
  ASSERT_FALSE(failure.ok());
  EXPECT_EQ(failure.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(failure.message(), HasSubstr("map full"));
  EXPECT_THAT(failure.message(), HasSubstr(dir.path() + "/journal"));
  EXPECT_GT(acknowledged, 0u);
  EXPECT_EQ(j->LastSeq(), acknowledged);  // whole batches only
  auto stats = j->Verify();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->last_seq, acknowledged);
  // Reopened, it holds exactly the acknowledged batches, every record intact.
  j.reset();
  auto reopened = Journal::Open({.data_dir = dir.path(), .map_size_bytes = 1 << 20});
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  stats = (*reopened)->Verify();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->records, acknowledged);
  EXPECT_EQ(stats->last_seq, acknowledged);
  EXPECT_EQ(stats->payload_bytes, acknowledged * big.size());
}

TEST(JournalTest, SnapshotsKeepTheNewestFewAndSkipCorruptOnes) {
  TestDir dir;
  auto j = *Journal::Open({.data_dir = dir.path(), .keep_snapshots = 2});
  ASSERT_TRUE(AppendRange(*j, 1, 30).ok());
  EXPECT_FALSE((*j->LatestValidSnapshot()).has_value());
  ASSERT_TRUE(j->WriteSnapshot(10, "SNAPSHOT-AT-10").ok());
  ASSERT_TRUE(j->WriteSnapshot(20, "SNAPSHOT-AT-20").ok());
  ASSERT_TRUE(j->WriteSnapshot(30, "SNAPSHOT-AT-30").ok());
  auto latest = *j->LatestValidSnapshot();
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->seq, 30u);
  EXPECT_EQ(latest->state, "SNAPSHOT-AT-30");
  j.reset();

  // Corrupt the newest in the file: recovery falls back to the older one.
  const std::string file = dir.path() + "/journal/snapshots/data.mdb";
  ASSERT_GT(FlipEveryCopy(file, "SNAPSHOT-AT-30", 0), 0);
  j = *Journal::Open({.data_dir = dir.path(), .keep_snapshots = 2});
  int skipped = 0;
  latest = *j->LatestValidSnapshot(&skipped);
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->seq, 20u);
  EXPECT_EQ(skipped, 1);
  j.reset();
  // With 20 corrupt too nothing is left: 10 was pruned when 30 was written.
  ASSERT_GT(FlipEveryCopy(file, "SNAPSHOT-AT-20", 0), 0);
  j = *Journal::Open({.data_dir = dir.path(), .keep_snapshots = 2});
  latest = *j->LatestValidSnapshot(&skipped);
  EXPECT_FALSE(latest.has_value());
  EXPECT_EQ(skipped, 2);
}

// The snapshots are a cache of the journal: their data.mdb at 0 bytes (LMDB writes a new
// file's first pages without a flush) is taken as no snapshot, read-only and writable alike,
// and a writer makes a new store; the journal's own records are refused at 0 bytes
// (storage::LmdbEnv), as any store of record is.
TEST(JournalTest, AnEmptySnapshotFileIsNoSnapshotNotAFailedOpen) {
  TestDir dir;
  {
    auto j = *Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(AppendRange(*j, 1, 5).ok());
    ASSERT_TRUE(j->WriteSnapshot(5, "SNAPSHOT-AT-5").ok());
  }
  const std::string file = dir.path() + "/journal/snapshots/data.mdb";
  std::filesystem::resize_file(file, 0);
  {
    auto reader = Journal::Open({.data_dir = dir.path(), .read_only = true});
    ASSERT_TRUE(reader.ok()) << reader.status();
    EXPECT_FALSE((*(*reader)->LatestValidSnapshot()).has_value());
    EXPECT_EQ(std::filesystem::file_size(file), 0u) << "a reader changes nothing";
  }
  auto j = Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_FALSE((*(*j)->LatestValidSnapshot()).has_value());
  EXPECT_EQ((*j)->LastSeq(), 5u);
  ASSERT_TRUE((*j)->WriteSnapshot(5, "SNAPSHOT-AT-5").ok());
  EXPECT_EQ((*(*j)->LatestValidSnapshot())->state, "SNAPSHOT-AT-5");
}

// A snapshot store that is not LMDB or was cut short (a power loss right after it was made
// can leave its first pages half written) is moved aside by a writer, which makes a new one:
// snapshots are a cache. Until 2026-12-07 only a 0-byte file was taken so, and anything
// else refused every start (a review). A reader still says it cannot read them.
TEST(JournalTest, ADamagedSnapshotStoreIsMovedAsideByAWriter) {
  for (const uintmax_t keep : {uintmax_t{100}, uintmax_t{4096}}) {
    SCOPED_TRACE(keep);
    TestDir dir;
    {
      auto j = *Journal::Open({.data_dir = dir.path()});
      ASSERT_TRUE(AppendRange(*j, 1, 5).ok());
      ASSERT_TRUE(j->WriteSnapshot(5, "SNAPSHOT-AT-5").ok());
    }
    const std::string file = dir.path() + "/journal/snapshots/data.mdb";
    std::filesystem::resize_file(file, keep);
    ::testing::internal::CaptureStderr();
    auto j = Journal::Open({.data_dir = dir.path()});
    const std::string said = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(j.ok()) << j.status();
    EXPECT_NE(said.find("moved aside"), std::string::npos) << said;
    EXPECT_EQ((*j)->LastSeq(), 5u);
    EXPECT_FALSE((*(*j)->LatestValidSnapshot()).has_value());
    ASSERT_TRUE((*j)->WriteSnapshot(5, "SNAPSHOT-AT-5").ok());
    EXPECT_EQ((*(*j)->LatestValidSnapshot())->state, "SNAPSHOT-AT-5");
    size_t aside = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path() + "/journal/snapshots")) {
      aside += e.path().filename().string().rfind("data.mdb.damaged-", 0) == 0;
    }
    EXPECT_EQ(aside, 1u) << "the damaged file is kept, aside";
  }
}

// A snapshot past the journal's end (taken of inputs only a commit log held, which was then
// lost or cut) is deleted by the next writable open: the inputs sequenced after it reuse its
// seq, and once the journal reached it again it was taken for their state (a review,
// 2026-12-07). It is never counted as corrupt.
TEST(JournalTest, ASnapshotPastTheJournalsEndIsDeletedAtAWritableOpen) {
  TestDir dir;
  {
    auto j = *Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(AppendRange(*j, 1, 5).ok());
    ASSERT_TRUE(j->WriteSnapshot(3, "SNAPSHOT-AT-3").ok());
    ASSERT_TRUE(j->WriteSnapshot(8, "OF-INPUTS-THE-JOURNAL-LOST").ok());
    int skipped = -1;
    EXPECT_EQ((*j->LatestValidSnapshot(&skipped))->seq, 3u);
    EXPECT_EQ(skipped, 0);
  }
  {
    auto reader = *Journal::Open({.data_dir = dir.path(), .read_only = true});
    EXPECT_EQ((*reader->LatestValidSnapshot())->seq, 3u);
  }
  auto j = *Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(AppendRange(*j, 6, 10).ok());
  int skipped = -1;
  auto latest = *j->LatestValidSnapshot(&skipped);
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->seq, 3u);
  EXPECT_EQ(latest->state, "SNAPSHOT-AT-3");
  EXPECT_EQ(skipped, 0);
}

TEST(JournalTest, TruncateAfterCutsRecordsAndLaterSnapshots) {
  TestDir dir;
  auto j = *Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(AppendRange(*j, 1, 12).ok());
  ASSERT_TRUE(j->WriteSnapshot(5, "five").ok());
  ASSERT_TRUE(j->WriteSnapshot(10, "ten").ok());
  ASSERT_TRUE(j->TruncateAfter(7).ok());
  EXPECT_EQ(j->LastSeq(), 7u);
  EXPECT_EQ(j->Verify()->records, 7u);
  EXPECT_EQ((*j->LatestValidSnapshot())->seq, 5u);
  ASSERT_TRUE(AppendRange(*j, 8, 9).ok());  // appending continues at 8
  EXPECT_EQ(j->Verify()->last_seq, 9u);
}

}  // namespace
}  // namespace cfx::journal
