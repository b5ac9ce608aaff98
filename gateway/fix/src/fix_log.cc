#include "fix_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <string>

namespace cfx {
namespace gateway {
namespace internal {
namespace {

// Whether a field's tag text names Password (554) or NewPassword (925). A peer may write the
// tag in a form QuickFIX still reads as that number, or that a parser might (`0554`, `+554`,
// `554 `): the digits alone decide, leading zeros dropped, so such a form is redacted too
// (redacting a field that is no password costs nothing). An event may put text before a
// quoted message's first field ("Session not found: 8=FIX.4.4"): only what follows the last
// character that is no digit, sign or blank is the tag.
bool IsSecretTag(const std::string& text, size_t begin, size_t end) {
  const size_t cut = text.find_last_not_of("0123456789+- \t", end - 1);
  if (cut != std::string::npos && cut >= begin) begin = cut + 1;
  std::string digits;
  for (size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9' && !(c == '0' && digits.empty())) digits += c;
    if (digits.size() > 3) return false;
  }
  return digits == "554" || digits == "925";
}

// Opens `path` for appending, 0600 whatever the umask (an older file is made 0600 too);
// -1 on error (the log is for debugging: losing it never stops a session).
int OpenPrivateAppend(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
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
  void onIncoming(const std::string& m) override { Write(messages_, m); }
  void onOutgoing(const std::string& m) override { Write(messages_, m); }
  void onEvent(const std::string& e) override { Write(events_, e); }

 private:
  void Write(int fd, const std::string& text) {
    const std::string line = UtcNowFix() + " : " + RedactFixSecrets(text) + "\n";
    std::lock_guard<std::mutex> lock(mu_);
    WriteAll(fd, line);
  }

  const std::string messages_path_, events_path_;
  std::mutex mu_;
  int messages_ = -1;
  int events_ = -1;
};

}  // namespace

std::string RedactFixSecrets(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {  // field by field: up to the next SOH or the end
    size_t end = text.find('\x01', i);
    if (end == std::string::npos) end = text.size();
    const size_t eq = text.find('=', i);
    if (eq < end && eq > i && IsSecretTag(text, i, eq)) {
      out.append(text, i, eq + 1 - i);
      out += "***";
    } else {
      out.append(text, i, end - i);
    }
    if (end < text.size()) out += '\x01';
    i = end + 1;
  }
  return out;
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
