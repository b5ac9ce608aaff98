// FixFraming: cuts a client's FIX byte stream into whole messages without parsing any field
// but BeginString (8) and BodyLength (9), so that the acceptor hands QuickFIX only whole,
// well-framed messages, refuses one that is too large before anything buffers it, and can
// tell when a client's first message (its Logon) has arrived.
//
//   FixFraming framing(/*max_body_bytes=*/16384);
//   std::string whole;
//   if (framing.Consume(bytes, n, &whole) != FixFraming::Result::kOk) { /* close */ }
//   send `whole` (zero or more complete messages) on to QuickFIX
//   (or Consume(bytes, n, &whole, &ends): ends[i] is where the i-th message in `whole` ends)
//
// A message is exactly `8=<1-16 chars>SOH 9=<1-9 digits>SOH <BodyLength bytes> 10=<3 digits>SOH`.
// A garbled message (one that does not follow this, a BodyLength that does not end at `10=`)
// is dropped and the stream resynchronised at the next `8=FIX`, as the FIX session layer
// requires ("garbled messages are ignored"; QuickFIX then sees the sequence gap and sends a
// ResendRequest). Bytes before the first whole message are not a FIX client's: garbage
// there, or more than kMaxGarbledInARow garbled messages with no whole one between, refuses
// the stream (kMalformed). A BodyLength over the limit always refuses it (kTooLarge).
// Memory: at most one partial message (prefix + max_body_bytes + trailer) is held.
// Thread safety: none; one per connection. Plain C++14 (used by the C++14 acceptor).
#ifndef CFX_GATEWAY_FIX_FRAMING_H_
#define CFX_GATEWAY_FIX_FRAMING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cfx {
namespace gateway {
namespace internal {

class FixFraming {
 public:
  enum class Result { kOk, kTooLarge, kMalformed };
  static constexpr int kMaxGarbledInARow = 8;

  explicit FixFraming(size_t max_body_bytes) : max_body_(max_body_bytes) {}

  // Consumes `n` bytes; appends every message they complete to *whole and, when `ends` is
  // given, the offset in *whole just past each of them to *ends. Once it returns something
  // other than kOk it keeps returning it and appends nothing.
  Result Consume(const char* data, size_t n, std::string* whole,
                 std::vector<size_t>* ends = nullptr);
  // Whole messages passed on so far.
  uint64_t messages() const { return messages_; }
  // Garbled messages dropped so far.
  uint64_t garbled() const { return garbled_; }
  // Why the stream was refused, or why the last garbled message was dropped ("" if none).
  const std::string& error() const { return error_; }

 private:
  enum class Prefix { kNeedMore, kOk, kGarbled, kTooLarge };
  // Parses "8=...SOH9=...SOH" at the start of [p, p + n).
  Prefix ParsePrefix(const char* p, size_t n, size_t* prefix_len, size_t* body_len);
  Result Fail(Result r, const std::string& why);

  const size_t max_body_;
  std::string buf_;  // bytes not yet passed on: the start of the next message
  uint64_t messages_ = 0;
  uint64_t garbled_ = 0;
  int garbled_in_a_row_ = 0;
  bool resyncing_ = false;  // dropping bytes until the next "8=FIX"
  Result failed_ = Result::kOk;
  std::string error_;
};

// The value of the first `tag` field after the BeginString of a whole message `message`
// ("" when it has none). No parsing beyond finding "SOH<tag>=".
std::string FieldValue(const std::string& message, const char* tag);

// A Logon whose 141 (ResetSeqNumFlag) is Y, turned into 141=N with its CheckSum (10)
// recomputed; false, and `message` unchanged, when it asks for no reset. QuickFIX resets a
// session's sequence numbers and empties its message store on a Logon with 141=Y before the
// application decides the Logon: the acceptor takes the request out of a Logon it knows will
// be refused (docs/fix.md, "Logon").
bool TakeOutResetRequest(std::string* message);

// Whether every field of `message` (a Logon, before any session takes it) has a tag in plain
// form (decimal digits, no leading zero) and no tag the Logon's decision reads (8, 9, 35, 34,
// 49, 56, 52, 98, 108, 141, 553, 554) comes twice. The gateway decides a Logon on its raw
// text (FieldValue, TakeOutResetRequest) while QuickFIX reads `0141` as 141 and takes the
// first or last of a repeated tag: a Logon on which they could differ is closed unread.
bool PlainLogonTags(const std::string& message);

// The MsgSeqNum (34) of a framed message as QuickFIX reads it (its IntConvertor wraps a
// longer number modulo 2^32); false when the field is absent or not all digits (QuickFIX's
// to refuse).
bool QuickFixMsgSeqNum(const std::string& message, int* seq);

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_FRAMING_H_
