// BatchedFileStore (fix_store.h): QuickFIX FileStore's files, written in batches.
#include "fix_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "quickfix/Utility.h"

namespace cfx {
namespace gateway {
namespace internal {
namespace {

// `failed`: the call's result, 0 when it wrote or read nothing (errno then says nothing).
std::string Why(const std::string& what, const std::string& file, ssize_t failed = -1) {
  return what + " " + file + ": " + (failed == 0 ? "no progress" : std::strerror(errno));
}

int OpenFile(const std::string& name, int flags) {
  // Not through a link planted in its place, and 0600 also when made wider by hand (until
  // 2026-12-07 neither, a review).
  const int fd = ::open(name.c_str(), flags | O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw FIX::ConfigError(Why("cannot open", name));
  ::fchmod(fd, 0600);
  return fd;
}

// The whole of `fd` from its start.
std::string ReadAll(int fd, const std::string& name) {
  std::string out;
  char buf[65536];
  off_t at = 0;
  for (;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FIX::ConfigError(Why("cannot read", name));
    if (n == 0) return out;
    out.append(buf, static_cast<size_t>(n));
    at += n;
  }
}

// Writes *pending to `fd` (opened O_APPEND) and empties it; what was written is dropped from
// it even when a later write fails. Throws FIX::IOException.
void Append(int fd, std::string* pending, const std::string& name) {
  size_t done = 0;
  while (done < pending->size()) {
    const ssize_t n = ::write(fd, pending->data() + done, pending->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      pending->erase(0, done);
      throw FIX::IOException(Why("cannot write", name, n));
    }
    done += static_cast<size_t>(n);
  }
  pending->clear();
}

void WriteAt0(int fd, const std::string& text, const std::string& name) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n =
        ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw FIX::IOException(Why("cannot write", name, n));
    done += static_cast<size_t>(n);
  }
}

// The header file's entries, "<seq>,<offset>,<size> " each, as FileStore's fscanf loop
// reads them (it stops at the first that does not parse), in one pass: sscanf in a loop
// would measure the rest of the text at every entry.
void ParseHeader(const std::string& text, std::map<int, std::pair<long, std::size_t>>* out) {
  const char* p = text.c_str();
  const char* end = p + text.size();
  for (;;) {
    while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
    char* next = nullptr;
    errno = 0;
    const long seq = std::strtol(p, &next, 10);
    if (next == p || *next != ',' || errno != 0 || seq < INT_MIN || seq > INT_MAX) return;
    p = next + 1;
    const long offset = std::strtol(p, &next, 10);
    if (next == p || *next != ',' || errno != 0) return;
    p = next + 1;
    const unsigned long size = std::strtoul(p, &next, 10);
    if (next == p || errno != 0) return;
    p = next;
    (*out)[static_cast<int>(seq)] = std::make_pair(offset, static_cast<std::size_t>(size));
  }
}

// Whether `message` reads as the FIX message stored under `seq`: "8=" first, its MsgSeqNum
// `seq`, and a last field that ends with SOH.
bool LooksStored(const std::string& message, int seq) {
  if (message.size() < 4 || message.compare(0, 2, "8=") != 0 || message.back() != '\x01') {
    return false;
  }
  return message.find(
             "\x01"
             "34=" +
             std::to_string(seq) + "\x01") != std::string::npos;
}

// Messages not kept for a resend, only numbered and sent:
// - Market data (MarketDataSnapshotFullRefresh W, MarketDataIncrementalRefresh X,
//   MarketDataRequestReject Y). A client that missed some asks for a new snapshot, as FIX
//   venues expect; a resend gap-fills their numbers. Stored, a subscriber's stream grew the
//   files and their in-memory index without bound (an audit: 432,000 W in 30 s, 78 MB on
//   disk and 29 MB of memory, kept across restarts).
// - Session-level messages (Heartbeat 0, TestRequest 1, ResendRequest 2, Reject 3,
//   SequenceReset 4, Logout 5, Logon A): QuickFIX's resend gap-fills them whether stored or
//   not (Session::nextResendRequest), so keeping them bought nothing. Kept, a client's
//   TestRequests, which take no order throttle token, grew the files by a Heartbeat each at
//   up to the connection's message rate, and its garbled messages by a Reject each
//   (2026-12-07).
bool NotKept(const std::string& message) {
  const size_t at = message.find(
      "\x01"
      "35=");
  if (at == std::string::npos || at + 6 > message.size() || message[at + 5] != '\x01') {
    return false;
  }
  const char type = message[at + 4];
  return type == 'W' || type == 'X' || type == 'Y' || (type >= '0' && type <= '5') || type == 'A';
}

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

}  // namespace

StoreFiles::StoreFiles(std::string prefix) : prefix_(std::move(prefix)) {
  std::lock_guard<std::mutex> lock(mu_);
  Open(false);
}

StoreFiles::~StoreFiles() { Close(); }

void StoreFiles::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  try {
    FlushLocked();
  } catch (const std::exception&) {
    // Nothing of it reached a client (bytes go out only after a flush): nothing is lost
    // that a client has seen.
  }
  closed_ = true;
  CloseFiles();
}

void StoreFiles::CloseFiles() {
  CloseFd(&body_fd_);
  CloseFd(&header_fd_);
  CloseFd(&seqnums_fd_);
  CloseFd(&session_fd_);
}

void StoreFiles::Open(bool truncate) {
  try {
    OpenFiles(truncate);
  } catch (...) {
    CloseFiles();
    throw;
  }
}

void StoreFiles::OpenFiles(bool truncate) {
  CloseFiles();
  body_pending_.clear();
  header_pending_.clear();
  offsets_.clear();
  const int t = truncate ? O_TRUNC : 0;
  body_fd_ = OpenFile(prefix_ + "body", O_APPEND | t);
  header_fd_ = OpenFile(prefix_ + "header", O_APPEND | t);
  seqnums_fd_ = OpenFile(prefix_ + "seqnums", t);
  struct stat st;
  const bool had_session = !truncate && ::stat((prefix_ + "session").c_str(), &st) == 0;
  session_fd_ = OpenFile(prefix_ + "session", t);
  Load();
  try {
    if (!had_session) WriteSession();
    // As FileStore: the sequence numbers' file is written when the store opens.
    seqnums_dirty_ = true;
    FlushLocked();
  } catch (const FIX::IOException& e) {
    throw FIX::ConfigError(e.what());
  }
}

void StoreFiles::Load() {
  ParseHeader(ReadAll(header_fd_, prefix_ + "header"), &offsets_);
  const std::string seqnums = ReadAll(seqnums_fd_, prefix_ + "seqnums");
  int sender = 0, target = 0;
  if (std::sscanf(seqnums.c_str(), "%d : %d", &sender, &target) == 2 && sender >= 1 &&
      target >= 1) {
    // A body that outran its seqnums (a power loss kept one write and not the other) holds
    // messages the client may have seen: never number a message below them again.
    if (!offsets_.empty() && offsets_.rbegin()->first >= sender) {
      if (offsets_.rbegin()->first == INT_MAX) {
        throw FIX::ConfigError(prefix_ + "header: damaged (a message stored as 2147483647)");
      }
      sender = offsets_.rbegin()->first + 1;
    }
    cache_.setNextSenderMsgSeqNum(sender);
    cache_.setNextTargetMsgSeqNum(target);
  } else if (!seqnums.empty() || !offsets_.empty()) {
    // Starting again at 1 would send the client numbers it has seen (it would take them
    // for duplicates, or log out): the session cannot go on from this store on its own.
    std::string shown = seqnums.substr(0, 40);
    for (char& c : shown) {
      if (c < 0x20 || c > 0x7E) c = '?';
    }
    throw FIX::ConfigError(prefix_ + "seqnums: damaged (\"" + shown +
                           "\"): the session's sequence numbers are unknown; restore the "
                           "file, or remove the session's store files to start it again at 1");
  }
  const std::string session = ReadAll(session_fd_, prefix_ + "session");
  char time[64] = {0};
  if (std::sscanf(session.c_str(), "%63s", time) == 1) {
    try {
      cache_.setCreationTime(FIX::UtcTimeStampConvertor::convert(time));
    } catch (const std::exception&) {
      throw FIX::ConfigError("not a creation time in " + prefix_ + "session: " + time);
    }
  }
  struct stat st;
  if (::fstat(body_fd_, &st) != 0) throw FIX::ConfigError(Why("cannot stat", prefix_ + "body"));
  body_size_ = static_cast<long>(st.st_size);
  // An entry naming bytes past the body's end (a body cut short by a crash of the machine,
  // a damaged header) cannot be read back: it is left out, as if never stored, so that a
  // resend gap-fills it instead of failing, or allocating a damaged size.
  for (auto it = offsets_.begin(); it != offsets_.end();) {
    const long offset = it->second.first;
    const std::size_t size = it->second.second;
    const bool readable = offset >= 0 && offset <= body_size_ &&
                          size <= static_cast<std::size_t>(body_size_ - offset);
    it = readable ? std::next(it) : offsets_.erase(it);
  }
}

void StoreFiles::WriteSession() {
  const std::string text = FIX::UtcTimeStampConvertor::convert(cache_.getCreationTime());
  if (::ftruncate(session_fd_, 0) != 0) {
    throw FIX::IOException(Why("cannot truncate", prefix_ + "session"));
  }
  WriteAt0(session_fd_, text, prefix_ + "session");
}

void StoreFiles::FlushLocked() {
  if (closed_) return;
  // The body first: a header entry never names bytes that are not in the body file.
  if (!body_pending_.empty()) Append(body_fd_, &body_pending_, prefix_ + "body");
  if (!header_pending_.empty()) Append(header_fd_, &header_pending_, prefix_ + "header");
  if (seqnums_dirty_) {
    char text[64];
    const int n = std::snprintf(text, sizeof text, "%10.10d : %10.10d",
                                cache_.getNextSenderMsgSeqNum(), cache_.getNextTargetMsgSeqNum());
    WriteAt0(seqnums_fd_, std::string(text, static_cast<size_t>(n)), prefix_ + "seqnums");
    seqnums_dirty_ = false;
  }
}

void StoreFiles::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  FlushLocked();
}

void StoreFiles::Attach() {
  std::lock_guard<std::mutex> lock(mu_);
  ++attached_;
}

void StoreFiles::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  if (attached_ > 0) --attached_;
  FlushLocked();
}

void StoreFiles::Changed() {
  if (attached_ == 0) FlushLocked();
}

bool StoreFiles::Pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !body_pending_.empty() || !header_pending_.empty() || seqnums_dirty_;
}

// A connection may still hold the files (until its thread ends): they are closed now, so
// that nothing it flushes later lands in files a new store of the same session uses.
BatchedFileStore::~BatchedFileStore() { files_->Close(); }

bool BatchedFileStore::set(int seq, const std::string& message) throw(FIX::IOException) {
  if (NotKept(message)) return true;  // numbered and sent, not kept (above)
  StoreFiles& f = *files_;
  std::lock_guard<std::mutex> lock(f.mu_);
  const long offset = f.body_size_;
  char entry[64];
  const int n = std::snprintf(entry, sizeof entry, "%d,%ld,%lu ", seq, offset,
                              static_cast<unsigned long>(message.size()));
  f.header_pending_.append(entry, static_cast<size_t>(n));
  f.body_pending_ += message;
  f.body_size_ += static_cast<long>(message.size());
  f.offsets_[seq] = StoreFiles::OffsetSize(offset, message.size());
  f.Changed();
  return true;
}

void BatchedFileStore::get(int begin, int end, std::vector<std::string>& out) const
    throw(FIX::IOException) {
  files_->Get(begin, end, &out);
}

void StoreFiles::Get(int begin, int end, std::vector<std::string>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  out->clear();
  FlushLocked();  // a resend reads the file: rare, so no second path through memory
  // The messages stored in [begin, end], in order (a range may span numbers never stored).
  for (auto it = offsets_.lower_bound(begin); it != offsets_.end() && it->first <= end;) {
    std::string message(it->second.second, '\0');
    size_t done = 0;
    while (done < message.size()) {
      const ssize_t n = ::pread(body_fd_, &message[done], message.size() - done,
                                static_cast<off_t>(it->second.first + static_cast<long>(done)));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw FIX::IOException(Why("cannot read", prefix_ + "body", n));
      done += static_cast<size_t>(n);
    }
    // A message that is not the one stored under its number (a body damaged by a machine's
    // crash: zeros, another message's bytes) is left out, as if never stored: QuickFIX
    // gap-fills a number with no message, where one it cannot parse would end the whole
    // resend without an answer.
    // Forgotten for good, so that no later resend piece (StoreFiles::PieceEnd) ends on it.
    if (!LooksStored(message, it->first)) {
      it = offsets_.erase(it);
      continue;
    }
    out->push_back(std::move(message));
    ++it;
  }
}

int StoreFiles::PieceEnd(int begin, int end, size_t max_messages, size_t* count) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  int last = 0;
  for (auto it = offsets_.lower_bound(begin); it != offsets_.end() && it->first <= end; ++it) {
    last = it->first;
    if (++n == max_messages) break;
  }
  *count = n;
  return n == 0 ? end : last;
}

int BatchedFileStore::getNextSenderMsgSeqNum() const throw(FIX::IOException) {
  std::lock_guard<std::mutex> lock(files_->mu_);
  return files_->cache_.getNextSenderMsgSeqNum();
}

int BatchedFileStore::getNextTargetMsgSeqNum() const throw(FIX::IOException) {
  std::lock_guard<std::mutex> lock(files_->mu_);
  return files_->cache_.getNextTargetMsgSeqNum();
}

namespace {

void CheckNextSeqNum(long long value, const char* which) {
  if (value < 1 || value > kLastNextSeqNum) {
    throw FIX::IOException(std::string("refusing a next ") + which + " MsgSeqNum of " +
                           std::to_string(value) + " (the store takes 1.." +
                           std::to_string(kLastNextSeqNum) +
                           "): the session is dropped; its client can log on with "
                           "ResetSeqNumFlag (141=Y)");
  }
}

}  // namespace

void BatchedFileStore::setNextSenderMsgSeqNum(int value) throw(FIX::IOException) {
  CheckNextSeqNum(value, "outgoing");
  std::lock_guard<std::mutex> lock(files_->mu_);
  files_->cache_.setNextSenderMsgSeqNum(value);
  files_->seqnums_dirty_ = true;
  files_->Changed();
}

void BatchedFileStore::setNextTargetMsgSeqNum(int value) throw(FIX::IOException) {
  CheckNextSeqNum(value, "incoming");
  std::lock_guard<std::mutex> lock(files_->mu_);
  files_->cache_.setNextTargetMsgSeqNum(value);
  files_->seqnums_dirty_ = true;
  files_->Changed();
}

void BatchedFileStore::incrNextSenderMsgSeqNum() throw(FIX::IOException) {
  std::lock_guard<std::mutex> lock(files_->mu_);
  const int next = files_->cache_.getNextSenderMsgSeqNum();
  CheckNextSeqNum(static_cast<long long>(next) + 1, "outgoing");
  files_->cache_.incrNextSenderMsgSeqNum();
  files_->seqnums_dirty_ = true;
  files_->Changed();
}

void BatchedFileStore::incrNextTargetMsgSeqNum() throw(FIX::IOException) {
  std::lock_guard<std::mutex> lock(files_->mu_);
  const int next = files_->cache_.getNextTargetMsgSeqNum();
  CheckNextSeqNum(static_cast<long long>(next) + 1, "incoming");
  files_->cache_.incrNextTargetMsgSeqNum();
  files_->seqnums_dirty_ = true;
  files_->Changed();
}

FIX::UtcTimeStamp BatchedFileStore::getCreationTime() const throw(FIX::IOException) {
  std::lock_guard<std::mutex> lock(files_->mu_);
  return files_->cache_.getCreationTime();
}

void BatchedFileStore::reset() throw(FIX::IOException) {
  std::lock_guard<std::mutex> lock(files_->mu_);
  try {
    files_->cache_.reset();  // sequence numbers 1, creation time now
    files_->Open(true);
  } catch (const std::exception& e) {
    throw FIX::IOException(e.what());
  }
}

void BatchedFileStore::refresh() throw(FIX::IOException) {
  std::lock_guard<std::mutex> lock(files_->mu_);
  try {
    files_->FlushLocked();
    files_->cache_.reset();
    files_->Open(false);
  } catch (const std::exception& e) {
    throw FIX::IOException(e.what());
  }
}

FIX::MessageStore* BatchedFileStoreFactory::create(const FIX::SessionID& id) {
  std::string path = path_;
  if (path.empty()) path = settings_.get(id).getString("FileStorePath");
  FIX::file_mkdir(path.c_str());
  if (path.empty()) path = ".";
  std::string name = id.getBeginString().getString() + "-" + id.getSenderCompID().getString() +
                     "-" + id.getTargetCompID().getString();
  if (!id.getSessionQualifier().empty()) name += "-" + id.getSessionQualifier();
  auto files = std::make_shared<StoreFiles>(FIX::file_appendpath(path, name + "."));
  {
    std::lock_guard<std::mutex> lock(mu_);
    files_[id] = files;
  }
  return new BatchedFileStore(files);
}

void BatchedFileStoreFactory::destroy(FIX::MessageStore* store) {
  auto* batched = dynamic_cast<BatchedFileStore*>(store);
  if (batched != nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = files_.begin(); it != files_.end(); ++it) {
      if (it->second == batched->files()) {
        files_.erase(it);
        break;
      }
    }
  }
  delete store;
}

std::shared_ptr<StoreFiles> BatchedFileStoreFactory::FilesOf(const FIX::SessionID& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = files_.find(id);
  return it == files_.end() ? nullptr : it->second;
}

bool BatchedFileStoreFactory::FlushAll() const {
  std::vector<std::shared_ptr<StoreFiles>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& entry : files_) all.push_back(entry.second);
  }
  bool ok = true;
  for (const std::shared_ptr<StoreFiles>& files : all) {
    try {
      files->Flush();
    } catch (const std::exception&) {
      ok = false;
    }
  }
  return ok;
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
