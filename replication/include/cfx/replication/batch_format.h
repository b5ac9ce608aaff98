// The bytes of one replicated batch: one JetStream message per group commit of the primary's
// sequencer (docs/replication.md, "The stream").
//
//   "CFXB" | version 1 (1 byte) | first_seq (8, little-endian) | count (4) |
//   checkpoint seq (8) | checkpoint hash (8) | count x ( length (4) | payload bytes )
//
// The checkpoint is the primary's state hash after input `checkpoint seq` (0: none), for the
// standby to compare with its own.
//
// A batch of count 0 is the stream's genesis marker (first_seq 1): it makes the stream
// non-empty, so that the first real append can be fenced by the stream's last sequence.
#ifndef CFX_REPLICATION_BATCH_FORMAT_H_
#define CFX_REPLICATION_BATCH_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace cfx::replication {

inline constexpr size_t kBatchHeaderSize = 4 + 1 + 8 + 4 + 8 + 8;
// The most inputs one batch may hold, and the most bytes one input may have: a decoder
// never trusts a count or a length beyond these (or beyond the bytes it was given).
inline constexpr uint32_t kMaxBatchInputs = 1u << 20;
inline constexpr uint32_t kMaxInputBytes = 1u << 20;

// Appends the encoding of inputs first_seq .. first_seq + payloads.size() - 1 to *out.
void EncodeBatch(uint64_t first_seq, absl::Span<const absl::string_view> payloads,
                 std::string* out, uint64_t checkpoint_seq = 0, uint64_t checkpoint_hash = 0);

// A decoded batch; the views point into the bytes given to DecodeBatch.
struct BatchView {
  uint64_t first_seq = 0;
  std::vector<absl::string_view> payloads;
  uint64_t checkpoint_seq = 0;
  uint64_t checkpoint_hash = 0;
};

// Error (DataLoss, naming the offset and the field): not a batch of this format.
absl::Status DecodeBatch(absl::string_view bytes, BatchView* out);

}  // namespace cfx::replication

#endif  // CFX_REPLICATION_BATCH_FORMAT_H_
