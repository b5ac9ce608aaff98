// Journal records and snapshots on recovery: whatever bytes a damaged or hostile data dir
// holds, decoding a journal record, a command payload or an engine snapshot returns an error
// or a value; it never crashes. What decodes re-encodes to something that decodes the same.
#include <cstdlib>
#include <string>

#include "cfx/exchange/engine_codec.h"
#include "cfx/exchange/engine_matcher.h"
#include "record_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  const int mode = size > 0 ? data[0] % 3 : 0;
  const absl::string_view rest = size > 0 ? bytes.substr(1) : bytes;
  if (mode == 0) {  // a journal command payload
    cfx::exchange::EngineCodec codec;
    cfx::engine::Command c;
    if (codec.Decode(rest, &c).ok()) {
      std::string once, twice;
      codec.Encode(c, &once);
      cfx::engine::Command again;
      if (!codec.Decode(once, &again).ok()) abort();
      codec.Encode(again, &twice);
      if (once != twice) abort();
    }
  } else if (mode == 1) {  // an engine (matcher) snapshot
    cfx::exchange::MatcherOptions options;
    options.engine.order_capacity = 64;
    options.engine.client_id_capacity = 64;
    cfx::exchange::EngineMatcher m(options);
    if (m.Restore(rest).ok()) {
      const std::string blob = m.Snapshot();
      cfx::exchange::EngineMatcher again(options);
      if (!again.Restore(blob).ok()) abort();
      if (again.engine().StateHash() != m.engine().StateHash()) abort();
    }
  } else {  // a journal record value (header, checksum, payload)
    absl::string_view payload;
    cfx::journal::internal::DecodeValue(cfx::journal::internal::kRecordMagic, "record", 7, rest,
                                        &payload)
        .IgnoreError();
  }
  return 0;
}
