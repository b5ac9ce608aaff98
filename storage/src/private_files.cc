#include "cfx/storage/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"

namespace cfx::storage {

absl::Status MakePrivateDirs(absl::string_view path) {
  const std::string p(path);
  for (size_t i = 1; i <= p.size(); ++i) {
    if (i != p.size() && p[i] != '/') continue;
    const std::string partial = p.substr(0, i);
    // mkdir applies the umask; chmod afterwards makes the folder 0700 whatever it is.
    if (::mkdir(partial.c_str(), kPrivateDirMode) == 0) {
      if (::chmod(partial.c_str(), kPrivateDirMode) != 0) {
        return absl::UnavailableError(
            absl::StrCat(partial, ": cannot set mode 0700: ", std::strerror(errno)));
      }
    } else if (errno != EEXIST) {
      return absl::UnavailableError(
          absl::StrCat(partial, ": cannot create the folder: ", std::strerror(errno)));
    }
  }
  struct stat st;
  if (::stat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::UnavailableError(absl::StrCat(p, ": not a folder"));
  }
  return absl::OkStatus();
}

namespace {

// Writes all of `contents` to `fd`: 0, or the errno of what failed.
int WriteAll(int fd, absl::string_view contents) {
  for (size_t done = 0; done < contents.size();) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

// Creates `path` where nothing is (O_EXCL, no link followed; 0600) and writes `contents` in
// place; removes it again if the write fails. 0, or the errno of what failed.
int CreateInPlace(const std::string& path, absl::string_view contents) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kPrivateFileMode);
  if (fd < 0) return errno;
  int err = WriteAll(fd, contents);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) ::unlink(path.c_str());
  return err;
}

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A name of its own beside `path` for a file that is linked and renamed at once.
std::string TemporaryName(const std::string& path) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string name = path + ".tmp.";
  static std::atomic<uint64_t> calls{0};
  uint64_t bits = static_cast<uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ull ^
                  calls.fetch_add(1, std::memory_order_relaxed) * 0xD1B54A32D192ED03ull;
  timespec now;
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  bits ^= static_cast<uint64_t>(now.tv_nsec) << 20 ^ static_cast<uint64_t>(now.tv_sec);
  for (int i = 0; i < 8; ++i, bits /= 36) name += kChars[bits % 36];
  return name;
}

absl::Status Failed(const std::string& what, int err) {
  return absl::UnavailableError(absl::StrCat(what, ": ", std::strerror(err)));
}

absl::Status AlreadyThere(const std::string& path) {
  return absl::AlreadyExistsError(absl::StrCat(path, " is already there: not replaced"));
}

// The file as an unnamed one (O_TMPFILE) in its folder, written (and flushed) before it gets
// a name: a crash at any moment before then leaves nothing behind. Returns nullopt, with
// nothing made, where the file system or the system has no unnamed files or no /proc to
// name one by; the caller then writes through a named temporary file.
std::optional<absl::Status> WriteUnnamed(const std::string& path, absl::string_view contents,
                                         FileWrite mode, FileSync sync) {
  const int fd = ::open(FolderOf(path).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, kPrivateFileMode);
  if (fd < 0) {
    if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) return std::nullopt;
    return Failed(absl::StrCat("cannot write ", path, " (an unnamed file beside it)"), errno);
  }
  int err = ::fchmod(fd, kPrivateFileMode) == 0 ? 0 : errno;
  if (err == 0) err = WriteAll(fd, contents);
  if (err == 0 && sync == FileSync::kSynced && ::fsync(fd) != 0) err = errno;
  if (err != 0) {
    ::close(fd);
    return Failed(absl::StrCat("cannot write ", path), err);
  }
  const std::string self = absl::StrCat("/proc/self/fd/", fd);
  if (mode == FileWrite::kNew) {
    // A link fails where anything is (a file, a folder, a link even dangling): one step.
    const int rc = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW);
    err = rc == 0 ? 0 : errno;
    ::close(fd);
    if (rc == 0) return absl::OkStatus();
    if (err == EEXIST) return AlreadyThere(path);
    if (err == ENOENT || err == EPERM || err == EOPNOTSUPP || err == EXDEV) return std::nullopt;
    return Failed(absl::StrCat("cannot link ", path), err);
  }
  // kReplace: a name beside it for the moment of the rename (no link can replace a file).
  std::string tmp;
  int rc = -1;
  for (int attempt = 0; attempt < 16 && rc != 0; ++attempt) {
    tmp = TemporaryName(path);
    rc = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW);
    err = rc == 0 ? 0 : errno;
    if (rc != 0 && err != EEXIST) break;
  }
  ::close(fd);
  if (rc != 0) {
    if (err == ENOENT || err == EPERM || err == EOPNOTSUPP || err == EXDEV) return std::nullopt;
    return Failed(absl::StrCat("cannot write ", path, " (a temporary name beside it)"), err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    return Failed(absl::StrCat("cannot rename ", tmp, " to ", path), err);
  }
  return absl::OkStatus();
}

// The same through a named temporary file of its own (mkstemp: O_EXCL, 0600), where there
// are no unnamed files: never a file or a link already there (a fixed `<path>.tmp` was
// opened with O_TRUNC, so a link by that name was followed and its target overwritten, a
// review found). A crash during the write leaves it behind.
absl::Status WriteNamed(const std::string& final_path, absl::string_view contents, FileWrite mode,
                        FileSync sync) {
  std::string tmp = final_path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) {
    return Failed(absl::StrCat("cannot write ", final_path, " (a temporary file beside it)"),
                  errno);
  }
  int err = ::fchmod(fd, kPrivateFileMode) == 0 ? 0 : errno;
  if (err == 0) err = WriteAll(fd, contents);
  if (err == 0 && sync == FileSync::kSynced && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return Failed(absl::StrCat("cannot write ", tmp), err);
  }
  if (mode == FileWrite::kReplace) {
    if (std::rename(tmp.c_str(), final_path.c_str()) != 0) {
      err = errno;
      ::unlink(tmp.c_str());
      return Failed(absl::StrCat("cannot rename ", tmp, " to ", final_path), err);
    }
    return absl::OkStatus();
  }
  // kNew: published only where nothing is (a file, a folder or a link, even a dangling one),
  // in one step: a file made after the caller looked is not replaced either.
  int rc = ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, final_path.c_str(), RENAME_NOREPLACE);
  err = rc == 0 ? 0 : errno;
  const char* how = "rename";
  if (rc != 0 && (err == EINVAL || err == ENOSYS)) {  // a file system without it
    how = "link";
    rc = ::link(tmp.c_str(), final_path.c_str());
    err = rc == 0 ? 0 : errno;
    if (rc != 0 && (err == EPERM || err == EOPNOTSUPP)) {  // nor hard links (vfat, FUSE)
      how = "create";
      err = CreateInPlace(final_path, contents);
      rc = err == 0 ? 0 : -1;
    }
  }
  // Renamed away; or, after a link or a create, a second name or an unused file.
  if (rc != 0 || std::strcmp(how, "rename") != 0) ::unlink(tmp.c_str());
  if (rc != 0) {
    if (err == EEXIST) return AlreadyThere(final_path);
    return Failed(absl::StrCat("cannot ", how, " ", final_path), err);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SyncFolder(absl::string_view path) {
  const std::string p(path);
  const int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Failed(absl::StrCat("cannot open the folder ", p, " to flush it"), errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return Failed(absl::StrCat("cannot flush the folder ", p), err);
  return absl::OkStatus();
}

absl::Status WritePrivateFile(absl::string_view path, absl::string_view contents, FileWrite mode,
                              FileSync sync) {
  const std::string final_path(path);
  std::optional<absl::Status> unnamed = WriteUnnamed(final_path, contents, mode, sync);
  absl::Status written =
      unnamed.has_value() ? *std::move(unnamed) : WriteNamed(final_path, contents, mode, sync);
  if (!written.ok() || sync == FileSync::kUnsynced) return written;
  // The new name itself survives a power loss only once its folder is flushed.
  return SyncFolder(FolderOf(final_path));
}

absl::Status CheckPrivateDir(absl::string_view path) {
  const std::string p(path);
  struct stat st;
  if (::stat(p.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat(p, ": no such data dir"));
    return absl::PermissionDeniedError(
        absl::StrCat(p, ": cannot read the data dir: ", std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::PermissionDeniedError(absl::StrCat(p, ": the data dir is not a folder"));
  }
  if (st.st_uid != ::geteuid()) {
    return absl::PermissionDeniedError(
        absl::StrCat(p, ": the data dir is owned by uid ", st.st_uid, ", not by this user (uid ",
                     ::geteuid(), "); refusing to use it"));
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return absl::PermissionDeniedError(absl::StrCat(
        p, ": the data dir is writable by ", (st.st_mode & S_IWOTH) != 0 ? "every user" : "its group",
        " (mode ", mode, "); refusing to use it (chmod 700 ", p, ")"));
  }
  // Readable or listable by others (a folder made by hand, 0755): made 0700, said once.
  // What the exchange writes is its user's alone; until 2026-12-07 such a folder was used
  // as it was, and other users could list the statements' and stores' names (a review).
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    if (::chmod(p.c_str(), kPrivateDirMode) != 0) {
      return absl::PermissionDeniedError(
          absl::StrCat(p, ": cannot make the folder private (0700): ", std::strerror(errno)));
    }
    std::fprintf(stderr, "cfx: %s was readable by others; made private (0700)\n", p.c_str());
  }
  return absl::OkStatus();
}

absl::Status PrepareDataDir(absl::string_view path, bool create) {
  struct stat st;
  if (create && ::stat(std::string(path).c_str(), &st) != 0 && errno == ENOENT) {
    if (absl::Status s = MakePrivateDirs(path); !s.ok()) return s;
  }
  return CheckPrivateDir(path);
}

}  // namespace cfx::storage
