// The journal's commit log on recovery (docs/durability.md, "The commit log"): whatever a
// crash, a bad disk or a hand with an editor leaves in `commit.log`, opening it returns an
// error or records that were written, in order from the journal's last, never one that was
// not. Two properties more:
// - a power loss during the last append (any of the 512-byte sectors its write covers left
//   as they were before it) never fails the open, nor loses a record appended before it: the
//   exchange starts;
// - damage to what was acknowledged before the last append (bytes before it) never goes
//   unnoticed: the open fails, or reads every record, or (the operator's cut) says where it
//   stopped.
//
// Each input describes a log: its appends (records 1..n in batches), an optional restart
// (LMDB then holds the records before it), then the damage (a power loss in the last append,
// or bytes overwritten, and maybe a cut). The log is written by the real writer (without
// syncs) in a scratch folder removed at exit.
#include <fcntl.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "commit_log.h"
#include "record_format.h"

namespace {

using cfx::journal::internal::CommitLog;
using cfx::journal::internal::CommitLogOptions;
using cfx::journal::internal::CommitLogTail;

const std::string& ScratchDir() {
  static const std::string dir = [] {
    char name[] = "/tmp/cfx_commit_log_fuzz_XXXXXX";
    if (mkdtemp(name) == nullptr) abort();
    return std::string(name);
  }();
  static const bool cleaned = [] {
    atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(ScratchDir(), ec);
    });
    return true;
  }();
  (void)cleaned;
  return dir;
}

constexpr uint64_t kSector = 512;

// Mostly short payloads (several entries a sector), some long enough to span sectors.
std::string PayloadOf(uint64_t seq, uint8_t size) {
  std::string p = absl::StrCat("r", seq, ":");
  p.append(size < 200 ? size % 80 : (size - 200) * 24, static_cast<char>('a' + seq % 26));
  return p;
}

struct Written {
  std::vector<std::string> payloads;  // [seq - 1]
  uint64_t after = 0;                 // LMDB's last: the records before the restart
  // The file offset where the last append begins, and its first record's seq.
  uint64_t last_append_begin = cfx::journal::internal::kCommitLogHeaderSize;
  uint64_t last_append_first = 1;
  uint64_t end = 0;                   // where the entries end
  // The whole sectors the last append's write covered (its zeros after it too), as they were
  // before it, from `before_at`; empty when the log restarted after it.
  std::string before;
  uint64_t before_at = 0;
};

// Writes the log the input describes to `path`; false when the writer refused (no case of
// this fuzzer should make it).
bool WriteLog(FuzzedDataProvider& in, const std::string& path, Written* w) {
  CommitLogTail tail;
  auto log = CommitLog::Open(CommitLogOptions{.path = path, .no_sync = true}, 0, &tail);
  if (!log.ok()) return false;
  const int appends = in.ConsumeIntegralInRange<int>(0, 12);
  const int restart_before = in.ConsumeIntegralInRange<int>(-1, appends);  // -1: none
  uint64_t seq = 0;
  uint64_t position = cfx::journal::internal::kCommitLogHeaderSize;
  for (int a = 0; a < appends; ++a) {
    if (a == restart_before) {
      if (!(*log)->Restart().ok()) return false;
      w->after = seq;
      position = cfx::journal::internal::kCommitLogHeaderSize;
    }
    const int records = in.ConsumeIntegralInRange<int>(1, 6);
    std::string entries;
    w->last_append_begin = position;
    w->last_append_first = seq + 1;
    for (int r = 0; r < records; ++r) {
      ++seq;
      w->payloads.push_back(PayloadOf(seq, in.ConsumeIntegral<uint8_t>()));
      (*log)->EncodeEntry(seq, w->payloads.back(), &entries);
    }
    // What the sectors this write covers held before it.
    w->before_at = position / kSector * kSector;
    const uint64_t to = (position + entries.size() + 16 + kSector - 1) / kSector * kSector;
    w->before.assign(to - w->before_at, '\0');
    const int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) return false;
    const ssize_t got =
        pread(fd, w->before.data(), w->before.size(), static_cast<off_t>(w->before_at));
    close(fd);
    if (got < 0) return false;  // past the file's end: zeros, as the writer grows it
    if (!(*log)->Append(&entries).ok()) return false;
    position += entries.size();
  }
  if (restart_before == appends && appends > 0) {  // a restart after the last append
    if (!(*log)->Restart().ok()) return false;
    w->after = seq;
    w->last_append_begin = position = cfx::journal::internal::kCommitLogHeaderSize;
    w->last_append_first = seq + 1;
    w->before.clear();
  }
  w->end = position;
  return true;
}

// What any open that succeeded must hold: the records after LMDB's last, as written.
void CheckTail(const CommitLogTail& tail, const Written& w) {
  if (tail.last < w.after || tail.last > w.payloads.size()) abort();
  if (tail.records != tail.last - w.after) abort();
  absl::string_view values = tail.values;
  for (uint64_t seq = w.after + 1; seq <= tail.last; ++seq) {
    absl::string_view payload;
    if (values.size() < cfx::journal::internal::kHeaderSize) abort();
    const size_t size = cfx::journal::internal::kHeaderSize +
                        cfx::journal::internal::GetLe(values.data() + 16, 4);
    if (values.size() < size) abort();
    if (!cfx::journal::internal::DecodeValue(cfx::journal::internal::kRecordMagic, "fuzz", seq,
                                             values.substr(0, size), &payload)
             .ok()) {
      abort();
    }
    if (payload != w.payloads[seq - 1]) abort();
    values.remove_prefix(size);
  }
  if (!values.empty()) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string path = ScratchDir() + "/commit.log";
  std::filesystem::remove(path);
  Written w;
  if (!WriteLog(in, path, &w)) abort();
  const uint64_t file_size = std::filesystem::file_size(path);
  const bool power_loss = !w.before.empty() && in.ConsumeBool();
  int changes = 0;
  bool only_before_last = true;  // every byte changed lies before the last append
  {
    FILE* f = fopen(path.c_str(), "r+b");
    if (f == nullptr) abort();
    if (power_loss) {  // sectors of the last write that never reached the disk
      for (uint64_t k = 0; k < w.before.size() / kSector; ++k) {
        if (!in.ConsumeBool()) continue;
        ++changes;
        fseek(f, static_cast<long>(w.before_at + k * kSector), SEEK_SET);
        fwrite(w.before.data() + k * kSector, 1, kSector, f);
      }
    } else {  // bytes overwritten: most in the entries, some anywhere, the header too
      changes = in.ConsumeIntegralInRange<int>(0, 6);
      for (int c = 0; c < changes; ++c) {
        const bool anywhere = in.ConsumeIntegralInRange<int>(0, 4) == 0;
        const uint64_t hi = std::min(anywhere ? file_size - 1 : w.end + 64, file_size - 1);
        const uint64_t at = in.ConsumeIntegralInRange<uint64_t>(0, hi);
        const int run = in.ConsumeIntegralInRange<int>(1, 48);
        const bool zeros = in.ConsumeBool();
        const uint8_t byte = zeros ? 0 : in.ConsumeIntegral<uint8_t>();
        if (at + run > w.last_append_begin) only_before_last = false;
        fseek(f, static_cast<long>(at), SEEK_SET);
        for (int i = 0; i < run && at + i < file_size; ++i) fputc(byte, f);
      }
    }
    fclose(f);
  }
  const bool cut = !power_loss && in.ConsumeIntegralInRange<int>(0, 7) == 0;
  if (cut) {
    std::filesystem::resize_file(
        path, in.ConsumeIntegralInRange<uint64_t>(0, std::min<uint64_t>(file_size, w.end + 80)));
  }
  const uint64_t written = w.payloads.size();
  for (const bool stop_at_damage : {false, true}) {
    CommitLogTail tail;
    auto log = CommitLog::Open(
        CommitLogOptions{.path = path, .read_only = true, .stop_at_damage = stop_at_damage},
        w.after, &tail);
    if (!log.ok()) {
      if (power_loss || (changes == 0 && !cut)) abort();  // the exchange would not start
      continue;
    }
    CheckTail(tail, w);
    // Undamaged: every record, and no torn append reported at its end.
    if (changes == 0 && !cut && (tail.last != written || tail.torn_at != 0)) abort();
    // A power loss during the last append loses nothing appended before it.
    if (power_loss && tail.last + 1 < w.last_append_first) abort();
    // Damage to what was acknowledged before the last append: an error (above), everything,
    // or the operator's cut saying where it stopped.
    if (!power_loss && changes > 0 && only_before_last && !cut && tail.last != written &&
        (!stop_at_damage || (tail.damaged_at == 0 && tail.cut_short_at == 0))) {
      abort();
    }
  }
  return 0;
}
