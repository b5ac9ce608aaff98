// `cfx passwd` and the credential rules of the config as a user meets them through `cfx`:
// the hash it prints verifies, plain secrets in a config stop `cfx serve` naming the file
// and line, and a session without a password gets a warning at start.
#include <fstream>
#include <string>

#include "cfx/common/credentials.h"
#include "gtest/gtest.h"
#include "run_cfx.h"
#include "temp_dir.h"

namespace cfx {
namespace {

using testsupport::RunCfx;

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

class PasswdCliTest : public ::testing::Test {
 protected:
  // `cfx passwd <flags>` with `input` on standard input (a file, not a terminal: no prompt).
  testsupport::CfxResult Passwd(const std::string& flags, const std::string& input) {
    const std::string in = dir_.path() + "/stdin";
    std::ofstream(in) << input;
    return RunCfx("passwd " + flags + " < " + in);
  }
  testsupport::TempDir dir_{"cfx_passwd_cli_test"};
};

TEST_F(PasswdCliTest, PrintedHashVerifiesTheTypedPassword) {
  testsupport::CfxResult r = Passwd("", "");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("empty input"), std::string::npos) << r.output;
  EXPECT_EQ(Passwd("", "\n").exit_code, 2);  // an empty line is empty input too

  r = Passwd("", "alpha-secret\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string phc = Trimmed(r.output);
  EXPECT_EQ(phc.rfind("$argon2id$v=19$m=65536,t=2,p=1$", 0), 0u) << phc;  // interactive
  EXPECT_TRUE(common::VerifyPassword(phc, "alpha-secret"));
  EXPECT_FALSE(common::VerifyPassword(phc, "alpha-secret\n"));  // the line end is not in it

  r = Passwd("--opslimit 1 --memlimit-kib 8", "pw");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Trimmed(r.output).rfind("$argon2id$v=19$m=8,t=1,p=1$", 0), 0u) << r.output;
  EXPECT_TRUE(common::VerifyPassword(Trimmed(r.output), "pw"));
  EXPECT_EQ(Passwd("--opslimit 0", "pw").exit_code, 2);
  // Past what the config takes (16 passes, 1 GiB), or past 2^54 KiB, which wrapped the byte
  // count to 8 KiB: refused naming the flag, not a hash the config then refuses (until
  // 2026-12-07 both printed one and exited 0).
  for (const char* flags :
       {"--opslimit 17", "--memlimit-kib 1048577", "--memlimit-kib 18014398509481992"}) {
    SCOPED_TRACE(flags);
    r = Passwd(flags, "pw");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(r.output.find("$argon2id"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(std::string(flags).substr(0, std::string(flags).find(' '))),
              std::string::npos)
        << r.output;
  }
}

TEST_F(PasswdCliTest, TokenModePrintsTheSha256TheConfigStores) {
  testsupport::CfxResult r = Passwd("--token", "tok-alpha\n");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Trimmed(r.output), common::TokenSha256Hex("tok-alpha"));
  EXPECT_EQ(Passwd("--token", "").exit_code, 2);
}

class ServeConfigCliTest : public ::testing::Test {
 protected:
  // Writes a config whose [[sessions]] table is `session`, and runs `cfx serve --existing`
  // on it. The data dir does not exist, so a config that loads still ends at once, before
  // anything is created.
  testsupport::CfxResult Serve(const std::string& session) {
    path_ = dir_.path() + "/c.toml";
    std::ofstream(path_) << "[exchange]\ndata_dir = \"" << dir_.path()
                         << "/data\"\nlisten_address = \"127.0.0.1\"\n"
                         << "[[firms]]\nid = \"F\"\n"
                         << "[[sessions]]\nsender_comp_id = \"RIG\"\nfirm = \"F\"\n"
                         << session;
    return RunCfx("serve --existing --config " + path_);
  }
  testsupport::TempDir dir_{"cfx_credentials_cli_test"};
  std::string path_;
};

TEST_F(ServeConfigCliTest, PlainPasswordStopsServeNamingFileAndLine) {
  testsupport::CfxResult r = Serve("password = \"hunter2\"\n");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(path_ + ":9: sessions[0].password: plain-text passwords"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("hunter2"), std::string::npos) << r.output;
}

TEST_F(ServeConfigCliTest, SessionWithoutPasswordIsRefusedOrWarnedAbout) {
  testsupport::CfxResult refused = Serve("");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("sessions[0].password_hash: missing"), std::string::npos)
      << refused.output;
  testsupport::CfxResult rig = Serve("allow_no_password = true\n");
  EXPECT_NE(rig.exit_code, 0) << rig.output;  // the missing data dir, not the config
  EXPECT_NE(rig.output.find("warning: session RIG has no password"), std::string::npos)
      << rig.output;
  testsupport::CfxResult hashed =
      Serve("password_hash = \"" + [] {
        std::string phc;
        EXPECT_TRUE(common::HashPassword("pw", common::MinimumLimits(), &phc));
        return phc;
      }() + "\"\n");
  EXPECT_NE(hashed.exit_code, 0) << hashed.output;
  EXPECT_EQ(hashed.output.find("has no password"), std::string::npos) << hashed.output;
}

}  // namespace
}  // namespace cfx
