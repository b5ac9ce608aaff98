#include "cfx/journal/journal.h"

#include <ctime>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "journal_impl.h"
#include "record_format.h"

namespace cfx::journal {

using internal::DecodeKey;
using internal::DecodeValue;
using internal::EncodeKey;
using internal::GetLe;
using internal::kCommitLogEntryPrefix;
using internal::kHeaderSize;
using internal::kKeySize;
using internal::kRecordMagic;
using storage::Cursor;
using storage::Txn;
using storage::View;

bool IsMapFull(const absl::Status& status) { return storage::IsMapFull(status); }

Journal::Journal(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

absl::StatusOr<std::unique_ptr<Journal>> Journal::Open(const JournalOptions& options) {
  if (options.data_dir.empty()) return absl::InvalidArgumentError("journal: empty data dir");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->path = absl::StrCat(options.data_dir, "/journal");
  auto records =
      storage::LmdbEnv::Open({.path = impl->path,
                              .map_size_bytes = options.map_size_bytes,
                              .map_size_setting = options.map_size_setting,
                              .no_sync = options.unsafe_no_sync,
                              .no_meta_sync = options.defer_commit_sync || options.commit_log,
                              .read_only = options.read_only});
  if (!records.ok()) return records.status();
  impl->records = std::move(*records);

  const std::string snapshot_path = absl::StrCat(impl->path, "/snapshots");
  std::error_code ec;
  // The snapshots are a cache of the journal (a start without them replays it all): a
  // data.mdb of 0 bytes there (LMDB writes a new file's first pages without a flush, and a
  // power loss can take them) is taken as none, not as the damage it is in a store of record.
  const std::string snapshot_file = snapshot_path + "/data.mdb";
  const bool empty_snapshots = std::filesystem::is_regular_file(snapshot_file, ec) &&
                               std::filesystem::file_size(snapshot_file, ec) == 0 && !ec;
  if (empty_snapshots && !options.read_only) {
    std::filesystem::remove(snapshot_file, ec);
    std::filesystem::remove(snapshot_path + "/lock.mdb", ec);
  }
  if ((!options.read_only || std::filesystem::is_directory(snapshot_path, ec)) &&
      !(empty_snapshots && options.read_only)) {
    const storage::EnvOptions snapshot_options{
        .path = snapshot_path,
        .map_size_bytes = options.snapshot_map_size_bytes,
        .map_size_setting = options.snapshot_map_size_setting,
        .no_sync = options.unsafe_no_sync,
        .read_only = options.read_only};
    auto snapshots = storage::LmdbEnv::Open(snapshot_options);
    if (!snapshots.ok() && !options.read_only && absl::IsDataLoss(snapshots.status())) {
      // Not LMDB, or cut short (a power loss right after the store was made can leave its
      // first pages half there): a cache, so it is moved aside and a new one made. Until
      // 2026-12-07 only a 0-byte file was, and anything else refused every start (a review).
      const std::string aside =
          absl::StrCat(snapshot_file, ".damaged-", static_cast<int64_t>(std::time(nullptr)));
      std::filesystem::rename(snapshot_file, aside, ec);
      std::filesystem::remove(snapshot_path + "/lock.mdb", ec);
      std::cerr << "cfx journal: " << snapshots.status().message() << ": moved aside to " << aside
                << "; the snapshots start again (recovery replays the journal from its start)\n";
      snapshots = storage::LmdbEnv::Open(snapshot_options);
    }
    if (!snapshots.ok()) return snapshots.status();
    impl->snapshots = std::move(*snapshots);
  }

  // The last key gives LastSeq; its record is checked by Recover/Verify, not here, so that
  // a damaged journal can still be opened, inspected and (explicitly) truncated.
  auto last = internal::LmdbLastSeq(*impl);
  if (!last.ok()) return last.status();
  impl->last_seq.store(*last, std::memory_order_release);
  int rc;
  // What a previous process left may be only written, not synced (it died before its next
  // commit): make it durable before anything is acknowledged on top of it.
  if ((options.defer_commit_sync || options.commit_log) && !options.read_only) {
    if ((rc = mdb_env_sync(impl->records->env(), 1)) != 0) {
      return impl->records->Error(rc, "sync");
    }
  }
  if (absl::Status s = internal::OpenCommitLog(*impl); !s.ok()) return s;
  // Snapshots past the journal's end are of inputs it no longer holds (a commit log cut,
  // lost or cut short; the snapshot thread runs ahead of the log's copy into LMDB). None is
  // ever used while the journal ends before it, but the inputs sequenced next reuse its seq,
  // and once the journal reaches it again it would pass for their state. Deleted before
  // anything is sequenced (docs/durability.md, "Snapshots").
  if (!options.read_only) {
    const uint64_t end = impl->last_seq.load(std::memory_order_relaxed);
    if (absl::Status s = internal::DeleteSnapshotsPastEnd(*impl, end); !s.ok()) return s;
  }
  impl->durable_seq.store(impl->last_seq.load(std::memory_order_relaxed),
                          std::memory_order_release);
  if (impl->log != nullptr) {
    Impl* raw = impl.get();
    impl->copier = std::thread([raw] { internal::RunCopier(*raw); });
  }
  return std::unique_ptr<Journal>(new Journal(std::move(impl)));
}

absl::StatusOr<uint64_t> internal::LmdbLastSeq(Journal::Impl& impl) {
  Txn txn;
  int rc = txn.Begin(*impl.records, /*read_only=*/true);
  if (rc != 0) return impl.records->Error(rc, "begin read");
  Cursor cursor;
  if ((rc = cursor.Open(txn, impl.records->dbi())) != 0) {
    return impl.records->Error(rc, "open cursor");
  }
  MDB_val k, v;
  rc = mdb_cursor_get(cursor.get(), &k, &v, MDB_LAST);
  if (rc == MDB_NOTFOUND) return 0;
  if (rc != 0) return impl.records->Error(rc, "read last record");
  uint64_t seq;
  if (!DecodeKey(View(k), &seq)) {
    return absl::DataLossError(
        absl::StrCat(impl.path, ": last key has a bad length (", k.mv_size, " bytes)"));
  }
  return seq;
}

// A deferred commit is synced on a clean close by the environment (EnvOptions::no_meta_sync).
// With the commit log, what it holds beyond LMDB is copied first (a failure leaves it in the
// log for the next open).
Journal::~Journal() {
  if (impl_->copier.joinable()) {
    {
      std::lock_guard<std::mutex> lock(impl_->pending_mu);
      impl_->stopping = true;
    }
    impl_->pending_cv.notify_all();
    impl_->copier.join();
  }
  if (impl_->log == nullptr) return;
  // LMDB holds everything the log did, durably: the mark goes, so that the log is not needed
  // any more (a clean stop's log may be deleted). On any failure it stays, and the next open
  // copies what the log holds.
  const bool copied = internal::CopyPending(*impl_, /*sync=*/true).ok();
  bool clean;
  {
    std::lock_guard<std::mutex> lock(impl_->pending_mu);
    clean = copied && impl_->copy_error.ok() && impl_->pending.empty();
  }
  if (!clean || !impl_->failed.ok() || !internal::SetLogMark(*impl_, false).ok()) return;
  if (!impl_->options.unsafe_no_sync) (void)mdb_env_sync(impl_->records->env(), 1);
}

uint64_t Journal::LastSeq() const { return impl_->last_seq.load(std::memory_order_acquire); }

uint64_t Journal::RecoveredFromCommitLog() const { return impl_->recovered_from_log; }
uint64_t Journal::CommitLogCut() const { return impl_->commit_log_cut; }
bool Journal::CommitLogCutShort() const { return impl_->commit_log_cut_short; }
bool Journal::CommitLogMissing() const { return impl_->commit_log_missing; }
bool Journal::CommitLogMarkDamaged() const { return impl_->log_mark_found_damaged; }

absl::Status Journal::AcceptCommitLogLoss() {
  if (!impl_->commit_log_missing || impl_->log != nullptr || impl_->options.read_only) {
    return absl::OkStatus();
  }
  if (absl::Status s = internal::SetLogMark(*impl_, false); !s.ok()) return s;
  if (impl_->options.unsafe_no_sync) return absl::OkStatus();
  if (int rc = mdb_env_sync(impl_->records->env(), 1); rc != 0) {
    return impl_->records->Error(rc, "sync the commit log's mark");
  }
  return absl::OkStatus();
}
uint64_t Journal::CommitLogTornAt() const { return impl_->commit_log_torn_at; }

uint64_t Journal::DurableSeq() const { return impl_->durable_seq.load(std::memory_order_acquire); }

absl::Status Journal::Sync() {
  if (!impl_->failed.ok()) return impl_->failed;
  const uint64_t last = impl_->last_seq.load(std::memory_order_relaxed);
  if (impl_->durable_seq.load(std::memory_order_relaxed) == last) return absl::OkStatus();
  absl::Status s = internal::SyncRecords(*impl_);
  // A failed flush says nothing of what reached the disk, and a retried one that succeeds
  // would not make it so: never trusted again.
  if (!s.ok()) impl_->failed = s;
  return s;
}

absl::Status internal::SyncRecords(Journal::Impl& impl) {
  const uint64_t last = impl.last_seq.load(std::memory_order_relaxed);
  if (impl.options.defer_commit_sync && !impl.options.unsafe_no_sync) {
    // mdb_env_sync(force) is one fdatasync of the data file: it carries the meta page the
    // last commit wrote without syncing.
    if (int rc = mdb_env_sync(impl.records->env(), 1); rc != 0) {
      return impl.records->Error(rc, absl::StrCat("sync records up to ", last));
    }
  }
  impl.lmdb_unsynced = false;
  impl.durable_seq.store(last, std::memory_order_release);
  return absl::OkStatus();
}

const std::string& Journal::path() const { return impl_->path; }

absl::StatusOr<uint64_t> Journal::AppendBatch(absl::Span<const absl::string_view> payloads) {
  uint64_t seq = impl_->last_seq.load(std::memory_order_relaxed);
  if (!impl_->failed.ok()) return impl_->failed;
  if (payloads.empty()) return seq;
  if (impl_->log != nullptr) {
    auto logged = internal::AppendToLog(*impl_, payloads);
    if (!logged.ok() || *logged != 0) return logged;
    // 0: a batch too large to gain from the log (flat out, where one LMDB commit spreads its
    // flush over thousands of records and the log would only write everything twice), or
    // LMDB close to full (where a full map is refused here, before anything is
    // acknowledged): straight into LMDB, after what the log holds.
    if (absl::Status s = internal::CopyPending(*impl_, /*sync=*/false); !s.ok()) return s;
  }
  const storage::LmdbEnv& env = *impl_->records;
  std::unique_lock<std::mutex> lmdb_lock(impl_->lmdb_mu, std::defer_lock);
  if (impl_->log != nullptr) lmdb_lock.lock();
  Txn txn;
  int rc = txn.Begin(env, /*read_only=*/false);
  if (rc != 0) return env.Error(rc, "begin append");
  char key[kKeySize];
  for (absl::string_view payload : payloads) {
    if (payload.size() > UINT32_MAX) {
      return absl::InvalidArgumentError(absl::StrCat("journal record ", seq + 1, ": payload of ",
                                                     payload.size(), " bytes is too large"));
    }
    ++seq;
    EncodeKey(seq, key);
    MDB_val k{kKeySize, key};
    MDB_val v{kHeaderSize + payload.size(), nullptr};
    // APPEND: keys arrive in order, so LMDB skips the search; RESERVE: encode in place.
    rc = mdb_put(txn.get(), env.dbi(), &k, &v, MDB_APPEND | MDB_RESERVE);
    if (rc != 0) return env.Error(rc, absl::StrCat("append record ", seq));
    internal::EncodeValue(kRecordMagic, seq, payload, static_cast<char*>(v.mv_data));
  }
  const uint64_t before = impl_->last_seq.load(std::memory_order_relaxed);
  // Syncs the data pages, then writes the meta page: synced too, unless defer_commit_sync
  // (MDB_NOMETASYNC), where this commit's data sync is what makes the commit before it durable.
  rc = txn.Commit();
  if (rc != 0) return env.Error(rc, absl::StrCat("commit records up to ", seq));
  const bool deferred = impl_->options.defer_commit_sync && !impl_->options.unsafe_no_sync;
  if (impl_->log != nullptr && !deferred && !impl_->options.unsafe_no_sync) {
    // LMDB commits with MDB_NOMETASYNC under the log: without defer_commit_sync a commit is
    // durable on return, so its meta page is flushed now.
    if ((rc = mdb_env_sync(env.env(), 1)) != 0) {
      impl_->failed = env.Error(rc, absl::StrCat("sync records up to ", seq));
      return impl_->failed;
    }
  }
  // With the log, the next batch that goes through it first makes this commit durable (the
  // log's records must never follow records a power loss could take from LMDB).
  impl_->lmdb_unsynced = deferred;
  impl_->last_seq.store(seq, std::memory_order_release);
  impl_->durable_seq.store(deferred ? before : seq, std::memory_order_release);
  return seq;
}

absl::Status Journal::ReadFrom(uint64_t from,
                               const std::function<bool(uint64_t, absl::string_view)>& fn) const {
  if (from == 0) from = 1;
  const storage::LmdbEnv& env = *impl_->records;
  Txn txn;
  // The read transaction (a snapshot of LMDB) and the copy of what the log holds beyond it
  // are taken together, while no copy into LMDB runs: each record is in exactly one.
  std::string pending;
  size_t prefix;
  int rc;
  {
    std::lock_guard<std::mutex> lmdb_lock(impl_->lmdb_mu);
    rc = txn.Begin(env, /*read_only=*/true);
    std::lock_guard<std::mutex> lock(impl_->pending_mu);
    pending = impl_->pending;
    prefix = impl_->pending_has_prefix ? kCommitLogEntryPrefix : 0;
  }
  if (rc != 0) return env.Error(rc, "begin read");
  Cursor cursor;
  if ((rc = cursor.Open(txn, env.dbi())) != 0) return env.Error(rc, "open cursor");
  char key[kKeySize];
  EncodeKey(from, key);
  MDB_val k{kKeySize, key}, v;
  uint64_t expected = from;
  for (rc = mdb_cursor_get(cursor.get(), &k, &v, MDB_SET_RANGE); rc == 0;
       rc = mdb_cursor_get(cursor.get(), &k, &v, MDB_NEXT)) {
    uint64_t seq;
    if (!DecodeKey(View(k), &seq)) {
      return absl::DataLossError(
          absl::StrCat("journal record ", expected, ": bad key length (", k.mv_size, " bytes)"));
    }
    if (seq != expected) {
      return absl::DataLossError(
          absl::StrCat("journal record ", expected, ": missing (gap; next record is ", seq, ")"));
    }
    absl::string_view payload;
    absl::Status s = DecodeValue(kRecordMagic, "journal record", seq, View(v), &payload);
    if (!s.ok()) return s;
    if (!fn(seq, payload)) return absl::OkStatus();
    ++expected;
  }
  if (rc != MDB_NOTFOUND) return env.Error(rc, absl::StrCat("read record ", expected));
  // Then what the commit log holds that LMDB did not have yet.
  for (size_t at = 0; at < pending.size();) {
    const char* value = pending.data() + at + prefix;
    const size_t size = kHeaderSize + GetLe(value + 16, 4);
    const uint64_t seq = GetLe(value + 8, 8);
    at += prefix + size;
    if (seq < expected) continue;
    if (seq != expected) {
      return absl::DataLossError(
          absl::StrCat("journal record ", expected, ": missing (gap; next record is ", seq, ")"));
    }
    absl::string_view payload;
    absl::Status s =
        DecodeValue(kRecordMagic, "journal record", seq, absl::string_view(value, size), &payload);
    if (!s.ok()) return s;
    if (!fn(seq, payload)) return absl::OkStatus();
    ++expected;
  }
  return absl::OkStatus();
}

absl::StatusOr<JournalStats> Journal::Verify() const {
  JournalStats stats;
  absl::Status s = ReadFrom(1, [&](uint64_t seq, absl::string_view payload) {
    if (stats.records == 0) stats.first_seq = seq;
    stats.last_seq = seq;
    ++stats.records;
    stats.payload_bytes += payload.size();
    return true;
  });
  if (!s.ok()) return s;
  return stats;
}

absl::Status Journal::TruncateAfter(uint64_t seq) {
  if (!impl_->failed.ok()) return impl_->failed;
  Impl& impl = *impl_;
  auto cut = [&]() -> absl::Status {
    if (impl.log != nullptr) {
      // LMDB takes everything durably first, and the log restarts before the cut, so that no
      // record past the cut can be read from it again, whenever a crash comes.
      if (absl::Status s = internal::CopyPending(impl, /*sync=*/true); !s.ok()) return s;
      if (absl::Status s = impl.log->Restart(); !s.ok()) return s;
    }
    char key[kKeySize];
    EncodeKey(seq + 1, key);
    if (absl::Status s =
            storage::DeleteFromKey(*impl.records, absl::string_view(key, kKeySize), "truncate");
        !s.ok()) {
      return s;
    }
    // Snapshots past the cut describe states the journal no longer explains.
    if (absl::Status s = internal::DeleteSnapshotsAfter(impl, seq); !s.ok()) return s;
    if (seq < impl.last_seq.load(std::memory_order_relaxed)) {
      impl.last_seq.store(seq, std::memory_order_release);
    }
    if (impl.log != nullptr && !impl.options.unsafe_no_sync) {
      if (int rc = mdb_env_sync(impl.records->env(), 1); rc != 0) {
        return impl.records->Error(rc, "sync the cut");
      }
    }
    return internal::SyncRecords(impl);  // the cut's own commit, when it was deferred
  };
  // A failure part way leaves the files somewhere between the cut and what was there before
  // (the log restarted, LMDB perhaps not durable at the cut): never written to again; the
  // next open sorts out what is there.
  absl::Status s = cut();
  if (!s.ok()) impl.failed = s;
  return s;
}

absl::Status Journal::WriteRawRecordForTest(uint64_t seq, absl::string_view value) {
  if (impl_->log != nullptr) {
    if (absl::Status s = internal::CopyPending(*impl_, /*sync=*/true); !s.ok()) return s;
  }
  const storage::LmdbEnv& env = *impl_->records;
  Txn txn;
  int rc = txn.Begin(env, /*read_only=*/false);
  if (rc != 0) return env.Error(rc, "begin");
  char key[kKeySize];
  EncodeKey(seq, key);
  MDB_val k{kKeySize, key};
  MDB_val v{value.size(), const_cast<char*>(value.data())};
  if ((rc = mdb_put(txn.get(), env.dbi(), &k, &v, 0)) != 0) return env.Error(rc, "put");
  if ((rc = txn.Commit()) != 0) return env.Error(rc, "commit");
  if (impl_->log != nullptr) {
    if ((rc = mdb_env_sync(env.env(), 1)) != 0) return env.Error(rc, "sync");
    if (absl::Status s = impl_->log->Restart(); !s.ok()) return s;
  }
  if (seq > impl_->last_seq.load(std::memory_order_relaxed)) {
    impl_->last_seq.store(seq, std::memory_order_release);
  }
  return internal::SyncRecords(*impl_);
}

std::string Journal::EncodeRecordForTest(uint64_t seq, absl::string_view payload) {
  return internal::EncodeValue(kRecordMagic, seq, payload);
}

}  // namespace cfx::journal
