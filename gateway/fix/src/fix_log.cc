#include "fix_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <string>

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
  size_t raw_length = std::string::npos;  // RawDataLength (95) of the field before
  while (i < text.size()) {  // field by field: up to the next SOH or the end
    size_t end = text.find('\x01', i);
    if (end == std::string::npos) end = text.size();
    const size_t eq = text.find('=', i);
    const std::string tag = eq < end && eq > i ? TagDigits(text, i, eq) : "";
    if (IsSecret(tag)) {
      // RawData is as long as its RawDataLength says, SOH bytes included: all of it goes.
      if (tag == "96" && raw_length != std::string::npos && eq + 1 + raw_length <= text.size()) {
        end = std::max(end, text.find('\x01', eq + 1 + raw_length));
        if (end == std::string::npos) end = text.size();
      }
      out.append(text, i, eq + 1 - i);
      out += "***";
    } else {
      out.append(text, i, end - i);
    }
    raw_length = std::string::npos;
    if (tag == "95") {
      const std::string value = text.substr(eq + 1, end - eq - 1);
      if (!value.empty() && value.size() < 7 &&
          value.find_first_not_of("0123456789") == std::string::npos) {
        raw_length = std::stoul(value);
      }
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
