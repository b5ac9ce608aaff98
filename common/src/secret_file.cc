#include "cfx/common/secret_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace cfx::common {

absl::StatusOr<std::string> ReadSecretFile(const std::string& path) {
  constexpr size_t kMaxBytes = 1024;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    const std::string why =
        err == ELOOP ? "a symbolic link (name the file itself)" : std::string(std::strerror(err));
    return err == ENOENT ? absl::NotFoundError(absl::StrCat(path, ": cannot open: ", why))
                         : absl::PermissionDeniedError(absl::StrCat(path, ": cannot open: ", why));
  }
  struct stat st {};
  std::string text;
  absl::Status status;
  if (::fstat(fd, &st) != 0) {
    status = absl::InternalError(absl::StrCat(path, ": cannot stat: ", std::strerror(errno)));
  } else if (!S_ISREG(st.st_mode)) {
    status = absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  } else if (st.st_uid != ::geteuid()) {
    status = absl::PermissionDeniedError(
        absl::StrCat(path, ": owned by another user (a secret file must be this user's own)"));
  } else if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%03o", static_cast<unsigned>(st.st_mode & 0777));
    status = absl::PermissionDeniedError(absl::StrCat(
        path, ": its group or others may read or write it (mode ", mode, "): chmod 600 it"));
  } else if (st.st_size > static_cast<off_t>(kMaxBytes)) {
    status = absl::InvalidArgumentError(absl::StrCat(path, ": larger than ", kMaxBytes, " bytes"));
  } else {
    char buf[kMaxBytes + 1];
    ssize_t n = 0;
    size_t got = 0;
    while (got <= kMaxBytes && (n = ::read(fd, buf + got, sizeof(buf) - got)) > 0) {
      got += static_cast<size_t>(n);
    }
    if (n < 0) {
      status = absl::InternalError(absl::StrCat(path, ": cannot read: ", std::strerror(errno)));
    } else if (got > kMaxBytes) {
      status =
          absl::InvalidArgumentError(absl::StrCat(path, ": larger than ", kMaxBytes, " bytes"));
    } else {
      text.assign(buf, got);
      std::memset(buf, 0, sizeof(buf));
    }
  }
  ::close(fd);
  if (!status.ok()) return status;
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (text.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": empty"));
  for (const char c : text) {
    if (c < 0x21 || c > 0x7E) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": holds a character that is not printable ASCII (or a space, or a second line)"));
    }
  }
  return text;
}

}  // namespace cfx::common
