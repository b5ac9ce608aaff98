// SPEC §11: every command has --help, and a bad flag gives a message that names it (or the
// flag that is missing) and a non-zero exit. Every command and subcommand of `cfx`.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "run_cfx.h"

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

}  // namespace
}  // namespace cfx
