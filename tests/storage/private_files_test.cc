#include "cfx/storage/private_files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "cfx/storage/lmdb_env.h"
#include "gtest/gtest.h"
#include "scoped_umask.h"
#include "temp_dir.h"

namespace cfx::storage {
namespace {

unsigned ModeOf(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

TEST(PrivateFilesTest, FoldersAre0700AndFiles0600UnderUmask000) {
  testsupport::TempDir dir("cfx_private_files_test");
  testsupport::ScopedUmask umask(0);
  const std::string deep = dir.path() + "/a/b/c";
  ASSERT_TRUE(MakePrivateDirs(deep).ok());
  EXPECT_EQ(ModeOf(dir.path() + "/a"), 0700u);
  EXPECT_EQ(ModeOf(deep), 0700u);
  ASSERT_TRUE(WritePrivateFile(deep + "/f.json", "{}").ok());
  EXPECT_EQ(ModeOf(deep + "/f.json"), 0600u);
  size_t entries = 0;  // f.json alone: the temporary file was renamed
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(deep)) ++entries;
  EXPECT_EQ(entries, 1u);
}

// What is beside the file is left alone: a link or a file named `<path>.tmp` (a fixed
// temporary name was opened with O_TRUNC, so a link by that name was followed and its
// target overwritten, until 2026-12-06), and no temporary file is left after the write.
std::string Read(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(PrivateFilesTest, AWriteFollowsNoLinkBesideItAndLeavesNoTemporaryFile) {
  testsupport::TempDir dir("cfx_private_files_test");
  const std::string path = dir.path() + "/f.csv";
  std::ofstream(dir.path() + "/victim") << "keep";
  ASSERT_EQ(::symlink((dir.path() + "/victim").c_str(), (path + ".tmp").c_str()), 0);
  ASSERT_TRUE(WritePrivateFile(path, "new").ok());
  EXPECT_EQ(Read(dir.path() + "/victim"), "keep");
  EXPECT_EQ(Read(path), "new");
  struct stat st;
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 3u);  // victim, the link, the file: no temporary file
}

// kNew replaces nothing: a file, or a link (dangling or not), stays as it was; AlreadyExists
// names the path, and no temporary file is left.
TEST(PrivateFilesTest, ANewFileReplacesNothingAlreadyThere) {
  testsupport::TempDir dir("cfx_private_files_test");
  const std::string file = dir.path() + "/a.csv", link = dir.path() + "/b.csv";
  std::ofstream(file) << "mine";
  ASSERT_EQ(::symlink((dir.path() + "/nowhere").c_str(), link.c_str()), 0);
  for (const std::string& path : {file, link}) {
    absl::Status s = WritePrivateFile(path, "new", FileWrite::kNew);
    EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists) << s;
    EXPECT_NE(s.message().find(path), std::string::npos) << s;
  }
  EXPECT_EQ(Read(file), "mine");
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/nowhere"));
  ASSERT_TRUE(WritePrivateFile(dir.path() + "/c.csv", "new", FileWrite::kNew).ok());
  EXPECT_EQ(Read(dir.path() + "/c.csv"), "new");
  EXPECT_EQ(ModeOf(dir.path() + "/c.csv"), 0600u);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 3u);
}

std::set<std::string> Names(const std::string& folder) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(folder)) {
    names.insert(e.path().filename().string());
  }
  return names;
}

// A writer killed in the middle of the write (a crash, kill -9) leaves no file behind: the
// file is written unnamed and gets its name only once it is whole. Until 2026-12-07 it was
// written as `<path>.tmp.XXXXXX`, which such a kill left in the folder.
TEST(PrivateFilesTest, AWriterKilledMidWriteLeavesNothingBehind) {
  testsupport::TempDir dir("cfx_private_files_test");
  // Where the file system has no unnamed files (overlayfs before Linux 6.6), the write goes
  // through a named temporary file, which such a kill can leave: nothing to check here.
  const int probe = ::open(dir.path().c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (probe < 0) GTEST_SKIP() << dir.path() << " has no O_TMPFILE: " << std::strerror(errno);
  ::close(probe);
  const std::string path = dir.path() + "/statement.json";
  ASSERT_TRUE(WritePrivateFile(path, "old").ok());
  const std::string fresh = dir.path() + "/fresh.json";
  for (FileWrite mode : {FileWrite::kReplace, FileWrite::kNew}) {
    const std::string& target = mode == FileWrite::kReplace ? path : fresh;
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const std::string big(64 << 20, 'x');
      (void)!::write(ready[1], "r", 1);
      (void)WritePrivateFile(target, big, mode);
      ::_exit(0);
    }
    char c;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::usleep(1000);
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ::close(ready[0]);
    ::close(ready[1]);
    // Either the kill came first (nothing new) or the write was done (the whole file). A
    // replace is linked under a temporary name and renamed at once: a kill between the two
    // (microseconds) leaves that name, holding the whole file, never a part of one.
    std::set<std::string> names = Names(dir.path());
    names.erase("fresh.json");
    for (auto it = names.begin(); it != names.end();) {
      const std::string full = dir.path() + "/" + *it;
      const bool whole_temporary = it->rfind("statement.json.tmp.", 0) == 0 &&
                                   std::filesystem::file_size(full) == (64u << 20);
      it = whole_temporary ? names.erase(it) : std::next(it);
    }
    EXPECT_EQ(names, std::set<std::string>{"statement.json"});
    const std::string now = Read(path);
    EXPECT_TRUE(now == "old" || now.size() == (64u << 20)) << now.size();
    if (std::filesystem::exists(fresh)) {
      EXPECT_EQ(std::filesystem::file_size(fresh), 64u << 20);
    }
  }
}

// kUnsynced publishes the file all the same (the caller flushes later), and SyncFolder names
// a folder it cannot open.
TEST(PrivateFilesTest, AnUnsyncedWriteIsPublishedAndAFolderFlushNamesWhatFailed) {
  testsupport::TempDir dir("cfx_private_files_test");
  const std::string path = dir.path() + "/a.csv";
  ASSERT_TRUE(WritePrivateFile(path, "one", FileWrite::kNew, FileSync::kUnsynced).ok());
  ASSERT_TRUE(WritePrivateFile(path, "two", FileWrite::kReplace, FileSync::kUnsynced).ok());
  EXPECT_EQ(Read(path), "two");
  EXPECT_EQ(ModeOf(path), 0600u);
  EXPECT_EQ(Names(dir.path()), std::set<std::string>{"a.csv"});
  EXPECT_TRUE(SyncFolder(dir.path()).ok());
  absl::Status s = SyncFolder(dir.path() + "/missing");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(s.message().find(dir.path() + "/missing"), std::string::npos) << s;
}

TEST(PrivateFilesTest, LmdbEnvironmentFilesAre0600UnderUmask000) {
  testsupport::TempDir dir("cfx_private_files_test");
  testsupport::ScopedUmask umask(0);
  auto env = LmdbEnv::Open({.path = dir.path() + "/journal"});
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_EQ(ModeOf(dir.path() + "/journal"), 0700u);
  EXPECT_EQ(ModeOf(dir.path() + "/journal/data.mdb"), 0600u);
  EXPECT_EQ(ModeOf(dir.path() + "/journal/lock.mdb"), 0600u);
}

TEST(PrivateFilesTest, AWorldOrGroupWritableDataDirIsRefusedNamingThePath) {
  testsupport::TempDir dir("cfx_private_files_test");
  const std::string data = dir.path() + "/data";
  ASSERT_TRUE(MakePrivateDirs(data).ok());
  EXPECT_TRUE(CheckPrivateDir(data).ok());
  ASSERT_EQ(::chmod(data.c_str(), 0777), 0);
  absl::Status s = PrepareDataDir(data, /*create=*/true);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find(data), std::string::npos) << s;
  EXPECT_NE(s.message().find("0777"), std::string::npos) << s;
  ASSERT_EQ(::chmod(data.c_str(), 0770), 0);
  EXPECT_EQ(CheckPrivateDir(data).code(), absl::StatusCode::kPermissionDenied);
  // Readable by the group or others (a folder made by hand): made 0700, not refused. Until
  // 2026-12-07 it was used as it was, and others could list what the exchange writes.
  for (const mode_t mode : {mode_t{0750}, mode_t{0755}, mode_t{0711}}) {
    ASSERT_EQ(::chmod(data.c_str(), mode), 0);
    EXPECT_TRUE(CheckPrivateDir(data).ok());
    EXPECT_EQ(ModeOf(data), 0700u) << std::oct << mode;
  }
}

TEST(PrivateFilesTest, ADataDirOwnedByAnotherUserIsRefused) {
  if (::geteuid() == 0) {
    // Root can hand the folder to another uid and check that it is refused.
    testsupport::TempDir dir("cfx_private_files_test");
    const std::string data = dir.path() + "/data";
    ASSERT_TRUE(MakePrivateDirs(data).ok());
    ASSERT_EQ(::chown(data.c_str(), 12345, 12345), 0);
    absl::Status s = CheckPrivateDir(data);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_NE(s.message().find("owned by uid 12345"), std::string::npos) << s;
  } else {
    // "/" belongs to root, not to us.
    EXPECT_EQ(CheckPrivateDir("/").code(), absl::StatusCode::kPermissionDenied);
  }
}

TEST(PrivateFilesTest, AMissingDataDirIsNotFoundUnlessCreated) {
  testsupport::TempDir dir("cfx_private_files_test");
  EXPECT_EQ(PrepareDataDir(dir.path() + "/none", /*create=*/false).code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(PrepareDataDir(dir.path() + "/new", /*create=*/true).ok());
  EXPECT_EQ(ModeOf(dir.path() + "/new"), 0700u);
}

}  // namespace
}  // namespace cfx::storage
