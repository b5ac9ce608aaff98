// FixFraming: finds the message boundaries of a FIX byte stream without parsing any field
// but BeginString (8) and BodyLength (9), so that the acceptor can refuse a message that is
// too large before QuickFIX buffers it, and can tell when a client's first whole message
// (its Logon) has arrived.
//
//   FixFraming framing(/*max_body_bytes=*/16384);
//   if (framing.Consume(bytes, n) != FixFraming::Result::kOk) { /* close the connection */ }
//   if (framing.messages() > 0) { /* the first message is complete */ }
//
// A message is exactly `8=<1-16 chars>SOH 9=<1-9 digits>SOH <BodyLength bytes> 10=<3 digits>SOH`.
// Nothing may stand between messages: a stream that does not follow this is malformed (a
// client that lies about BodyLength desynchronises and is closed on its next message).
// Thread safety: none; one per connection. Plain C++14 (used by the C++14 acceptor).
#ifndef CFX_GATEWAY_FIX_FRAMING_H_
#define CFX_GATEWAY_FIX_FRAMING_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace cfx {
namespace gateway {
namespace internal {

class FixFraming {
 public:
  enum class Result { kOk, kTooLarge, kMalformed };

  explicit FixFraming(size_t max_body_bytes) : max_body_(max_body_bytes) {}

  // Consumes `n` bytes. Once it returns something other than kOk it keeps returning it.
  Result Consume(const char* data, size_t n);
  // Whole messages seen so far.
  uint64_t messages() const { return messages_; }
  // Why the stream was refused, for the log ("" while kOk).
  const std::string& error() const { return error_; }

 private:
  enum class State { kPrefix, kBody, kTrailer };
  Result Fail(Result r, const std::string& why);
  Result PrefixByte(char c);

  const size_t max_body_;
  State state_ = State::kPrefix;
  std::string prefix_;     // "8=...SOH9=...SOH" being read (bounded)
  size_t body_left_ = 0;   // bytes of the body still to come
  std::string trailer_;    // "10=ddd SOH" being read
  uint64_t messages_ = 0;
  Result failed_ = Result::kOk;
  std::string error_;
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_FRAMING_H_
