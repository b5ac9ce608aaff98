// Failover-test helper: one exchange node (real engine, journal, trade store) replicated
// through JetStream, with the leadership lease. It follows until it takes the lease, then
// prints `LEAD`, submits orders from three producers and prints `ACK <acct> <cl>` for each
// order this node accepted (only once durable in the log and the journal). The test kills
// it with SIGKILL at random moments.
//   replica_child <data_dir> <stream> <seed> <password file> <nats url>...
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "../exchange/core_test_util.h"
#include "absl/strings/str_cat.h"
#include "cfx/common/secret_file.h"
#include "cfx/replication/jetstream_log.h"
#include "cfx/replication/lease.h"
#include "cfx/replication/lease_keeper.h"

namespace {

using namespace cfx;
using namespace cfx::exchange;

void Say(const std::string& line) {
  const std::string l = line + "\n";
  (void)!write(STDOUT_FILENO, l.data(), l.size());  // one write a line
}

class Printer : public OutcomeListener {
 public:
  std::function<void(const absl::Status&)> on_journal_error;
  void OnJournalError(const absl::Status& s) override {
    if (on_journal_error) on_journal_error(s);
  }
  void OnOutcome(uint64_t, uint64_t tag, const Outcome& o) override {
    if (tag == 0 || o.kind != OutcomeKind::kEvent ||
        o.event.type != engine::EventType::kAccepted) {
      return;  // followed inputs (tag 0) were acknowledged by the primary, not here
    }
    Say("ACK " + std::string(o.acct.view()) + " " + std::string(o.event.order.cl.view()));
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) return 2;
  const std::string dir = argv[1], stream = argv[2];
  const uint64_t seed = std::stoull(argv[3]);
  replication::NatsOptions o;
  absl::StatusOr<std::string> password = common::ReadSecretFile(argv[4]);
  if (!password.ok()) {
    std::fprintf(stderr, "%s\n", std::string(password.status().message()).c_str());
    return 1;
  }
  o.user = "cfx";  // LocalNatsCluster's
  o.password = *password;
  for (int i = 5; i < argc; ++i) o.servers.push_back(argv[i]);
  o.stream = stream;
  o.subject = "t." + stream;
  o.lease_bucket = "L_" + stream;
  o.lease_ttl_ms = 4000;
  o.timeout_ms = 1000;
  o.node_id = absl::StrCat("node-", seed);
  auto log = replication::JetStreamLog::Open(o);
  auto lease = log.ok() ? replication::Lease::Open(o) : log.status();
  if (!log.ok() || !lease.ok()) {
    std::fprintf(stderr, "nats: %s\n", std::string((log.ok() ? lease.status() : log.status()).message()).c_str());
    return 1;
  }
  ExchangeOptions eo = testing::TestOptions(dir);
  eo.replication = log->get();
  ExchangeCore core(testing::TestConfig(), eo);
  Printer printer;
  core.AddListener(&printer);
  if (auto info = core.Start(); !info.ok()) {
    std::fprintf(stderr, "start: %s\n", std::string(info.status().message()).c_str());
    return 1;
  }
  std::atomic<bool> leading{false};
  replication::LeaseKeeper keeper(
      lease->get(), log->get(),
      {.on_acquired =
           [&] {
             absl::Status s = core.Promote();
             if (s.ok()) leading.store(true);
             return s;
           },
       .on_lost = [](const absl::Status& why) {
         Say("LOST " + std::string(why.message()));
         _exit(3);  // a deposed node never sequences again
       }});
  // As `cfx serve` does: a node whose order path failed gives the lease up at once.
  printer.on_journal_error = [&](const absl::Status& s) { keeper.Resign(s); };
  keeper.Start();
  while (!leading.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  Say("LEAD");
  std::vector<std::thread> producers;
  for (int t = 0; t < 3; ++t) {
    producers.emplace_back([&, t] {
      testing::RandomCommands gen(seed * 31 + t, /*symbols=*/2, /*accounts=*/4);
      for (uint64_t i = 1;; ++i) {
        engine::NewOrderCmd n = gen.NewOrder();
        n.cl = engine::Name::From(absl::StrCat("n", seed, "t", t, "-", i));
        n.type = engine::OrderType::kLimit;
        n.px = engine::PriceField::Ticks(engine::PriceTicks(4990 + static_cast<int64_t>(i % 21)));
        n.qty = engine::Qty(1 + i % 7);
        OfferResult r;
        while ((r = core.Submit(n, i)) == OfferResult::kFull) std::this_thread::yield();
        if (r != OfferResult::kAccepted) return;  // stopped (lost the lease)
        if (i % 64 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  for (auto& p : producers) p.join();
  pause();
  return 0;
}
