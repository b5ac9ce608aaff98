// The files behind the reports a crash kept from going out (docs/durability.md): the report
// watermark (`fix/reported`, two slots) and the ExecID generation file, read and written
// directly.
#include "report_watermark.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cfx/gateway/execid_generation.h"
#include "gtest/gtest.h"
#include "temp_dir.h"

namespace cfx::gateway::report_watermark_test {  // named: the unity build joins test files
namespace {

// The file: absent is "nothing reported before"; a write lands in the older slot, so one cut
// short leaves the newer whole; both damaged refuses, naming the file; private to its user.
// The ExecID generation file: written and read back (0600); absent is generation 0; any
// other content than one line of the tag and two positive decimal numbers is DataLoss.
TEST(ReportWatermarkTest, TheExecIdGenerationFileReadsBackOnlyWhole) {
  testsupport::TempDir dir{"cfx_reports_test"};
  const std::string path = dir.path() + "/reported.generation";
  auto none = ReadExecIdGeneration(path);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->generation, 0u);
  ASSERT_TRUE(WriteExecIdGeneration(path, {3, 12345}).ok());
  auto back = ReadExecIdGeneration(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->generation, 3u);
  EXPECT_EQ(back->from, 12345u);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  for (const std::string& bad :
       {std::string("cfx-execid-generation 1 5"), std::string("cfx-execid-generation 1 5\n\n"),
        std::string("cfx-execid-generation  1 5\n"), std::string("cfx-execid-generation 1 -5\n"),
        std::string("cfx-execid-generation -1 5\n"), std::string("cfx-execid-generation 0 5\n"),
        std::string("cfx-execid-generation 1 0\n"), std::string("cfx-execid-generation 1 5 6\n"),
        std::string("cfx-execid-generation 4294967295 5\n"),
        std::string("cfx-execid-generation 1 99999999999999999999\n"),
        std::string("cfx-execid-generation 1 5\n") + std::string(200, ' '),
        std::string("other-tag 1 5\n"), std::string("")}) {
    std::ofstream(path, std::ios::trunc | std::ios::binary) << bad;
    EXPECT_EQ(ReadExecIdGeneration(path).status().code(), absl::StatusCode::kDataLoss)
        << "'" << bad << "'";
  }
}

// Every cut's generation is kept, one line each: an input's ExecIDs are those of the
// latest cut at or before it. Until 2026-12-07 the file held the latest only, and after a
// second cut (at 300) the reports sent again of inputs between the two cuts (251..299) went
// out as `<seq>-<n>`, not the `<seq>.1-<n>` they had (a review). A file of one line, as
// before, reads as that generation; generations that do not ascend are damage.
TEST(ReportWatermarkTest, EveryCutsGenerationIsKeptAndTheLatestAtOrBeforeASeqIsIts) {
  testsupport::TempDir dir{"cfx_reports_test"};
  const std::string path = dir.path() + "/reported.generation";
  ASSERT_TRUE(WriteExecIdGeneration(path, {1, 100}).ok());
  ASSERT_TRUE(WriteExecIdGeneration(path, {2, 300}).ok());
  ASSERT_TRUE(WriteExecIdGeneration(path, {3, 200}).ok());  // a third cut, lower still
  EXPECT_FALSE(WriteExecIdGeneration(path, {3, 500}).ok()) << "not past the latest";
  auto all = ReadExecIdGenerations(path);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ(GenerationOf(*all, 99), 0u);
  EXPECT_EQ(GenerationOf(*all, 100), 1u);
  EXPECT_EQ(GenerationOf(*all, 199), 1u);
  EXPECT_EQ(GenerationOf(*all, 250), 3u);  // the third cut replaced everything from 200
  EXPECT_EQ(GenerationOf(*all, 350), 3u);
  auto latest = ReadExecIdGeneration(path);
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(latest->generation, 3u);
  EXPECT_EQ(latest->from, 200u);
  std::ofstream(path, std::ios::trunc | std::ios::binary)
      << "cfx-execid-generation 2 300\ncfx-execid-generation 1 100\n";
  EXPECT_EQ(ReadExecIdGenerations(path).status().code(), absl::StatusCode::kDataLoss);
}

TEST(ReportWatermarkTest, TwoSlotsSurviveATornWriteAndDamageToBothIsRefused) {
  testsupport::TempDir dir{"cfx_reports_test"};
  const std::string path = dir.path() + "/reported";
  {
    auto w = internal::ReportWatermark::Open(path);
    ASSERT_TRUE(w.ok()) << w.status();
    EXPECT_FALSE((*w)->found().has_value());
    ASSERT_TRUE((*w)->Write(7).ok());
    ASSERT_TRUE((*w)->Write(9).ok());
  }
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto damage = [&](size_t at) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(at));
    f.put('\x55');
  };
  {
    auto w = internal::ReportWatermark::Open(path);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ((*w)->found(), 9u);
  }
  // 9 went to slot 0 (the second write); damaging it leaves 7.
  damage(16);
  {
    auto w = internal::ReportWatermark::Open(path);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ((*w)->found(), 7u);
    ASSERT_TRUE((*w)->Write(11).ok());  // into the damaged slot, the older
  }
  {
    auto w = internal::ReportWatermark::Open(path);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ((*w)->found(), 11u);
  }
  damage(16);
  damage(internal::kWatermarkSlot + 16);
  auto refused = internal::ReportWatermark::Open(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(refused.status().message().find(path), std::string::npos) << refused.status();
}

}  // namespace
}  // namespace cfx::gateway::report_watermark_test
