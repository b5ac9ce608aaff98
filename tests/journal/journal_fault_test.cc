// Faults under the journal: the disk fills up during a commit, the map fills up, the data
// dir becomes unwritable or is moved away while the journal is open. In every case a commit
// that fails says so (naming the path), and what was acknowledged (AppendBatch returned OK)
// is exactly what a reopened journal holds: nothing acknowledged lost, nothing half-written.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/journal/journal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_dir.h"

namespace cfx::journal {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

constexpr int kBatchRecords = 16;

// Record `i` of batch `batch`: distinct, about 1 KB, so a batch takes several pages.
std::string Payload(int batch, int i) {
  return absl::StrFormat("batch-%06d-record-%02d-%s", batch, i, std::string(1000, 'p'));
}

// Appends batch number `batch` (kBatchRecords records).
absl::StatusOr<uint64_t> AppendNumbered(Journal& journal, int batch) {
  std::vector<std::string> owned;
  for (int i = 0; i < kBatchRecords; ++i) owned.push_back(Payload(batch, i));
  std::vector<absl::string_view> views(owned.begin(), owned.end());
  return journal.AppendBatch(views);
}

// Every payload of `journal` in order; fails the test if the journal does not verify.
std::vector<std::string> ReadAll(const Journal& journal) {
  std::vector<std::string> out;
  absl::Status s = journal.ReadFrom(1, [&](uint64_t, absl::string_view p) {
    out.emplace_back(p);
    return true;
  });
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

void WriteLine(int fd, const std::string& line) {
  const std::string text = line + "\n";
  (void)!write(fd, text.data(), text.size());
}

// Where the file size limit strikes (docs/durability.md, "The commit log"):
enum class Under {
  kLmdb,        // the LMDB journal alone: its commit fails
  kLogGrowing,  // the commit log, when it grows its file (the copier kept away)
  kLogCopying,  // the commit log's copier (or the writer's copy before a restart), into LMDB
};

struct DiskFullCase {
  const char* name;
  Under under;
};

JournalOptions OptionsFor(Under under, const std::string& data_dir) {
  JournalOptions o{.data_dir = data_dir};
  if (under == Under::kLmdb) return o;
  o.defer_commit_sync = true;
  o.commit_log = true;
  if (under == Under::kLogGrowing) {
    o.commit_log_copy_every_ms = 600'000;  // nothing reaches LMDB while the child runs
  } else {
    // The log restarts long before its first 1 MiB of blocks is used up, so it never grows;
    // LMDB takes everything, at once.
    o.commit_log_bytes = 256 << 10;
    o.commit_log_copy_every_ms = 1;
  }
  return o;
}

// The child's side of DiskFullDuringACommit...: opens the journal in `data_dir`, commits two
// batches, then limits the size of any file it writes (RLIMIT_FSIZE) to a little above the
// journal's largest and appends until four commits have failed, then lifts the limit and
// appends once more. One line per AppendBatch to `fd`: "ok <batch> <last seq>" or
// "error <batch> <code> <message>". The test forks from its only thread, so the child may
// use the journal as usual; it never returns into the test. Without the commit log it
// closes the journal and exits, as a clean shutdown would; with it, it is killed (the
// records the copier had not moved are in the log only).
[[noreturn]] void FillTheDisk(Under under, const std::string& data_dir, int fd) {
  auto journal = Journal::Open(OptionsFor(under, data_dir));
  if (!journal.ok()) {
    WriteLine(fd, absl::StrCat("open-failed ", journal.status().ToString()));
    _exit(3);
  }
  int batch = 0;
  for (; batch < 2; ++batch) {
    auto last = AppendNumbered(**journal, batch);
    WriteLine(fd, last.ok() ? absl::StrCat("ok ", batch, " ", *last)
                            : absl::StrCat("unlimited-error ", last.status().ToString()));
  }
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(data_dir + "/journal/data.mdb", ec);
  if (under != Under::kLmdb && !ec) {
    size =
        std::max<uint64_t>(size, std::filesystem::file_size(data_dir + "/journal/commit.log", ec));
  }
  // A write past the limit fails with EFBIG instead of killing the process with SIGXFSZ,
  // as a write to a full disk fails with ENOSPC.
  signal(SIGXFSZ, SIG_IGN);
  rlimit unlimited;
  getrlimit(RLIMIT_FSIZE, &unlimited);
  rlimit limited = unlimited;
  limited.rlim_cur = static_cast<rlim_t>(size) + 64 * 1024;
  if (ec || setrlimit(RLIMIT_FSIZE, &limited) != 0) {
    WriteLine(fd, "setup-failed");
    _exit(4);
  }
  auto append = [&] {
    auto last = AppendNumbered(**journal, batch);
    WriteLine(fd, last.ok() ? absl::StrCat("ok ", batch, " ", *last)
                            : absl::StrCat("error ", batch, " ",
                                           absl::StatusCodeToString(last.status().code()), " ",
                                           last.status().message()));
    ++batch;
    return last.ok();
  };
  for (int failures = 0; batch < 500 && failures < 4;) failures += append() ? 0 : 1;
  // Space again (the limit lifted): the same open journal commits again without the log;
  // with it, the first failed write or flush stays the answer (docs/durability.md).
  setrlimit(RLIMIT_FSIZE, &unlimited);
  append();
  WriteLine(fd, "done");
  if (under == Under::kLmdb) {
    journal->reset();  // closes the environment
    _exit(0);
  }
  // Killed: the copier's thread, ended by its error, is never joined (an _exit would be
  // reported as a thread leak under TSan).
  raise(SIGKILL);
  _exit(5);
}

class JournalDiskFullTest : public ::testing::TestWithParam<DiskFullCase> {};

// The disk fills up in the middle of a commit (here: the file may not grow past a limit, a
// fault any user can cause; ENOSPC takes the same path). The commit fails with an error
// naming the file; the process goes on; and the journal, reopened without the limit,
// verifies and holds exactly the batches whose AppendBatch returned OK.
TEST_P(JournalDiskFullTest, DiskFullDuringACommitIsAClearErrorAndLosesNothingAcknowledged) {
  const Under under = GetParam().under;
  TestDir dir;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    FillTheDisk(under, dir.path(), fds[1]);
  }
  close(fds[1]);
  std::string output;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    output.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  if (under == Under::kLmdb) {
    ASSERT_TRUE(WIFEXITED(status))
        << "the child crashed (signal " << WTERMSIG(status) << "): " << output;
    ASSERT_EQ(WEXITSTATUS(status), 0) << output;
  } else {
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << output;
  }
  ASSERT_GE(output.size(), 5u);
  ASSERT_EQ(output.substr(output.size() - 5), "done\n") << output;
  output.resize(output.size() - 5);

  std::vector<int> acknowledged;
  uint64_t last_acknowledged_seq = 0;
  std::vector<std::string> errors;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string kind;
    int batch = 0;
    words >> kind >> batch;
    if (kind == "ok") {
      uint64_t seq = 0;
      words >> seq;
      EXPECT_EQ(seq, last_acknowledged_seq + kBatchRecords) << line;
      if (under != Under::kLmdb) {
        EXPECT_TRUE(errors.empty()) << "a commit acknowledged after the log's failure: " << line;
      }
      last_acknowledged_seq = seq;
      acknowledged.push_back(batch);
    } else {
      ASSERT_EQ(kind, "error") << line;
      // The message without "error <batch>": the same for every refusal after the first.
      errors.push_back(line.substr(line.find(' ', 6)));
    }
  }
  ASSERT_FALSE(errors.empty()) << "no commit failed under the file size limit:\n" << output;
  ASSERT_GE(acknowledged.size(), 2u) << output;
  const std::string journal_path = dir.path() + "/journal";
  if (under == Under::kLmdb) {
    ASSERT_EQ(output.substr(output.rfind("\n", output.size() - 2) + 1, 3), "ok ")
        << "no commit once the limit was lifted:\n"
        << output;
    for (const std::string& e : errors) {
      EXPECT_THAT(e, HasSubstr(journal_path + ": commit records up to "));
      // A write that failed outright (EFBIG, ENOSPC) or was cut short (EIO, from LMDB).
      EXPECT_THAT(e, AnyOf(HasSubstr("RESOURCE_EXHAUSTED"), HasSubstr("UNAVAILABLE")));
      EXPECT_THAT(e, AnyOf(HasSubstr("disk full"), HasSubstr("a full disk")));
    }
  } else {
    // Sticky: every refusal, the one after the limit was lifted too, is the first one.
    EXPECT_EQ(errors.size(), 5u) << output;
    for (const std::string& e : errors) EXPECT_EQ(e, errors.front());
    EXPECT_THAT(errors.front(), AnyOf(HasSubstr("RESOURCE_EXHAUSTED"), HasSubstr("UNAVAILABLE")));
    if (under == Under::kLogGrowing) {
      EXPECT_THAT(errors.front(), HasSubstr(journal_path + "/commit.log: grow: "));
      EXPECT_THAT(errors.front(), HasSubstr("disk full: the process's file size limit"));
    } else {
      EXPECT_THAT(errors.front(), HasSubstr(journal_path + ": "));
      EXPECT_THAT(errors.front(), AnyOf(HasSubstr("disk full"), HasSubstr("a full disk")));
    }
  }

  auto journal = Journal::Open(OptionsFor(under, dir.path()));
  ASSERT_TRUE(journal.ok()) << journal.status();
  if (under == Under::kLogGrowing) {
    EXPECT_EQ((*journal)->RecoveredFromCommitLog(), last_acknowledged_seq)
        << "nothing was copied: LMDB had none of them";
  } else if (under == Under::kLogCopying) {
    EXPECT_GT((*journal)->RecoveredFromCommitLog(), 0u)
        << "the copy that failed left its records in the log only";
  }
  auto stats = (*journal)->Verify();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->last_seq, last_acknowledged_seq);
  std::vector<std::string> expected;
  for (int batch : acknowledged) {
    for (int i = 0; i < kBatchRecords; ++i) expected.push_back(Payload(batch, i));
  }
  EXPECT_EQ(ReadAll(**journal), expected);
  std::fprintf(stderr, "disk full (%s): %zu batches acknowledged, %zu commits refused; first: %s\n",
               GetParam().name, acknowledged.size(), errors.size(), errors.front().c_str());
  // And appending goes on where the acknowledged records end.
  auto next = AppendNumbered(**journal, 999);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(*next, last_acknowledged_seq + kBatchRecords);
}

INSTANTIATE_TEST_SUITE_P(Journal, JournalDiskFullTest,
                         ::testing::Values(DiskFullCase{"Lmdb", Under::kLmdb},
                                           DiskFullCase{"LogGrowing", Under::kLogGrowing},
                                           DiskFullCase{"LogCopying", Under::kLogCopying}),
                         [](const auto& info) { return std::string(info.param.name); });

// Sets a path's mode for the test's duration and restores it however the test ends (a
// TestDir cannot remove what sits in a folder without write permission).
class ScopedMode {
 public:
  ScopedMode(std::string path, mode_t mode) : path_(std::move(path)) {
    struct stat st;
    ok_ = ::stat(path_.c_str(), &st) == 0 && ::chmod(path_.c_str(), mode) == 0;
    old_mode_ = st.st_mode & 07777;
  }
  ~ScopedMode() {
    if (ok_) ::chmod(path_.c_str(), old_mode_);
  }
  bool ok() const { return ok_; }

 private:
  std::string path_;
  mode_t old_mode_ = 0;
  bool ok_ = false;
};

// The data dir made read-only while the exchange runs (chmod; a read-only remount is EROFS,
// the same mapping). The journal's LMDB files are open, and a folder's mode does not stop
// writing a file already there: commits and snapshots go on, and a restart opens the same
// files. When the files themselves are read-only too, the restart is PermissionDenied
// naming the path, and nothing is lost: with write permission back, everything is there.
TEST(JournalFaultTest, ReadOnlyDataDirKeepsTheJournalCommittingAndUnwritableFilesNameThePath) {
  if (geteuid() == 0) {
    GTEST_SKIP() << "file modes do not stop root; run the journal tests as another user";
  }
  TestDir dir;
  const std::string journal_dir = dir.path() + "/journal";
  auto journal = Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(journal.ok()) << journal.status();
  ASSERT_TRUE(AppendNumbered(**journal, 0).ok());
  {
    ScopedMode data_dir(dir.path(), 0500), records(journal_dir, 0500),
        snapshots(journal_dir + "/snapshots", 0500);
    ASSERT_TRUE(data_dir.ok() && records.ok() && snapshots.ok());
    auto last = AppendNumbered(**journal, 1);
    ASSERT_TRUE(last.ok()) << last.status();
    ASSERT_TRUE((*journal)->WriteSnapshot(*last, "state").ok());
    journal->reset();
    auto restarted = Journal::Open({.data_dir = dir.path()});
    ASSERT_TRUE(restarted.ok()) << restarted.status();
    EXPECT_TRUE(AppendNumbered(**restarted, 2).ok());
    restarted->reset();

    ScopedMode data_file(journal_dir + "/data.mdb", 0400);
    ASSERT_TRUE(data_file.ok());
    auto refused = Journal::Open({.data_dir = dir.path()});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied) << refused.status();
    EXPECT_THAT(refused.status().message(), HasSubstr(journal_dir)) << refused.status();
  }
  auto reopened = Journal::Open({.data_dir = dir.path()});
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  std::vector<std::string> expected;
  for (int batch = 0; batch < 3; ++batch) {
    for (int i = 0; i < kBatchRecords; ++i) expected.push_back(Payload(batch, i));
  }
  EXPECT_EQ(ReadAll(**reopened), expected);
}

// The data dir renamed (or moved on the same filesystem) while the journal is open: the open
// files move with it, so commits go on into the moved folder and are all there when it is
// opened under its new name. (Opening the old path afterwards would start an empty journal:
// docs/reliability.md says what an operator must do.)
TEST(JournalFaultTest, DataDirRenamedWhileOpenKeepsCommittingIntoTheMovedFiles) {
  TestDir dir;
  const std::string before = dir.path() + "/data", after = dir.path() + "/moved";
  auto journal = Journal::Open({.data_dir = before});
  ASSERT_TRUE(journal.ok()) << journal.status();
  ASSERT_TRUE(AppendNumbered(**journal, 0).ok());
  std::error_code ec;
  std::filesystem::rename(before, after, ec);
  ASSERT_FALSE(ec) << ec.message();
  auto last = AppendNumbered(**journal, 1);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(*last, 2u * kBatchRecords);
  journal->reset();
  auto moved = Journal::Open({.data_dir = after, .read_only = true});
  ASSERT_TRUE(moved.ok()) << moved.status();
  std::vector<std::string> expected;
  for (int batch = 0; batch < 2; ++batch) {
    for (int i = 0; i < kBatchRecords; ++i) expected.push_back(Payload(batch, i));
  }
  EXPECT_EQ(ReadAll(**moved), expected);
  EXPECT_FALSE(std::filesystem::exists(before));
}

}  // namespace
}  // namespace cfx::journal
