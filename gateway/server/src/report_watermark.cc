#include "report_watermark.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cfx/journal/crc32c.h"

namespace cfx::gateway::internal {
namespace {

// A slot: "CFXR", u16 version 1, u16 0, u64 count, u64 seq, u32 CRC-32C of the 24 bytes
// before it, u32 0. Little-endian.
constexpr uint32_t kMagic = 0x52584643;  // "CFXR"
constexpr uint16_t kVersion = 1;

void Put(char* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
uint64_t Get(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// The slot's (count, seq) when it reads back whole.
std::optional<std::pair<uint64_t, uint64_t>> ReadSlot(const char* p) {
  if (Get(p, 4) != kMagic || Get(p + 4, 2) != kVersion) return std::nullopt;
  if (Get(p + 24, 4) != journal::Crc32c(p, 24)) return std::nullopt;
  return std::make_pair(Get(p + 8, 8), Get(p + 16, 8));
}

absl::Status Errno(const std::string& path, const char* what) {
  return absl::InternalError(absl::StrCat(path, ": ", what, ": ", std::strerror(errno)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ReportWatermark>> ReportWatermark::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Errno(path, "open");
  std::unique_ptr<ReportWatermark> w(new ReportWatermark(path, fd));
  char bytes[2 * kWatermarkSlot];
  ssize_t n;
  do {
    n = ::pread(fd, bytes, sizeof(bytes), 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return Errno(path, "read");
  if (n == 0) return w;  // new: nothing reported before this run
  std::optional<std::pair<uint64_t, uint64_t>> best;
  for (size_t at = 0; at + kWatermarkSlot <= static_cast<size_t>(n); at += kWatermarkSlot) {
    auto slot = ReadSlot(bytes + at);
    if (slot && (!best || slot->first > best->first)) best = slot;
  }
  if (!best) {
    return absl::DataLossError(absl::StrCat(
        path, ": damaged (neither slot reads back whole): which inputs' reports went out is "
              "unknown; remove the file to start without reporting any again"));
  }
  w->count_ = best->first;
  w->found_ = best->second;
  return w;
}

ReportWatermark::~ReportWatermark() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status ReportWatermark::Sync() {
  if (::fdatasync(fd_) != 0) return Errno(path_, "fdatasync");
  return absl::OkStatus();
}

absl::Status ReportWatermark::Write(uint64_t seq) {
  char slot[kWatermarkSlot] = {};
  const uint64_t count = count_ + 1;
  Put(slot, kMagic, 4);
  Put(slot + 4, kVersion, 2);
  Put(slot + 8, count, 8);
  Put(slot + 16, seq, 8);
  Put(slot + 24, journal::Crc32c(slot, 24), 4);
  const off_t at = static_cast<off_t>((count % 2) * kWatermarkSlot);
  ssize_t n;
  do {
    n = ::pwrite(fd_, slot, sizeof(slot), at);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof(slot))) {
    if (n >= 0) errno = EIO;
    return Errno(path_, "write");
  }
  count_ = count;
  return absl::OkStatus();
}

}  // namespace cfx::gateway::internal
