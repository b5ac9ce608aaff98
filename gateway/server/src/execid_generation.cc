#include "cfx/gateway/execid_generation.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace cfx::gateway {
namespace {

constexpr char kGenerationTag[] = "cfx-execid-generation";

absl::Status Errno(const std::string& path, const char* what) {
  return absl::InternalError(absl::StrCat(path, ": ", what, ": ", std::strerror(errno)));
}

absl::Status SyncPath(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Errno(path, "open");
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Errno(path, "fsync");
  return absl::OkStatus();
}

}  // namespace

std::string ExecIdGenerationPath(const std::string& data_dir) {
  return data_dir + "/fix/reported.generation";
}

absl::StatusOr<ExecIdGeneration> ReadExecIdGeneration(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return ExecIdGeneration{};
    return Errno(path, "open");
  }
  char bytes[128];
  ssize_t n;
  do {
    n = ::pread(fd, bytes, sizeof(bytes), 0);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n < 0) return Errno(path, "read");
  // Exactly one line: the tag, the generation and its first seq, in decimal digits.
  const absl::string_view text(bytes, static_cast<size_t>(n));
  std::vector<absl::string_view> fields;
  const bool one_line = n < static_cast<ssize_t>(sizeof(bytes)) && text.size() > 1 &&
                        text.back() == '\n' && text.find('\n') == text.size() - 1;
  if (one_line) fields = absl::StrSplit(text.substr(0, text.size() - 1), ' ');
  auto digits = [](absl::string_view f) {
    return !f.empty() && f.size() <= 19 && f.find_first_not_of("0123456789") == f.npos;
  };
  uint64_t generation = 0, from = 0;
  const bool whole = fields.size() == 3 && fields[0] == kGenerationTag && digits(fields[1]) &&
                     digits(fields[2]) && absl::SimpleAtoi(fields[1], &generation) &&
                     absl::SimpleAtoi(fields[2], &from) && generation > 0 &&
                     generation < UINT32_MAX && from > 0;
  if (!whole) {
    return absl::DataLossError(absl::StrCat(
        path,
        ": damaged: the ExecIDs of the inputs sequenced after the journal's tail was cut "
        "cannot be told apart; restore the file (\"",
        kGenerationTag, " <generation> <first seq>\")"));
  }
  return ExecIdGeneration{static_cast<uint32_t>(generation), from};
}

absl::Status WriteExecIdGeneration(const std::string& path, ExecIdGeneration g) {
  const std::string tmp = path + ".tmp";
  const std::string text = absl::StrCat(kGenerationTag, " ", g.generation, " ", g.from, "\n");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Errno(tmp, "open");
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool synced = written && ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) return Errno(tmp, written ? "fsync" : "write");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Errno(path, "rename");
  const size_t slash = path.rfind('/');
  return SyncPath(slash == std::string::npos ? "." : path.substr(0, slash), O_RDONLY | O_DIRECTORY);
}

absl::StatusOr<ExecIdGeneration> RecordJournalCut(const std::string& path, uint64_t first_cut_seq) {
  absl::StatusOr<ExecIdGeneration> now = ReadExecIdGeneration(path);
  if (!now.ok()) return now.status();
  const ExecIdGeneration next{now->generation + 1, first_cut_seq};
  if (absl::Status s = WriteExecIdGeneration(path, next); !s.ok()) return s;
  return next;
}

}  // namespace cfx::gateway
