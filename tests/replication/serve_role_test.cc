// `cfx serve --role primary|standby` in-process: two ExchangeServers on one 3-server NATS
// cluster. The standby serves HTTP read-only (metrics say it follows), keeps no FIX port
// open, follows the primary's orders and, when the primary stops and gives the lease back,
// takes over: FIX opens and it takes orders.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cfx/client/fix_client.h"
#include "cfx/client/http_client.h"
#include "cfx/common/config.h"
#include "cfx/gateway/exchange_server.h"
#include "cuttable_proxy.h"
#include "nats_test_cluster.h"

namespace cfx::replication {
namespace {

std::string RoleConfig(const NatsOptions& o, const std::string& node) {
  std::string servers;
  for (const std::string& u : o.servers) absl::StrAppend(&servers, servers.empty() ? "" : ", ", "\"", u, "\"");
  return absl::StrCat(R"([exchange]
fix_port = 0
http_port = 0
snapshot_interval = 50

[replication]
servers = [)",
                      servers, R"(]
stream = ")",
                      o.stream, R"("
subject = ")",
                      o.subject, R"("
lease_bucket = ")",
                      o.lease_bucket, R"("
lease_ttl_ms = 2000
timeout_ms = 500
node_id = ")",
                      node, R"("
user = ")",
                      o.user, R"("
password_file = ")",
                      SharedNatsCluster::Get()->password_file(), R"("

[[firms]]
id = "ALPHA"
name = "Alpha"

[[accounts]]
id = "A1"
firm = "ALPHA"
collateral = "1000000.00"

[[sessions]]
sender_comp_id = "ALPHA_T1"
firm = "ALPHA"
allow_no_password = true

[[tokens]]
token_sha256 = "c56461a394fa7dc4b9fb4a0edab99a0ee56d6f96ec04808d80f1827cdaf042e8"  # "tok-risk"
role = "risk_desk"

[[products]]
grade = "B200-GOLD-US"
ref = "5.000"
)");
}

std::unique_ptr<gateway::ExchangeServer> MakeServer(const NatsOptions& o, const std::string& dir,
                                                    const std::string& node,
                                                    gateway::ServeRole role) {
  auto config = common::ParseConfig(RoleConfig(o, node), "role-test");
  EXPECT_TRUE(config.ok()) << config.status();
  gateway::ExchangeServerOptions opt;
  opt.data_dir = dir;
  opt.fix_port = 0;
  opt.http_port = 0;
  opt.manual_clock = true;
  opt.start_time = *common::ParseTimestamp("2027-03-01T14:00:00Z") * 1000;
  opt.role = role;
  return std::make_unique<gateway::ExchangeServer>(*config, opt);
}

std::string Metrics(int port) {
  auto c = client::HttpClient::Connect("127.0.0.1", port);
  if (!c.ok()) return "";
  auto r = c->Get("/metrics", "tok-risk");
  return r.ok() ? r->body : "";
}

// Every input the primary acknowledged has reached the standby's state (within 30 s).
bool Followed(gateway::ExchangeServer& primary, gateway::ExchangeServer& standby) {
  if (!primary.core().Flush().ok()) return false;
  const uint64_t end = primary.core().Stats().next_seq;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  // At least to `end`: the primary's ExchangeOrderEntry records how far its reports went
  // (docs/replication.md, "Reports after a failover"), so the stream may run past it.
  while (standby.core().Stats().next_seq < end && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return standby.core().Stats().next_seq >= end;
}

engine::NewOrderCmd Order(int i) {
  engine::NewOrderCmd n;
  n.acct = engine::Name::From("A1");
  n.cl = engine::Name::From(absl::StrCat("c", i));
  n.sym = engine::Name::From("B200-GOLD-US-202703");
  n.side = i % 2 ? engine::Side::kBuy : engine::Side::kSell;
  n.type = engine::OrderType::kLimit;
  n.px = engine::PriceField::Ticks(engine::PriceTicks(4990 + i % 5));
  n.qty = engine::Qty(1);
  return n;
}

TEST(ServeRoleTest, StandbyServesReadOnlyFollowsAndTakesOverWhenThePrimaryStops) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("serve");
  testsupport::TempDir dir_a("cfx_serve_a"), dir_b("cfx_serve_b");
  auto primary = MakeServer(o, dir_a.path(), "node-a", gateway::ServeRole::kPrimary);
  absl::Status started = primary->Start();
  ASSERT_TRUE(started.ok()) << started;
  ASSERT_TRUE(primary->leading());
  EXPECT_GT(primary->fix_port(), 0);
  auto standby = MakeServer(o, dir_b.path(), "node-b", gateway::ServeRole::kStandby);
  started = standby->Start();
  ASSERT_TRUE(started.ok()) << started;
  EXPECT_FALSE(standby->leading());
  EXPECT_EQ(standby->fix_port(), 0);  // no FIX acceptor while a standby
  const std::string m = Metrics(standby->http_port());
  EXPECT_NE(m.find("cfx_replication_leading 0"), std::string::npos) << m;
  EXPECT_EQ(standby->core().Submit(Order(0), 1), exchange::OfferResult::kNotLeader);

  for (int i = 1; i <= 200; ++i) {
    ASSERT_EQ(primary->core().Submit(Order(i), i), exchange::OfferResult::kAccepted);
  }
  ASSERT_TRUE(Followed(*primary, *standby));
  EXPECT_NE(Metrics(standby->http_port()).find("cfx_replication_state_checks"), std::string::npos);
  EXPECT_EQ(standby->core().Positions("A1").size(), primary->core().Positions("A1").size());

  const auto stopped_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(primary->Stop().ok());  // gives the lease back
  ASSERT_TRUE(standby->WaitLeading(20000));
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - stopped_at);
  EXPECT_LT(took.count(), 2000) << "a released lease is taken within TTL/3 plus the promotion";
  EXPECT_GT(standby->fix_port(), 0);
  EXPECT_NE(Metrics(standby->http_port()).find("cfx_replication_leading 1"), std::string::npos);
  EXPECT_EQ(standby->core().Submit(Order(1000), 1000), exchange::OfferResult::kAccepted);
  ASSERT_TRUE(standby->core().Flush().ok());
  EXPECT_FALSE(standby->deposed());
  ASSERT_TRUE(standby->Stop().ok());
}

client::FixClientOptions ClientOptions(int port, const std::string& store) {
  client::FixClientOptions c;
  c.sender_comp_id = "ALPHA_T1";
  c.port = port;
  c.store_dir = store;
  c.heartbeat_secs = 5;
  c.reset_on_logon = false;  // the point: the sequence numbers continue
  return c;
}

client::FixOrder FixOrderOf(int i) {
  client::FixOrder o;
  o.cl_ord_id = absl::StrCat("f", i);
  o.account = "A1";
  o.symbol = "B200-GOLD-US-202703";
  o.side = client::Side::kBuy;
  o.price_ticks = 4900 + i % 5;
  o.qty = 1;
  return o;
}

// An order for an account ALPHA does not have: refused `account_not_permitted` at the gateway.
client::FixOrder RefusedOrder() {
  client::FixOrder o = FixOrderOf(999);
  o.account = "Z9";
  return o;
}

int64_t SeqOf(const client::FixMessage& m) {
  int64_t v = 0;
  return absl::SimpleAtoi(m.Get(34), &v) ? v : -1;
}

// docs/replication.md, "FIX sessions": a FIX client of the primary logs on to the new
// primary with the same CompIDs and its own next sequence numbers (no reset). The new
// primary expects the MsgSeqNum after the last request the stream holds, so the client
// resends just what was never sequenced (here a status request, answered again) and
// nothing sequenced twice; it sends from past the old primary's recorded limit, so the
// client sees a gap that a gap fill closes, never a number it has already seen.
TEST(ServeRoleTest, AFixClientContinuesItsSequenceNumbersOnTheNewPrimary) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("fixseq");
  testsupport::TempDir dir_a("cfx_fixseq_a"), dir_b("cfx_fixseq_b"), dir_c("cfx_fixseq_c");
  auto primary = MakeServer(o, dir_a.path(), "node-a", gateway::ServeRole::kPrimary);
  ASSERT_TRUE(primary->Start().ok());
  auto standby = MakeServer(o, dir_b.path(), "node-b", gateway::ServeRole::kStandby);
  ASSERT_TRUE(standby->Start().ok());

  constexpr int kOrders = 30;
  int64_t last_seen = 0;  // the highest MsgSeqNum received from the old primary
  std::map<std::string, std::string> ack_exec_ids;  // ClOrdID -> its acknowledgement's 17
  {
    client::FixClient c(ClientOptions(primary->fix_port(), dir_c.path()));
    ASSERT_TRUE(c.Logon(std::chrono::seconds(10)).ok());
    for (int i = 0; i < kOrders; ++i) {
      ASSERT_TRUE(c.SendOrder(FixOrderOf(i)).ok());
      client::FixMessage ack;
      ASSERT_TRUE(c.WaitFor([&](const client::FixMessage& m) { return m.IsExecReport(FixOrderOf(i).cl_ord_id); },
                            &ack, std::chrono::seconds(10)));
      EXPECT_EQ(ack.exec_type(), '0') << ack.Get(58);
      ack_exec_ids[FixOrderOf(i).cl_ord_id] = ack.Get(17);
      last_seen = std::max(last_seen, SeqOf(ack));
    }
    // Refused at the gateway (an account the firm does not have), so never an input: the
    // stream records it all the same, before the reject goes out, and the new primary does
    // not ask for it again. Until 2026-12-07 it did, and the resend was processed anew.
    ASSERT_TRUE(c.SendOrder(RefusedOrder()).ok());
    client::FixMessage rejected;
    ASSERT_TRUE(c.WaitFor(
        [](const client::FixMessage& m) { return m.IsExecReport(RefusedOrder().cl_ord_id); },
        &rejected, std::chrono::seconds(10)));
    EXPECT_EQ(rejected.exec_type(), '8');
    EXPECT_EQ(rejected.Get(58), "account_not_permitted");
    last_seen = std::max(last_seen, SeqOf(rejected));
    // Answered by the old primary and never sequenced: the new primary asks for it again.
    ASSERT_TRUE(c.SendStatusRequest("before", "f0", "A1", "B200-GOLD-US-202703",
                                    client::Side::kBuy)
                    .ok());
    client::FixMessage answer;
    ASSERT_TRUE(c.WaitFor([](const client::FixMessage& m) { return m.Get(790) == "before"; },
                          &answer, std::chrono::seconds(10)));
    last_seen = std::max(last_seen, SeqOf(answer));
    // Every request reached the standby's state: the stream holds them and their marks.
    ASSERT_TRUE(Followed(*primary, *standby));
    std::vector<exchange::FixSessionSeqs> seqs = standby->core().FixSessions();
    ASSERT_EQ(seqs.size(), 1u);
    EXPECT_EQ(seqs[0].next_target, static_cast<uint64_t>(kOrders + 3))
        << "the Logon was 1, the orders 2.." << kOrders + 1 << ", the refused one " << kOrders + 2;
    EXPECT_GT(seqs[0].sender_limit, static_cast<uint64_t>(last_seen));
    ASSERT_TRUE(primary->Stop().ok());  // gives the lease back; the client is logged out
    c.Logout(std::chrono::seconds(2));
  }
  ASSERT_TRUE(standby->WaitLeading(20000));

  client::FixClient c(ClientOptions(standby->fix_port(), dir_c.path()));
  ASSERT_TRUE(c.Logon(std::chrono::seconds(10)).ok());
  client::FixMessage again;
  ASSERT_TRUE(c.WaitFor([](const client::FixMessage& m) { return m.Get(790) == "before"; },
                        &again, std::chrono::seconds(10)))
      << "the status request the old primary answered but never sequenced is resent";
  EXPECT_EQ(again.Get(43), "") << "a new answer, not a copy";
  EXPECT_GT(SeqOf(again), last_seen) << "never a number the client has already seen";
  ASSERT_TRUE(c.SendOrder(FixOrderOf(kOrders)).ok());
  client::FixMessage ack;
  ASSERT_TRUE(c.WaitFor([](const client::FixMessage& m) { return m.IsExecReport(FixOrderOf(kOrders).cl_ord_id); },
                        &ack, std::chrono::seconds(10)));
  EXPECT_EQ(ack.exec_type(), '0') << ack.Get(58);
  // Nothing sequenced twice: no order of the old primary came back (as a duplicate). What
  // the new primary reports of them are the reports the old one made after its last mark
  // (docs/replication.md, "Reports after a failover": here the cancel-on-disconnect at the
  // client's logout, which only the old primary's store held), each marked PossResend. The
  // hand-over's last mark is skipped while a session holds messages outside its store (a
  // loaded machine): then the last periodic one stands, and an acknowledgement after it
  // comes again, as the same execution (its ExecID), never as a new order.
  int canceled = 0;
  for (const client::FixMessage& m : c.TakeAll()) {
    EXPECT_FALSE(m.IsExecReport(RefusedOrder().cl_ord_id))
        << "the order refused before the failover was processed again";
    if (!m.IsExecReport() || m.Get(11) == FixOrderOf(kOrders).cl_ord_id) continue;
    EXPECT_EQ(m.Get(97), "Y") << "an old order's report not marked PossResend: " << m.Get(11);
    if (m.exec_type() == '0') {
      EXPECT_EQ(m.Get(17), ack_exec_ids[m.Get(11)])
          << "an order acknowledged anew after the failover: " << m.Get(11);
    }
    if (m.exec_type() == '4' && m.Get(58) == "disconnect") ++canceled;
  }
  EXPECT_EQ(canceled, kOrders) << "the cancels of the logout, each once";
  for (int i = 0; i <= kOrders; ++i) {
    EXPECT_TRUE(standby->core().FindOrder("A1", FixOrderOf(i).cl_ord_id).has_value()) << i;
  }
  EXPECT_TRUE(c.logged_on());
  c.Logout(std::chrono::seconds(2));
  ASSERT_TRUE(standby->Stop().ok());
}

// A primary cut off from NATS (TCP proxies that stop forwarding) is deposed: its keeper
// gives leadership up at its deadline, `deposed()` turns true (`cfx serve` then exits 3 for
// its supervisor to restart it as a standby), and the standby takes over; with the network
// back, the deposed node takes no order.
TEST(ServeRoleTest, APrimaryCutOffFromNatsIsDeposedAndTheStandbyTakesOver) {
  CFX_REQUIRE_NATS();
  const NatsOptions o = TestNatsOptions("cutoff");
  std::vector<std::unique_ptr<CuttableProxy>> proxies;
  NatsOptions behind = o;
  behind.servers = ProxiedUrls(o.servers, &proxies);
  ASSERT_EQ(behind.servers.size(), o.servers.size());
  testsupport::TempDir dir_a("cfx_cutoff_a"), dir_b("cfx_cutoff_b");
  auto primary = MakeServer(behind, dir_a.path(), "node-a", gateway::ServeRole::kPrimary);
  ASSERT_TRUE(primary->Start().ok());
  auto standby = MakeServer(o, dir_b.path(), "node-b", gateway::ServeRole::kStandby);
  ASSERT_TRUE(standby->Start().ok());
  for (int i = 1; i <= 50; ++i) {
    ASSERT_EQ(primary->core().Submit(Order(i), i), exchange::OfferResult::kAccepted);
  }
  ASSERT_TRUE(Followed(*primary, *standby));

  const auto cut_at = std::chrono::steady_clock::now();
  for (auto& p : proxies) p->Cut();
  ASSERT_TRUE(WaitFor([&] { return primary->deposed(); }, 20000)) << "still leading, cut off";
  const auto deposed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - cut_at);
  std::cout << "cut off: deposed " << deposed_ms.count() << " ms after the cut" << std::endl;
  // The deadline (90% of the 2 s TTL after the last renewal sent), then the next renewal
  // period and its request timeout: 3.2 s here; a loaded machine gets room up to 3 TTLs.
  EXPECT_LT(deposed_ms.count(), 3 * 2000);
  EXPECT_FALSE(primary->leading());
  ASSERT_TRUE(standby->WaitLeading(20000));
  for (auto& p : proxies) p->Heal();
  // Its core may still take an input into its ring; it never acknowledges it, and the
  // stream (the new primary) never has it.
  if (primary->core().Submit(Order(500), 500) == exchange::OfferResult::kAccepted) {
    EXPECT_FALSE(primary->core().Flush(3000).ok()) << "a deposed node acknowledged an order";
  }
  EXPECT_EQ(standby->core().Submit(Order(501), 501), exchange::OfferResult::kAccepted);
  ASSERT_TRUE(standby->core().Flush().ok());
  EXPECT_TRUE(standby->core().FindOrder("A1", "c501").has_value());
  EXPECT_FALSE(standby->core().FindOrder("A1", "c500").has_value());
  (void)primary->Stop();
  ASSERT_TRUE(standby->Stop().ok());
}

TEST(ServeRoleTest, ARoleNeedsTheReplicationSection) {
  testsupport::TempDir dir("cfx_serve");
  gateway::ExchangeServerOptions opt;
  opt.data_dir = dir.path();
  opt.fix_port = 0;
  opt.http_port = 0;
  opt.manual_clock = true;
  opt.role = gateway::ServeRole::kStandby;
  gateway::ExchangeServer server(common::ExchangeConfig{}, opt);
  absl::Status s = server.Start();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("[replication]"), std::string::npos) << s;
}

}  // namespace
}  // namespace cfx::replication
