// `cfx margin` end to end (same hand-checked numbers as margin_engine_test.cc).
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "remove_on_exit.h"
#include "run_cfx.h"

namespace {

using ::testing::HasSubstr;

using cfx::testsupport::RunCfx;
using Result = cfx::testsupport::CfxResult;

std::string Write(const std::string& name, const std::string& text) {
  // Per-test names: ctest runs the tests of this binary in parallel processes.
  const std::string path = ::testing::TempDir() + "/cfx_margin_cli_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                           "_" + name;
  std::ofstream(path) << text;
  cfx::testsupport::RemoveAtProgramExit(path);
  return path;
}

class MarginCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    prices_ = Write("prices.csv", "sym,settle\nB200-GOLD-US-202703,5.000\nB200-PLAT-US-202703,6\n");
    throughput_ = Write("tput.csv",
                        "date,operator,tier,gpu,model,isl,osl,output_tps_per_gpu\n"
                        "2027-03-01,g1,GOLD,B200,llama-70b,1024,1024,1000\n"
                        "2027-03-01,p1,PLAT,B200,llama-70b,1024,1024,2000\n"
                        "2027-03-09,g2,GOLD,B200,llama-70b,1024,1024,9000\n");  // after --date
  }
  std::string Args(const std::string& positions) {
    return "margin --positions " + positions + " --prices " + prices_ + " --throughput " +
           throughput_ + " --date 2027-03-02";
  }
  std::string prices_, throughput_;
};

TEST_F(MarginCliTest, PrintsOneHandCheckedObjectPerAccountSortedByAccount) {
  const std::string pos = Write("pos.csv",
                                "account,sym,qty\n"
                                "C,B200-GOLD-US-202703,1\n"
                                "B,B200-GOLD-US-202703,-1\n"
                                "A,B200-GOLD-US-202703,2\n"
                                "C,B200-PLAT-US-202703,-1\n"
                                "B,B200-GOLD-US-202703,-1\n"
                                "D,B200-GOLD-US-202703,0\n");
  Result r = RunCfx(Args(pos));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<nlohmann::json> lines;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 4u) << r.output;
  EXPECT_EQ(lines[0]["account"], "A");
  EXPECT_EQ(lines[0]["margin"], "1925.00");
  EXPECT_EQ(lines[0]["worst_scenario"], 14);
  EXPECT_EQ(lines[0]["backend"], "cpu");
  EXPECT_EQ(lines[0]["positions"][0]["sym"], "B200-GOLD-US-202703");
  EXPECT_EQ(lines[0]["positions"][0]["qty"], 2);
  EXPECT_EQ(lines[0]["positions"][0]["settle"], "5.000");
  EXPECT_EQ(lines[0]["positions"][0]["theta"], 1000.0);  // g2 is dated after --date
  EXPECT_EQ(lines[0]["positions"][0]["price_per_mtok"], "1.3889");
  EXPECT_EQ(lines[0]["positions"][0]["worst_loss"], "1925.00");
  EXPECT_EQ(lines[1]["account"], "B");
  EXPECT_EQ(lines[1]["margin"], "2075.00");
  EXPECT_EQ(lines[1]["worst_scenario"], 11);
  EXPECT_EQ(lines[1]["positions"][0]["qty"], -2);
  EXPECT_EQ(lines[2]["margin"], "207.50");
  EXPECT_EQ(lines[2]["positions"][1]["worst_loss"], "1245.00");
  EXPECT_EQ(lines[2]["positions"][1]["price_per_mtok"], "0.8333");  // 6 / 7.2
  EXPECT_EQ(lines[3]["account"], "D");
  EXPECT_EQ(lines[3]["margin"], "0.00");
  EXPECT_EQ(lines[3]["worst_scenario"], 1);
}

TEST_F(MarginCliTest, ScenarioFileReportsItsLabel) {
  const std::string pos = Write("pos2.csv", "account,sym,qty\nA,B200-GOLD-US-202703,-1\n");
  const std::string file = Write("scen.csv",
                                 "scenario,weight,price_move,tput_PLAT,tput_GOLD,tput_SILV,tput_BRNZ\n"
                                 "calm,1,0,0,0,0,0\nspike,0.5,0.2,0,0,0,0\n");
  Result r = RunCfx(Args(pos) + " --scenarios " + file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["margin"], "500.00");
  EXPECT_EQ(j["worst_scenario"], "spike");
  EXPECT_EQ(j["method"], "file");
}

TEST_F(MarginCliTest, McIsReproducible) {
  const std::string pos = Write("pos3.csv", "account,sym,qty\nA,B200-GOLD-US-202703,3\n");
  Result a = RunCfx(Args(pos) + " --method mc --mc-scenarios 500 --seed 9");
  Result b = RunCfx(Args(pos) + " --method mc --mc-scenarios 500 --seed 9");
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(a.output, b.output);
  EXPECT_EQ(nlohmann::json::parse(a.output)["method"], "mc");
}

TEST_F(MarginCliTest, ErrorsNameFileLineAndFieldAndPrintNothingElse) {
  const std::string pos = Write("bad.csv",
                                "account,sym,qty\nA,B200-GOLD-US-202703,1\n"
                                "A,B200-SILV-US-202703,1\n");
  Result r = RunCfx(Args(pos));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("bad.csv:3: column sym: no settlement price"));
  EXPECT_EQ(r.output.find("{"), std::string::npos);

  const std::string pos2 = Write("bad2.csv", "account,sym,qty\nA,B200-GOLD-US-202703,x\n");
  r = RunCfx(Args(pos2));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("bad2.csv:2: column qty"));

  // Rows each in range whose sum for one account is too large to value exactly: the file is
  // named with the account (until 2026-12-06 only the account was).
  std::string many = "account,sym,qty\n";
  for (int i = 0; i < 20000; ++i) many += "A,B200-GOLD-US-202703,1000000000\n";
  const std::string pos3 = Write("huge.csv", many);
  r = RunCfx(Args(pos3));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr(pos3 + ": account A: positions too large to value exactly"));
  EXPECT_EQ(r.output.find("{"), std::string::npos);
}

// A bad flag value is a usage error (exit 2) that names the flag, judged before any file is
// read (the --psr case above used to pass on the positions file's error alone); a flag the
// chosen scenarios do not use is refused, not ignored.
TEST_F(MarginCliTest, BadOrUnusedFlagsAreUsageErrorsNamingTheFlag) {
  const std::string pos = Write("ok.csv", "account,sym,qty\nA,B200-GOLD-US-202703,1\n");
  const std::string sc =
      Write("sc.csv",
            "scenario,weight,price_move,tput_PLAT,tput_GOLD,tput_SILV,tput_BRNZ\n"
            "up,1,0.1,0,0,0,0\n");
  struct Case {
    std::string flags, needle;
  };
  for (const Case& c :
       {Case{" --psr 0.9", "--psr"}, Case{" --psr -1", "--psr"}, Case{" --psr x", "--psr"},
        Case{" --method mc --mc-scenarios 0", "--mc-scenarios"},
        Case{" --method mc --mc-scenarios 5000000", "--mc-scenarios"},
        Case{" --mc-scenarios 500", "--mc-scenarios"}, Case{" --seed 9", "--seed"},
        Case{" --scenarios " + sc + " --psr 0.2", "--psr"}}) {
    SCOPED_TRACE(c.flags);
    Result r = RunCfx(Args(pos) + c.flags);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.needle));
    EXPECT_EQ(r.output.find("{"), std::string::npos) << r.output;
  }
  EXPECT_EQ(RunCfx(Args(pos) + " --psr 0.2").exit_code, 0);
  EXPECT_EQ(RunCfx(Args(pos) + " --scenarios " + sc).exit_code, 0);
}

// SPEC §10: scenarios 11-14 move the price by exactly ±PSR (psr * 3 / 3.0 printed
// 0.10000000000000002 for --psr 0.1).
TEST_F(MarginCliTest, TheWholePsrScenariosMoveByExactlyThePsr) {
  const std::string pos = Write("long.csv", "account,sym,qty\nA,B200-GOLD-US-202703,-1\n");
  Result r = RunCfx(Args(pos) + " --psr 0.1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"price_move\":0.1")) << r.output;
  EXPECT_EQ(r.output.find("0.10000000000000002"), std::string::npos) << r.output;
}

}  // namespace
