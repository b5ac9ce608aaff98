// SPEC §11: every command has --help, and a bad flag gives a message that names it (or the
// flag that is missing) and a non-zero exit. Every command and subcommand of `cfx`.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "run_cfx.h"
#include "temp_dir.h"

namespace cfx {
namespace {

const std::vector<std::string> kCommands = {
    "serve",          "demo",           "replay",        "settle",       "margin",
    "passwd",         "journal verify", "journal dump",  "reference build",
    "reference explain", "reference sample", "bench book", "bench fix",  "bench http",
    "bench journal",  "bench margin",   "bench pipeline", "bench reference", "bench settle",
    "bench soak"};

TEST(CliFlagsTest, EveryCommandHasHelpAndNamesABadFlag) {
  for (const std::string& command : kCommands) {
    SCOPED_TRACE(command);
    testsupport::CfxResult help = testsupport::RunCfx(command + " --help");
    EXPECT_EQ(help.exit_code, 0) << help.output;
    EXPECT_NE(help.output.find("Usage:"), std::string::npos) << help.output;
    testsupport::CfxResult bad = testsupport::RunCfx(command + " --bogus-flag");
    EXPECT_EQ(bad.exit_code, 2) << bad.output;  // a usage error, whatever CLI11's own code
    // The unexpected flag, or first the required one that is missing: a field either way.
    EXPECT_TRUE(bad.output.find("--bogus-flag") != std::string::npos ||
                bad.output.find(" is required") != std::string::npos)
        << bad.output;
  }
}

// A misspelt command is named, with the commands it could have been (CLI11 alone said only
// "A subcommand is required").
TEST(CliFlagsTest, AnUnknownCommandIsNamedWithTheChoices) {
  struct Case {
    std::string args, names;
  };
  for (const Case& c : {Case{"nosuch", "unknown command 'nosuch' (one of: "},
                        Case{"reference bulid", "unknown command 'bulid' of reference"},
                        Case{"bench nope", "unknown command 'nope' of bench"}}) {
    SCOPED_TRACE(c.args);
    testsupport::CfxResult r = testsupport::RunCfx(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(c.names), std::string::npos) << r.output;
  }
  testsupport::CfxResult r = testsupport::RunCfx("reference bulid");
  EXPECT_NE(r.output.find("build, explain, sample"), std::string::npos) << r.output;
}

// An integer flag is a plain decimal number: CLI11 alone read "010" as 8 (base 0), "0x10"
// as 16 and "-1" as 2^64 - 1 for an unsigned one (until 2026-12-07). "010" is now 10; the
// others are usage errors naming the flag.
TEST(CliFlagsTest, IntegerFlagsAreDecimal) {
  testsupport::TempDir dir("cfx_cli_flags");
  auto sample = [&](const std::string& seed, const std::string& out) {
    return testsupport::RunCfx(
        "reference sample --from 2027-03-01 --to 2027-03-01 --per-day 3 "
        "--seed " +
        seed + " --out " + dir.path() + "/" + out);
  };
  auto read = [&](const std::string& file) {
    std::ifstream in(dir.path() + "/" + file);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  ASSERT_EQ(sample("010", "a").exit_code, 0);
  ASSERT_EQ(sample("10", "b").exit_code, 0);
  ASSERT_EQ(sample("8", "c").exit_code, 0);
  EXPECT_EQ(read("a/observations.csv"), read("b/observations.csv"));
  EXPECT_NE(read("a/observations.csv"), read("c/observations.csv"));
  for (const char* bad : {"0x10", "-1", "1e3", "+5", ""}) {
    SCOPED_TRACE(bad);
    testsupport::CfxResult r = sample(std::string("'") + bad + "'", "d");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--seed"), std::string::npos) << r.output;
  }
  testsupport::CfxResult r =
      testsupport::RunCfx("journal dump --from 0x10 --data-dir /nonexistent");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--from: '0x10' is not a decimal integer"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace cfx
