// Crash-test helper: runs an ExchangeCore (real engine, journal, trade store) under load
// from in-process producers and prints `ACK <acct> <cl>` for every order whose acceptance
// was delivered (only after it is durable). The test kill -9s it at random moments.
//   exchange_crash_child <data_dir> run <seed>     load until killed
//   exchange_crash_child <data_dir> check          recover, print `HASH <h> NEXT <seq>`, stop
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core_test_util.h"

namespace {

using namespace cfx;
using namespace cfx::exchange;

class Printer : public OutcomeListener {
 public:
  void OnOutcome(uint64_t, uint64_t, const Outcome& o) override {
    if (o.kind != OutcomeKind::kEvent || o.event.type != engine::EventType::kAccepted) return;
    std::string line = "ACK " + std::string(o.acct.view()) + " " +
                       std::string(o.event.order.cl.view()) + "\n";
    // One write per line: a kill leaves at most one partial line, which the test ignores.
    (void)!write(STDOUT_FILENO, line.data(), line.size());
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string dir = argv[1], mode = argv[2];
  ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir));
  Printer printer;
  core.AddListener(&printer);
  auto info = core.Start();
  if (!info.ok()) {
    std::fprintf(stderr, "start: %s\n", std::string(info.status().message()).c_str());
    return 1;
  }
  if (mode == "check") {
    std::printf("HASH %llu NEXT %llu REC %llu\n", static_cast<unsigned long long>(info->state_hash),
                static_cast<unsigned long long>(info->next_seq),
                static_cast<unsigned long long>(info->recorder_replayed));
    std::fflush(stdout);
    return core.Stop().ok() ? 0 : 1;
  }
  // The test counts the time to the kill from here: recovery is done, the load begins.
  (void)!write(STDOUT_FILENO, "STARTED\n", 8);
  const uint64_t seed = argc > 3 ? std::stoull(argv[3]) : 1;
  std::vector<std::thread> producers;
  for (int t = 0; t < 3; ++t) {
    producers.emplace_back([&, t] {
      testing::RandomCommands gen(seed * 31 + t, /*symbols=*/2, /*accounts=*/4);
      for (uint64_t i = 0;; ++i) {
        engine::Command c;
        if (i % 3 == 2) {
          c = gen.Next();
          // Time only moves forward in this test through one producer.
          if (std::holds_alternative<engine::TimeCmd>(c) && t != 0) continue;
        } else {
          engine::NewOrderCmd n = gen.NewOrder();
          n.cl = engine::Name::From(absl::StrCat("r", seed, "t", t, "-", i));
          n.type = engine::OrderType::kLimit;
          n.px = engine::PriceField::Ticks(engine::PriceTicks(4990 + static_cast<int64_t>(i % 21)));
          n.qty = engine::Qty(1 + i % 7);
          c = n;
        }
        if (auto* n = std::get_if<engine::NewOrderCmd>(&c); n && n->cl.view().substr(0, 1) == "c") {
          n->cl = engine::Name::From(absl::StrCat("r", seed, "t", t, "x", i));
        }
        while (core.Submit(c, i) == OfferResult::kFull) std::this_thread::yield();
        // Load, not a flood: tens of thousands of inputs a second keep the group commits full,
        // and each run's recovery (the next round's start) stays short, also under TSan.
        if (i % 4 == 3) std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  for (auto& p : producers) p.join();
  return 0;
}
