// The header fields the acceptor reads itself, without QuickFIX: a MsgSeqNum-valued field
// and what SendSkipped needs of a message the session sends. Plain C++14 (used by the
// C++14 acceptor).
#ifndef CFX_GATEWAY_FIX_SENT_HEADER_H_
#define CFX_GATEWAY_FIX_SENT_HEADER_H_

#include <string>

namespace cfx {
namespace gateway {
namespace internal {

// A MsgSeqNum-valued field (34, 7, 16, 36) read exactly as QuickFIX reads it
// (FIX::IntConvertor): an optional '-', then digits, leading zeros allowed, and a value past
// the range of int wrapping around as QuickFIX's does. False for anything else.
bool ReadSeqNum(const std::string& text, int* out);

// What SendSkipped reads of a message the session sends: its MsgType (35), MsgSeqNum (34),
// PossDupFlag (43) and, for a GapFill, its NewSeqNo (36). QuickFIX writes 8, 9 and 35 first
// and the other header fields by tag, so the scan of any other message stops at SendingTime
// (52) once it has the number.
struct SentHeader {
  bool logon = false;
  bool sequence_reset = false;
  bool has_seq = false;
  bool poss_dup = false;
  int seq = 0;
  int new_seq_no = 0;
};
SentHeader ReadSentHeader(const std::string& m);

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_SENT_HEADER_H_
