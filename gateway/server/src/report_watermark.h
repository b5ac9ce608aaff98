// `<data_dir>/fix/reported`: the last input whose reports the FIX sessions' stores hold
// (docs/durability.md, "Reports a crash kept from going out"; layout in docs/formats.md).
// Written after the stores, so it can only lag; at a start the exchange reports the
// outcomes of the inputs after it again. Two slots, written in turn, so a write cut short
// leaves the other one whole.
//
// Thread safety: one thread at a time.
#ifndef CFX_GATEWAY_SERVER_SRC_REPORT_WATERMARK_H_
#define CFX_GATEWAY_SERVER_SRC_REPORT_WATERMARK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cfx::gateway::internal {

inline constexpr size_t kWatermarkSlot = 32;  // bytes per slot; the file is two

class ReportWatermark {
 public:
  // Opens (creating, mode 0600) `path`. DataLoss naming the file when it is there but
  // neither slot reads back whole; other errors name the file and the errno.
  static absl::StatusOr<std::unique_ptr<ReportWatermark>> Open(const std::string& path);
  ~ReportWatermark();
  ReportWatermark(const ReportWatermark&) = delete;
  ReportWatermark& operator=(const ReportWatermark&) = delete;

  // The seq the file held when opened; nullopt when it did not exist (or was empty).
  std::optional<uint64_t> found() const { return found_; }
  // Writes `seq` into the older slot (no flush: a kill -9 keeps what was written, and the
  // stores it follows are not flushed either).
  absl::Status Write(uint64_t seq);
  // Flushes what was written to the disk (after a cut: the lagging file must not come back).
  absl::Status Sync();
  const std::string& path() const { return path_; }

 private:
  ReportWatermark(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
  std::optional<uint64_t> found_;
  uint64_t count_ = 0;  // writes so far, the newest slot's
};

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_SERVER_SRC_REPORT_WATERMARK_H_
