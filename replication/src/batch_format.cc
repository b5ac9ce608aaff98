#include "cfx/replication/batch_format.h"

#include "absl/strings/str_cat.h"

namespace cfx::replication {
namespace {

constexpr char kMagic[4] = {'C', 'F', 'X', 'B'};
constexpr uint8_t kVersion = 1;

void PutLe(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetLe(absl::string_view b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  }
  return v;
}

absl::Status Bad(size_t offset, absl::string_view what) {
  return absl::DataLossError(absl::StrCat("replicated batch: ", what, " at byte ", offset));
}

}  // namespace

void EncodeBatch(uint64_t first_seq, absl::Span<const absl::string_view> payloads,
                 std::string* out, uint64_t checkpoint_seq, uint64_t checkpoint_hash) {
  size_t total = kBatchHeaderSize;
  for (absl::string_view p : payloads) total += 4 + p.size();
  out->reserve(out->size() + total);
  out->append(kMagic, sizeof(kMagic));
  out->push_back(static_cast<char>(kVersion));
  PutLe(first_seq, 8, out);
  PutLe(payloads.size(), 4, out);
  PutLe(checkpoint_seq, 8, out);
  PutLe(checkpoint_hash, 8, out);
  for (absl::string_view p : payloads) {
    PutLe(p.size(), 4, out);
    out->append(p.data(), p.size());
  }
}

absl::Status DecodeBatch(absl::string_view bytes, BatchView* out) {
  out->payloads.clear();
  if (bytes.size() < kBatchHeaderSize) return Bad(0, "shorter than its header");
  if (bytes.substr(0, 4) != absl::string_view(kMagic, 4)) return Bad(0, "bad magic");
  if (static_cast<uint8_t>(bytes[4]) != kVersion) return Bad(4, "unknown version");
  out->first_seq = GetLe(bytes, 5, 8);
  const uint64_t count = GetLe(bytes, 13, 4);
  out->checkpoint_seq = GetLe(bytes, 17, 8);
  out->checkpoint_hash = GetLe(bytes, 25, 8);
  if (out->first_seq == 0) return Bad(5, "first_seq 0");
  if (count > kMaxBatchInputs) return Bad(13, "count over the limit");
  if (out->first_seq > UINT64_MAX - count) return Bad(5, "first_seq + count overflows");
  size_t at = kBatchHeaderSize;
  out->payloads.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    if (bytes.size() - at < 4) return Bad(at, "input length cut short");
    const uint64_t len = GetLe(bytes, at, 4);
    at += 4;
    if (len > kMaxInputBytes || len > bytes.size() - at) return Bad(at - 4, "input length");
    out->payloads.push_back(bytes.substr(at, len));
    at += len;
  }
  if (at != bytes.size()) return Bad(at, "trailing bytes");
  return absl::OkStatus();
}

}  // namespace cfx::replication
