// Runs the built `cfx` binary: the documented worked example (docs/methodology.md) and the
// command's error contract.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "cfx/reference/fix_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace cfx::reference {
namespace {

using ::testing::HasSubstr;

const std::string kCfx = std::string(CFX_BINARY_DIR) + "/app/cfx";
const std::string kExample = std::string(CFX_SOURCE_DIR) + "/docs/examples/methodology";

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

RunResult RunCfx(const std::string& args) {
  // One file per process: ctest runs the tests of this binary in parallel processes.
  const std::string err_file =
      std::string(::testing::TempDir()) + "/cfx_reference_cli." + std::to_string(getpid()) + ".err";
  RunResult r;
  FILE* p = popen((kCfx + " " + args + " 2>" + err_file).c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::remove(err_file.c_str());
  return r;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string ExampleArgs() {
  return "reference build --observations " + kExample + "/observations.csv --throughput " +
         kExample + "/throughput.csv --date 2027-03-01 --to 2027-03-03";
}

TEST(ReferenceCliTest, WorkedExampleMatchesExpectedJson) {
  RunResult r = RunCfx(ExampleArgs());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(kExample + "/expected.jsonl"));
}

TEST(ReferenceCliTest, WorkedExampleWithMarketWideSeries) {
  RunResult r = RunCfx(ExampleArgs() + " --market-wide");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(kExample + "/expected_market_wide.jsonl"));
}

TEST(ReferenceCliTest, WorkedExampleMatchesExpectedCsv) {
  RunResult r = RunCfx(ExampleArgs() + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(kExample + "/expected.csv"));
}

TEST(ReferenceCliTest, StoredRunsAreIdempotentAndRevisionsNeedAReason) {
  const std::string dir = testing::TempDir("cli_store");
  RunResult first = RunCfx(ExampleArgs() + " --data-dir " + dir);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  RunResult second = RunCfx(ExampleArgs() + " --data-dir " + dir);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, first.out);
  EXPECT_THAT(second.err, HasSubstr("stored 0 new, 0 revisions"));
  // Day by day, the carry works across runs: Wednesday alone gives the same stale record.
  RunResult wed =
      RunCfx("reference build --observations " + kExample + "/observations.csv --throughput " +
             kExample + "/throughput.csv --date 2027-03-03 --data-dir " + dir);
  EXPECT_THAT(first.out,
              HasSubstr(wed.out.substr(wed.out.find("{\"grade\":\"B200-GOLD-US\""), 100)));
  RunResult no_reason = RunCfx(ExampleArgs() + " --data-dir " + dir + " --revise");
  EXPECT_NE(no_reason.exit_code, 0);
  EXPECT_THAT(no_reason.err, HasSubstr("--reason"));
  EXPECT_TRUE(no_reason.out.empty());
}

TEST(ReferenceCliTest, BadRowStopsTheRunNamingFileLineAndColumnAndStoresNothing) {
  const std::string dir = testing::TempDir("cli_bad");
  const std::string bad = dir + "/observations.csv";
  std::string text = ReadFile(kExample + "/observations.csv");
  text += "2027-03-01T10:00:00Z,Fjord,B200,GOLD,EU,on_demand,trade,-1,300\n";
  std::ofstream(bad) << text;
  RunResult r = RunCfx("reference build --observations " + bad + " --throughput " + kExample +
                       "/throughput.csv --date 2027-03-01 --data-dir " + dir + "/data");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(r.out.empty());
  EXPECT_THAT(r.err, HasSubstr(bad + ":30: column price:"));
  auto store = FixStore::Open(dir + "/data");
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE((*store)->Grades()->empty());
}

TEST(ReferenceCliTest, BadFlagsAndHelp) {
  EXPECT_NE(RunCfx(ExampleArgs() + " --format xml").exit_code, 0);
  RunResult bad_date = RunCfx("reference build --observations a --throughput b --date 2027-13-01");
  EXPECT_NE(bad_date.exit_code, 0);
  EXPECT_THAT(bad_date.err, HasSubstr("--date"));
  EXPECT_NE(RunCfx("reference build --date 2027-03-01").exit_code, 0);  // missing files
  RunResult help = RunCfx("reference build --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--observations"));
  EXPECT_EQ(RunCfx("reference sample --help").exit_code, 0);
  EXPECT_EQ(RunCfx("bench reference --help").exit_code, 0);
}

TEST(ReferenceCliTest, SampleIsReproducible) {
  const std::string a = testing::TempDir("cli_sample_a"), b = testing::TempDir("cli_sample_b");
  ASSERT_EQ(RunCfx("reference sample --out " + a + " --from 2027-03-01 --to 2027-03-05 --seed 9")
                .exit_code,
            0);
  ASSERT_EQ(RunCfx("reference sample --out " + b + " --from 2027-03-01 --to 2027-03-05 --seed 9")
                .exit_code,
            0);
  EXPECT_EQ(ReadFile(a + "/observations.csv"), ReadFile(b + "/observations.csv"));
  EXPECT_EQ(ReadFile(a + "/throughput.csv"), ReadFile(b + "/throughput.csv"));
  RunResult built =
      RunCfx("reference build --observations " + a + "/observations.csv --throughput " + a +
             "/throughput.csv --date 2027-03-01 --to 2027-03-05");
  EXPECT_EQ(built.exit_code, 0) << built.err;
}

}  // namespace
}  // namespace cfx::reference
