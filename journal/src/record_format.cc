#include "record_format.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "cfx/journal/crc32c.h"

namespace cfx::journal::internal {

void EncodeKey(uint64_t seq, char* key) {
  for (int i = 0; i < 8; ++i) key[i] = static_cast<char>((seq >> (56 - 8 * i)) & 0xFF);
}

bool DecodeKey(absl::string_view key, uint64_t* seq) {
  if (key.size() != kKeySize) return false;
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(key[i]);
  *seq = v;
  return true;
}

void EncodeValue(uint32_t magic, uint64_t seq, absl::string_view payload, char* dst) {
  PutLe(dst, magic, 4);
  PutLe(dst + 4, kFormatVersion, 2);
  PutLe(dst + 6, 0, 2);
  PutLe(dst + 8, seq, 8);
  PutLe(dst + 16, payload.size(), 4);
  uint32_t crc = Crc32c(dst, 20);
  crc = Crc32cExtend(crc, payload.data(), payload.size());
  PutLe(dst + 20, crc, 4);
  if (!payload.empty()) std::memcpy(dst + kHeaderSize, payload.data(), payload.size());
}

std::string EncodeValue(uint32_t magic, uint64_t seq, absl::string_view payload) {
  std::string out(kHeaderSize + payload.size(), '\0');
  EncodeValue(magic, seq, payload, out.data());
  return out;
}

absl::Status DecodeValue(uint32_t magic, absl::string_view what, uint64_t key_seq,
                         absl::string_view value, absl::string_view* payload) {
  auto loss = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat(what, " ", key_seq, ": ", why));
  };
  if (value.size() < kHeaderSize) {
    return loss(absl::StrCat("bad length (", value.size(), " bytes, shorter than the header)"));
  }
  const char* h = value.data();
  if (GetLe(h, 4) != magic) return loss("bad magic");
  const uint64_t version = GetLe(h + 4, 2);
  if (version != kFormatVersion) return loss(absl::StrCat("unsupported format version ", version));
  const uint64_t length = GetLe(h + 16, 4);
  if (length != value.size() - kHeaderSize) {
    return loss(absl::StrCat("bad length (header says ", length, ", record holds ",
                             value.size() - kHeaderSize, ")"));
  }
  uint32_t crc = Crc32c(h, 20);
  crc = Crc32cExtend(crc, h + kHeaderSize, length);
  if (crc != GetLe(h + 20, 4)) return loss("checksum mismatch");
  // Checked after the CRC: a valid record under the wrong key is a misplaced write.
  const uint64_t seq = GetLe(h + 8, 8);
  if (seq != key_seq) return loss(absl::StrCat("seq mismatch (record says ", seq, ")"));
  *payload = value.substr(kHeaderSize);
  return absl::OkStatus();
}

}  // namespace cfx::journal::internal
