#include "fix_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <string>
#include <vector>

namespace cfx {
namespace gateway {
namespace internal {
namespace {

// The tag number a field's tag text names, as QuickFIX or another parser may read it: a peer
// may write it `0554`, `+554` or `554 `, so the digits alone decide, leading zeros dropped
// (redacting a field that is no secret costs nothing). An event may put text before a
// quoted message's first field ("Session not found: 8=FIX.4.4"): only what follows the last
// character that is no digit, sign or blank is the tag. "" past four digits.
std::string TagDigits(const std::string& text, size_t begin, size_t end) {
  const size_t cut = text.find_last_not_of("0123456789+- \t", end - 1);
  if (cut != std::string::npos && cut >= begin) begin = cut + 1;
  std::string digits;
  for (size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9' && !(c == '0' && digits.empty())) digits += c;
    if (digits.size() > 4) return "";
  }
  return digits;
}

// Password (554), NewPassword (925), and RawData (96): cfx takes no credential there, but
// other venues do, and a client configured for one may send its secret in it.
bool IsSecret(const std::string& digits) {
  return digits == "554" || digits == "925" || digits == "96";
}

// Where RawData (96) whose value starts at `from` ends: at the message's trailer (the last
// CheckSum field, `10=` after SOH), else at the end of `text`. RawData may hold SOH and
// anything else, and its RawDataLength (95) may lie (point past the message, or short of a
// secret's tail the parser then reads as fields): everything up to the trailer goes.
size_t RawDataEnd(const std::string& text, size_t from) {
  const size_t trailer = text.rfind(
      "\x01"
      "10=");
  return trailer != std::string::npos && trailer >= from ? trailer : text.size();
}

// RedactFixSecrets, and with `pieces` the secret values it redacted, split at SOH (only
// those of 4 bytes or more: shorter ones would redact common text).
std::string Redact(const std::string& text, std::vector<std::string>* pieces) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {  // field by field: up to the next SOH or the end
    size_t end = text.find('\x01', i);
    if (end == std::string::npos) end = text.size();
    const size_t eq = text.find('=', i);
    const std::string tag = eq < end && eq > i ? TagDigits(text, i, eq) : "";
    if (IsSecret(tag)) {
      if (tag == "96") end = RawDataEnd(text, eq + 1);
      out.append(text, i, eq + 1 - i);
      out += "***";
      for (size_t p = eq + 1; pieces != nullptr && p < end;) {
        size_t q = text.find('\x01', p);
        if (q == std::string::npos || q > end) q = end;
        if (q - p >= 4) pieces->push_back(text.substr(p, q - p));
        p = q + 1;
      }
    } else {
      out.append(text, i, end - i);
    }
    if (end < text.size()) out += '\x01';
    i = end + 1;
  }
  return out;
}

// Every occurrence in `text` of any of `pieces` replaced by ***.
std::string RedactPieces(std::string text, const std::vector<std::string>& pieces) {
  for (const std::string& piece : pieces) {
    for (size_t at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 3)) {
      text.replace(at, piece.size(), "***");
    }
  }
  return text;
}

// Opens `path` for appending, 0600 whatever the umask (an older file is made 0600 too);
// -1 on error (the log is for debugging: losing it never stops a session).
int OpenPrivateAppend(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) ::fchmod(fd, 0600);
  return fd;
}

void WriteAll(int fd, const std::string& line) {
  if (fd < 0) return;
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

class RedactingFileLog : public FIX::Log {
 public:
  explicit RedactingFileLog(const std::string& base)
      : messages_path_(base + ".messages.log"), events_path_(base + ".event.log") {
    messages_ = OpenPrivateAppend(messages_path_);
    events_ = OpenPrivateAppend(events_path_);
  }
  ~RedactingFileLog() override {
    if (messages_ >= 0) ::close(messages_);
    if (events_ >= 0) ::close(events_);
  }

  void clear() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (messages_ >= 0) (void)::ftruncate(messages_, 0);
    if (events_ >= 0) (void)::ftruncate(events_, 0);
  }
  // QuickFIX calls backup() at a sequence reset; the log simply goes on.
  void backup() override {}
  // An incoming message's secrets are kept until the next one: QuickFIX's events about a
  // message it cannot parse quote pieces of it ("Field tag is invalid: <text>"), and a
  // RawData holding SOH makes its tail look like fields of their own.
  void onIncoming(const std::string& m) override {
    std::vector<std::string> pieces;
    const std::string line = UtcNowFix() + " : " + Redact(m, &pieces) + "\n";
    std::lock_guard<std::mutex> lock(mu_);
    recent_secrets_ = std::move(pieces);
    WriteAll(messages_, line);
  }
  void onOutgoing(const std::string& m) override { Write(messages_, m, false); }
  void onEvent(const std::string& e) override { Write(events_, e, true); }

 private:
  void Write(int fd, const std::string& text, bool event) {
    const std::string redacted = RedactFixSecrets(text);
    std::lock_guard<std::mutex> lock(mu_);
    WriteAll(fd, UtcNowFix() + " : " +
                     (event ? RedactPieces(redacted, recent_secrets_) : redacted) + "\n");
  }

  const std::string messages_path_, events_path_;
  std::mutex mu_;
  std::vector<std::string> recent_secrets_;  // of the last incoming message (guarded by mu_)
  int messages_ = -1;
  int events_ = -1;
};

}  // namespace

std::string RedactFixSecrets(const std::string& text) { return Redact(text, nullptr); }

std::vector<std::string> SecretPieces(const std::string& text) {
  std::vector<std::string> pieces;
  Redact(text, &pieces);
  return pieces;
}

FIX::Log* RedactingFileLogFactory::create() { return new RedactingFileLog(dir_ + "/GLOBAL"); }

FIX::Log* RedactingFileLogFactory::create(const FIX::SessionID& id) {
  return new RedactingFileLog(dir_ + "/" + id.getBeginString().getValue() + "-" +
                              id.getSenderCompID().getValue() + "-" +
                              id.getTargetCompID().getValue());
}

void RedactingFileLogFactory::destroy(FIX::Log* log) { delete log; }

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
