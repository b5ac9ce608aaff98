// FixFraming (the acceptor's framing before QuickFIX): any bytes, split anywhere, give the
// same verdict, the same messages passed on and the same garbled count as the same bytes in
// one piece; what it passes on is always whole messages, each no larger than the limit.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "fix_framing.h"

namespace {

// Every message in `whole` is "8=" ... "9=<n>" SOH <n bytes> "10=ddd" SOH, n <= max.
bool AllFramed(const std::string& whole, size_t max) {
  size_t pos = 0;
  while (pos < whole.size()) {
    if (whole.compare(pos, 2, "8=") != 0) return false;
    const size_t soh = whole.find('\x01', pos);
    if (soh == std::string::npos || whole.compare(soh + 1, 2, "9=") != 0) return false;
    const size_t soh2 = whole.find('\x01', soh + 1);
    if (soh2 == std::string::npos) return false;
    const size_t body = std::stoull(whole.substr(soh + 3, soh2 - soh - 3));
    if (body > max) return false;
    const size_t trailer = soh2 + 1 + body;
    if (trailer + 7 > whole.size() || whole.compare(trailer, 3, "10=") != 0) return false;
    pos = trailer + 7;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  using cfx::gateway::internal::FixFraming;
  const size_t chunk = data[0] % 13 + 1;
  const char* bytes = reinterpret_cast<const char*>(data + 1);
  const size_t n = size - 1;
  FixFraming whole(256), pieces(256);
  std::string out_whole, out_pieces;
  const FixFraming::Result a = whole.Consume(bytes, n, &out_whole);
  FixFraming::Result b = FixFraming::Result::kOk;
  for (size_t i = 0; i < n && b == FixFraming::Result::kOk; i += chunk) {
    b = pieces.Consume(bytes + i, std::min(chunk, n - i), &out_pieces);
  }
  if (a != b || whole.messages() != pieces.messages()) abort();
  if (a == FixFraming::Result::kOk &&
      (out_whole != out_pieces || whole.garbled() != pieces.garbled())) {
    abort();
  }
  if (!AllFramed(out_whole, 256)) abort();
  return 0;
}
