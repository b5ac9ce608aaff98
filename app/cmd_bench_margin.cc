// `cfx bench margin`: position-scenario evaluations per second of the margin evaluator on
// synthetic portfolios (docs/performance.md). The last line is one JSON object.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <random>
#include <string>

#include <sys/resource.h>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "cfx/gpu_valuation/margin_engine.h"
#include "nlohmann/json.hpp"
#include "registry.h"

namespace cfx::app {
namespace {

namespace gv = cfx::gpu_valuation;

struct BenchFlags {
  int64_t accounts = 100000;
  int positions = 10;
  int32_t scenarios = 16;
  int iterations = 5;
  uint64_t seed = 1;
  std::string backend = "auto";
  bool verify = false;
};

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// CPU time of the whole process (all threads): on a shared machine wall time overstates
// the cost, so the bench also reports evaluations per CPU-second.
double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

int RunBench(const BenchFlags& f) {
  if (f.accounts < 1 || f.positions < 1 || f.scenarios < 1 || f.iterations < 1) {
    std::cerr << "cfx bench margin: counts must be positive\n";
    return 1;
  }
  // Universe: B200 in 4 tiers x 3 regions x 12 months = 144 contracts.
  std::mt19937_64 rng(f.seed);
  std::vector<gv::ContractPrice> prices;
  for (const char* tier : kTierNames) {
    for (const char* region : kRegionNames) {
      for (int m = 1; m <= 12; ++m) {
        prices.push_back({absl::StrCat("B200-", tier, "-", region, "-2027", m < 10 ? "0" : "", m),
                          static_cast<int64_t>(2000 + rng() % 6000)});
      }
    }
  }
  std::vector<gv::ThroughputRow> throughput;
  for (int t = 0; t < kNumTiers; ++t) {
    for (int op = 0; op < 5; ++op) {
      throughput.push_back({absl::StrCat("op", t, "_", op), static_cast<Tier>(t), "B200",
                            DateFromYmd(2027, 3, 1), 800.0 + 40.0 * op + 100.0 * t});
    }
  }
  gv::MarginOptions options;
  if (f.scenarios == 16) {
    options.method = gv::ScenarioMethod::kSpan16;
  } else {
    options.method = gv::ScenarioMethod::kMonteCarlo;
    options.mc_scenarios = f.scenarios;
  }
  options.backend = f.backend == "cpu"    ? gv::BackendChoice::kCpu
                    : f.backend == "cuda" ? gv::BackendChoice::kCuda
                                          : gv::BackendChoice::kAuto;
  auto t0 = std::chrono::steady_clock::now();
  auto engine = gv::MarginEngine::Create(prices, throughput, options);
  if (!engine.ok()) {
    std::cerr << "cfx bench margin: " << engine.status().message() << "\n";
    return 1;
  }
  const double setup_seconds = Seconds(t0);

  std::vector<gv::AccountPositions> accounts(f.accounts);
  gv::PortfolioBatch batch;
  const int per = std::min<int>(f.positions, static_cast<int>(prices.size()));
  std::vector<int32_t> pick(prices.size());
  for (size_t i = 0; i < pick.size(); ++i) pick[i] = static_cast<int32_t>(i);
  for (int64_t a = 0; a < f.accounts; ++a) {
    accounts[a].account = absl::StrCat("ACC", a);
    for (int p = 0; p < per; ++p) {  // distinct contracts: partial Fisher-Yates
      std::swap(pick[p], pick[p + rng() % (pick.size() - p)]);
      const int64_t qty = static_cast<int64_t>(rng() % 200) - 100;
      const int64_t q = qty == 0 ? 1 : qty;
      accounts[a].positions.push_back({prices[pick[p]].sym, q});
    }
  }
  // Evaluator-only timing with resident portfolios: the batch the GPU/threads accelerate.
  for (const auto& acct : accounts) {
    for (const auto& p : acct.positions) batch.AddEntry((*engine)->ContractIndex(p.sym), p.qty);
    batch.EndPortfolio();
  }
  auto evaluator = gv::MakeEvaluator(options.backend);
  if (!evaluator.ok()) {
    std::cerr << "cfx bench margin: " << evaluator.status().message() << "\n";
    return 1;
  }
  gv::Evaluator& ev = **evaluator;
  t0 = std::chrono::steady_clock::now();
  absl::Status s = ev.SetTable((*engine)->table());
  if (s.ok()) s = ev.SetPortfolios(batch);
  const double load_seconds = Seconds(t0);
  std::vector<gv::RankedLoss> out;
  if (s.ok()) s = ev.Evaluate((*engine)->scenarios().rank, &out);  // warm-up
  std::vector<double> times;
  const double cpu0 = ProcessCpuSeconds();
  for (int i = 0; s.ok() && i < f.iterations; ++i) {
    t0 = std::chrono::steady_clock::now();
    s = ev.Evaluate((*engine)->scenarios().rank, &out);
    times.push_back(Seconds(t0));
  }
  if (!s.ok()) {
    std::cerr << "cfx bench margin: " << s.message() << "\n";
    return 1;
  }
  const double cpu_per_batch = (ProcessCpuSeconds() - cpu0) / f.iterations;
  // --verify: the same resident batch on the CPU evaluator must give identical answers.
  std::optional<bool> verified;
  if (f.verify) {
    auto cpu = gv::MakeCpuEvaluator();
    std::vector<gv::RankedLoss> expected;
    absl::Status vs = cpu->SetTable((*engine)->table());
    if (vs.ok()) vs = cpu->SetPortfolios(batch);
    if (vs.ok()) vs = cpu->Evaluate((*engine)->scenarios().rank, &expected);
    verified = vs.ok() && expected == out;
    std::cout << "  verify against the CPU evaluator: " << (*verified ? "identical" : "MISMATCH")
              << "\n";
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  const double evals = static_cast<double>(f.accounts) * per * (*engine)->table().num_scenarios;
  // End to end once: netting, evaluation and the per-position answer.
  t0 = std::chrono::steady_clock::now();
  auto results = (*engine)->ComputeMany(accounts);
  const double compute_many_seconds = Seconds(t0);
  if (!results.ok()) {
    std::cerr << "cfx bench margin: " << results.status().message() << "\n";
    return 1;
  }
  std::cout << "margin bench: " << f.accounts << " accounts x " << per << " positions x "
            << (*engine)->table().num_scenarios << " scenarios ("
            << gv::MethodName(options.method) << ", rank " << (*engine)->scenarios().rank
            << ") on " << ev.Name() << "\n"
            << "  evaluate (resident portfolios), median of " << f.iterations << ": " << median
            << " s = " << evals / median << " evals/s; " << cpu_per_batch
            << " CPU-s per batch = " << evals / cpu_per_batch << " evals per CPU-second\n"
            << "  engine setup " << setup_seconds << " s, load " << load_seconds
            << " s, ComputeMany end to end " << compute_many_seconds << " s\n";
  nlohmann::ordered_json j;
  j["bench"] = "margin";
  j["backend"] = ev.Name();
  j["method"] = gv::MethodName(options.method);
  j["accounts"] = f.accounts;
  j["positions"] = per;
  j["scenarios"] = (*engine)->table().num_scenarios;
  j["evals"] = evals;
  if (verified.has_value()) j["verified"] = *verified;
  j["seconds"] = median;
  j["evals_per_sec"] = evals / median;
  j["cpu_seconds_per_batch"] = cpu_per_batch;
  j["evals_per_cpu_sec"] = evals / cpu_per_batch;
  j["load_seconds"] = load_seconds;
  j["compute_many_seconds"] = compute_many_seconds;
  j["setup_seconds"] = setup_seconds;
  std::cout << j.dump() << std::endl;
  return verified.value_or(true) ? 0 : 1;
}

void SetupBenchMargin(CLI::App& parent, ExitCode* rc) {
  auto f = std::make_shared<BenchFlags>();
  CLI::App* cmd = parent.add_subcommand("margin", "Margin evaluator throughput (evals/s)");
  cmd->add_option("--accounts", f->accounts, "portfolios per batch (default 100000)");
  cmd->add_option("--positions", f->positions, "positions per portfolio (default 10)");
  cmd->add_option("--scenarios", f->scenarios, "16 = span16, else mc with N scenarios");
  cmd->add_option("--iterations", f->iterations, "timed batches (median reported)");
  cmd->add_option("--seed", f->seed, "portfolio generator seed");
  cmd->add_option("--backend", f->backend, "auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_flag("--verify", f->verify, "check every answer against the CPU evaluator");
  cmd->callback([f, rc] { *rc = RunBench(*f); });
}

CFX_REGISTER_COMMAND("bench", SetupBenchMargin);

}  // namespace
}  // namespace cfx::app
