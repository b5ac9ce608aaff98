#include "cfx/storage/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// Creates `path` where nothing is (O_EXCL, no link followed; 0600) and writes `contents` in
// place; removes it again if the write fails. 0, or the errno of what failed.
int CreateInPlace(const std::string& path, absl::string_view contents) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kPrivateFileMode);
  if (fd < 0) return errno;
  int err = 0;
  for (size_t done = 0; err == 0 && done < contents.size();) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) err = n < 0 ? errno : EIO;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) ::unlink(path.c_str());
  return err;
}

}  // namespace

absl::Status WritePrivateFile(absl::string_view path, absl::string_view contents, FileWrite mode) {
  const std::string final_path(path);
  // A temporary name of its own (mkstemp: O_EXCL, 0600): never a file or a link already
  // there (a fixed `<path>.tmp` was opened with O_TRUNC, so a link by that name was followed
  // and its target overwritten, a review found).
  std::string tmp = final_path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot write ", final_path, " (a temporary file beside it): ", std::strerror(errno)));
  }
  auto fail = [&](const std::string& what) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return absl::UnavailableError(absl::StrCat(what, ": ", std::strerror(err)));
  };
  bool ok = ::fchmod(fd, kPrivateFileMode) == 0;
  for (size_t done = 0; ok && done < contents.size();) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  if (!ok) {
    const int err = errno;
    ::close(fd);
    errno = err;
    return fail(absl::StrCat("cannot write ", tmp));
  }
  if (::close(fd) != 0) return fail(absl::StrCat("cannot write ", tmp));
  if (mode == FileWrite::kReplace) {
    if (std::rename(tmp.c_str(), final_path.c_str()) != 0) {
      return fail(absl::StrCat("cannot rename ", tmp, " to ", final_path));
    }
    return absl::OkStatus();
  }
  // kNew: published only where nothing is (a file, a folder or a link, even a dangling one),
  // in one step: a file made after the caller looked is not replaced either.
  int rc = ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, final_path.c_str(), RENAME_NOREPLACE);
  int err = rc == 0 ? 0 : errno;
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
    if (err == EEXIST) {
      return absl::AlreadyExistsError(absl::StrCat(final_path, " is already there: not replaced"));
    }
    return absl::UnavailableError(
        absl::StrCat("cannot ", how, " ", final_path, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
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
