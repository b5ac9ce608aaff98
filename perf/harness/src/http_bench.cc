#include "cfx/perf/http_bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "cfx/client/http_client.h"
#include "cfx/common/decimal.h"
#include "cfx/gateway/http_memory_providers.h"
#include "cfx/gateway/http_server.h"
#include "cfx/gateway/margin_answer.h"
#include "cfx/gpu_valuation/margin_engine.h"
#include "margin_inputs.h"
#include "nlohmann/json.hpp"
#include "timing.h"

namespace cfx::perf {
namespace {

using internal::PercentileUs;

// The request a client sends as its i-th: a mix of the API's read paths.
std::string Target(const std::string& endpoint, int i) {
  static const char* kMixed[] = {"/v1/book/B200-GOLD-US-202703", "/v1/accounts/ALPHA-1/margin",
                                 "/v1/accounts/ALPHA-1/positions",
                                 "/v1/reference/B200-GOLD-US?from=2027-03-01&to=2027-03-05"};
  if (endpoint == "book") return kMixed[0];
  if (endpoint == "margin") return kMixed[1];
  if (endpoint == "positions") return kMixed[2];
  if (endpoint == "healthz") return "/healthz";
  return kMixed[i % 4];
}

// What the targets read: a ten-level book, ALPHA-1's margin and positions, five fixes.
void FillBenchData(gateway::InMemoryProviders* mem) {
  using namespace cfx::gateway;  // NOLINT(build/namespaces)
  using namespace cfx::client;   // NOLINT(build/namespaces)
  BookSnapshot book;
  book.sym = "B200-GOLD-US-202703";
  book.state = "open";
  for (int i = 0; i < 10; ++i) {
    book.bids.push_back({common::FormatScaled(5250 - i, 3), 10 + i, 1 + i % 3});
    book.asks.push_back({common::FormatScaled(5251 + i, 3), 10 + i, 1 + i % 3});
  }
  mem->SetBook(book);
  MarginResult m;
  m.margin_micro_usd = 123'456'789'000;
  m.scenario_count = 16;
  m.worst_scenario.number = 13;
  for (int i = 0; i < 5; ++i) {
    m.positions.push_back({"B200-GOLD-US-20270" + std::to_string(3 + i), 10 * (i + 1), "5.280",
                           "1200", "1.2222", 1'000'000'000});
  }
  mem->SetMargin("ALPHA-1", MarginMethod::kSpan16, m);
  std::vector<PositionLine> lines;
  for (int i = 0; i < 5; ++i) {
    lines.push_back(
        {"B200-GOLD-US-20270" + std::to_string(3 + i), 10, "5.250", "5.300", "5.280", 0, 0, 0});
  }
  mem->SetPositions("ALPHA-1", lines);
  std::vector<FixRecord> fixes;
  for (int d = 1; d <= 5; ++d) {
    FixRecord r;
    r.grade = "B200-GOLD-US";
    r.date = "2027-03-0" + std::to_string(d);
    r.fix = "5.4123";
    r.level = 1;
    fixes.push_back(r);
  }
  mem->SetFixes("B200-GOLD-US", fixes);
}

// The margin endpoint on the valuation engine itself, answered as `cfx serve` answers it
// (ToHttpMargin): span16 and mc MarginEngines over the margin bench's 144 contracts, and
// ALPHA-1 holding 10 of them; every request is a ComputeAccount.
class ValuationMarginProvider final : public gateway::MarginProvider {
 public:
  static absl::StatusOr<std::unique_ptr<ValuationMarginProvider>> Create() {
    namespace gv = cfx::gpu_valuation;
    std::mt19937_64 rng(1);
    std::vector<gv::ContractPrice> prices = internal::SyntheticPrices(rng);
    auto p = std::unique_ptr<ValuationMarginProvider>(new ValuationMarginProvider());
    gv::MarginOptions options;
    auto span16 = gv::MarginEngine::Create(prices, internal::SyntheticThroughput(), options);
    if (!span16.ok()) return span16.status();
    options.method = gv::ScenarioMethod::kMonteCarlo;
    auto mc = gv::MarginEngine::Create(prices, internal::SyntheticThroughput(), options);
    if (!mc.ok()) return mc.status();
    p->span16_ = *std::move(span16);
    p->mc_ = *std::move(mc);
    gv::AccountPositions alpha;
    internal::AccountGenerator(prices, 10, &rng).Next(&alpha);
    p->alpha_ = std::move(alpha.positions);
    return p;
  }

  absl::StatusOr<gateway::MarginResult> AccountMargin(const std::string& account,
                                                      gateway::MarginMethod method) override {
    return Compute(account, account == "ALPHA-1" ? alpha_ : std::vector<gpu_valuation::Position>{},
                   method);
  }
  absl::StatusOr<gateway::MarginResult> WhatIf(
      const std::vector<gateway::WhatIfPosition>& positions,
      gateway::MarginMethod method) override {
    std::vector<gpu_valuation::Position> book;
    for (const auto& p : positions) book.push_back({p.sym, p.qty});
    return Compute("whatif", book, method);
  }

 private:
  ValuationMarginProvider() = default;
  absl::StatusOr<gateway::MarginResult> Compute(const std::string& account,
                                                const std::vector<gpu_valuation::Position>& book,
                                                gateway::MarginMethod method) {
    const gpu_valuation::MarginEngine& engine =
        method == gateway::MarginMethod::kMc ? *mc_ : *span16_;
    auto r = engine.ComputeAccount(account, book);
    if (!r.ok()) return r.status();
    return gateway::ToHttpMargin(*r, static_cast<int>(engine.scenarios().scenarios.size()));
  }

  std::unique_ptr<gpu_valuation::MarginEngine> span16_, mc_;
  std::vector<gpu_valuation::Position> alpha_;
};

struct ClientLoad {
  std::vector<int64_t> latencies_ns;  // of the 200 answers, sorted
  int64_t errors = 0;
  double seconds = 0;
};

// One thread per client: each connects, waits for the start signal, then sends its
// requests one at a time. A client that cannot connect counts all its requests as errors;
// one whose connection fails stops there.
ClientLoad RunClients(int port, const HttpBenchOptions& options) {
  using client::HttpClient;
  using client::HttpClientResponse;
  std::vector<std::vector<int64_t>> latencies(options.clients);
  std::atomic<int64_t> errors{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int c = 0; c < options.clients; ++c) {
    threads.emplace_back([&, c] {
      absl::StatusOr<HttpClient> client = HttpClient::Connect("127.0.0.1", port);
      if (!client.ok()) {
        errors += options.requests;
        return;
      }
      latencies[c].reserve(options.requests);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (int i = 0; i < options.requests; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        absl::StatusOr<HttpClientResponse> r =
            client->Get(Target(options.endpoint, i + c), "tok-risk");
        auto t1 = std::chrono::steady_clock::now();
        if (!r.ok() || r->status != 200) {
          ++errors;
          if (!r.ok()) return;
          continue;
        }
        latencies[c].push_back(
            std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
      }
    });
  }
  auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread& t : threads) t.join();
  ClientLoad load;
  load.seconds = internal::SecondsSince(start);
  for (const auto& v : latencies) {
    load.latencies_ns.insert(load.latencies_ns.end(), v.begin(), v.end());
  }
  std::sort(load.latencies_ns.begin(), load.latencies_ns.end());
  load.errors = errors.load();
  return load;
}

}  // namespace

absl::StatusOr<HttpBenchResult> RunHttpBench(common::ExchangeConfig config,
                                             const HttpBenchOptions& options) {
  config.listen_address = "127.0.0.1";
  config.http_port = 0;
  gateway::InMemoryProviders mem;
  FillBenchData(&mem);
  gateway::HttpProviders providers = mem.Providers();
  // The margin endpoint alone is measured on the real valuation engine; the mixed load
  // keeps the canned answer, so its figures stay comparable with earlier runs.
  std::unique_ptr<ValuationMarginProvider> valuation;
  if (options.endpoint == "margin") {
    auto created = ValuationMarginProvider::Create();
    if (!created.ok()) return created.status();
    valuation = *std::move(created);
    providers.margin = valuation.get();
  }
  gateway::HttpServerOptions server_options;
  server_options.threads = options.threads;
  server_options.rate_limit_per_sec = 0;  // measuring the server, not the limiter
  gateway::HttpServer server(config, providers, server_options);
  if (absl::Status s = server.Start(); !s.ok()) return s;
  const ClientLoad load = RunClients(server.port(), options);
  server.Stop();

  HttpBenchResult result;
  result.options = options;
  result.margin_provider = valuation != nullptr ? "valuation" : "memory";
  result.ok = load.latencies_ns.size();
  result.errors = load.errors;
  result.seconds = load.seconds;
  result.requests_per_sec = load.latencies_ns.size() / load.seconds;
  result.p50_us = PercentileUs(load.latencies_ns, 0.50);
  result.p99_us = PercentileUs(load.latencies_ns, 0.99);
  result.max_us = PercentileUs(load.latencies_ns, 1.0);
  return result;
}

void PrintHttpBench(const HttpBenchResult& r, std::ostream& out) {
  const HttpBenchOptions& o = r.options;
  out << absl::StrFormat("http: %d clients x %d requests (%s), %d server threads, margin from %s\n",
                         o.clients, o.requests, o.endpoint, o.threads, r.margin_provider)
      << absl::StrFormat("  %d ok, %d errors in %.3f s: %.0f requests/s\n", r.ok, r.errors,
                         r.seconds, r.requests_per_sec)
      << absl::StrFormat("  latency us: p50 %.1f  p99 %.1f  max %.1f\n", r.p50_us, r.p99_us,
                         r.max_us);
  nlohmann::json j = {{"bench", "http"},
                      {"clients", o.clients},
                      {"requests_per_client", o.requests},
                      {"server_threads", o.threads},
                      {"endpoint", o.endpoint},
                      {"margin_provider", r.margin_provider},
                      {"ok", r.ok},
                      {"errors", r.errors},
                      {"seconds", r.seconds},
                      {"requests_per_sec", r.requests_per_sec},
                      {"p50_us", r.p50_us},
                      {"p99_us", r.p99_us},
                      {"max_us", r.max_us}};
  out << j.dump() << std::endl;
}

}  // namespace cfx::perf
