#include "commit_log.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "cfx/journal/crc32c.h"
#include "record_format.h"

namespace cfx::journal::internal {
namespace {

constexpr uint32_t kLogMagic = 0x4C584643;  // "CFXL" as little-endian bytes
// 4: each entry's prefix (16 bytes) also says where its append (the one write of a batch)
// begins and ends, under the check: a power loss in the middle of an append can leave a
// later entry of it on the disk and an earlier one not (the file's pages reach the disk in
// any order), and with nothing intact after that append, such damage is a torn append
// (nothing of it was acknowledged), not damage inside acknowledged records. Read, no longer
// written: 3, the file always extends at least TailGuardOf(version) bytes past the end of
// the last entry written, and that size is durable before the entry is written: a file that
// ends sooner, or inside an entry whose prefix checks out, was cut (by a copy that stopped
// early, a truncation), not left so by a crash (so in 4). 2: each entry's prefix is the
// generation's low 32 bits and a CRC-32C of the generation and the record's header, so that
// a torn append (its prefix on disk, its record not) cannot pass an older generation's
// record left at that offset for its own (so in 3 and 4). 1: the prefix was the bare 8-byte
// generation.
constexpr uint16_t kLogVersion = 4;
constexpr uint16_t kLogVersionTailGuard = 3;
constexpr uint16_t kLogVersionBareGeneration = 1;
// Before version 4 an entry's prefix was 8 bytes (the generation's low 32 bits and the check).
constexpr uint64_t kShortPrefix = 8;
static_assert(kCommitLogEntryPrefix == 16, "version 4: generation, check, the append's extent");

uint64_t PrefixOf(uint64_t version) {
  return version >= kLogVersion ? kCommitLogEntryPrefix : kShortPrefix;
}

// What a file of version 3 or later always holds past its last entry: room for one more
// entry's prefix and record header.
uint64_t TailGuardOf(uint64_t version) { return PrefixOf(version) + kHeaderSize; }
constexpr size_t kHeaderFields = 16;  // magic, version, flags, generation; then the CRC
// The file grows by this much at a time, written with zeros, so that an append's flush
// writes data into blocks that already exist (no allocation to journal in the file system).
constexpr size_t kGrowBytes = 1 << 20;

bool WriteAll(int fd, const char* p, size_t n, uint64_t offset) {
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return true;
}

bool ReadAll(int fd, std::string* out) {
  struct stat st;
  if (fstat(fd, &st) != 0) return false;
  out->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out->size()) {
    ssize_t r = pread(fd, out->data() + done, out->size() - done, static_cast<off_t>(done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  out->resize(done);
  return true;
}

// An entry's prefix check: CRC-32C of the 8-byte generation, from version 4 the prefix's
// append extent (its bytes 8..15), and the record's 24-byte header (which holds the record's
// own CRC, over its payload).
uint32_t EntryCrc(uint64_t generation, const char* prefix, uint64_t version,
                  const char* record_header) {
  char gen[8];
  PutLe(gen, generation, 8);
  uint32_t crc = Crc32c(gen, sizeof gen);
  if (version >= kLogVersion) crc = Crc32cExtend(crc, prefix + 8, 8);
  return Crc32cExtend(crc, record_header, kHeaderSize);
}

// Whether the prefix at `e` (version 2 or later) names `generation` and checks out against the
// record header that follows it.
bool PrefixChecks(const char* e, uint64_t generation, uint64_t version) {
  return GetLe(e, 4) == (generation & 0xFFFFFFFF) &&
         GetLe(e + 4, 4) == EntryCrc(generation, e, version, e + PrefixOf(version));
}

// From version 4: where an entry's append begins and ends, as offsets in the file.
struct AppendExtent {
  uint64_t begin = 0, end = 0;
};

// Whether an intact entry of `generation` starts at `pos`: its prefix matches, its record
// fits in the file and passes its checksum. *seq, *size: its record's seq and the entry's size.
// From version 4, *extent: its append's.
bool IntactEntryAt(const std::string& bytes, uint64_t pos, uint64_t generation, uint64_t version,
                   uint64_t* seq, uint64_t* size, AppendExtent* extent = nullptr) {
  const uint64_t prefix = PrefixOf(version);
  if (pos + prefix + kHeaderSize > bytes.size()) return false;
  const char* e = bytes.data() + pos;
  const char* value = e + prefix;
  if (version == kLogVersionBareGeneration) {
    if (GetLe(e, 8) != generation) return false;
  } else if (!PrefixChecks(e, generation, version)) {
    return false;  // another generation's, or a prefix whose record never reached the disk
  }
  const uint64_t length = GetLe(value + 16, 4);
  *size = prefix + kHeaderSize + length;
  if (pos + *size > bytes.size()) return false;
  if (version >= kLogVersion) {
    // The append holds the entry and lies after the header: an extent that does not was not
    // written by the writer (it can pass the check only by a CRC collision).
    const uint64_t back = GetLe(e + 8, 4), ahead = GetLe(e + 12, 4);
    if (back > pos - kCommitLogHeaderSize || ahead < *size) return false;
    if (extent != nullptr) *extent = AppendExtent{pos - back, pos + ahead};
  }
  *seq = GetLe(value + 8, 8);
  absl::string_view payload;
  return DecodeValue(kRecordMagic, "commit log record", *seq,
                     absl::string_view(value, kHeaderSize + length), &payload)
      .ok();
}

// Whether the entry at `pos` has an intact prefix (version 3 or later) for `generation` (so
// its record header, length included, is the one written) and its record runs past the end
// of `bytes`. That is a cut: the file was grown past the entry first.
bool EntryRunsPastTheEnd(const std::string& bytes, uint64_t pos, uint64_t generation,
                         uint64_t version) {
  const uint64_t prefix = PrefixOf(version);
  if (pos + prefix + kHeaderSize > bytes.size()) return false;
  const char* e = bytes.data() + pos;
  if (!PrefixChecks(e, generation, version)) return false;
  return pos + prefix + kHeaderSize + GetLe(e + prefix + 16, 4) > bytes.size();
}

// Whether an entry of `generation` begins at `pos` (its prefix names the generation), intact
// or not: where the zeros ahead of the entries, or an earlier generation's, do not.
bool EntryOfGenerationAt(const std::string& bytes, uint64_t pos, uint64_t generation,
                         uint64_t version) {
  const uint64_t width = version == kLogVersionBareGeneration ? 8 : 4;
  if (pos + width > bytes.size()) return false;
  const uint64_t mask = width == 8 ? ~uint64_t{0} : 0xFFFFFFFF;
  return GetLe(bytes.data() + pos, static_cast<int>(width)) == (generation & mask);
}

constexpr uint64_t kNoEntry = ~uint64_t{0};

// The first intact entry of `generation` at or after `from` (any byte offset: a damaged
// entry's length cannot be trusted to skip it), or kNoEntry; *seq its record's seq, *extent
// (version 4) its append's. With `prefix_only` (version 2 on), the first entry whose prefix
// checks out, its record intact or not (*seq, *extent not set).
uint64_t NextIntactEntry(const std::string& bytes, uint64_t from, uint64_t generation,
                         uint64_t version, uint64_t* seq, AppendExtent* extent = nullptr,
                         bool prefix_only = false) {
  // Every entry begins with the generation's low 32 bits (version 1: all 64, the low ones
  // first): memmem finds the candidates, the full check the entries.
  char low[4];
  PutLe(low, generation & 0xFFFFFFFF, 4);
  const uint64_t last = PrefixOf(version) + kHeaderSize;  // room for a prefix and header
  for (uint64_t pos = from; pos + last <= bytes.size(); ++pos) {
    const void* hit = memmem(bytes.data() + pos, bytes.size() - pos, low, sizeof low);
    if (hit == nullptr) break;
    pos = static_cast<uint64_t>(static_cast<const char*>(hit) - bytes.data());
    if (pos + last > bytes.size()) break;
    if (prefix_only) {
      if (PrefixChecks(bytes.data() + pos, generation, version)) return pos;
      continue;
    }
    uint64_t size = 0;
    if (IntactEntryAt(bytes, pos, generation, version, seq, &size, extent)) return pos;
  }
  return kNoEntry;
}

}  // namespace

absl::Status CommitLog::Error(absl::string_view what) const {
  const int err = errno;
  std::string msg = absl::StrCat(options_.path, ": ", what, ": ", std::strerror(err));
  if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
    return absl::ResourceExhaustedError(absl::StrCat(
        msg, " (disk full", err == EFBIG ? ": the process's file size limit, ulimit -f" : "", ")"));
  }
  if (err == EACCES || err == EPERM || err == EROFS) return absl::PermissionDeniedError(msg);
  return absl::InternalError(msg);
}

absl::StatusOr<std::unique_ptr<CommitLog>> CommitLog::Open(const CommitLogOptions& options,
                                                           uint64_t after, CommitLogTail* tail) {
  return Open(
      options, [after]() -> absl::StatusOr<uint64_t> { return after; }, tail);
}

absl::StatusOr<std::unique_ptr<CommitLog>> CommitLog::Open(
    const CommitLogOptions& options, absl::FunctionRef<absl::StatusOr<uint64_t>()> after_read,
    CommitLogTail* tail) {
  *tail = CommitLogTail{};
  int fd = ::open(options.path.c_str(), (options.read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    const absl::StatusOr<uint64_t> after = after_read();
    if (!after.ok()) return after.status();
    tail->last = *after;
    if (options.read_only) return std::unique_ptr<CommitLog>();  // none: nothing ahead of LMDB
    // Created under a temporary name and renamed, so a crash never leaves a log without its
    // header.
    const std::string tmp = absl::StrCat(options.path, ".new");
    int tfd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    std::unique_ptr<CommitLog> log(new CommitLog(options, tfd));
    if (tfd < 0) return log->Error("create");
    if (absl::Status s = log->WriteHeader(1); !s.ok()) return s;
    if (::rename(tmp.c_str(), options.path.c_str()) != 0) return log->Error("rename");
    // The new name durable before anything is acknowledged through the file: a power loss
    // that took it would leave the next open an empty log, and the records gone.
    const std::string dir = options.path.substr(0, options.path.rfind('/'));
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return log->Error("open its folder to sync the new name");
    const bool synced = ::fsync(dfd) == 0;
    const int err = errno;
    ::close(dfd);
    errno = err;
    if (!synced) return log->Error("sync its folder (the new name)");
    if (absl::Status s = log->LockForWriting(); !s.ok()) return s;
    return log;
  }
  std::unique_ptr<CommitLog> log(new CommitLog(options, fd));
  if (fd < 0) return log->Error("open");
  if (!options.read_only) {
    if (absl::Status s = log->LockForWriting(); !s.ok()) return s;
  }
  std::string bytes;
  if (!ReadAll(fd, &bytes)) return log->Error("read");
  // Only now what LMDB holds: a writer restarts the log once LMDB holds all of it, so a
  // restart after this read leaves `after` at or past every record in `bytes`.
  const absl::StatusOr<uint64_t> lmdb_last = after_read();
  if (!lmdb_last.ok()) return lmdb_last.status();
  const uint64_t after = *lmdb_last;
  tail->last = after;
  const uint64_t version = bytes.size() < kCommitLogHeaderSize ? 0 : GetLe(bytes.data() + 4, 2);
  if (bytes.size() < kCommitLogHeaderSize || GetLe(bytes.data(), 4) != kLogMagic ||
      version < kLogVersionBareGeneration || version > kLogVersion ||
      GetLe(bytes.data() + kHeaderFields, 4) != Crc32c(bytes.data(), kHeaderFields)) {
    return absl::DataLossError(
        absl::StrCat(options.path,
                     ": damaged header (bad magic, version or checksum); the journal cannot "
                     "tell which inputs it holds"));
  }
  log->generation_ = GetLe(bytes.data() + 8, 8);
  log->version_ = static_cast<uint16_t>(version);
  log->zeroed_ = bytes.size();
  uint64_t pos = kCommitLogHeaderSize;
  uint64_t previous = 0;
  for (;;) {
    uint64_t seq = 0, size = 0;
    if (!IntactEntryAt(bytes, pos, log->generation_, version, &seq, &size)) {
      // Where the last append before a stop ended (cut short by a crash, or a prefix whose
      // record never reached the disk)... unless an intact entry of this generation follows:
      // then an entry inside the log is damaged, and what follows it was acknowledged.
      uint64_t next_seq = 0;
      AppendExtent extent;
      const uint64_t next =
          NextIntactEntry(bytes, pos + 1, log->generation_, version, &next_seq, &extent);
      if (next != kNoEntry && next_seq <= after + 1) {
        pos = next;  // every record the damage hides is in LMDB already: read on after it
        continue;
      }
      // From version 4: the intact entry is of the append the damaged one is in (that append
      // began at or before the damage), and no entry of a later append follows (none whose
      // prefix checks out, intact or not). An append is acknowledged only once all of it is
      // synced, and the next one is written only after that: so this append was never
      // acknowledged, and a power loss in the middle of it took an earlier sector of it and
      // left a later one. A disk writes a sector (512 bytes at least) whole or not at all, so
      // the damage must be able to begin in a sector before the one the intact entry begins
      // in: a damaged entry that lies wholly in that very sector (its payload, when its prefix
      // checks out) was written and damaged since (a bad block, a flipped bit in what was
      // acknowledged), and is refused as below. A torn append, as when nothing intact follows
      // the damage at all.
      constexpr uint64_t kSector = 512;
      // Where the damage can begin: the record's payload when the entry's prefix checks out
      // (its CRC covers the record's header), else the entry's first byte. (next > pos leaves
      // room for a prefix and a header at pos.)
      const bool prefix_whole = next != kNoEntry && version >= kLogVersion &&
                                PrefixChecks(bytes.data() + pos, log->generation_, version);
      const uint64_t damage_from = prefix_whole ? pos + PrefixOf(version) + kHeaderSize : pos;
      uint64_t later_seq = 0;
      const bool torn_append =
          next != kNoEntry && version >= kLogVersion && extent.begin <= pos &&
          next / kSector > damage_from / kSector &&
          NextIntactEntry(bytes, extent.end, log->generation_, version, &later_seq, nullptr,
                          /*prefix_only=*/true) == kNoEntry;
      if (next == kNoEntry || torn_append) {
        if (torn_append || EntryOfGenerationAt(bytes, pos, log->generation_, version)) {
          tail->torn_at = pos;
        }
        // Appending at `pos` in this generation would leave the torn append's intact later
        // entries readable after the new ones: a writer restarts the log first.
        log->restart_before_append_ = torn_append;
        // A crash leaves the file's size as it was before the append (grown, and synced,
        // first): only a cut ends it here, or inside the torn append.
        const uint64_t end = torn_append ? extent.end : pos;
        const bool inside = version >= kLogVersionTailGuard && !torn_append &&
                            EntryRunsPastTheEnd(bytes, pos, log->generation_, version);
        const bool cut = inside || (version >= kLogVersionTailGuard &&
                                    bytes.size() < end + TailGuardOf(version));
        if (cut && options.stop_at_damage) {
          tail->cut_short_at = bytes.size();
        } else if (cut) {
          const uint64_t last_intact = std::max(previous, after);
          return absl::DataLossError(absl::StrCat(
              options.path, ": the file ends at byte ", bytes.size(), ", ",
              inside               ? absl::StrCat("inside the entry at byte ", pos)
              : bytes.size() > pos ? absl::StrCat(bytes.size() - pos,
                                                  " bytes after its last entry (at byte ", pos, ")")
                                   : "right after its last entry",
              " (after record ", last_intact,
              "): the journal always leaves zeros after its last entry, so the file was cut "
              "short (a copy that stopped early, a truncation), and records acknowledged after ",
              last_intact,
              " may be missing; restore the whole file, or accept the loss with `cfx journal "
              "verify --data-dir D --truncate-corrupt-tail`"));
        }
        break;
      }
      if (options.stop_at_damage) {  // the operator's cut: what follows the damage is dropped
        tail->damaged_at = pos;
        tail->intact_after_damage = next_seq;
        break;
      }
      const uint64_t last_intact = std::max(previous, after);
      return absl::DataLossError(absl::StrCat(
          options.path, ": the entry at byte ", pos, " is damaged (after record ", last_intact,
          "), and record ", next_seq, " at byte ", next,
          " follows it intact: records were acknowledged after the damaged one, so this is not "
          "an append cut short by a crash; `cfx journal verify --data-dir D` shows it, and "
          "`--truncate-corrupt-tail` drops records ",
          last_intact + 1, ".. (every record after ", last_intact, ")"));
    }
    const char* value = bytes.data() + pos + PrefixOf(version);
    // Records at or below LMDB's last are skipped; batches that went straight into LMDB
    // leave gaps between them. After it the records must run on without a gap.
    if (seq <= after) {
      pos += size;
      continue;
    }
    if (previous > after && seq != previous + 1) {
      // Within one generation the log's records after LMDB's last run on: a jump means LMDB
      // lost records the log's later ones were acknowledged after.
      return absl::DataLossError(absl::StrCat(options.path, ": record ", seq, " follows record ",
                                              previous, ": records ", previous + 1, "..",
                                              seq - 1, " are in neither"));
    }
    previous = seq;
    pos += size;
    if (seq != tail->last + 1) {
      return absl::DataLossError(
          absl::StrCat(options.path, ": record ", seq, " follows the journal's last record ",
                       tail->last, ": records ", tail->last + 1, "..", seq - 1, " are in neither"));
    }
    tail->values.append(value, size - PrefixOf(version));
    tail->last = seq;
    ++tail->records;
  }
  log->position_ = pos;
  return log;
}

absl::Status CommitLog::LockForWriting() {
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) {
      return absl::FailedPreconditionError(absl::StrCat(
          options_.path,
          ": another process has this journal open for writing (a running `cfx serve`?); "
          "stop it first (reading it, e.g. `cfx journal verify` without a cut, needs no stop)"));
    }
    return Error("lock for writing");
  }
  return absl::OkStatus();
}

CommitLog::~CommitLog() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status CommitLog::Fail(absl::Status status) {
  failed_ = status;
  return status;
}

absl::Status CommitLog::WriteHeader(uint64_t generation) {
  if (!failed_.ok()) return failed_;
  std::string header(kCommitLogHeaderSize, '\0');
  PutLe(header.data(), kLogMagic, 4);
  PutLe(header.data() + 4, kLogVersion, 2);
  PutLe(header.data() + 8, generation, 8);
  PutLe(header.data() + kHeaderFields, Crc32c(header.data(), kHeaderFields), 4);
  if (zeroed_ < kCommitLogHeaderSize + kGrowBytes) {
    // A new file: its first blocks written with zeros, then the header.
    std::string zeros(kCommitLogHeaderSize + kGrowBytes, '\0');
    if (!WriteAll(fd_, zeros.data(), zeros.size(), 0)) return Fail(Error("write"));
    zeroed_ = zeros.size();
  }
  if (!WriteAll(fd_, header.data(), header.size(), 0)) return Fail(Error("write the header"));
  if (!options_.no_sync && ::fdatasync(fd_) != 0) return Fail(Error("sync the header"));
  generation_ = generation;
  version_ = kLogVersion;
  restart_before_append_ = false;
  position_ = kCommitLogHeaderSize;
  return absl::OkStatus();
}

absl::Status CommitLog::Restart() { return WriteHeader(generation_ + 1); }

void CommitLog::EncodeEntry(uint64_t seq, absl::string_view payload, std::string* out) const {
  const size_t at = out->size();
  out->resize(at + kCommitLogEntryPrefix + kHeaderSize + payload.size());
  EncodeValue(kRecordMagic, seq, payload, out->data() + at + kCommitLogEntryPrefix);
  PutLe(out->data() + at, generation_ & 0xFFFFFFFF, 4);  // the check and extent: at Append
}

absl::Status CommitLog::Append(std::string* entries) {
  if (!failed_.ok()) return failed_;
  if (version_ != kLogVersion) {  // EncodeEntry writes the current version's entries
    return absl::FailedPreconditionError(
        absl::StrCat(options_.path, ": a version-", version_, " log is restarted before appends"));
  }
  if (restart_before_append_) {
    return absl::FailedPreconditionError(
        absl::StrCat(options_.path, ": intact entries of a torn append lie past byte ", position_,
                     "; the log is restarted before appends"));
  }
  if (entries->size() > UINT32_MAX) {  // an append's extent is kept in 32 bits
    return absl::InvalidArgumentError(
        absl::StrCat(options_.path, ": an append of ", entries->size(), " bytes is too large"));
  }
  // Each entry's prefix: how far back its append begins and how far ahead it ends, then the
  // check over the generation, those and the record's header (version 4).
  for (size_t at = 0; at < entries->size();) {
    char* e = entries->data() + at;
    const size_t size =
        kCommitLogEntryPrefix + kHeaderSize + GetLe(e + kCommitLogEntryPrefix + 16, 4);
    PutLe(e + 8, at, 4);
    PutLe(e + 12, entries->size() - at, 4);
    PutLe(e + 4, EntryCrc(generation_, e, kLogVersion, e + kCommitLogEntryPrefix), 4);
    at += size;
  }
  const uint64_t end = position_ + entries->size();
  const uint64_t guard = TailGuardOf(kLogVersion);
  if (end + guard > zeroed_) {
    // Grow by whole chunks of zeros first, past the entries by the tail guard at least, and
    // make the new size durable before an entry is written into it: then a file that ends
    // sooner than that was cut, never left so by a crash (version 3 on). One more flush a MiB
    // of log.
    const uint64_t need = end + guard;
    const uint64_t to = std::min<uint64_t>(std::max<uint64_t>(need, zeroed_ + kGrowBytes),
                                           std::max(options_.max_bytes, need));
    std::string zeros(static_cast<size_t>(to - zeroed_), '\0');
    if (!WriteAll(fd_, zeros.data(), zeros.size(), zeroed_)) return Fail(Error("grow"));
    if (!options_.no_sync && ::fdatasync(fd_) != 0) return Fail(Error("sync its growth"));
    zeroed_ = to;
  }
  // Zeros after the entries, in the same write: where the log's entries end is never read as
  // an entry begun there, whatever an earlier generation left at that offset (after a
  // restart an old entry's bytes can name this generation by chance, and the open reported
  // a torn append at the end of a clean log). The next append writes over them.
  const size_t written = entries->size();
  entries->append(kCommitLogEntryPrefix, '\0');
  const bool wrote = WriteAll(fd_, entries->data(), entries->size(), position_);
  entries->resize(written);
  if (!wrote) return Fail(Error(absl::StrCat("append at byte ", position_)));
  if (!options_.no_sync && ::fdatasync(fd_) != 0) return Fail(Error("sync"));
  position_ = end;
  return absl::OkStatus();
}

}  // namespace cfx::journal::internal
