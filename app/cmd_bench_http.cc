// `cfx bench http`: N concurrent keep-alive clients on loopback against an HttpServer with
// in-memory providers; prints requests/s and latency percentiles, last line one JSON object.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "cfx/demo/demo_config.h"
#include "cfx/common/config.h"
#include "cfx/common/decimal.h"
#include "cfx/client/http_client.h"
#include "cfx/gateway/http_memory_providers.h"
#include "cfx/gateway/http_server.h"
#include "nlohmann/json.hpp"
#include "registry.h"

namespace {

struct BenchHttpFlags {
  int clients = 16;
  int requests = 2000;  // per client
  int threads = 2;      // server I/O threads
  std::string endpoint = "mixed";
};

// The request a client sends as its i-th: a mix of the API's read paths.
std::string Target(const std::string& endpoint, int i) {
  static const char* kMixed[] = {"/v1/book/B200-GOLD-US-202703",
                                 "/v1/accounts/ALPHA-1/margin",
                                 "/v1/accounts/ALPHA-1/positions",
                                 "/v1/reference/B200-GOLD-US?from=2027-03-01&to=2027-03-05"};
  if (endpoint == "book") return kMixed[0];
  if (endpoint == "margin") return kMixed[1];
  if (endpoint == "positions") return kMixed[2];
  if (endpoint == "healthz") return "/healthz";
  return kMixed[i % 4];
}

void FillBenchData(cfx::gateway::InMemoryProviders* mem) {
  using namespace cfx::gateway;
  using namespace cfx::client;
  BookSnapshot book;
  book.sym = "B200-GOLD-US-202703";
  book.state = "open";
  for (int i = 0; i < 10; ++i) {
    book.bids.push_back({cfx::FormatScaled(5250 - i, 3), 10 + i, 1 + i % 3});
    book.asks.push_back({cfx::FormatScaled(5251 + i, 3), 10 + i, 1 + i % 3});
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
    lines.push_back({"B200-GOLD-US-20270" + std::to_string(3 + i), 10, "5.250", "5.300", "5.280",
                     0, 0, 0});
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

int RunBenchHttp(const BenchHttpFlags& flags) {
  using namespace cfx::gateway;
  using namespace cfx::client;
  absl::StatusOr<cfx::ExchangeConfig> config = cfx::ParseConfig(cfx::demo::DemoConfigText(), "demo");
  if (!config.ok()) {
    std::cerr << config.status() << "\n";
    return 2;
  }
  config->listen_address = "127.0.0.1";
  config->http_port = 0;
  InMemoryProviders mem;
  FillBenchData(&mem);
  HttpServerOptions options;
  options.threads = flags.threads;
  options.rate_limit_per_sec = 0;  // measuring the server, not the limiter
  HttpServer server(*config, mem.Providers(), options);
  if (absl::Status s = server.Start(); !s.ok()) {
    std::cerr << "cfx bench http: " << s << "\n";
    return 1;
  }

  std::vector<std::vector<int64_t>> latencies(flags.clients);
  std::atomic<int64_t> errors{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int c = 0; c < flags.clients; ++c) {
    threads.emplace_back([&, c] {
      absl::StatusOr<HttpClient> client = HttpClient::Connect("127.0.0.1", server.port());
      if (!client.ok()) {
        errors += flags.requests;
        return;
      }
      latencies[c].reserve(flags.requests);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (int i = 0; i < flags.requests; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        absl::StatusOr<HttpClientResponse> r = client->Get(Target(flags.endpoint, i + c), "tok-risk");
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
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  server.Stop();

  std::vector<int64_t> all;
  for (const auto& v : latencies) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) -> double {
    if (all.empty()) return 0;
    size_t i = std::min(all.size() - 1, static_cast<size_t>(p * (all.size() - 1) + 0.5));
    return all[i] / 1000.0;
  };
  double rps = all.size() / seconds;
  std::printf("http: %d clients x %d requests (%s), %d server threads\n", flags.clients,
              flags.requests, flags.endpoint.c_str(), flags.threads);
  std::printf("  %zu ok, %lld errors in %.3f s: %.0f requests/s\n", all.size(),
              static_cast<long long>(errors.load()), seconds, rps);
  std::printf("  latency us: p50 %.1f  p99 %.1f  max %.1f\n", pct(0.50), pct(0.99), pct(1.0));
  nlohmann::json j = {{"bench", "http"},
                      {"clients", flags.clients},
                      {"requests_per_client", flags.requests},
                      {"server_threads", flags.threads},
                      {"endpoint", flags.endpoint},
                      {"ok", all.size()},
                      {"errors", errors.load()},
                      {"seconds", seconds},
                      {"requests_per_sec", rps},
                      {"p50_us", pct(0.50)},
                      {"p99_us", pct(0.99)},
                      {"max_us", pct(1.0)}};
  std::cout << j.dump() << std::endl;
  return errors.load() == 0 ? 0 : 1;
}

void SetupBenchHttp(CLI::App& parent, cfx::app::ExitCode* rc) {
  auto flags = std::make_shared<BenchHttpFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "http", "HTTP API throughput and latency: keep-alive clients on loopback, fake providers");
  cmd->add_option("--clients", flags->clients, "Concurrent keep-alive connections")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--requests", flags->requests, "Requests per client")
      ->check(CLI::Range(1, 10'000'000));
  cmd->add_option("--threads", flags->threads, "Server I/O threads")->check(CLI::Range(1, 64));
  cmd->add_option("--endpoint", flags->endpoint, "mixed|book|margin|positions|healthz")
      ->check(CLI::IsMember({"mixed", "book", "margin", "positions", "healthz"}));
  cmd->callback([flags, rc] { *rc = RunBenchHttp(*flags); });
}

CFX_REGISTER_COMMAND("bench", SetupBenchHttp);

}  // namespace
