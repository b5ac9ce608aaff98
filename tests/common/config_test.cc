#include "cfx/common/config.h"

#include "cfx/demo/demo_config.h"
#include "gtest/gtest.h"

namespace cfx {
namespace {

TEST(ConfigTest, DemoConfigParses) {
  auto c = common::ParseConfig(demo::DemoConfigText(), "demo.toml");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->firms.size(), 3u);
  ASSERT_NE(c->FindAccount("ALPHA-1"), nullptr);
  EXPECT_EQ(c->FindAccount("ALPHA-1")->collateral_micro_usd, 2'000'000'000'000);
  ASSERT_NE(c->FindSession("ALPHA_DC"), nullptr);
  EXPECT_EQ(c->FindSession("ALPHA_DC")->role, common::SessionRole::kDropCopy);
  EXPECT_FALSE(c->FindSession("GAMMA_T1")->password.has_value());
  EXPECT_EQ(c->FindToken("tok-risk")->role, common::TokenRole::kRiskDesk);
  EXPECT_EQ(c->products[1].grade.Key(), "B200-GOLD-US");
  EXPECT_EQ(*c->products[1].ref_ticks, 5400);
  EXPECT_FALSE(c->Calendar().IsBusinessDay(*common::ParseDate("2027-12-24")));
}

struct BadCase {
  const char* toml;
  const char* expect;  // substring of the error
};

TEST(ConfigTest, BadConfigNamesLineAndKey) {
  const BadCase cases[] = {
      {"[exchange]\nfix_port = \"x\"\n", "cfg.toml:2: exchange.fix_port: expected an integer"},
      {"[exchange]\nbogus = 1\n", "exchange.bogus: unknown key"},
      {"[[firms]]\nid = \"F\"\n[[accounts]]\nid = \"A\"\nfirm = \"G\"\n",
       "accounts[0].firm: unknown firm 'G'"},
      {"[[firms]]\nid = \"F\"\n[[accounts]]\nid = \"A\"\nfirm = \"F\"\ncollateral = 5\n",
       "accounts[0].collateral"},
      {"[[accounts]]\nfirm = \"F\"\n", "accounts[0].id: missing"},
      {"[[firms]]\nid = \"F\"\n[[sessions]]\nsender_comp_id = \"S\"\nfirm = \"F\"\nrole = \"x\"\n",
       "sessions[0].role"},
      {"[[products]]\ngrade = \"B200-TIN-US\"\n", "products[0].grade: unknown tier"},
      {"[[products]]\ngrade = \"B200-GOLD-US\"\nref = \"5.0001\"\n", "products[0].ref"},
      {"[exchange]\nholidays = [\"2027-02-30\"]\n", "exchange.holidays[0]"},
      {"[[tokens]]\ntoken = \"abcd\"\nrole = \"firm\"\nfirm = \"NOPE\"\n", "tokens[0].firm"},
      {"this is = not toml = at all", "cfg.toml:1"},
      {"[limits]\nfix_max_connections = 0\n",
       "cfg.toml:2: limits.fix_max_connections: must be >= 1"},
      {"[limits]\nfix_logon_timeout_ms = 5\n", "limits.fix_logon_timeout_ms: must be >= 100"},
      {"[limits]\nfix_max_heartbeat_secs = 0\n", "limits.fix_max_heartbeat_secs: must be >= 1"},
      {"[limits]\nhttp_max_body_bytes = \"big\"\n",
       "limits.http_max_body_bytes: expected an integer"},
      {"[limits]\nmax_everything = 1\n", "limits.max_everything: unknown key"},
      {"limits = 3\n", "limits: expected a table"},
  };
  for (const auto& c : cases) {
    auto parsed = common::ParseConfig(c.toml, "cfg.toml");
    ASSERT_FALSE(parsed.ok()) << c.toml;
    EXPECT_NE(parsed.status().message().find(c.expect), std::string::npos)
        << parsed.status().message() << " / wanted: " << c.expect;
  }
}

TEST(ConfigTest, LimitsHaveSafeDefaultsAndCanBeSet) {
  auto defaults = common::ParseConfig("", "empty.toml");
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->limits.fix_max_connections, 256);
  EXPECT_EQ(defaults->limits.fix_max_connections_per_peer, 16);
  EXPECT_EQ(defaults->limits.fix_logon_timeout_ms, 10000);
  EXPECT_EQ(defaults->limits.fix_max_message_bytes, 16384);
  EXPECT_EQ(defaults->limits.fix_max_latency_secs, 120);
  EXPECT_EQ(defaults->limits.fix_max_heartbeat_secs, 60);
  EXPECT_EQ(defaults->limits.http_max_connections_per_peer, 64);
  auto set = common::ParseConfig(
      "[limits]\nfix_max_connections = 10\nfix_max_connections_per_peer = 2\n"
      "fix_max_latency_secs = 0\nhttp_max_connections_per_peer = 3\n",
      "l.toml");
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->limits.fix_max_connections, 10);
  EXPECT_EQ(set->limits.fix_max_connections_per_peer, 2);
  EXPECT_EQ(set->limits.fix_max_latency_secs, 0);
  EXPECT_EQ(set->limits.http_max_connections_per_peer, 3);
}

TEST(ConfigTest, MissingFileIsNotFound) {
  auto c = common::LoadConfigFile("/nonexistent/cfx.toml");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace cfx
