// The one LMDB wrapper of cfx: an owner of one LMDB environment (its main database, and
// named tables when `max_tables` > 0) that turns LMDB and OS errors into absl::Status
// naming the path, plus RAII transactions and cursors. This header names LMDB types: a
// module includes it only from its src/ (the journal's hot path uses it directly); every
// other store goes through KvStore (kv_store.h), which has no LMDB type.
//
//   auto env = LmdbEnv::Open({.path = dir + "/journal"});
//   Txn txn;
//   if (int rc = txn.Begin(**env, /*read_only=*/false); rc != 0) return (*env)->Error(rc, "begin");
#ifndef CFX_STORAGE_LMDB_ENV_H_
#define CFX_STORAGE_LMDB_ENV_H_

#include <lmdb.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cfx::storage {

struct EnvOptions {
  std::string path;  // a folder: data.mdb and lock.mdb live inside
  uint64_t map_size_bytes = 1ull << 30;
  // Where an operator raises the map size (e.g. "exchange.journal_map_gib in the config"),
  // named by the map-full error; empty: the error says to raise the map size.
  std::string map_size_setting;
  bool no_sync = false;
  // MDB_NOMETASYNC: a commit syncs its data pages but not its meta page, which the next
  // commit's sync (or an explicit Sync) makes durable; integrity is kept, a power loss may
  // undo the last commit. One device flush per commit instead of two. A clean close syncs.
  bool no_meta_sync = false;
  bool read_only = false;
  int max_tables = 0;  // named tables (mdb_dbi_open with a name); 0: the main database only
};

// Thread safety: the environment is shared by threads (MDB_NOTLS: a read transaction is not
// tied to its thread's slot); LMDB serialises write transactions.
class LmdbEnv {
 public:
  static absl::StatusOr<std::unique_ptr<LmdbEnv>> Open(const EnvOptions& options);
  ~LmdbEnv();

  MDB_env* env() const { return env_; }
  MDB_dbi dbi() const { return dbi_; }
  const std::string& path() const { return path_; }

  // Maps an LMDB return code to a Status: "<path>: <what>: <reason>", with a hint for the
  // cases an operator can act on (disk full, map full, permissions).
  absl::Status Error(int rc, absl::string_view what) const;

 private:
  LmdbEnv(MDB_env* env, MDB_dbi dbi, std::string path, uint64_t map_size,
          std::string map_size_setting, bool sync_at_close)
      : env_(env),
        dbi_(dbi),
        path_(std::move(path)),
        map_size_(map_size),
        map_size_setting_(std::move(map_size_setting)),
        sync_at_close_(sync_at_close) {}
  MDB_env* env_;
  MDB_dbi dbi_;
  std::string path_;
  uint64_t map_size_;  // as in force: at least what the file already holds
  std::string map_size_setting_;
  bool sync_at_close_;  // no_meta_sync: the last commit's meta page is synced at close
};

// True for LmdbEnv::Error's full map (MDB_MAP_FULL, a status payload): LMDB refuses it while
// it allocates pages, before it writes or flushes anything, so what the file held before is
// as durable as it was (a later flush of it can be trusted; not so after a failed write).
bool IsMapFull(const absl::Status& status);

// A transaction that aborts unless committed.
class Txn {
 public:
  Txn() = default;
  ~Txn() {
    if (txn_ != nullptr) mdb_txn_abort(txn_);
  }
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;

  int Begin(const LmdbEnv& env, bool read_only) {
    return mdb_txn_begin(env.env(), nullptr, read_only ? MDB_RDONLY : 0, &txn_);
  }
  int Commit() {
    int rc = mdb_txn_commit(txn_);
    txn_ = nullptr;  // committed or not, LMDB has freed it
    return rc;
  }
  MDB_txn* get() const { return txn_; }

 private:
  MDB_txn* txn_ = nullptr;
};

// A cursor closed on scope exit (before its transaction ends).
class Cursor {
 public:
  ~Cursor() {
    if (cursor_ != nullptr) mdb_cursor_close(cursor_);
  }
  int Open(const Txn& txn, MDB_dbi dbi) { return mdb_cursor_open(txn.get(), dbi, &cursor_); }
  MDB_cursor* get() const { return cursor_; }

 private:
  MDB_cursor* cursor_ = nullptr;
};

// Deletes every key >= `first_key` of env's table in one synced write transaction.
// Errors name `what` ("truncate", "delete snapshot").
absl::Status DeleteFromKey(const LmdbEnv& env, absl::string_view first_key, absl::string_view what);

inline absl::string_view View(const MDB_val& v) {
  return absl::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}

}  // namespace cfx::storage

#endif  // CFX_STORAGE_LMDB_ENV_H_
