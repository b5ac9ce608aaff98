#include "cfx/storage/kv_store.h"

#include <lmdb.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/storage/lmdb_env.h"

namespace cfx::storage {
namespace {

MDB_val Val(absl::string_view s) {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
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
  explicit LmdbStore(std::unique_ptr<LmdbEnv> env) : env_(std::move(env)) {}

  absl::StatusOr<std::unique_ptr<KvTxn>> BeginWrite() override { return Begin(true); }
  absl::StatusOr<std::unique_ptr<KvTxn>> BeginRead() override { return Begin(false); }
  const std::string& path() const override { return env_->path(); }
  absl::Status Error(int rc, absl::string_view what) const { return env_->Error(rc, what); }

  // Table handles are opened once in a write transaction and then shared.
  std::mutex mu;
  std::map<std::string, MDB_dbi, std::less<>> tables;

 private:
  absl::StatusOr<std::unique_ptr<KvTxn>> Begin(bool write) {
    MDB_txn* txn = nullptr;
    int rc = mdb_txn_begin(env_->env(), nullptr, write ? 0 : MDB_RDONLY, &txn);
    if (rc != 0) return env_->Error(rc, "cannot begin transaction");
    return std::unique_ptr<KvTxn>(new LmdbTxn(this, txn, write));
  }

  std::unique_ptr<LmdbEnv> env_;

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
  if (rc != 0) return store_->Error(rc, absl::StrCat("cannot open table ", name));
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
  if (rc != 0) return store_->Error(rc, "read failed");
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
  if (rc != 0) return store_->Error(rc, "write failed");
  return absl::OkStatus();
}

absl::Status LmdbTxn::Delete(absl::string_view table, absl::string_view key) {
  if (!write_) return absl::FailedPreconditionError("Delete in a read transaction");
  bool exists;
  auto dbi = Table(table, &exists);
  if (!dbi.ok()) return dbi.status();
  MDB_val k = Val(key);
  int rc = mdb_del(txn_, *dbi, &k, nullptr);
  if (rc != 0 && rc != MDB_NOTFOUND) return store_->Error(rc, "delete failed");
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
  if (rc != 0) return store_->Error(rc, "cursor failed");
  MDB_val k = Val(prefix), v;
  rc = mdb_cursor_get(cursor, &k, &v, prefix.empty() ? MDB_FIRST : MDB_SET_RANGE);
  while (rc == 0) {
    absl::string_view key = View(k);
    if (key.substr(0, prefix.size()) != prefix) break;
    if (!fn(key, View(v))) break;
    rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  if (rc != 0 && rc != MDB_NOTFOUND) return store_->Error(rc, "scan failed");
  return absl::OkStatus();
}

absl::Status LmdbTxn::Commit() {
  if (!txn_) return absl::FailedPreconditionError("transaction already ended");
  int rc = mdb_txn_commit(txn_);
  txn_ = nullptr;
  if (rc != 0) return store_->Error(rc, "commit failed");
  std::lock_guard<std::mutex> lock(store_->mu);
  for (auto& [name, dbi] : opened_) store_->tables.emplace(std::move(name), dbi);
  opened_.clear();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<KvStore>> KvStore::Open(const std::string& data_dir,
                                                       const KvOptions& options) {
  const std::string path = data_dir + "/" + options.file;
  if (std::error_code ec; !options.create && !std::filesystem::exists(path + "/data.mdb", ec)) {
    if (ec) return absl::UnavailableError(absl::StrCat(path, ": ", ec.message()));
    return absl::NotFoundError(absl::StrCat(path, ": no such store"));
  }
  auto env = LmdbEnv::Open({.path = path,
                            .map_size_bytes = options.map_size_bytes,
                            .map_size_setting = options.map_size_setting,
                            .no_meta_sync = options.no_meta_sync,
                            .max_tables = options.max_tables});
  if (!env.ok()) return env.status();
  return std::unique_ptr<KvStore>(new LmdbStore(*std::move(env)));
}

}  // namespace cfx::storage
