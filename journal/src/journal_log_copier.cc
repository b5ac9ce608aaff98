// The journal's commit log in use (docs/durability.md, "The commit log"): opening it and
// putting what it holds beyond LMDB into LMDB, the copier thread, and appends. The file
// itself is commit_log.cc; the journal's LMDB side is journal.cc.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "journal_impl.h"
#include "record_format.h"

namespace cfx::journal {

using internal::CommitLog;
using internal::CommitLogOptions;
using internal::CommitLogTail;
using internal::DecodeValue;
using internal::EncodeKey;
using internal::EncodeValue;
using internal::GetLe;
using internal::kCommitLogEntryPrefix;
using internal::kHeaderSize;
using internal::kKeySize;
using internal::kLogMarkKey;
using internal::kLogMarkMagic;
using storage::Txn;

namespace {

// What a record value of `size` bytes may take of LMDB's map, over-estimated: a node too
// large for half a leaf page goes to overflow pages of its own; a small one is counted twice
// (half-full pages after splits, branch pages).
uint64_t LmdbBytesFor(uint64_t size, uint64_t page) {
  const uint64_t node = size + internal::kKeySize + 8;
  if (node > page / 2 - 64) return (node + page - 1) / page * page + 64;
  return 2 * node;
}

}  // namespace

absl::Status internal::OpenCommitLog(Journal::Impl& impl) {
  const JournalOptions& options = impl.options;
  const std::string file = absl::StrCat(impl.path, "/commit.log");
  uint64_t lmdb_last = impl.last_seq.load(std::memory_order_relaxed);
  auto marked = ReadLogMark(impl);
  if (!marked.ok()) {
    // A damaged mark says nothing of whether a log was in use: taken as there, so that a
    // missing log is still refused. Read-only opens read on; the operator's cut rewrites it
    // (below); anything else is refused, pointing at that cut.
    if (!absl::IsDataLoss(marked.status())) return marked.status();
    if (!options.read_only && !options.cut_damaged_commit_log) {
      return absl::DataLossError(
          absl::StrCat(marked.status().message(),
                       "; `cfx journal verify --data-dir D` reads the journal, and with "
                       "--truncate-corrupt-tail writes the mark again"));
    }
    impl.log_mark_damaged = true;
    impl.log_mark_found_damaged = true;
  }
  impl.log_marked = marked.ok() ? *marked : true;
  std::error_code ec;
  const bool exists = std::filesystem::exists(file, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat(file, ": cannot tell whether it exists (", ec.message(), ")"));
  }
  if (impl.log_marked && !exists) {
    // A run that used the log did not stop cleanly (a clean stop copies the log into LMDB
    // and takes the mark away), and the file is gone: what it held past LMDB's last record
    // is lost, unless the operator restores it.
    if (!options.cut_damaged_commit_log) {
      return absl::DataLossError(absl::StrCat(
          file, " is missing: the journal (", impl.path,
          "/data.mdb) says a commit log was in use by a run that did not stop cleanly, so "
          "records acknowledged after record ",
          lmdb_last,
          " may be only in that file; restore it (a cleanup of *.log files?), or accept the "
          "loss with `cfx journal verify --data-dir D --truncate-corrupt-tail`"));
    }
    impl.commit_log_cut = lmdb_last + 1;
    impl.commit_log_missing = true;
  }
  // Without the option a log left by an earlier run is still read (and, writable, emptied),
  // so that no open of the journal misses or later re-reads records it holds.
  // A missing log whose loss the operator accepts keeps its mark until AcceptCommitLogLoss:
  // what the cut must record first (the ExecID generation of the seqs it frees) is the
  // caller's, and a rerun after a failure there must find the loss again.
  if (!options.commit_log && !exists) return absl::OkStatus();
  CommitLogTail tail;
  const CommitLogOptions log_options = {.path = file,
                                        .max_bytes = options.commit_log_bytes,
                                        .no_sync = options.unsafe_no_sync,
                                        .read_only = options.read_only,
                                        .stop_at_damage = options.cut_damaged_commit_log};
  // Read-only beside a running writer, LMDB's last is read after the log's bytes (see
  // CommitLog::Open), so the writer's copies and restarts between the two reads cannot make
  // the log seem to skip records. The bytes can still be read while the writer writes them:
  // a page of a later entry already written and one of an earlier entry not yet, or a
  // restart's header half written. Read both again; a log that still fails after 20 reads
  // over 20 ms with LMDB unchanged, or after 200 reads, is damaged.
  auto read_lmdb_last = [&]() -> absl::StatusOr<uint64_t> {
    if (!options.read_only) return lmdb_last;  // the writer: nothing else writes
    auto last = LmdbLastSeq(impl);
    if (last.ok()) impl.last_seq.store(*last, std::memory_order_release);
    return last;
  };
  auto log = CommitLog::Open(log_options, read_lmdb_last, &tail);
  for (int retry = 0, unchanged = 0;
       options.read_only && !log.ok() && absl::IsDataLoss(log.status()) && retry < 200 &&
       unchanged < 20;
       ++retry) {
    const uint64_t before = impl.last_seq.load(std::memory_order_relaxed);
    if (before == lmdb_last) {
      ++unchanged;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    lmdb_last = before;
    log = CommitLog::Open(log_options, read_lmdb_last, &tail);
  }
  if (!log.ok()) return log.status();
  impl.recovered_from_log = tail.records;
  // A log cut short may have held acknowledged records after its last intact one, as one
  // with intact records past damage does: either way the seqs from there on are reused.
  if (tail.intact_after_damage != 0 || tail.cut_short_at != 0) impl.commit_log_cut = tail.last + 1;
  impl.commit_log_cut_short = tail.cut_short_at != 0;
  impl.commit_log_torn_at = tail.torn_at;
  if (options.read_only) {
    // Readers find the log's records after LMDB's in `pending`.
    impl.pending = std::move(tail.values);
    impl.pending_has_prefix = false;
    impl.last_seq.store(tail.last, std::memory_order_release);
    return absl::OkStatus();
  }
  if (tail.records > 0) {
    // A previous run acknowledged these and stopped before copying them: LMDB gets them
    // now, durably, before the log restarts over them.
    impl.pending = std::move(tail.values);
    impl.pending_has_prefix = false;
    if (absl::Status s = CopyPending(impl, /*sync=*/true); !s.ok()) return s;
    impl.pending_has_prefix = true;
    impl.last_seq.store(tail.last, std::memory_order_release);
  }
  // The mark says, from here on, whether a log may hold records LMDB does not: with the
  // option, written before the first append; without, the log is emptied (restarted) next.
  if (absl::Status s = SetLogMark(impl, options.commit_log); !s.ok()) return s;
  // LMDB holds everything in the log durably before the log restarts over it: also the
  // commit a previous run's copier made last, whose meta page may be only written (and the
  // mark).
  if (!options.unsafe_no_sync) {
    if (int rc = mdb_env_sync(impl.records->env(), 1); rc != 0) {
      return impl.records->Error(rc, "sync");
    }
  }
  if (absl::Status s = (*log)->Restart(); !s.ok()) return s;
  if (options.commit_log) impl.log = std::move(*log);
  return absl::OkStatus();
}

absl::StatusOr<bool> internal::ReadLogMark(Journal::Impl& impl) {
  Txn txn;
  int rc = txn.Begin(*impl.records, /*read_only=*/true);
  if (rc != 0) return impl.records->Error(rc, "begin read");
  char key[kKeySize];
  EncodeKey(kLogMarkKey, key);
  MDB_val k{kKeySize, key}, v;
  rc = mdb_get(txn.get(), impl.records->dbi(), &k, &v);
  if (rc == MDB_NOTFOUND) return false;
  if (rc != 0) return impl.records->Error(rc, "read the commit log's mark");
  absl::string_view payload;
  if (absl::Status s =
          DecodeValue(kLogMarkMagic, "commit log mark", kLogMarkKey, storage::View(v), &payload);
      !s.ok()) {
    return absl::DataLossError(absl::StrCat(impl.path, ": ", s.message()));
  }
  return true;
}

absl::Status internal::SetLogMark(Journal::Impl& impl, bool in_use) {
  if (impl.log_marked == in_use && !impl.log_mark_damaged) return absl::OkStatus();
  std::lock_guard<std::mutex> lmdb_lock(impl.lmdb_mu);
  const storage::LmdbEnv& env = *impl.records;
  Txn txn;
  int rc = txn.Begin(env, /*read_only=*/false);
  if (rc != 0) return env.Error(rc, "begin the commit log's mark");
  char key[kKeySize];
  EncodeKey(kLogMarkKey, key);
  MDB_val k{kKeySize, key};
  const std::string value = EncodeValue(kLogMarkMagic, kLogMarkKey, kLogMarkPayload);
  MDB_val v{value.size(), const_cast<char*>(value.data())};
  rc = in_use ? mdb_put(txn.get(), env.dbi(), &k, &v, 0)
              : mdb_del(txn.get(), env.dbi(), &k, nullptr);
  if (rc != 0 && !(rc == MDB_NOTFOUND && !in_use))
    return env.Error(rc, "write the commit log's mark");
  if ((rc = txn.Commit()) != 0) return env.Error(rc, "commit the commit log's mark");
  impl.log_marked = in_use;
  impl.log_mark_damaged = false;
  return absl::OkStatus();
}

void internal::RunCopier(Journal::Impl& impl) {
  // Copies in batches: at most every commit_log_copy_every_ms (each copy is one LMDB commit
  // and one flush that shares the disk with the log's), sooner when kCopyBytes are waiting.
  const auto every = std::chrono::milliseconds(std::max(1, impl.options.commit_log_copy_every_ms));
  constexpr size_t kCopyBytes = 4 << 20;
  std::unique_lock<std::mutex> lock(impl.pending_mu);
  for (;;) {
    impl.pending_cv.wait(lock, [&] { return impl.stopping || !impl.pending.empty(); });
    if (impl.stopping) return;
    impl.pending_cv.wait_for(lock, every,
                             [&] { return impl.stopping || impl.pending.size() >= kCopyBytes; });
    if (impl.stopping) return;
    lock.unlock();
    absl::Status s = CopyPending(impl, /*sync=*/false);
    lock.lock();
    if (!s.ok()) {
      // The records stay in the log (and in `pending`); the next open copies them.
      impl.copy_error = s;
      return;
    }
  }
}

absl::Status internal::CopyPending(Journal::Impl& impl, bool sync) {
  std::lock_guard<std::mutex> lmdb_lock(impl.lmdb_mu);
  std::string batch;
  bool prefixed;
  {
    std::lock_guard<std::mutex> lock(impl.pending_mu);
    batch.swap(impl.pending);
    prefixed = impl.pending_has_prefix;
  }
  const storage::LmdbEnv& env = *impl.records;
  auto put_back = [&](absl::Status s) {
    std::lock_guard<std::mutex> lock(impl.pending_mu);
    batch.append(impl.pending);
    impl.pending.swap(batch);
    return s;
  };
  if (!batch.empty()) {
    Txn txn;
    int rc = txn.Begin(env, /*read_only=*/false);
    if (rc != 0) return put_back(env.Error(rc, "begin copy from the commit log"));
    const size_t prefix = prefixed ? kCommitLogEntryPrefix : 0;
    char key[kKeySize];
    uint64_t seq = 0;
    uint64_t copied_estimate = 0;
    MDB_stat stat;
    mdb_env_stat(env.env(), &stat);
    const uint64_t page = stat.ms_psize;
    for (size_t at = 0; at < batch.size();) {
      const char* value = batch.data() + at + prefix;
      const size_t size = kHeaderSize + GetLe(value + 16, 4);
      seq = GetLe(value + 8, 8);
      EncodeKey(seq, key);
      MDB_val k{kKeySize, key};
      MDB_val v{size, const_cast<char*>(value)};
      copied_estimate += LmdbBytesFor(size, page);
      if ((rc = mdb_put(txn.get(), env.dbi(), &k, &v, MDB_APPEND)) != 0) {
        return put_back(env.Error(rc, absl::StrCat("copy record ", seq, " from the commit log")));
      }
      at += prefix + size;
    }
    if ((rc = txn.Commit()) != 0) {
      return put_back(env.Error(rc, absl::StrCat("commit records up to ", seq)));
    }
    std::lock_guard<std::mutex> lock(impl.pending_mu);
    impl.lmdb_bytes_waiting -= std::min(impl.lmdb_bytes_waiting, copied_estimate);
  }
  if (sync && !impl.options.unsafe_no_sync) {
    if (int rc = mdb_env_sync(env.env(), 1); rc != 0) return env.Error(rc, "sync");
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> internal::AppendToLog(Journal::Impl& impl,
                                               absl::Span<const absl::string_view> payloads) {
  const uint64_t before = impl.last_seq.load(std::memory_order_relaxed);
  // What waits is read before LMDB's use: a copy that ends in between is then counted twice
  // (safe), never missed.
  uint64_t waiting;
  {
    std::lock_guard<std::mutex> lock(impl.pending_mu);
    if (!impl.copy_error.ok()) return impl.copy_error;
    waiting = impl.lmdb_bytes_waiting;
  }
  MDB_envinfo info;
  MDB_stat stat;
  mdb_env_info(impl.records->env(), &info);
  mdb_env_stat(impl.records->env(), &stat);
  size_t bytes = 0;
  uint64_t estimate = 0;  // of what the batch will take in LMDB
  for (absl::string_view payload : payloads) {
    if (payload.size() > UINT32_MAX) {
      return absl::InvalidArgumentError(absl::StrCat("journal record ", before + 1, ": payload of ",
                                                     payload.size(), " bytes is too large"));
    }
    bytes += kCommitLogEntryPrefix + kHeaderSize + payload.size();
    estimate += LmdbBytesFor(kHeaderSize + payload.size(), stat.ms_psize);
  }
  // LMDB must be able to take what the log acknowledges: near a full map, the batch goes to
  // LMDB directly (where a full map is refused before anything is acknowledged). What waits
  // counts whether still pending or being copied.
  const uint64_t used = (static_cast<uint64_t>(info.me_last_pgno) + 64) * stat.ms_psize;
  if (bytes > std::min<uint64_t>(impl.options.commit_log_bytes / 4,
                                 impl.options.commit_log_max_batch_bytes) ||
      used + waiting + estimate > static_cast<uint64_t>(info.me_mapsize)) {
    return 0;
  }
  auto fail = [&](absl::Status s) {
    impl.failed = s;
    return s;
  };
  if (impl.lmdb_unsynced) {
    // The batch before went straight into LMDB and is not durable yet: it must be before
    // anything the log acknowledges after it (an open reads the log after LMDB's last).
    if (absl::Status s = SyncRecords(impl); !s.ok()) return fail(s);
  }
  if (!impl.log->Fits(bytes)) {
    // LMDB takes everything the log holds, durably; then the log starts over.
    if (absl::Status s = CopyPending(impl, /*sync=*/true); !s.ok()) return fail(s);
    if (absl::Status s = impl.log->Restart(); !s.ok()) return fail(s);
  }
  impl.log_batch.clear();
  uint64_t seq = before;
  for (absl::string_view payload : payloads) impl.log->EncodeEntry(++seq, payload, &impl.log_batch);
  if (absl::Status s = impl.log->Append(&impl.log_batch); !s.ok()) return fail(s);
  {
    std::lock_guard<std::mutex> lock(impl.pending_mu);
    impl.pending.append(impl.log_batch);
    impl.lmdb_bytes_waiting += estimate;
  }
  impl.pending_cv.notify_one();
  impl.last_seq.store(seq, std::memory_order_release);
  impl.durable_seq.store(seq, std::memory_order_release);
  return seq;
}

}  // namespace cfx::journal
