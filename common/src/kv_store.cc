#include "cfx/common/kv_store.h"

#include <lmdb.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"

namespace cfx {
namespace {

absl::Status LmdbError(int rc, absl::string_view what, absl::string_view path) {
  return absl::InternalError(absl::StrCat(what, " (", path, "): ", mdb_strerror(rc)));
}

MDB_val Val(absl::string_view s) {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
}

absl::string_view View(const MDB_val& v) {
  return absl::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}

class LmdbStore;

class LmdbTxn : public KvTxn {
 public:
  LmdbTxn(LmdbStore* store, MDB_txn* txn, bool write) : store_(store), txn_(txn), write_(write) {}
  ~LmdbTxn() override { Abort(); }

  absl::StatusOr<std::optional<std::string>> Get(absl::string_view table,
                                                 absl::string_view key) override;
  absl::Status Put(absl::string_view table, absl::string_view key,
                   absl::string_view value) override;
  absl::Status Delete(absl::string_view table, absl::string_view key) override;
  absl::Status Scan(absl::string_view table, absl::string_view prefix,
                    const std::function<bool(absl::string_view, absl::string_view)>& fn) override;
  absl::Status Commit() override;
  void Abort() override {
    if (txn_) mdb_txn_abort(txn_);
    txn_ = nullptr;
  }

 private:
  absl::StatusOr<MDB_dbi> Table(absl::string_view name, bool* exists);

  LmdbStore* store_;
  MDB_txn* txn_;
  bool write_;
  std::vector<std::pair<std::string, MDB_dbi>> opened_;
};

class LmdbStore : public KvStore {
 public:
  LmdbStore(MDB_env* env, std::string path) : env_(env), path_(std::move(path)) {}
  ~LmdbStore() override { mdb_env_close(env_); }

  absl::StatusOr<std::unique_ptr<KvTxn>> BeginWrite() override { return Begin(true); }
  absl::StatusOr<std::unique_ptr<KvTxn>> BeginRead() override { return Begin(false); }
  const std::string& path() const override { return path_; }

  // Table handles are opened once in a write transaction and then shared.
  std::mutex mu;
  std::map<std::string, MDB_dbi, std::less<>> tables;

 private:
  absl::StatusOr<std::unique_ptr<KvTxn>> Begin(bool write) {
    MDB_txn* txn = nullptr;
    int rc = mdb_txn_begin(env_, nullptr, write ? 0 : MDB_RDONLY, &txn);
    if (rc != 0) return LmdbError(rc, "cannot begin transaction", path_);
    return std::unique_ptr<KvTxn>(new LmdbTxn(this, txn, write));
  }

  MDB_env* env_;
  std::string path_;

  friend class LmdbTxn;
};

absl::StatusOr<MDB_dbi> LmdbTxn::Table(absl::string_view name, bool* exists) {
  std::lock_guard<std::mutex> lock(store_->mu);
  auto it = store_->tables.find(name);
  if (it != store_->tables.end()) {
    *exists = true;
    return it->second;
  }
  MDB_dbi dbi;
  std::string n(name);
  int rc = mdb_dbi_open(txn_, n.c_str(), write_ ? MDB_CREATE : 0, &dbi);
  if (rc == MDB_NOTFOUND) {
    *exists = false;
    return 0;
  }
  if (rc != 0) return LmdbError(rc, absl::StrCat("cannot open table ", name), store_->path());
  // A handle opened here becomes shareable only once this transaction commits.
  opened_.push_back({std::move(n), dbi});
  *exists = true;
  return dbi;
}

absl::StatusOr<std::optional<std::string>> LmdbTxn::Get(absl::string_view table,
                                                        absl::string_view key) {
  bool exists;
  auto dbi = Table(table, &exists);
  if (!dbi.ok()) return dbi.status();
  if (!exists) return std::optional<std::string>();
  MDB_val k = Val(key), v;
  int rc = mdb_get(txn_, *dbi, &k, &v);
  if (rc == MDB_NOTFOUND) return std::optional<std::string>();
  if (rc != 0) return LmdbError(rc, "read failed", store_->path());
  return std::optional<std::string>(std::string(View(v)));
}

absl::Status LmdbTxn::Put(absl::string_view table, absl::string_view key,
                          absl::string_view value) {
  if (!write_) return absl::FailedPreconditionError("Put in a read transaction");
  bool exists;
  auto dbi = Table(table, &exists);
  if (!dbi.ok()) return dbi.status();
  MDB_val k = Val(key), v = Val(value);
  int rc = mdb_put(txn_, *dbi, &k, &v, 0);
  if (rc != 0) return LmdbError(rc, "write failed", store_->path());
  return absl::OkStatus();
}

absl::Status LmdbTxn::Delete(absl::string_view table, absl::string_view key) {
  if (!write_) return absl::FailedPreconditionError("Delete in a read transaction");
  bool exists;
  auto dbi = Table(table, &exists);
  if (!dbi.ok()) return dbi.status();
  MDB_val k = Val(key);
  int rc = mdb_del(txn_, *dbi, &k, nullptr);
  if (rc != 0 && rc != MDB_NOTFOUND) return LmdbError(rc, "delete failed", store_->path());
  return absl::OkStatus();
}

absl::Status LmdbTxn::Scan(absl::string_view table, absl::string_view prefix,
                           const std::function<bool(absl::string_view, absl::string_view)>& fn) {
  bool exists;
  auto dbi = Table(table, &exists);
  if (!dbi.ok()) return dbi.status();
  if (!exists) return absl::OkStatus();
  MDB_cursor* cursor = nullptr;
  int rc = mdb_cursor_open(txn_, *dbi, &cursor);
  if (rc != 0) return LmdbError(rc, "cursor failed", store_->path());
  MDB_val k = Val(prefix), v;
  rc = mdb_cursor_get(cursor, &k, &v, prefix.empty() ? MDB_FIRST : MDB_SET_RANGE);
  while (rc == 0) {
    absl::string_view key = View(k);
    if (key.substr(0, prefix.size()) != prefix) break;
    if (!fn(key, View(v))) break;
    rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  if (rc != 0 && rc != MDB_NOTFOUND) return LmdbError(rc, "scan failed", store_->path());
  return absl::OkStatus();
}

absl::Status LmdbTxn::Commit() {
  if (!txn_) return absl::FailedPreconditionError("transaction already ended");
  int rc = mdb_txn_commit(txn_);
  txn_ = nullptr;
  if (rc != 0) return LmdbError(rc, "commit failed", store_->path());
  std::lock_guard<std::mutex> lock(store_->mu);
  for (auto& [name, dbi] : opened_) store_->tables.emplace(std::move(name), dbi);
  opened_.clear();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<KvStore>> KvStore::Open(const std::string& data_dir,
                                                       const KvOptions& options) {
  std::string path = data_dir + "/" + options.file;
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrCat("cannot create data dir ", path, ": ", ec.message()));
  }
  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc != 0) return LmdbError(rc, "cannot create LMDB env", path);
  mdb_env_set_mapsize(env, options.map_size_bytes);
  mdb_env_set_maxdbs(env, options.max_tables);
  rc = mdb_env_open(env, path.c_str(), 0, 0644);
  if (rc != 0) {
    mdb_env_close(env);
    return LmdbError(rc, "cannot open LMDB env", path);
  }
  return std::unique_ptr<KvStore>(new LmdbStore(env, path));
}

}  // namespace cfx
