// `cfx journal verify|dump` on a data dir whose inputs a run left in the journal's commit log
// only (docs/durability.md, "The commit log"): the tools read them without taking them, and
// report how many there are. The run is a child that ends with _exit, as a kill -9 would
// (commit_log_child.h).
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/exchange/trade_recorder.h"
#include "cfx/journal/journal.h"
#include "cfx/storage/kv_store.h"
#include "cfx/trade_store/format.h"
#include "commit_log_child.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "run_cfx.h"
#include "temp_dir.h"

namespace cfx {
namespace {

using ::testing::HasSubstr;

nlohmann::json Verify(const std::string& dir) {
  testsupport::CfxResult r = testsupport::RunCfx("journal verify --data-dir " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto json = nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(json.is_discarded()) << r.output;
  return json;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Inputs "input 1;" .. "input n;" acknowledged and left in `dir`'s commit log only.
bool LeaveInputsInTheCommitLog(const std::string& dir, int n) {
  std::vector<std::string> inputs;
  for (int i = 1; i <= n; ++i) inputs.push_back(absl::StrCat("input ", i, ";"));
  return testsupport::LeaveInTheCommitLog(dir, inputs);
}

// The exchange's next start on `dir` is refused with DataLoss.
void ExpectTheNextStartIsRefused(const std::string& dir) {
  auto start = journal::Journal::Open({.data_dir = dir, .commit_log = true});
  ASSERT_FALSE(start.ok());
  EXPECT_TRUE(absl::IsDataLoss(start.status())) << start.status();
}

// The operator's cut (`verify --truncate-corrupt-tail`) on `dir`, as on an exchange that
// served FIX (its fix/ folder made first, so the cut records an ExecID generation).
testsupport::CfxResult CutAsAnExchangeThatServedFix(const std::string& dir) {
  std::filesystem::create_directory(dir + "/fix");
  return testsupport::RunCfx("journal verify --truncate-corrupt-tail --data-dir " + dir);
}

// Damages the commit log `log` inside the payload `text`: returns where the payload starts
// (npos, nothing damaged, when the log does not hold it).
size_t DamagePayload(const std::string& log, const std::string& text) {
  const size_t at = ReadBytes(log).find(text);
  if (at == std::string::npos) return at;
  std::fstream f(log, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(at + 2));
  f.put('#');
  return at;
}

TEST(JournalCliTest, VerifyAndDumpReadWhatOnlyTheCommitLogHoldsWithoutTakingIt) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  std::vector<std::string> inputs;
  for (int i = 1; i <= 40; ++i) inputs.push_back(absl::StrCat("input ", i));
  ASSERT_TRUE(testsupport::LeaveInTheCommitLog(dir.path(), inputs));

  for (int twice = 0; twice < 2; ++twice) {  // read-only: the second run sees the same
    nlohmann::json v = Verify(dir.path());
    EXPECT_EQ(v.value("ok", false), true) << v.dump();
    EXPECT_EQ(v.value("records", 0), 40) << v.dump();
    EXPECT_EQ(v.value("last_seq", 0), 40) << v.dump();
    EXPECT_EQ(v.value("from_commit_log", 0), 40) << v.dump();
  }
  testsupport::CfxResult dump =
      testsupport::RunCfx("journal dump --data-dir " + dir.path() + " --from 39");
  EXPECT_EQ(dump.exit_code, 0) << dump.output;
  EXPECT_THAT(dump.output, HasSubstr("\"seq\":39"));
  EXPECT_THAT(dump.output, HasSubstr("\"seq\":40"));

  // A writable open (the exchange's next start) puts them into LMDB: none left in the log.
  ASSERT_TRUE(journal::Journal::Open({.data_dir = dir.path()}).ok());
  nlohmann::json after = Verify(dir.path());
  EXPECT_EQ(after.value("records", 0), 40) << after.dump();
  EXPECT_EQ(after.value("from_commit_log", -1), 0) << after.dump();
}

// A data dir whose name is not UTF-8 (a Latin-1 é): `verify` and `dump` print it with
// U+FFFD for the byte. Until 2026-12-07 the JSON writer threw on it, the checking child died
// of the exception, and the parent reported a damaged LMDB page, then died the same way.
TEST(JournalCliTest, ADataDirNamedInLatin1IsPrintedNotACrash) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  const std::string latin1 = dir.path() + "/d\xe9";
  ASSERT_TRUE(LeaveInputsInTheCommitLog(latin1, 3));
  testsupport::CfxResult verify = testsupport::RunCfx("journal verify --data-dir '" + latin1 + "'");
  EXPECT_EQ(verify.exit_code, 0) << verify.output;
  EXPECT_THAT(verify.output, HasSubstr("\"records\":3"));
  EXPECT_THAT(verify.output, HasSubstr("/d\xef\xbf\xbd/journal"));  // U+FFFD
  testsupport::CfxResult dump = testsupport::RunCfx("journal dump --data-dir '" + latin1 + "'");
  EXPECT_EQ(dump.exit_code, 0) << dump.output;
  EXPECT_THAT(dump.output, HasSubstr("\"seq\":3"));
}

// One writer at a time: an operator's cut (`verify --truncate-corrupt-tail` opens the
// journal writable) beside a running writer would restart the commit log under it, and what
// the writer acknowledged next would be read by no one. It is refused, naming the file;
// reading beside the writer is not.
// A snapshot store LMDB cannot read (its data pages zeroed) is said, not hidden: the journal
// is still ok (a start replays it whole: tests/journal/recovery_test.cc), and `verify` names
// the damage in `snapshots_unreadable`. Until 2026-12-06 it printed `"ok":true` with no word
// of it while `cfx serve` refused to start on it.
TEST(JournalCliTest, VerifySaysWhenTheSnapshotsCannotBeRead) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  {
    auto journal = journal::Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(journal.ok()) << journal.status();
    for (int i = 1; i <= 3; ++i) {
      const std::string record = absl::StrCat("input ", i);
      absl::string_view view(record);
      ASSERT_TRUE((*journal)->AppendBatch({&view, 1}).ok());
      ASSERT_TRUE((*journal)->WriteSnapshot(i, absl::StrCat("state ", i)).ok());
    }
  }
  const std::string file = dir.path() + "/journal/snapshots/data.mdb";
  const std::string before = ReadBytes(file);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  ASSERT_GT(before.size(), 2 * page);
  {
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(2 * page));
    const std::string zeros(before.size() - 2 * page, '\0');
    f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  testsupport::CfxResult r = testsupport::RunCfx("journal verify --data-dir " + dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the snapshots cannot be read"));
  nlohmann::json v;  // the JSON line, whichever way the warning interleaves with it
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '{') v = nlohmann::json::parse(line, nullptr, false);
  }
  ASSERT_TRUE(v.is_object()) << r.output;
  EXPECT_EQ(v.value("ok", false), true) << v.dump();
  EXPECT_EQ(v.value("records", 0), 3) << v.dump();
  EXPECT_THAT(v.value("snapshots_unreadable", std::string()), HasSubstr("snapshots")) << v.dump();
}

// An empty data.mdb (a copy that wrote nothing) is said to be empty; LMDB's own word was
// "Bad file descriptor".
TEST(JournalCliTest, VerifyNamesAnEmptyJournalFile) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  std::filesystem::create_directories(dir.path() + "/journal");
  std::ofstream(dir.path() + "/journal/data.mdb").close();
  testsupport::CfxResult r = testsupport::RunCfx("journal verify --data-dir " + dir.path());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(dir.path() + "/journal/data.mdb: the file is empty (0 bytes)"));
  EXPECT_EQ(std::filesystem::file_size(dir.path() + "/journal/data.mdb"), 0u);
  // With its JSON line, as every verify (a script reads "ok"; until 2026-12-07 none came).
  EXPECT_THAT(r.output, HasSubstr("\"ok\":false")) << r.output;
}

// A cut opens the journal to write, which would make whatever is missing: on a mistyped
// --data-dir or an unmounted volume it left an empty journal, exited 0, and `cfx serve` then
// started a new exchange there. It needs a journal to cut: refused, exit 1, nothing created
// (until 2026-12-07 it made one, a review). An empty journal file is not one either.
TEST(JournalCliTest, ACutOfADataDirWithNoJournalCreatesNothing) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  const std::string missing = dir.path() + "/not-mounted";
  testsupport::CfxResult r =
      testsupport::RunCfx("journal verify --truncate-corrupt-tail --data-dir " + missing);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_FALSE(std::filesystem::exists(missing)) << "the cut created the data dir";
  std::filesystem::create_directories(dir.path() + "/journal");
  std::ofstream(dir.path() + "/journal/data.mdb").close();
  r = testsupport::RunCfx("journal verify --truncate-corrupt-tail --data-dir " + dir.path());
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("is empty: no journal to cut")) << r.output;
  EXPECT_EQ(std::filesystem::file_size(dir.path() + "/journal/data.mdb"), 0u);
}

// LMDB aborts the process on a page of the wrong type (mdb_assert: a leaf that is not
// one). `verify` and `dump` read in a child process, so the abort is reported: exit 1, the
// file named, what to do, and verify's JSON line with "ok":false. Each leaf page of a
// journal is marked a branch page in turn (on the same bytes, put back after): whatever
// LMDB makes of it, no run may end by a signal, and at least one must have met the abort
// (if none does, LMDB no longer aborts there and the test says so).
TEST(JournalCliTest, ADamagedPageThatAbortsLmdbIsReportedNotACrash) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  {
    auto journal = journal::Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(journal.ok()) << journal.status();
    const std::string filler(120, 'x');
    for (int batch = 0; batch < 20; ++batch) {
      std::vector<std::string> records;
      for (int i = 0; i < 100; ++i)
        records.push_back(absl::StrCat("input ", batch, ".", i, filler));
      std::vector<absl::string_view> views(records.begin(), records.end());
      ASSERT_TRUE((*journal)->AppendBatch(views).ok());
    }
  }
  const std::string file = dir.path() + "/journal/data.mdb";
  const std::string bytes = ReadBytes(file);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<size_t> leaves;  // page numbers whose header says leaf (P_LEAF, 0x02)
  for (size_t p = 2; (p + 1) * page <= bytes.size(); ++p) {
    uint64_t pgno = 0;
    uint16_t flags = 0;
    std::memcpy(&pgno, bytes.data() + p * page, sizeof(pgno));
    std::memcpy(&flags, bytes.data() + p * page + 10, sizeof(flags));
    if (pgno == p && flags == 0x02) leaves.push_back(p);
  }
  ASSERT_GE(leaves.size(), 10u) << "the journal should span many leaf pages";
  int aborts_reported = 0;
  for (size_t n = 0; n < leaves.size() && n < 16; ++n) {
    const size_t at = leaves[n] * page + 10;
    {
      std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
      f.seekp(static_cast<std::streamoff>(at));
      const char branch[2] = {0x01, 0x00};  // P_BRANCH
      f.write(branch, 2);
    }
    for (const char* command : {"verify", "dump"}) {
      SCOPED_TRACE(absl::StrCat("leaf page ", leaves[n], ", ", command));
      testsupport::CfxResult r =
          testsupport::RunCfx(absl::StrCat("journal ", command, " --data-dir ", dir.path()));
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << "\n" << r.output;
      if (r.output.find("stopped the process (signal") == std::string::npos) continue;
      ++aborts_reported;
      EXPECT_THAT(r.output, HasSubstr(dir.path() + "/journal/data.mdb: LMDB found a damaged page"));
      EXPECT_THAT(r.output, HasSubstr("Restore the data dir from a replica or a backup"));
      EXPECT_EQ(r.exit_code, 1);
      if (std::string(command) == "verify") EXPECT_THAT(r.output, HasSubstr("\"ok\":false"));
    }
    std::fstream f(file, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(at));
    f.write(bytes.data() + at, 2);
  }
  EXPECT_GT(aborts_reported, 0) << "no damaged leaf made LMDB abort: the test no longer tests it";
  EXPECT_EQ(ReadBytes(file), bytes);
}

TEST(JournalCliTest, ACutIsRefusedWhileAnotherProcessWritesAndReadingIsNot) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  {
    auto writer = journal::Journal::Open({.data_dir = dir.path(), .commit_log = true});
    ASSERT_TRUE(writer.ok()) << writer.status();
    const std::string payload = "input 1";
    ASSERT_TRUE((*writer)->AppendBatch({payload}).ok());

    nlohmann::json v = Verify(dir.path());
    EXPECT_EQ(v.value("records", 0), 1) << v.dump();
    testsupport::CfxResult cut =
        testsupport::RunCfx("journal verify --truncate-corrupt-tail --data-dir " + dir.path());
    EXPECT_NE(cut.exit_code, 0) << cut.output;
    EXPECT_THAT(cut.output, HasSubstr(dir.path() + "/journal/commit.log"));
    EXPECT_THAT(cut.output, HasSubstr("another process has this journal open for writing"));
    // The writer goes on as if nothing happened.
    const std::string next = "input 2";
    auto last = (*writer)->AppendBatch({next});
    ASSERT_TRUE(last.ok()) << last.status();
    EXPECT_EQ(*last, 2u);
  }
  // Once it has stopped, the cut opens (and finds nothing to cut).
  testsupport::CfxResult cut =
      testsupport::RunCfx("journal verify --truncate-corrupt-tail --data-dir " + dir.path());
  EXPECT_EQ(cut.exit_code, 0) << cut.output;
  EXPECT_THAT(cut.output, HasSubstr("\"records\":2"));
}

// The last entry damaged (or an append cut short), nothing intact after it: not applied, as
// for an append a crash interrupted, and reported (SPEC §5) with where it is. It went
// unreported until 2026-12-05 (a black-box audit flipped the last entry's byte).
TEST(JournalCliTest, ALastEntryCutShortOrDamagedIsReportedAndNotApplied) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  std::vector<std::string> inputs;
  for (int i = 1; i <= 12; ++i) inputs.push_back(absl::StrCat("input ", i, ";"));
  ASSERT_TRUE(testsupport::LeaveInTheCommitLog(dir.path(), inputs));
  nlohmann::json clean = Verify(dir.path());
  EXPECT_FALSE(clean.contains("commit_log_torn_at")) << clean.dump();
  const size_t at = DamagePayload(dir.path() + "/journal/commit.log", "input 12;");
  ASSERT_NE(at, std::string::npos);
  nlohmann::json v = Verify(dir.path());
  EXPECT_EQ(v.value("ok", false), true) << v.dump();
  EXPECT_EQ(v.value("last_seq", 0), 11) << v.dump();
  // The entry's prefix (16 bytes) and record header (24) come before its payload.
  EXPECT_EQ(v.value("commit_log_torn_at", uint64_t{0}), at - 16 - 24) << v.dump();
}

// The ExecID generation of the seqs a cut frees is recorded before the cut: when it cannot be
// (here its file is a folder), nothing is cut, and the rerun after the operator's fix finds
// the same cut and records it. Made the other way round, the rerun found nothing to cut and
// recorded nothing, and the inputs reusing the seqs repeated ExecIDs (a review, 2026-12-07).
TEST(JournalCliTest, TheExecIdGenerationIsRecordedBeforeTheCutIsMade) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_TRUE(LeaveInputsInTheCommitLog(dir.path(), 20));
  const std::string log = dir.path() + "/journal/commit.log";
  ASSERT_NE(DamagePayload(log, "input 10;"), std::string::npos);
  const std::string bytes = ReadBytes(log);
  const std::string generation = dir.path() + "/fix/reported.generation";
  std::filesystem::create_directories(generation);  // cannot be read or replaced
  testsupport::CfxResult failed = CutAsAnExchangeThatServedFix(dir.path());
  EXPECT_NE(failed.exit_code, 0) << failed.output;
  EXPECT_THAT(failed.output, HasSubstr("reported.generation"));
  EXPECT_EQ(ReadBytes(log), bytes) << "nothing was cut";
  ExpectTheNextStartIsRefused(dir.path());
  std::filesystem::remove(generation);
  testsupport::CfxResult cut = CutAsAnExchangeThatServedFix(dir.path());
  EXPECT_EQ(cut.exit_code, 0) << cut.output;
  EXPECT_THAT(cut.output, HasSubstr("\"execid_generation\":1"));
  EXPECT_EQ(ReadBytes(generation), "cfx-execid-generation 1 10\n");
  EXPECT_EQ(Verify(dir.path()).value("last_seq", 0), 9);
}

// A commit log cut short (copied short, truncated) may have held acknowledged records past
// its end: `verify` and the exchange's next start refuse it; the operator's explicit cut
// accepts it, says so, and, where the exchange served FIX, records the ExecID generation of
// the inputs that will reuse the seqs after the last intact record, as for damage below.
TEST(JournalCliTest, ACommitLogCutShortIsRefusedAndOnlyAnExplicitCutAcceptsIt) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_TRUE(LeaveInputsInTheCommitLog(dir.path(), 12));
  const std::string log = dir.path() + "/journal/commit.log";
  const size_t at = ReadBytes(log).find("input 8;");
  ASSERT_NE(at, std::string::npos);
  std::filesystem::resize_file(log, at + 3);  // inside record 8's payload
  testsupport::CfxResult verify = testsupport::RunCfx("journal verify --data-dir " + dir.path());
  EXPECT_NE(verify.exit_code, 0) << verify.output;
  EXPECT_THAT(verify.output, HasSubstr("cut short"));
  EXPECT_THAT(verify.output, HasSubstr("after record 7"));
  ExpectTheNextStartIsRefused(dir.path());
  testsupport::CfxResult cut = CutAsAnExchangeThatServedFix(dir.path());
  EXPECT_EQ(cut.exit_code, 0) << cut.output;
  EXPECT_THAT(cut.output, HasSubstr("cut short after record 7"));
  EXPECT_THAT(cut.output, HasSubstr("\"commit_log_cut_from\":8"));
  EXPECT_THAT(cut.output, HasSubstr("\"execid_generation\":1"));
  EXPECT_EQ(ReadBytes(dir.path() + "/fix/reported.generation"), "cfx-execid-generation 1 8\n");
  nlohmann::json v = Verify(dir.path());
  EXPECT_EQ(v.value("last_seq", 0), 7) << v.dump();
}

// Damage inside the commit log with acknowledged records intact after it (SPEC §5: a
// corrupt tail is reported, never silently applied; an acknowledged order is never lost):
// `verify` and the exchange's next start refuse it, naming the file and the records; the
// operator's explicit cut drops the damaged record and everything after it, and says so.
TEST(JournalCliTest, DamageInsideTheCommitLogIsReportedAndOnlyAnExplicitCutDropsIt) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_TRUE(LeaveInputsInTheCommitLog(dir.path(), 40));
  const std::string log = dir.path() + "/journal/commit.log";
  const std::string bytes = ReadBytes(log);
  ASSERT_NE(DamagePayload(log, "input 10;"), std::string::npos);
  testsupport::CfxResult verify = testsupport::RunCfx("journal verify --data-dir " + dir.path());
  EXPECT_NE(verify.exit_code, 0) << verify.output;
  EXPECT_THAT(verify.output, HasSubstr(log));
  EXPECT_THAT(verify.output, HasSubstr("after record 9"));
  EXPECT_THAT(verify.output, HasSubstr("record 11 at byte"));
  // The exchange's next start: refused, and nothing taken out of the log.
  ExpectTheNextStartIsRefused(dir.path());
  EXPECT_EQ(ReadBytes(log).find("input 40;"), bytes.find("input 40;"))
      << "the log is left as it was";

  // An exchange that served FIX here: the cut records the ExecID generation of the inputs
  // that will reuse the dropped seqs (docs/fix.md, "ExecIDs").
  testsupport::CfxResult cut = CutAsAnExchangeThatServedFix(dir.path());
  EXPECT_EQ(cut.exit_code, 0) << cut.output;
  EXPECT_THAT(cut.output, HasSubstr("records 10.. it held after the damage were dropped"));
  EXPECT_THAT(cut.output, HasSubstr("\"commit_log_cut_from\":10"));
  EXPECT_THAT(cut.output, HasSubstr("\"execid_generation\":1"));
  EXPECT_EQ(ReadBytes(dir.path() + "/fix/reported.generation"), "cfx-execid-generation 1 10\n");
  nlohmann::json v = Verify(dir.path());
  EXPECT_EQ(v.value("records", 0), 9) << v.dump();
  EXPECT_EQ(v.value("last_seq", 0), 9) << v.dump();
  EXPECT_EQ(ReadBytes(dir.path() + "/fix/reported.generation"), "cfx-execid-generation 1 10\n")
      << "a verify that cuts nothing records nothing";
}

// The trade store is derived from the journal: one that recorded inputs a cut drops would
// keep their trades and take the inputs that reuse their seqs for recorded ones. The cut
// moves it aside whole (`trades.before-cut-<first seq cut>`), and says so; a store that
// recorded nothing past the cut stays. Until 2026-12-07 the cut left it, and a start on it
// silently ignored the next inputs.
// A trade store in `dir` that recorded inputs up to `recorded`.
void StoreRecordedUpTo(const std::string& dir, uint64_t recorded) {
  auto kv = storage::KvStore::Open(dir, storage::KvOptions{.file = trade_store::kTradeStoreFile});
  ASSERT_TRUE(kv.ok()) << kv.status();
  auto txn = (*kv)->BeginWrite();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE((*txn)->Put(exchange::kMetaTable, "last_seq", std::to_string(recorded)).ok());
  ASSERT_TRUE((*txn)->Commit().ok());
}

TEST(JournalCliTest, ACutMovesATradeStoreThatRecordedInputsPastItAside) {
  for (const uint64_t recorded : {uint64_t{40}, uint64_t{9}}) {
    SCOPED_TRACE(recorded);
    testsupport::TempDir dir("cfx_journal_cli");
    ASSERT_FALSE(dir.path().empty());
    ASSERT_TRUE(LeaveInputsInTheCommitLog(dir.path(), 40));
    ASSERT_NO_FATAL_FAILURE(StoreRecordedUpTo(dir.path(), recorded));
    ASSERT_NE(DamagePayload(dir.path() + "/journal/commit.log", "input 10;"), std::string::npos);
    testsupport::CfxResult cut = CutAsAnExchangeThatServedFix(dir.path());
    EXPECT_EQ(cut.exit_code, 0) << cut.output;
    const std::string aside = dir.path() + "/trades.before-cut-10";
    if (recorded > 9) {
      EXPECT_THAT(cut.output, HasSubstr("\"trade_store_moved_to\":\"" + aside + "\""));
      EXPECT_FALSE(std::filesystem::exists(dir.path() + "/trades"));
      EXPECT_TRUE(std::filesystem::exists(aside + "/data.mdb"));
      // A rerun finds nothing more to cut or move.
      testsupport::CfxResult again = CutAsAnExchangeThatServedFix(dir.path());
      EXPECT_EQ(again.exit_code, 0) << again.output;
      EXPECT_THAT(again.output, ::testing::Not(HasSubstr("trade_store_moved_to")));
    } else {
      EXPECT_THAT(cut.output, ::testing::Not(HasSubstr("trade_store_moved_to")));
      EXPECT_TRUE(std::filesystem::exists(dir.path() + "/trades/data.mdb"));
      EXPECT_FALSE(std::filesystem::exists(aside));
    }
  }
  // A store found ahead by a rerun, with nothing left to cut (the cut's process died before
  // it moved the store): moved then.
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_TRUE(LeaveInputsInTheCommitLog(dir.path(), 40));
  ASSERT_NE(DamagePayload(dir.path() + "/journal/commit.log", "input 10;"), std::string::npos);
  ASSERT_EQ(CutAsAnExchangeThatServedFix(dir.path()).exit_code, 0);
  ASSERT_NO_FATAL_FAILURE(StoreRecordedUpTo(dir.path(), 40));
  testsupport::CfxResult rerun = CutAsAnExchangeThatServedFix(dir.path());
  EXPECT_EQ(rerun.exit_code, 0) << rerun.output;
  EXPECT_THAT(rerun.output,
              HasSubstr("\"trade_store_moved_to\":\"" + dir.path() + "/trades.before-cut-10\""));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/trades"));
}

// A commit log deleted after a run that did not stop cleanly (a cleanup of *.log files, say):
// `verify` and the exchange's next start refuse the journal, naming the file; the operator's
// cut accepts the loss of whatever the log held, says so, and records the ExecID generation
// of the inputs that will reuse those seqs.
TEST(JournalCliTest, AMissingCommitLogIsRefusedAndOnlyAnExplicitCutAcceptsItsLoss) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_TRUE(LeaveInputsInTheCommitLog(dir.path(), 12));
  const std::string log = dir.path() + "/journal/commit.log";
  ASSERT_EQ(std::remove(log.c_str()), 0);
  testsupport::CfxResult verify = testsupport::RunCfx("journal verify --data-dir " + dir.path());
  EXPECT_NE(verify.exit_code, 0) << verify.output;
  EXPECT_THAT(verify.output, HasSubstr(log + " is missing"));
  EXPECT_THAT(verify.output, HasSubstr("--truncate-corrupt-tail"));
  ExpectTheNextStartIsRefused(dir.path());

  testsupport::CfxResult cut = CutAsAnExchangeThatServedFix(dir.path());
  EXPECT_EQ(cut.exit_code, 0) << cut.output;
  EXPECT_THAT(cut.output, HasSubstr("the commit log is missing; whatever it held from record 1 on "
                                    "is lost"));
  EXPECT_THAT(cut.output, HasSubstr("\"commit_log_cut_from\":1"));
  EXPECT_THAT(cut.output, HasSubstr("\"commit_log_missing\":true"));
  EXPECT_EQ(ReadBytes(dir.path() + "/fix/reported.generation"), "cfx-execid-generation 1 1\n");
  nlohmann::json v = Verify(dir.path());
  EXPECT_EQ(v.value("records", -1), 0) << v.dump();
  EXPECT_FALSE(v.contains("commit_log_missing")) << v.dump();
}

// A damaged commit-log mark refuses every start: `verify` says so (exit 1, no record
// dropped for it) and the operator's cut writes it again, after which the exchange starts.
TEST(JournalCliTest, ADamagedCommitLogMarkIsReportedAndTheCutWritesItAgain) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_TRUE(LeaveInputsInTheCommitLog(dir.path(), 3));
  {
    auto j = journal::Journal::Open({.data_dir = dir.path()});  // copies the three into LMDB
    ASSERT_TRUE(j.ok()) << j.status();
    ASSERT_TRUE((*j)->WriteRawRecordForTest(0, "not a mark").ok());
  }
  ExpectTheNextStartIsRefused(dir.path());
  testsupport::CfxResult verify = testsupport::RunCfx("journal verify --data-dir " + dir.path());
  EXPECT_EQ(verify.exit_code, 1) << verify.output;
  EXPECT_THAT(verify.output, HasSubstr("\"commit_log_mark_damaged\":true"));
  EXPECT_THAT(verify.output, HasSubstr("the commit log's mark in LMDB is damaged"));
  testsupport::CfxResult cut =
      testsupport::RunCfx("journal verify --truncate-corrupt-tail --data-dir " + dir.path());
  EXPECT_EQ(cut.exit_code, 0) << cut.output;
  EXPECT_THAT(cut.output, HasSubstr("written again"));
  nlohmann::json v = Verify(dir.path());
  EXPECT_EQ(v.value("records", 0), 3) << v.dump();
  auto start = journal::Journal::Open({.data_dir = dir.path(), .commit_log = true});
  EXPECT_TRUE(start.ok()) << start.status();
}

}  // namespace
}  // namespace cfx
