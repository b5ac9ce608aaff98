#include "cfx/audit/audit_log.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"

namespace cfx::audit {
namespace {

// Holds flock(2) on `fd` for a scope: other processes' appends wait for ours.
class FileLock {
 public:
  FileLock(int fd, int op) : fd_(fd) {
    while (::flock(fd_, op) != 0 && errno == EINTR) {
    }
  }
  ~FileLock() { ::flock(fd_, LOCK_UN); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

// The length of the UTF-8 sequence at s[i], 0 if it is not a valid one.
size_t Utf8Length(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  }
  return n;
}

// A JSON string; values come from clients (a CompID), so bytes that are not UTF-8 become
// U+FFFD and every line stays valid JSON.
void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const size_t n = Utf8Length(s, i);
      if (n == 0) {
        *out += "\\ufffd";
      } else {
        out->append(s.substr(i, n));
        i += n - 1;
      }
      continue;
    }
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c) & 0xff);
          *out += buf;
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

// "2027-03-01T09:00:00.123456Z"
std::string UtcNowMicros() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ts.tv_nsec / 1000));
  return buf;
}

// The seq of a line this writer wrote ({"seq":N,...}); 0 for anything else.
uint64_t SeqOf(std::string_view line) {
  constexpr std::string_view kPrefix = "{\"seq\":";
  if (line.substr(0, kPrefix.size()) != kPrefix || line.empty() || line.back() != '}') return 0;
  uint64_t seq = 0;
  size_t i = kPrefix.size();
  for (; i < line.size() && line[i] >= '0' && line[i] <= '9' && i < kPrefix.size() + 19; ++i) {
    seq = seq * 10 + static_cast<uint64_t>(line[i] - '0');
  }
  return i < line.size() && line[i] == ',' ? seq : 0;
}

absl::Status ReadAt(int fd, uint64_t offset, size_t n, std::string* out, const std::string& path) {
  out->resize(n);
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd, out->data() + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      return absl::UnavailableError(absl::StrCat(path, ": cannot read: ",
                                                 r < 0 ? std::strerror(errno) : "file shrank"));
    }
    done += static_cast<size_t>(r);
  }
  return absl::OkStatus();
}

// Calls fn(line, offset) for each whole line of the file in [from, to), in order, until fn
// returns false; returns where the lines it read end (the byte after the last newline
// read), which is short of `to` by an unfinished last line. A "line" over 1 MiB is not one
// of ours: skipped a MiB at a time, never passed to fn whole.
absl::StatusOr<uint64_t> ScanLines(int fd, const std::string& path, uint64_t from, uint64_t to,
                                   absl::FunctionRef<bool(std::string_view, uint64_t)> fn) {
  constexpr size_t kChunk = 1 << 20;
  std::string buf;
  uint64_t at = from;
  while (at < to) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, to - at));
    if (absl::Status s = ReadAt(fd, at, n, &buf, path); !s.ok()) return s;
    size_t line_start = 0;
    for (size_t nl = buf.find('\n'); nl != std::string::npos; nl = buf.find('\n', line_start)) {
      const std::string_view line(buf.data() + line_start, nl - line_start);
      const uint64_t offset = at + line_start;
      line_start = nl + 1;
      if (!fn(line, offset)) return at + line_start;
    }
    if (line_start == 0 && n == kChunk) {
      at += n;
      continue;
    }
    at += line_start;
    if (line_start < n) break;  // an unfinished line
  }
  return at;
}

}  // namespace

absl::StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot open the audit log: ", std::strerror(errno)));
  }
  // The umask cannot widen 0600, but a file made by hand might be wider: narrow it.
  if (::fchmod(fd, 0600) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot make the audit log private: ", std::strerror(err)));
  }
  std::unique_ptr<AuditLog> log(new AuditLog(path, fd));
  std::lock_guard<std::mutex> lock(log->mu_);
  FileLock file_lock(fd, LOCK_SH);
  if (absl::Status s = log->CatchUp(); !s.ok()) return s;
  return log;
}

AuditLog::~AuditLog() {
  (void)Sync();
  ::close(fd_);
}

absl::Status AuditLog::CatchUp() {
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    return absl::UnavailableError(absl::StrCat(path_, ": fstat: ", std::strerror(errno)));
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  size_ = size;
  if (size <= scanned_) {
    partial_tail_ = false;
    return absl::OkStatus();
  }
  absl::StatusOr<uint64_t> end =
      ScanLines(fd_, path_, scanned_, size, [this](std::string_view line, uint64_t offset) {
        // The numbering only goes up: anything else is not an event.
        if (const uint64_t seq = SeqOf(line); seq > last_seq_) Indexed(seq, offset);
        return true;
      });
  if (!end.ok()) return end.status();
  scanned_ = *end;
  partial_tail_ = scanned_ < size;
  return absl::OkStatus();
}

uint64_t AuditLog::Record(std::string_view kind, std::initializer_list<Field> fields) {
  const std::string ts = UtcNowMicros();
  std::string body;  // what follows the seq
  body += ",\"ts\":";
  AppendJsonString(&body, ts);
  body += ",\"kind\":";
  AppendJsonString(&body, kind);
  for (const Field& f : fields) {
    body.push_back(',');
    AppendJsonString(&body, f.key);
    body.push_back(':');
    AppendJsonString(&body, f.value);
  }
  body += "}\n";

  std::lock_guard<std::mutex> lock(mu_);
  FileLock file_lock(fd_, LOCK_EX);
  absl::Status caught_up = CatchUp();
  const uint64_t seq = last_seq_ + 1;
  std::string line = partial_tail_ ? "\n" : "";  // a crashed writer's last line ends here
  const size_t skip = line.size();
  line += absl::StrCat("{\"seq\":", seq);
  line += body;
  ssize_t n = -1;
  if (caught_up.ok()) {
    do {
      n = ::write(fd_, line.data(), line.size());
    } while (n < 0 && errno == EINTR);
  }
  if (n == static_cast<ssize_t>(line.size())) {
    // Under the lock nobody else appended since CatchUp: the line starts at size_.
    Indexed(seq, size_ + skip);
    size_ += line.size();
    scanned_ = size_;
    partial_tail_ = false;
    return seq;
  }
  ++write_errors_;
  std::cerr << "cfx audit: " << path_ << ": cannot append a " << kind << " event ("
            << (caught_up.ok() ? (n < 0 ? std::strerror(errno) : "short write")
                               : std::string(caught_up.message()))
            << "); " << write_errors_ << " lost so far; trading goes on\n";
  return 0;
}

void AuditLog::Indexed(uint64_t seq, uint64_t offset) {
  if (events_++ % kEventsPerCheckpoint == 0) checkpoints_.push_back({seq, offset});
  last_seq_ = seq;
}

size_t AuditLog::IndexBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return checkpoints_.capacity() * sizeof(Checkpoint);
}

absl::StatusOr<AuditPage> AuditLog::Read(uint64_t after, size_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status s = CatchUp(); !s.ok()) return s;
  AuditPage page;
  page.next_after = after;
  if (checkpoints_.empty() || after >= last_seq_) return page;
  // The stretch that holds the first event past `after`: from the last checkpoint at or
  // before it (the events between two checkpoints ascend), read line by line as CatchUp
  // reads them, up to what CatchUp has indexed.
  auto cp = std::upper_bound(checkpoints_.begin(), checkpoints_.end(), after,
                             [](uint64_t a, const Checkpoint& c) { return a < c.seq; });
  if (cp != checkpoints_.begin()) --cp;
  uint64_t running = cp->seq - 1;  // the checkpoint's own line is the next event
  absl::StatusOr<uint64_t> end =
      ScanLines(fd_, path_, cp->offset, scanned_, [&](std::string_view line, uint64_t) {
        const uint64_t seq = SeqOf(line);
        if (seq <= running) return true;  // not an event (see CatchUp)
        running = seq;
        if (seq <= after) return true;
        if (page.events.size() == limit) {
          page.more = true;
          return false;
        }
        page.events.emplace_back(line);
        page.next_after = seq;
        return true;
      });
  if (!end.ok()) return end.status();
  return page;
}

absl::Status AuditLog::Sync() {
  if (::fdatasync(fd_) != 0) {
    return absl::UnavailableError(absl::StrCat(path_, ": fdatasync: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

uint64_t AuditLog::write_errors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return write_errors_;
}

std::string TokenFingerprint(std::string_view token) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(token.data()), token.size());
  char hex[9];
  std::snprintf(hex, sizeof hex, "%02x%02x%02x%02x", digest[0], digest[1], digest[2], digest[3]);
  return hex;
}

}  // namespace cfx::audit
