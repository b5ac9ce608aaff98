#include "fix_sent_header.h"

#include <cstdint>

namespace cfx {
namespace gateway {
namespace internal {

bool ReadSeqNum(const std::string& text, int* out) {
  size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) i = 1;
  if (i == text.size()) return false;
  uint32_t x = 0;
  for (; i < text.size(); ++i) {
    const uint32_t c = static_cast<uint32_t>(static_cast<unsigned char>(text[i])) - '0';
    if (c > 9) return false;
    x = 10u * x + c;
  }
  if (negative) x = 0u - x;
  *out = static_cast<int>(x);  // two's complement, as QuickFIX's int
  return true;
}

SentHeader ReadSentHeader(const std::string& m) {
  SentHeader h;
  size_t pos = 0;
  while (pos < m.size()) {
    const size_t eq = m.find('=', pos);
    if (eq == std::string::npos) break;
    const size_t soh = m.find('\001', eq);
    if (soh == std::string::npos) break;
    const size_t tag_size = eq - pos;
    const bool one_char = soh - eq == 2;
    if (tag_size == 2) {
      const char a = m[pos];
      const char b = m[pos + 1];
      if (a == '3' && b == '5') {
        h.logon = one_char && m[eq + 1] == 'A';
        h.sequence_reset = one_char && m[eq + 1] == '4';
      } else if (a == '3' && b == '4') {
        h.has_seq = ReadSeqNum(m.substr(eq + 1, soh - eq - 1), &h.seq);
      } else if (a == '4' && b == '3') {
        h.poss_dup = one_char && m[eq + 1] == 'Y';
      } else if (a == '3' && b == '6') {
        ReadSeqNum(m.substr(eq + 1, soh - eq - 1), &h.new_seq_no);
      } else if (a == '5' && b == '2' && h.has_seq && !h.sequence_reset) {
        break;
      }
    }
    pos = soh + 1;
  }
  return h;
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
