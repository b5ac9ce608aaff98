#include "cfx/gateway/execid_generation.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace cfx::gateway {
namespace {

constexpr char kGenerationTag[] = "cfx-execid-generation";
// A line is at most 62 bytes: room for a thousand cuts.
constexpr size_t kMaxGenerationsBytes = 64 * 1024;

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

absl::StatusOr<std::vector<ExecIdGeneration>> ReadExecIdGenerations(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return std::vector<ExecIdGeneration>{};
    return Errno(path, "open");
  }
  std::string bytes(kMaxGenerationsBytes + 1, '\0');
  size_t got = 0;
  for (;;) {
    const ssize_t n = ::pread(fd, bytes.data() + got, bytes.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const absl::Status err = Errno(path, "read");
      ::close(fd);
      return err;
    }
    if (n == 0 || (got += static_cast<size_t>(n)) == bytes.size()) break;
  }
  ::close(fd);
  const auto damaged = [&] {
    return absl::DataLossError(absl::StrCat(
        path,
        ": damaged: the ExecIDs of the inputs sequenced after the journal's tail was cut "
        "cannot be told apart; restore the file (a line \"",
        kGenerationTag, " <generation> <first seq>\" a cut, generations ascending)"));
  };
  const absl::string_view text(bytes.data(), got);
  if (got > kMaxGenerationsBytes || text.empty() || text.back() != '\n') return damaged();
  auto digits = [](absl::string_view f) {
    return !f.empty() && f.size() <= 19 && f.find_first_not_of("0123456789") == f.npos;
  };
  // One line a cut: the tag, the generation and its first seq, in decimal digits; the
  // generations ascending (a file written before 2026-12-07 holds the latest only).
  std::vector<ExecIdGeneration> out;
  for (absl::string_view line : absl::StrSplit(text.substr(0, text.size() - 1), '\n')) {
    const std::vector<absl::string_view> fields = absl::StrSplit(line, ' ');
    uint64_t generation = 0, from = 0;
    const bool whole = fields.size() == 3 && fields[0] == kGenerationTag && digits(fields[1]) &&
                       digits(fields[2]) && absl::SimpleAtoi(fields[1], &generation) &&
                       absl::SimpleAtoi(fields[2], &from) && generation > 0 &&
                       generation < UINT32_MAX && from > 0 &&
                       (out.empty() || generation > out.back().generation);
    if (!whole) return damaged();
    out.push_back(ExecIdGeneration{static_cast<uint32_t>(generation), from});
  }
  return out;
}

absl::StatusOr<ExecIdGeneration> ReadExecIdGeneration(const std::string& path) {
  auto all = ReadExecIdGenerations(path);
  if (!all.ok()) return all.status();
  return all->empty() ? ExecIdGeneration{} : all->back();
}

uint32_t GenerationOf(const std::vector<ExecIdGeneration>& generations, uint64_t seq) {
  // The latest cut at or before `seq`: a later cut from a lower seq replaced the earlier
  // generations' ranges above it.
  for (auto it = generations.rbegin(); it != generations.rend(); ++it) {
    if (it->from <= seq) return it->generation;
  }
  return 0;
}

absl::Status WriteExecIdGeneration(const std::string& path, ExecIdGeneration g) {
  auto kept = ReadExecIdGenerations(path);
  if (!kept.ok()) return kept.status();
  if (!kept->empty() && g.generation <= kept->back().generation) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": generation ", g.generation,
                                                   " is not past ", kept->back().generation));
  }
  std::string text;
  for (const ExecIdGeneration& k : *kept) {
    absl::StrAppend(&text, kGenerationTag, " ", k.generation, " ", k.from, "\n");
  }
  absl::StrAppend(&text, kGenerationTag, " ", g.generation, " ", g.from, "\n");
  if (text.size() > kMaxGenerationsBytes) {
    return absl::ResourceExhaustedError(absl::StrCat(path, ": more journal cuts than it keeps"));
  }
  const std::string tmp = path + ".tmp";
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
