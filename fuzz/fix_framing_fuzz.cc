// FixFraming (the acceptor's check before QuickFIX): any bytes, split anywhere, give the same
// verdict and message count as the same bytes in one piece.
#include <algorithm>
#include <cstdlib>

#include "fix_framing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  using cfx::gateway::internal::FixFraming;
  const size_t chunk = data[0] % 13 + 1;
  const char* bytes = reinterpret_cast<const char*>(data + 1);
  const size_t n = size - 1;
  FixFraming whole(256), pieces(256);
  const FixFraming::Result a = whole.Consume(bytes, n);
  FixFraming::Result b = FixFraming::Result::kOk;
  for (size_t i = 0; i < n && b == FixFraming::Result::kOk; i += chunk) {
    b = pieces.Consume(bytes + i, std::min(chunk, n - i));
  }
  if (a != b || whole.messages() != pieces.messages()) abort();
  return 0;
}
