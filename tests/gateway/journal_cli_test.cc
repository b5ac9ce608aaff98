// `cfx journal verify|dump` on a data dir whose inputs a run left in the journal's commit log
// only (docs/durability.md, "The commit log"): the tools read them without taking them, and
// report how many there are. The run is a child that ends with _exit, as a kill -9 would
// (commit_log_child.h).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/journal/journal.h"
#include "commit_log_child.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "run_cfx.h"
#include "temp_dir.h"

namespace cfx {
namespace {

using ::testing::HasSubstr;

nlohmann::json Verify(const std::string& dir) {
  testsupport::CfxResult r = testsupport::RunCfx("journal verify --data-dir " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto json = nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(json.is_discarded()) << r.output;
  return json;
}

TEST(JournalCliTest, VerifyAndDumpReadWhatOnlyTheCommitLogHoldsWithoutTakingIt) {
  testsupport::TempDir dir("cfx_journal_cli");
  ASSERT_FALSE(dir.path().empty());
  std::vector<std::string> inputs;
  for (int i = 1; i <= 40; ++i) inputs.push_back(absl::StrCat("input ", i));
  ASSERT_TRUE(testsupport::LeaveInTheCommitLog(dir.path(), inputs));

  for (int twice = 0; twice < 2; ++twice) {  // read-only: the second run sees the same
    nlohmann::json v = Verify(dir.path());
    EXPECT_EQ(v.value("ok", false), true) << v.dump();
    EXPECT_EQ(v.value("records", 0), 40) << v.dump();
    EXPECT_EQ(v.value("last_seq", 0), 40) << v.dump();
    EXPECT_EQ(v.value("from_commit_log", 0), 40) << v.dump();
  }
  testsupport::CfxResult dump =
      testsupport::RunCfx("journal dump --data-dir " + dir.path() + " --from 39");
  EXPECT_EQ(dump.exit_code, 0) << dump.output;
  EXPECT_THAT(dump.output, HasSubstr("\"seq\":39"));
  EXPECT_THAT(dump.output, HasSubstr("\"seq\":40"));

  // A writable open (the exchange's next start) puts them into LMDB: none left in the log.
  ASSERT_TRUE(journal::Journal::Open({.data_dir = dir.path()}).ok());
  nlohmann::json after = Verify(dir.path());
  EXPECT_EQ(after.value("records", 0), 40) << after.dump();
  EXPECT_EQ(after.value("from_commit_log", -1), 0) << after.dump();
}

}  // namespace
}  // namespace cfx
