#include "cfx/storage/kv_store.h"
#include "cfx/storage/lmdb_env.h"

#include <filesystem>

#include "gtest/gtest.h"

namespace cfx::storage {
namespace {

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("cfx_kv_" + name + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

TEST(KvStoreTest, CommittedWritesAreVisibleAbortedAreNot) {
  std::string dir = TempDir("commit");
  auto store = KvStore::Open(dir);
  ASSERT_TRUE(store.ok()) << store.status();
  {
    auto txn = (*store)->BeginWrite();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE((*txn)->Put("t", "a/1", "x").ok());
    ASSERT_TRUE((*txn)->Put("t", "a/2", "y").ok());
    ASSERT_TRUE((*txn)->Put("t", "b/1", "z").ok());
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  {
    auto txn = (*store)->BeginWrite();
    ASSERT_TRUE((*txn)->Put("t", "a/3", "lost").ok());
    // destroyed without Commit: aborted
  }
  auto txn = (*store)->BeginRead();
  ASSERT_TRUE(txn.ok());
  EXPECT_EQ(**(*txn)->Get("t", "a/1"), "x");
  EXPECT_FALSE((*(*txn)->Get("t", "a/3")).has_value());
  EXPECT_FALSE((*(*txn)->Get("missing_table", "k")).has_value());
  std::vector<std::string> keys;
  ASSERT_TRUE((*txn)->Scan("t", "a/", [&](absl::string_view k, absl::string_view) {
                     keys.emplace_back(k);
                     return true;
                   }).ok());
  EXPECT_EQ(keys, (std::vector<std::string>{"a/1", "a/2"}));
  std::filesystem::remove_all(dir);
}

// A reader's open (`create` false) of a store that is not there is NotFound, naming it, and
// leaves nothing behind; once a writer has made the store, the reader opens it.
TEST(KvStoreTest, AReaderNeverCreatesAStore) {
  std::string dir = TempDir("reader");
  auto absent = KvStore::Open(dir, {.file = "trades", .create = false});
  ASSERT_EQ(absent.status().code(), absl::StatusCode::kNotFound) << absent.status();
  EXPECT_NE(absent.status().message().find(dir + "/trades"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir));
  {
    auto writer = KvStore::Open(dir, {.file = "trades"});
    ASSERT_TRUE(writer.ok()) << writer.status();
    auto txn = (*writer)->BeginWrite();
    ASSERT_TRUE((*txn)->Put("t", "k", "v").ok());
    ASSERT_TRUE((*txn)->Commit().ok());
  }
  auto reader = KvStore::Open(dir, {.file = "trades", .create = false});
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto txn = (*reader)->BeginRead();
  ASSERT_TRUE(txn.ok());
  EXPECT_EQ(**(*txn)->Get("t", "k"), "v");
  std::filesystem::remove_all(dir);
}

// A store's data.mdb of 0 bytes (a copy that wrote nothing, a truncation) is refused by
// readers and writers alike, naming it, and left as it is: a writer used to make a new,
// empty store over it, and a settlement then ran on no trades (an audit, 2026-12-06).
TEST(KvStoreTest, AnEmptyDataFileIsRefusedNotMadeANewStore) {
  std::string dir = TempDir("empty");
  {
    auto writer = KvStore::Open(dir, {.file = "trades"});
    ASSERT_TRUE(writer.ok()) << writer.status();
  }
  const std::string file = dir + "/trades/data.mdb";
  std::filesystem::resize_file(file, 0);
  for (bool create : {true, false}) {
    auto store = KvStore::Open(dir, {.file = "trades", .create = create});
    ASSERT_FALSE(store.ok()) << "create " << create;
    EXPECT_EQ(store.status().code(), absl::StatusCode::kDataLoss) << store.status();
    EXPECT_NE(store.status().message().find(file + ": the file is empty (0 bytes)"),
              std::string::npos)
        << store.status();
    EXPECT_EQ(std::filesystem::file_size(file), 0u);
  }
  std::filesystem::remove_all(dir);
}

TEST(KvStoreTest, UnwritableDirIsAClearError) {
  auto store = KvStore::Open("/proc/cfx-cannot-exist");
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("/proc/cfx-cannot-exist"), std::string::npos);
}

// A full LMDB map is a clear, actionable error naming the store (the same mapping as the
// journal's, through LmdbEnv), and the transaction that hit it leaves nothing behind.
TEST(KvStoreTest, MapFullIsAClearErrorAndTheTransactionLeavesNothing) {
  std::string dir = TempDir("mapfull");
  auto store = KvStore::Open(dir, {.file = "small", .map_size_bytes = 1 << 20});
  ASSERT_TRUE(store.ok()) << store.status();
  auto txn = (*store)->BeginWrite();
  ASSERT_TRUE(txn.ok());
  absl::Status failed;
  const std::string value(64 * 1024, 'v');
  for (int i = 0; i < 64 && failed.ok(); ++i) {
    failed = (*txn)->Put("t", "k" + std::to_string(i), value);
  }
  if (failed.ok()) failed = (*txn)->Commit();
  ASSERT_FALSE(failed.ok()) << "4 MiB fit in a 1 MiB map";
  EXPECT_EQ(failed.code(), absl::StatusCode::kResourceExhausted) << failed;
  EXPECT_NE(failed.message().find("map full"), std::string::npos) << failed;
  EXPECT_NE(failed.message().find(dir), std::string::npos) << failed;
  txn->reset();
  auto read = (*store)->BeginRead();
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE((*(*read)->Get("t", "k0")).has_value());
  std::filesystem::remove_all(dir);
}

// The map-full error names the setting that raises the map, and the size it reports is the
// map in force: a store reopened with less than its file holds keeps what it holds (LMDB
// maps at least the file's pages).
TEST(KvStoreTest, MapFullNamesTheSettingAndAReopenWithMoreRoomTakesMore) {
  std::string dir = TempDir("mapsetting");
  const std::string value(64 * 1024, 'v');
  auto fill = [&](KvStore& store, int from) {
    absl::Status failed;
    int i = from;
    for (; i < from + 1000 && failed.ok(); ++i) {
      auto txn = store.BeginWrite();
      if (!txn.ok()) return std::pair{txn.status(), i};
      failed = (*txn)->Put("t", "k" + std::to_string(i), value);
      if (failed.ok()) failed = (*txn)->Commit();
    }
    return std::pair{failed, i - 1};
  };
  int stored = 0;
  {
    auto store = KvStore::Open(dir, {.file = "s",
                                     .map_size_bytes = 1 << 20,
                                     .map_size_setting = "exchange.trade_store_map_gib"});
    ASSERT_TRUE(store.ok()) << store.status();
    auto [failed, at] = fill(**store, 0);
    ASSERT_EQ(failed.code(), absl::StatusCode::kResourceExhausted) << failed;
    EXPECT_NE(failed.message().find("raise exchange.trade_store_map_gib"), std::string::npos)
        << failed;
    EXPECT_NE(failed.message().find("map size 1048576 bytes"), std::string::npos) << failed;
    EXPECT_TRUE(IsMapFull(failed));
    EXPECT_FALSE(IsMapFull(absl::ResourceExhaustedError(failed.message())));  // the text alone
    stored = at;
  }
  {
    auto store = KvStore::Open(dir, {.file = "s", .map_size_bytes = 4 << 20});
    ASSERT_TRUE(store.ok()) << store.status();
    auto [failed, at] = fill(**store, stored);
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.message().find("map size 4194304 bytes"), std::string::npos) << failed;
    EXPECT_NE(failed.message().find("raise the map size"), std::string::npos) << failed;
    EXPECT_GT(at, stored + 20) << "4 MiB took no more than 1";
    stored = at;
  }
  auto store = KvStore::Open(dir, {.file = "s", .map_size_bytes = 1 << 20});
  ASSERT_TRUE(store.ok()) << store.status();
  auto read = (*store)->BeginRead();
  ASSERT_TRUE(read.ok());
  for (int i = 0; i < stored; ++i) {
    ASSERT_TRUE((*(*read)->Get("t", "k" + std::to_string(i))).has_value()) << i;
  }
  read->reset();
  auto [failed, at] = fill(**store, stored);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.message().find("map size 1048576 bytes"), std::string::npos)
      << "the size asked for, not the map in force (what the file holds): " << failed;
  std::filesystem::remove_all(dir);
}

// A map larger than the address space LMDB can reserve is refused at open naming the setting,
// not as a bare "Cannot allocate memory".
TEST(KvStoreTest, AMapNoAddressSpaceHoldsIsRefusedNamingTheSetting) {
  std::string dir = TempDir("hugemap");
  auto store = KvStore::Open(dir, {.file = "s",
                                   .map_size_bytes = 1ull << 60,
                                   .map_size_setting = "exchange.trade_store_map_gib"});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kResourceExhausted) << store.status();
  EXPECT_NE(store.status().message().find("lower exchange.trade_store_map_gib"), std::string::npos)
      << store.status();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cfx::storage
