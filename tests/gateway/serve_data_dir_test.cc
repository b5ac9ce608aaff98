// The data dir at start, end to end (docs/serve.md "Data dir"): a world-writable one is
// refused naming it; a missing or empty one is refused by `--existing` (kExisting) and a new
// exchange for plain `cfx serve` (kOpenOrNew); an empty journal file, or a trade store or
// ledger without its journal, is no new exchange's; `--init` refuses a live exchange's;
// nothing is written where a start is refused. In process and through `cfx serve`.
#include <filesystem>
#include <fstream>
#include <string>

#include "cfx/gateway/exchange_server.h"
#include "gtest/gtest.h"
#include "run_cfx.h"
#include "serve_harness.h"
#include "serve_server_test.h"

namespace cfx::gateway {
namespace {

namespace fs = std::filesystem;

class ServeDataDirTest : public test::ServeServerTest {};

TEST_F(ServeDataDirTest, AWorldWritableDataDirIsRefusedNamingIt) {
  fs::create_directories(data_);
  fs::permissions(data_, fs::perms::all);
  absl::Status s = StartServer();
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  EXPECT_NE(s.message().find(data_), std::string::npos) << s;
  EXPECT_FALSE(fs::exists(data_ + "/journal"));  // nothing was written
}

TEST_F(ServeDataDirTest, AMissingOrEmptyDataDirIsNotANewExchangeUnlessToldSo) {
  absl::Status missing = StartServer(DataDirMode::kExisting);
  EXPECT_EQ(missing.code(), absl::StatusCode::kFailedPrecondition) << missing;
  EXPECT_NE(missing.message().find("--existing"), std::string::npos) << missing;
  EXPECT_FALSE(fs::exists(data_));
  ASSERT_TRUE(StartServer(DataDirMode::kNew).ok());
  ASSERT_TRUE(server_->Stop().ok());
  absl::Status again = StartServer(DataDirMode::kNew);  // --init on a live exchange's dir
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition) << again;
  ASSERT_TRUE(server_->Stop().ok());
  ASSERT_TRUE(StartServer(DataDirMode::kExisting).ok());
  EXPECT_FALSE(server_->recovery().fresh);
}

// `cfx serve`'s own mode (SPEC §11: `cfx serve --config FILE` runs the exchange): a missing
// data dir is a new exchange, made private; the next start recovers it, not a new one.
TEST_F(ServeDataDirTest, ServeStartsANewExchangeOnAMissingDataDirAndRecoversItNextTime) {
  ASSERT_FALSE(fs::exists(data_));
  ASSERT_TRUE(StartServer(DataDirMode::kOpenOrNew).ok());
  EXPECT_TRUE(server_->recovery().fresh);
  EXPECT_EQ(fs::status(data_).permissions() & fs::perms::all, fs::perms::owner_all);
  ASSERT_TRUE(server_->Stop().ok());
  ASSERT_TRUE(StartServer(DataDirMode::kOpenOrNew).ok());
  EXPECT_FALSE(server_->recovery().fresh);
}

// An empty journal file (a copy or restore that wrote nothing) is no journal: LMDB would
// make a new one in it and the exchange would start empty. Until 2026-12-06 it did.
TEST_F(ServeDataDirTest, AnEmptyJournalFileIsNotANewExchange) {
  fs::create_directories(data_ + "/journal");
  fs::permissions(data_, fs::perms::owner_all);
  std::ofstream(data_ + "/journal/data.mdb").close();
  for (DataDirMode mode : {DataDirMode::kExisting, DataDirMode::kOpenOrNew, DataDirMode::kNew}) {
    absl::Status s = StartServer(mode);
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    EXPECT_NE(s.message().find(data_ + "/journal/data.mdb is empty"), std::string::npos) << s;
    EXPECT_EQ(fs::file_size(data_ + "/journal/data.mdb"), 0u);  // nothing was made in it
  }
}

// A data dir a `cfx replay --data-dir` wrote (a trade store, no journal) is no new exchange's:
// --init on it took its next inputs for recorded ones, and served a security master with 14
// contracts of the 24 it listed (an audit, 2026-12-06). Refused, nothing written, also for a
// start that makes its journal (a standby; a review found that path open).
TEST_F(ServeDataDirTest, InitRefusesATradeStoreWithoutItsJournal) {
  const std::string config = dir_ + "/cfx.toml";
  std::ofstream(config) << test::ServeConfigText(data_);
  const std::string input = dir_ + "/cmds.jsonl";
  std::ofstream(input)
      << "{\"op\":\"time\",\"ts\":\"2027-03-01T14:00:00Z\"}\n"
         "{\"op\":\"product\",\"sym\":\"B200-GOLD-US-202703\"}\n"
         "{\"op\":\"new\",\"cl\":\"b\",\"acct\":\"A1\",\"sym\":\"B200-GOLD-US-202703\","
         "\"side\":\"buy\",\"type\":\"limit\",\"px\":\"5.000\",\"qty\":2}\n"
         "{\"op\":\"new\",\"cl\":\"s\",\"acct\":\"B1\",\"sym\":\"B200-GOLD-US-202703\","
         "\"side\":\"sell\",\"type\":\"limit\",\"px\":\"5.000\",\"qty\":1}\n";
  testsupport::CfxResult replay = testsupport::RunCfx("replay --input " + input + " --data-dir " +
                                                      data_ + " --config " + config);
  ASSERT_EQ(replay.exit_code, 0) << replay.output;
  ASSERT_TRUE(fs::exists(data_ + "/trades/data.mdb"));
  // In process first: on a binary without the check the CLI's serve would start and run on.
  absl::Status s = StartServer(DataDirMode::kNew);
  ASSERT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  // Nor a start that makes its journal where it is missing (a standby, the in-process
  // server): the same trades would be taken for its own.
  for (DataDirMode mode : {DataDirMode::kCreate, DataDirMode::kOpenOrNew}) {
    absl::Status created = StartServer(mode);
    ASSERT_EQ(created.code(), absl::StatusCode::kFailedPrecondition) << created;
    EXPECT_NE(created.message().find("holds a trade store"), std::string::npos) << created;
  }
  testsupport::CfxResult init = testsupport::RunCfx("serve --init --config " + config);
  EXPECT_NE(init.exit_code, 0);
  EXPECT_NE(init.output.find("holds a trade store (" + data_ + "/trades/data.mdb) but no journal"),
            std::string::npos)
      << init.output;
  EXPECT_FALSE(fs::exists(data_ + "/journal"));  // nothing was written
  // Moving the trades away leaves another run's settlement ledger: refused as well.
  fs::rename(data_ + "/trades", dir_ + "/trades-moved");
  fs::create_directories(data_ + "/ledger");
  std::ofstream(data_ + "/ledger/data.mdb") << "another run's ledger";
  absl::Status ledger = StartServer(DataDirMode::kNew);
  EXPECT_EQ(ledger.code(), absl::StatusCode::kFailedPrecondition) << ledger;
  EXPECT_NE(ledger.message().find("a settlement ledger (" + data_ + "/ledger/data.mdb)"),
            std::string::npos)
      << ledger;
}

// `cfx serve --existing` as an operator restarts it: refused (non-zero, the path named) on a
// missing data dir, and (any flags) on a world-writable one. Without --existing a missing
// data dir is a new exchange (SPEC §11; ServeProcessTest.StartsAndStopsCleanlyOnSigterm).
TEST_F(ServeDataDirTest, CfxServeExistingRefusesAMissingDataDirAndAnyServeAWorldWritableOne) {
  const std::string config = dir_ + "/cfx.toml";
  std::ofstream(config) << test::ServeConfigText(data_);
  testsupport::CfxResult missing = testsupport::RunCfx("serve --existing --config " + config);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find(data_), std::string::npos) << missing.output;
  EXPECT_NE(missing.output.find("--existing"), std::string::npos) << missing.output;
  EXPECT_FALSE(fs::exists(data_));
  testsupport::CfxResult both = testsupport::RunCfx("serve --existing --init --config " + config);
  EXPECT_EQ(both.exit_code, 2) << both.output;  // a bad flag: nothing started
  EXPECT_FALSE(fs::exists(data_));
  fs::create_directories(data_);
  fs::permissions(data_, fs::perms::all);
  testsupport::CfxResult open = testsupport::RunCfx("serve --init --config " + config);
  EXPECT_NE(open.exit_code, 0);
  EXPECT_NE(open.output.find(data_), std::string::npos) << open.output;
  EXPECT_NE(open.output.find("writable"), std::string::npos) << open.output;
}

}  // namespace
}  // namespace cfx::gateway
