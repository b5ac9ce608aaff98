#include "fix_framing.h"

#include <cstdint>
#include <cstring>

namespace cfx {
namespace gateway {
namespace internal {
namespace {

constexpr char kSoh = '\x01';
constexpr size_t kMaxBeginString = 16;
constexpr size_t kMaxLengthDigits = 9;
constexpr size_t kTrailer = 7;  // "10=ddd" SOH
constexpr char kResync[] = "8=FIX";
constexpr size_t kResyncLen = sizeof kResync - 1;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsTrailer(const char* p) {
  return p[0] == '1' && p[1] == '0' && p[2] == '=' && IsDigit(p[3]) && IsDigit(p[4]) &&
         IsDigit(p[5]) && p[6] == kSoh;
}

}  // namespace

constexpr int FixFraming::kMaxGarbledInARow;

FixFraming::Result FixFraming::Fail(Result r, const std::string& why) {
  failed_ = r;
  error_ = why;
  buf_.clear();
  return r;
}

// Checked byte by byte so that garbage is recognised within a few bytes, before it could
// fill a buffer.
FixFraming::Prefix FixFraming::ParsePrefix(const char* p, size_t n, size_t* prefix_len,
                                           size_t* body_len) {
  size_t i = 0;
  auto need = [&](size_t k) { return i + k > n; };
  if (need(1)) return Prefix::kNeedMore;
  if (p[0] != '8') return error_ = "message does not start with 8=", Prefix::kGarbled;
  ++i;
  if (need(1)) return Prefix::kNeedMore;
  if (p[1] != '=') return error_ = "message does not start with 8=", Prefix::kGarbled;
  ++i;
  const size_t begin = i;
  while (i < n && p[i] != kSoh) {
    if (i - begin >= kMaxBeginString) return error_ = "BeginString too long", Prefix::kGarbled;
    ++i;
  }
  if (i == n) return Prefix::kNeedMore;
  if (i == begin) return error_ = "empty BeginString", Prefix::kGarbled;
  ++i;  // SOH
  for (const char c : {'9', '='}) {
    if (need(1)) return Prefix::kNeedMore;
    if (p[i] != c) return error_ = "BodyLength (9) is not second", Prefix::kGarbled;
    ++i;
  }
  const size_t digits = i;
  uint64_t length = 0;
  while (i < n && p[i] != kSoh) {
    if (!IsDigit(p[i])) return error_ = "BodyLength is not a number", Prefix::kGarbled;
    // Refused at the digit that passes the limit, however the bytes arrive.
    if (i - digits >= kMaxLengthDigits) return error_ = "BodyLength too large", Prefix::kTooLarge;
    length = length * 10 + static_cast<uint64_t>(p[i] - '0');
    if (length > max_body_) {
      error_ = "BodyLength above the limit of " + std::to_string(max_body_) + " bytes";
      return Prefix::kTooLarge;
    }
    ++i;
  }
  if (i == n) return Prefix::kNeedMore;
  if (i == digits) return error_ = "empty BodyLength", Prefix::kGarbled;
  *prefix_len = i + 1;
  *body_len = static_cast<size_t>(length);
  return Prefix::kOk;
}

FixFraming::Result FixFraming::Consume(const char* data, size_t n, std::string* whole,
                                       std::vector<size_t>* ends) {
  if (failed_ != Result::kOk) return failed_;
  buf_.append(data, n);
  size_t pos = 0;
  for (;;) {
    if (resyncing_) {
      const size_t next = buf_.find(kResync, pos, kResyncLen);
      if (next == std::string::npos) {
        // Keep the longest tail that may be the start of "8=FIX" split across reads.
        size_t keep = buf_.size() - pos < kResyncLen - 1 ? buf_.size() - pos : kResyncLen - 1;
        while (keep > 0 && buf_.compare(buf_.size() - keep, keep, kResync, keep) != 0) --keep;
        pos = buf_.size() - keep;
        break;
      }
      pos = next;
      resyncing_ = false;
    }
    const char* p = buf_.data() + pos;
    const size_t left = buf_.size() - pos;
    size_t prefix_len = 0, body_len = 0;
    const Prefix prefix = ParsePrefix(p, left, &prefix_len, &body_len);
    if (prefix == Prefix::kNeedMore) break;
    if (prefix == Prefix::kTooLarge) return Fail(Result::kTooLarge, error_);
    if (prefix == Prefix::kOk) {
      const size_t total = prefix_len + body_len + kTrailer;
      if (left < total) break;
      if (IsTrailer(p + prefix_len + body_len)) {
        whole->append(p, total);
        if (ends != nullptr) ends->push_back(whole->size());
        ++messages_;
        garbled_in_a_row_ = 0;
        pos += total;
        continue;
      }
      error_ = "BodyLength does not match the message";
    }
    // Garbled: refuse a stream that never framed a message, or one that keeps garbling;
    // otherwise drop it and resynchronise at the next "8=FIX" after its first byte.
    ++garbled_;
    if (messages_ == 0 || ++garbled_in_a_row_ > kMaxGarbledInARow) {
      return Fail(Result::kMalformed, messages_ == 0 ? error_ : "too many garbled messages");
    }
    pos += 1;
    resyncing_ = true;
  }
  buf_.erase(0, pos);
  return Result::kOk;
}

std::string FieldValue(const std::string& message, const char* tag) {
  const std::string needle = std::string(1, '\001') + tag + "=";
  const size_t at = message.find(needle);
  if (at == std::string::npos) return "";
  const size_t from = at + needle.size();
  const size_t end = message.find('\001', from);
  return message.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

bool PlainLogonTags(const std::string& message) {
  static constexpr int kDecided[] = {8, 9, 35, 34, 49, 56, 52, 98, 108, 141, 553, 554};
  int seen[sizeof(kDecided) / sizeof(kDecided[0])] = {};
  size_t pos = 0;
  while (pos < message.size()) {
    const size_t eq = message.find('=', pos);
    const size_t end = message.find('\001', pos);
    if (eq == std::string::npos || (end != std::string::npos && end < eq)) return false;
    const size_t len = eq - pos;
    if (len == 0 || len > 9 || message[pos] == '0') return false;
    int tag = 0;
    for (size_t i = pos; i < eq; ++i) {
      if (message[i] < '0' || message[i] > '9') return false;
      tag = tag * 10 + (message[i] - '0');
    }
    for (size_t k = 0; k < sizeof(kDecided) / sizeof(kDecided[0]); ++k) {
      if (kDecided[k] == tag && ++seen[k] > 1) return false;
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return true;
}

bool TakeOutResetRequest(std::string* message) {
  static const char kReset[] =
      "\001"
      "141=Y\001";
  static const char kCheckSum[] =
      "\001"
      "10=";
  const size_t at = message->find(kReset);
  const size_t sum_at = message->rfind(kCheckSum);
  if (at == std::string::npos || sum_at == std::string::npos || at > sum_at ||
      message->size() != sum_at + 8) {  // "SOH10=nnnSOH": the message ends with it
    return false;
  }
  (*message)[at + 5] = 'N';
  unsigned sum = 0;
  for (size_t i = 0; i <= sum_at; ++i) sum += static_cast<unsigned char>((*message)[i]);
  sum %= 256;
  (*message)[sum_at + 4] = static_cast<char>('0' + sum / 100);
  (*message)[sum_at + 5] = static_cast<char>('0' + sum / 10 % 10);
  (*message)[sum_at + 6] = static_cast<char>('0' + sum % 10);
  return true;
}

bool QuickFixMsgSeqNum(const std::string& message, int* seq) {
  const size_t tag = message.find("\00134=");
  if (tag == std::string::npos) return false;
  uint32_t wrapped = 0;
  size_t i = tag + 4;
  for (; i < message.size() && message[i] >= '0' && message[i] <= '9'; ++i) {
    wrapped = wrapped * 10u + static_cast<uint32_t>(message[i] - '0');
  }
  if (i == tag + 4 || i >= message.size() || message[i] != '\001') return false;
  *seq = static_cast<int32_t>(wrapped);
  return true;
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
