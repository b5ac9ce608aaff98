#include "fix_framing.h"

namespace cfx {
namespace gateway {
namespace internal {
namespace {

constexpr char kSoh = '\x01';
constexpr size_t kMaxBeginString = 16;
constexpr size_t kMaxLengthDigits = 9;
// "8=" + BeginString + SOH + "9=" + digits + SOH
constexpr size_t kMaxPrefix = 2 + kMaxBeginString + 1 + 2 + kMaxLengthDigits + 1;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

FixFraming::Result FixFraming::Fail(Result r, const std::string& why) {
  failed_ = r;
  error_ = why;
  return r;
}

// The prefix is complete when it holds two SOHs; validated byte by byte so that a stream of
// garbage is refused within a few bytes.
FixFraming::Result FixFraming::PrefixByte(char c) {
  prefix_.push_back(c);
  const size_t n = prefix_.size();
  if (n == 1 && c != '8') return Fail(Result::kMalformed, "message does not start with 8=");
  if (n == 2 && c != '=') return Fail(Result::kMalformed, "message does not start with 8=");
  if (n > kMaxPrefix) return Fail(Result::kMalformed, "BeginString or BodyLength too long");
  const size_t first_soh = prefix_.find(kSoh);
  if (first_soh == std::string::npos) {
    if (n > 2 + kMaxBeginString) return Fail(Result::kMalformed, "BeginString too long");
    return Result::kOk;
  }
  if (first_soh == 2) return Fail(Result::kMalformed, "empty BeginString");
  const size_t nine = first_soh + 1;  // where "9=" starts
  if (n == nine + 1 && c != '9') return Fail(Result::kMalformed, "BodyLength (9) is not second");
  if (n == nine + 2 && c != '=') return Fail(Result::kMalformed, "BodyLength (9) is not second");
  if (n <= nine + 2) return Result::kOk;
  if (c != kSoh) {
    if (!IsDigit(c)) return Fail(Result::kMalformed, "BodyLength is not a number");
    if (n - (nine + 2) > kMaxLengthDigits) return Fail(Result::kTooLarge, "BodyLength too large");
    return Result::kOk;
  }
  if (n == nine + 3) return Fail(Result::kMalformed, "empty BodyLength");
  const std::string digits = prefix_.substr(nine + 2, n - 1 - (nine + 2));
  const uint64_t length = std::stoull(digits);  // <= 9 digits: fits
  if (length > max_body_) {
    return Fail(Result::kTooLarge, "BodyLength " + digits + " above the limit of " +
                                       std::to_string(max_body_) + " bytes");
  }
  prefix_.clear();
  body_left_ = static_cast<size_t>(length);
  state_ = body_left_ == 0 ? State::kTrailer : State::kBody;
  return Result::kOk;
}

FixFraming::Result FixFraming::Consume(const char* data, size_t n) {
  if (failed_ != Result::kOk) return failed_;
  size_t i = 0;
  while (i < n) {
    switch (state_) {
      case State::kPrefix: {
        Result r = PrefixByte(data[i++]);
        if (r != Result::kOk) return r;
        break;
      }
      case State::kBody: {
        const size_t take = n - i < body_left_ ? n - i : body_left_;
        i += take;
        body_left_ -= take;
        if (body_left_ == 0) state_ = State::kTrailer;
        break;
      }
      case State::kTrailer: {
        const char c = data[i++];
        trailer_.push_back(c);
        const size_t k = trailer_.size();
        const bool ok = (k == 1 && c == '1') || (k == 2 && c == '0') || (k == 3 && c == '=') ||
                        (k >= 4 && k <= 6 && IsDigit(c)) || (k == 7 && c == kSoh);
        if (!ok) return Fail(Result::kMalformed, "BodyLength does not match the message");
        if (k == 7) {
          trailer_.clear();
          ++messages_;
          state_ = State::kPrefix;
        }
        break;
      }
    }
  }
  return Result::kOk;
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
