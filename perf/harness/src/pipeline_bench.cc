// The pipeline harness behind `cfx bench pipeline` and `cfx bench journal`
// (cfx/perf/journal_bench_harness.h): the workloads, the latency listener and the run.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string_view>
#include <thread>
#include <vector>

#include "cfx/concurrency/backoff_idle.h"
#include "cfx/exchange/engine_codec.h"
#include "cfx/exchange/engine_matcher.h"
#include "cfx/journal/counter_machine.h"
#include "cfx/journal/pipeline.h"
#include "cfx/perf/journal_bench_harness.h"
#include "nlohmann/json.hpp"
#include "stages_json.h"

namespace cfx::perf {
namespace {

// "<prefix><p>-<n>" without printf: the producer thread shares the 2 cores with the
// pipeline, and three snprintf calls an input cost more than the toy workload's whole input.
engine::Name IdName(char prefix, int p, uint64_t n) {
  char buf[32];
  char* end = buf + sizeof buf;
  char* q = end;
  do {
    *--q = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  *--q = '-';
  do {
    *--q = static_cast<char>('0' + p % 10);
    p /= 10;
  } while (p != 0);
  *--q = prefix;
  return engine::Name::From(std::string_view(q, static_cast<size_t>(end - q)));
}

engine::Name AccountName(uint64_t i) {
  static const std::array<engine::Name, 16> kAccounts = [] {
    std::array<engine::Name, 16> a;
    for (int k = 0; k < 16; ++k) {
      const char name[3] = {'A', static_cast<char>(k < 10 ? '0' + k : '1'),
                            static_cast<char>('0' + k - 10)};
      a[k] = engine::Name::From(std::string_view(name, k < 10 ? 2 : 3));
    }
    return a;
  }();
  return kAccounts[i % 16];
}

// The engine workload: input i of producer p. About 60% new limit orders (gtc, prices
// around 5.000 so that about half trade), 25% cancels and 15% replaces of this producer's
// earlier orders; 16 accounts.
engine::Command EngineInput(uint64_t i, int p) {
  const uint64_t k = i * 2654435761u;
  const uint64_t back = i >= 8 ? i - 1 - (k >> 8) % 7 : 0;
  const int kind = static_cast<int>((k >> 3) % 20);
  if (i >= 8 && kind < 5) {
    engine::CancelCmd c;
    c.orig = IdName('p', p, back);
    c.acct = AccountName(back);
    return c;
  }
  if (i >= 8 && kind < 8) {
    engine::ReplaceCmd r;
    r.cl = IdName('p', p, i);
    r.orig = IdName('p', p, back);
    r.acct = AccountName(back);
    r.px =
        engine::PriceField::Ticks(engine::PriceTicks(4990 + static_cast<int64_t>((k >> 12) % 21)));
    return r;
  }
  static const engine::Name kSymbol = engine::Name::From("B200-GOLD-US-202703");
  engine::NewOrderCmd n;
  n.cl = IdName('p', p, i);
  n.acct = AccountName(i);
  n.sym = kSymbol;
  n.side = (k >> 16) % 2 == 0 ? engine::Side::kBuy : engine::Side::kSell;
  n.px = engine::PriceField::Ticks(engine::PriceTicks(4990 + static_cast<int64_t>((k >> 20) % 21)));
  n.qty = engine::Qty(1 + static_cast<int64_t>((k >> 24) % 10));
  n.tif = engine::TimeInForce::kGtc;
  return n;
}

// Offer-to-ack latency in 100 ns buckets up to 100 ms (beyond: the last bucket).
template <typename Outcome>
class LatencyListener : public journal::PipelineListener<Outcome> {
 public:
  static constexpr uint64_t kBucketNs = 100;
  static constexpr size_t kBuckets = 1'000'000;

  explicit LatencyListener(const std::vector<int64_t>* sent_ns)
      : sent_ns_(sent_ns), buckets_(kBuckets, 0) {}
  void OnOutcome(uint64_t, uint64_t, const Outcome&) override {}
  void OnAck(uint64_t, uint64_t tag, int64_t) override {
    if (tag >= sent_ns_->size()) return;  // set-up inputs (the listing) are not measured
    // sent_ns_[tag] was written before the offer; the rings' release/acquire chain orders it.
    const int64_t now = NowNs();
    const int64_t ns = now - (*sent_ns_)[tag];
    ++buckets_[std::min<uint64_t>(std::max<int64_t>(ns, 0) / kBucketNs, kBuckets - 1)];
    last_ack_ns_.store(now, std::memory_order_relaxed);
    acked_.fetch_add(1, std::memory_order_release);
  }
  void OnJournalError(const absl::Status& status) override { error_ = status; }

  static int64_t NowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  uint64_t acked() const { return acked_.load(std::memory_order_acquire); }
  int64_t last_ack_ns() const { return last_ack_ns_.load(std::memory_order_relaxed); }
  // REQUIRES: the pipeline has stopped.
  double PercentileUs(double p) const {
    const uint64_t total = acked();
    const uint64_t want = static_cast<uint64_t>(p * total);
    uint64_t seen = 0;
    for (size_t i = 0; i < kBuckets; ++i) {
      seen += buckets_[i];
      if (seen > want) return (i + 0.5) * kBucketNs / 1000.0;
    }
    return kBuckets * kBucketNs / 1000.0;
  }
  const absl::Status& error() const { return error_; }

 private:
  const std::vector<int64_t>* sent_ns_;
  std::vector<uint64_t> buckets_;
  std::atomic<uint64_t> acked_{0};
  std::atomic<int64_t> last_ack_ns_{0};
  absl::Status error_;
};

// Runs the pipeline to completion and returns the figures as JSON. `make(i, producer)`
// builds input i; `setup` (offered before timing starts) lists what the inputs need.
template <typename Command, typename Outcome, typename Make>
nlohmann::json RunHarnessWith(const HarnessConfig& config,
                              const journal::CommandCodec<Command>& codec,
                              journal::Matcher<Command, Outcome>& machine, Make make,
                              const std::vector<Command>& setup, uint64_t state_hash_of_empty,
                              const std::function<uint64_t()>& state_hash) {
  using Listener = LatencyListener<Outcome>;
  std::vector<int64_t> sent_ns(config.messages, 0);
  Listener listener(&sent_ns);
  journal::Pipeline<Command, Outcome> pipeline(config.pipeline, config.journal, &codec, &machine,
                                               &listener);
  auto started = pipeline.Start();
  if (!started.ok()) return {{"error", std::string(started.status().message())}};
  if (config.pipeline.replication != nullptr) {  // --replicated: this run is the primary
    pipeline.Promote();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!pipeline.leading() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!pipeline.leading()) return {{"error", "replication: not leading after 60 s"}};
  }
  for (const Command& c : setup) {
    while (pipeline.TryOffer(config.messages, c) == journal::OfferResult::kFull) {
      std::this_thread::yield();
    }
  }
  (void)state_hash_of_empty;

  uint64_t full_retries_total = 0;
  std::vector<uint64_t> full_retries(config.producers, 0);
  const int64_t start_ns = Listener::NowNs();
  std::vector<std::thread> producers;
  for (int p = 0; p < config.producers; ++p) {
    producers.emplace_back([&, p] {
      const uint64_t begin = config.messages * p / config.producers;
      const uint64_t end = config.messages * (p + 1) / config.producers;
      const double per_producer_rate = static_cast<double>(config.rate) / config.producers;
      // Paced runs send in 50 µs bursts: finer sleeps cost more than they measure.
      constexpr int64_t kBurstNs = 50'000;
      concurrency::BackoffIdle full;
      for (uint64_t i = begin; i < end; ++i) {
        if (config.rate != 0) {
          const int64_t due = start_ns + static_cast<int64_t>((i - begin) * 1e9 / per_producer_rate);
          const int64_t now = Listener::NowNs();
          if (due > now + kBurstNs) std::this_thread::sleep_for(std::chrono::nanoseconds(due - now));
        }
        const Command command = make(i, p);
        sent_ns[i] = Listener::NowNs();
        journal::OfferResult r;
        // Full: the pipeline is behind. Back off to a sleep rather than yield on and on, which
        // on 2 cores takes the time from the stage that is behind; and stay backed off (each
        // full ring met again sleeps at once) until an offer goes in at the first try.
        bool first_try = true;
        while ((r = pipeline.TryOffer(i, command)) == journal::OfferResult::kFull) {
          ++full_retries[p];
          full.Idle();
          first_try = false;
        }
        if (first_try) full.Reset();
        if (r == journal::OfferResult::kStopped) return;
      }
    });
  }
  for (auto& t : producers) t.join();
  absl::Status stop = pipeline.Stop();
  const int64_t end_ns = listener.last_ack_ns();
  for (uint64_t r : full_retries) full_retries_total += r;

  const journal::PipelineStats stats = pipeline.stats();
  const double seconds = std::max<int64_t>(end_ns - start_ns, 1) / 1e9;
  nlohmann::json histogram = nlohmann::json::object();
  for (size_t k = 0; k < stats.batch_size_log2.size(); ++k) {
    if (stats.batch_size_log2[k] != 0) {
      histogram[std::to_string(uint64_t{1} << k) + "+"] = stats.batch_size_log2[k];
    }
  }
  nlohmann::json out = {
      {"messages", listener.acked()},
      {"producers", config.producers},
      {"publisher_thread", !config.pipeline.publish_on_matcher},
      {"sequencer_matches_up_to", config.pipeline.sequencer_matches_up_to},
      {"matched_on_sequencer", stats.matched_on_sequencer},
      {"offered_rate", config.rate},
      {"seconds", seconds},
      {"orders_per_sec", static_cast<uint64_t>(listener.acked() / seconds)},
      {"p50_ack_us", listener.PercentileUs(0.50)},
      {"p99_ack_us", listener.PercentileUs(0.99)},
      {"p999_ack_us", listener.PercentileUs(0.999)},
      {"mean_group_size", stats.batches ? static_cast<double>(stats.inputs) / stats.batches : 0},
      {"max_group_size", stats.max_batch},
      {"group_size_histogram", histogram},
      {"group_commits", stats.batches},
      {"producer_full_retries", full_retries_total},
      {"state_hash", state_hash()},
      {"engine", config.engine},
  };
  if (config.pipeline.trace_stages) out["stages"] = internal::StagesJson(stats.stages);
  if (!stop.ok()) out["error"] = std::string(stop.message());
  return out;
}

}  // namespace

nlohmann::json RunHarness(const HarnessConfig& config) {
  if (config.engine) {
    exchange::EngineCodec codec;
    // Sized for the stream and written before timing, as `bench book --engine` does: the
    // first order into each fresh page would otherwise fault inside the timed loop.
    exchange::MatcherOptions options;
    options.engine.order_capacity = config.messages + 16;
    options.engine.client_id_capacity = config.messages + 16;
    exchange::EngineMatcher matcher(options);
    engine::ProductCmd product;
    product.sym = engine::Name::From("B200-GOLD-US-202703");
    product.ref = engine::PriceField::Ticks(engine::PriceTicks(5000));
    std::vector<engine::Command> setup = {engine::TimeCmd{0}, product};
    return RunHarnessWith<engine::Command, exchange::Outcome>(
        config, codec, matcher, [](uint64_t i, int p) { return EngineInput(i, p); }, setup, 0,
        [&] { return matcher.engine().StateHash(); });
  }
  journal::CounterCodec codec;
  journal::CounterMachine machine;
  return RunHarnessWith<journal::CounterCommand, journal::CounterOutcome>(
      config, codec, machine,
      [](uint64_t i, int) { return journal::CounterCommand{i, i % 128, 1}; }, {}, 0,
      [&] { return machine.StateHash(); });
}

namespace {

// A sink that keeps nothing: the engine alone, without the pipeline's output ring.
class DiscardSink : public journal::OutcomeSink<exchange::Outcome> {
 public:
  void Emit(const exchange::Outcome&) override { ++outcomes; }
  void EmitClaimed() override { ++outcomes; }
  uint64_t outcomes = 0;
};

// The engine alone on the pipeline's inputs: one thread, no rings, the inputs built in
// blocks before each block is timed. Nanoseconds an input of the matcher's own work: the
// pipeline with the engine cannot take inputs faster than 1e9 / this, whatever the rings do.
nlohmann::json EngineAloneOnTheInputs(const HarnessConfig& config) {
  exchange::MatcherOptions options;
  options.engine.order_capacity = config.messages + 16;
  options.engine.client_id_capacity = config.messages + 16;
  exchange::EngineMatcher matcher(options);
  DiscardSink sink;
  engine::ProductCmd product;
  product.sym = engine::Name::From("B200-GOLD-US-202703");
  product.ref = engine::PriceField::Ticks(engine::PriceTicks(5000));
  uint64_t seq = 1;
  matcher.ApplyAt(seq++, 0, engine::TimeCmd{0}, sink);
  matcher.ApplyAt(seq++, 0, product, sink);
  constexpr uint64_t kBlock = 4096;
  constexpr size_t kAhead = engine::Engine::kPrefetchAhead;  // as the pipeline prefetches
  std::vector<engine::Command> block;
  block.reserve(kBlock);
  int64_t timed_ns = 0;
  for (int p = 0; p < config.producers; ++p) {
    const uint64_t begin = config.messages * p / config.producers;
    const uint64_t end = config.messages * (p + 1) / config.producers;
    for (uint64_t i = begin; i < end; i += kBlock) {
      block.clear();
      for (uint64_t j = i; j < std::min(end, i + kBlock); ++j) block.push_back(EngineInput(j, p));
      const auto t0 = std::chrono::steady_clock::now();
      for (size_t k = 0; k < block.size(); ++k) {
        if (k + kAhead < block.size()) {
          matcher.Prefetch(block[k + kAhead]);
        }
        matcher.ApplyAt(seq++, 0, block[k], sink);
      }
      timed_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
    }
  }
  const double ns = static_cast<double>(timed_ns) / std::max<uint64_t>(config.messages, 1);
  return {{"ns_per_input", ns},
          {"orders_per_sec", ns > 0 ? static_cast<uint64_t>(1e9 / ns) : 0},
          {"outcomes", sink.outcomes},
          {"state_hash", matcher.engine().StateHash()}};
}

}  // namespace

nlohmann::json RunPipelineBench(const HarnessConfig& config) {
  nlohmann::json out = RunHarness(config);
  if (!config.engine || out.contains("error")) return out;
  HarnessConfig toy = config;
  toy.engine = false;
  const nlohmann::json yardstick = RunHarness(toy);
  out["yardstick_toy"] = {{"orders_per_sec", yardstick["orders_per_sec"]},
                          {"messages", yardstick["messages"]}};
  const nlohmann::json alone = EngineAloneOnTheInputs(config);
  out["engine_alone"] = alone;
  const double toy_rate = yardstick["orders_per_sec"].get<double>();
  if (toy_rate > 0) {
    out["ratio_to_toy"] = out["orders_per_sec"].get<double>() / toy_rate;
    // The most the pipeline with the engine could reach against the toy: its matcher stage
    // doing the engine's work alone, with every other cost of the pipeline free.
    out["engine_alone_ratio_to_toy"] = alone["orders_per_sec"].get<double>() / toy_rate;
  }
  return out;
}

}  // namespace cfx::perf
