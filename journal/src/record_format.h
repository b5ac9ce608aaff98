// Byte layout of a journal record or snapshot value (docs/formats.md):
//
//   offset size  field
//   0      4     magic "CFXJ" (record) or "CFXS" (snapshot)
//   4      2     format version (2: a record's payload starts with the input's time stamp)
//   6      2     flags (0; reserved)
//   8      8     seq (must equal the key)
//   16     4     payload length
//   20     4     CRC-32C of bytes [0, 20) followed by the payload
//   24     n     payload
//
// Integers in the header are little-endian; LMDB keys are 8-byte big-endian seqs so that
// LMDB's byte order is seq order.
#ifndef CFX_JOURNAL_RECORD_FORMAT_H_
#define CFX_JOURNAL_RECORD_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace cfx::journal::internal {

inline constexpr uint32_t kRecordMagic = 0x4A584643;    // "CFXJ" as little-endian bytes
inline constexpr uint32_t kSnapshotMagic = 0x53584643;  // "CFXS"
// The commit log's mark under key 0 of the records (a key no record has: seqs start at 1):
// present while a commit log may hold records LMDB does not (docs/formats.md, "Commit log").
inline constexpr uint32_t kLogMarkMagic = 0x4D584643;  // "CFXM"
inline constexpr uint64_t kLogMarkKey = 0;
inline constexpr absl::string_view kLogMarkPayload = "commit log in use";
inline constexpr uint16_t kFormatVersion = 2;
inline constexpr size_t kHeaderSize = 24;
inline constexpr size_t kKeySize = 8;

// Little-endian integers of `bytes` bytes (the header's and the commit log's).
inline void PutLe(char* dst, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) dst[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
inline uint64_t GetLe(const char* src, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v |= static_cast<uint64_t>(static_cast<uint8_t>(src[i])) << (8 * i);
  }
  return v;
}

// Writes the 8-byte big-endian key of `seq` to key[0, 8).
void EncodeKey(uint64_t seq, char* key);
// Returns false when `key` is not 8 bytes.
bool DecodeKey(absl::string_view key, uint64_t* seq);

// Writes header + payload for `seq` into *out (replacing its contents) or into `dst`
// (REQUIRES: kHeaderSize + payload.size() bytes).
void EncodeValue(uint32_t magic, uint64_t seq, absl::string_view payload, char* dst);
std::string EncodeValue(uint32_t magic, uint64_t seq, absl::string_view payload);

// Checks `value` stored under `key_seq`; on success stores the payload view in *payload.
// `what` names the item in the error ("journal record", "snapshot"): DataLoss
// "<what> <seq>: checksum mismatch" (or bad magic, unsupported version, bad length,
// seq mismatch).
absl::Status DecodeValue(uint32_t magic, absl::string_view what, uint64_t key_seq,
                         absl::string_view value, absl::string_view* payload);

}  // namespace cfx::journal::internal

#endif  // CFX_JOURNAL_RECORD_FORMAT_H_
