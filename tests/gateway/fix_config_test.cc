// The FIX settings derived from the exchange's TOML config (C++20: includes common config).
#include "cfx/gateway/fix_config.h"

#include "cfx/common/config.h"
#include "cfx/demo/demo_config.h"
#include "gtest/gtest.h"

namespace cfx::gateway {
namespace {

TEST(FixConfigTest, DemoConfigGivesSessionsRolesAndAccounts) {
  absl::StatusOr<common::ExchangeConfig> config =
      common::ParseConfig(demo::DemoConfigText(), "demo.toml");
  ASSERT_TRUE(config.ok()) << config.status();
  FixGatewayConfig fix = FixGatewayConfigFromExchange(*config);
  EXPECT_EQ(fix.port, config->fix_port);
  EXPECT_EQ(fix.target_comp_id, "CFX");
  ASSERT_EQ(fix.sessions.size(), config->sessions.size());
  bool saw_drop_copy = false;
  for (const FixSessionSpec& s : fix.sessions) {
    if (s.sender_comp_id == "ALPHA_DC") {
      saw_drop_copy = true;
      EXPECT_TRUE(s.drop_copy);
      EXPECT_TRUE(s.has_password);
    }
    if (s.sender_comp_id == "GAMMA_T1") {
      EXPECT_FALSE(s.cancel_on_disconnect);
    }
    EXPECT_TRUE(s.has_password) << s.sender_comp_id;
    EXPECT_EQ(s.password_hash.rfind("$argon2id$", 0), 0u) << s.sender_comp_id;
  }
  EXPECT_TRUE(saw_drop_copy);
  EXPECT_EQ(fix.accounts.size(), config->accounts.size());
}

TEST(FixConfigTest, AllowNoPasswordGivesASessionWithoutPassword) {
  absl::StatusOr<common::ExchangeConfig> config = common::ParseConfig(
      "[[firms]]\nid = \"F\"\n[[sessions]]\nsender_comp_id = \"RIG\"\nfirm = \"F\"\n"
      "allow_no_password = true\n",
      "rig.toml");
  ASSERT_TRUE(config.ok()) << config.status();
  FixGatewayConfig fix = FixGatewayConfigFromExchange(*config);
  ASSERT_EQ(fix.sessions.size(), 1u);
  EXPECT_FALSE(fix.sessions[0].has_password);
  EXPECT_TRUE(fix.sessions[0].password_hash.empty());
}

// [limits] reaches the acceptor: a bound set in the config is the one the gateway enforces.
TEST(FixConfigTest, LimitsComeFromTheConfig) {
  absl::StatusOr<common::ExchangeConfig> config = common::ParseConfig(
      "[limits]\nfix_max_connections = 7\nfix_max_connections_per_peer = 2\n"
      "fix_logon_timeout_ms = 500\nfix_max_message_bytes = 1024\n"
      "fix_max_outbound_bytes = 70000\nfix_max_latency_secs = 0\nfix_max_heartbeat_secs = 5\n"
      "fix_logon_backoff_ms = 250\nfix_resend_piece_messages = 9\nfix_max_bytes_past_gap = "
      "77777\nfix_max_resent_per_sec = 4000\n",
      "l.toml");
  ASSERT_TRUE(config.ok()) << config.status();
  FixGatewayConfig fix = FixGatewayConfigFromExchange(*config);
  EXPECT_EQ(fix.max_connections, 7);
  EXPECT_EQ(fix.max_connections_per_peer, 2);
  EXPECT_EQ(fix.logon_timeout_ms, 500);
  EXPECT_EQ(fix.max_message_bytes, 1024);
  EXPECT_EQ(fix.max_outbound_bytes, 70000);
  EXPECT_EQ(fix.max_latency_secs, 0);
  EXPECT_EQ(fix.max_heartbeat_secs, 5);
  EXPECT_EQ(fix.logon_backoff.initial_ms, 250);
  EXPECT_EQ(fix.logon_backoff.max_ms, 60000);
  EXPECT_EQ(fix.resend_piece_messages, 9);
  EXPECT_EQ(fix.max_bytes_past_gap, 77777);
  EXPECT_EQ(fix.max_resent_per_sec, 4000);
}

}  // namespace
}  // namespace cfx::gateway
