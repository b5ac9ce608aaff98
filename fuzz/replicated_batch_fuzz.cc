// A replicated batch as a standby reads it from the JetStream stream: any bytes decode to a
// batch or to DataLoss, never a crash; a batch that decodes re-encodes to the same bytes.
#include <cstdlib>
#include <string>

#include "cfx/replication/batch_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  cfx::replication::BatchView b;
  if (!cfx::replication::DecodeBatch(bytes, &b).ok()) return 0;
  std::string again;
  cfx::replication::EncodeBatch(b.first_seq, b.payloads, &again, b.checkpoint_seq, b.checkpoint_hash);
  if (again != bytes) std::abort();
  return 0;
}
