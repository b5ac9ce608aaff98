// A small transactional key-value store over LMDB, for the post-trade modules (fixes,
// ledger, statements). Keys and values are byte strings; named tables live in one
// environment under a data dir. No LMDB type appears in this header.
//
//   auto store = KvStore::Open("/var/cfx/data", {.file = "reference"});
//   auto txn = (*store)->BeginWrite();
//   (*txn)->Put("fixes", "B200-GOLD-US/2027-03-01", json);
//   absl::Status s = (*txn)->Commit();   // nothing is visible before Commit()
#ifndef CFX_STORAGE_KV_STORE_H_
#define CFX_STORAGE_KV_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cfx::storage {

struct KvOptions {
  // Sub-folder of the data dir holding this environment (one LMDB env per module).
  std::string file = "store";
  uint64_t map_size_bytes = 8ull << 30;  // address space reserved, not disk used
  std::string map_size_setting;          // EnvOptions::map_size_setting
  int max_tables = 32;
  // For a store derived from the journal (the trade store): one flush per commit, and a
  // power loss may undo the latest commit, which the journal then re-derives (EnvOptions).
  bool no_meta_sync = false;
  // false: a reader's open. A store that is not there yet is NotFound, and nothing is
  // created (a command pointed at the wrong folder must not leave stores behind).
  bool create = true;
};

class KvTxn {
 public:
  virtual ~KvTxn() = default;  // aborts if neither Commit() nor Abort() was called
  // Returns nullopt when absent.
  virtual absl::StatusOr<std::optional<std::string>> Get(absl::string_view table,
                                                         absl::string_view key) = 0;
  // REQUIRES: a write transaction.
  virtual absl::Status Put(absl::string_view table, absl::string_view key,
                           absl::string_view value) = 0;
  virtual absl::Status Delete(absl::string_view table, absl::string_view key) = 0;
  // Calls fn(key, value) for keys starting with `prefix`, in key order, until fn returns
  // false.
  virtual absl::Status Scan(
      absl::string_view table, absl::string_view prefix,
      const std::function<bool(absl::string_view, absl::string_view)>& fn) = 0;
  // Durable (synced) when it returns OK.
  virtual absl::Status Commit() = 0;
  virtual void Abort() = 0;
};

// Thread safety: any number of readers; one write transaction at a time (LMDB serialises
// writers). A transaction belongs to the thread that began it.
class KvStore {
 public:
  virtual ~KvStore() = default;
  // Opens or creates (`options.create`) `data_dir/options.file`. Returns an error naming
  // the path if the folder cannot be created or opened; NotFound when it holds no store and
  // `create` is false.
  static absl::StatusOr<std::unique_ptr<KvStore>> Open(const std::string& data_dir,
                                                       const KvOptions& options = {});
  virtual absl::StatusOr<std::unique_ptr<KvTxn>> BeginWrite() = 0;
  virtual absl::StatusOr<std::unique_ptr<KvTxn>> BeginRead() = 0;
  virtual const std::string& path() const = 0;
};

}  // namespace cfx::storage

#endif  // CFX_STORAGE_KV_STORE_H_
