#include "cfx/perf/margin_bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/gpu_valuation/margin_engine.h"
#include "nlohmann/json.hpp"
#include "timing.h"

namespace cfx::perf {
namespace {

namespace gv = cfx::gpu_valuation;
using internal::SecondsSince;
using Clock = std::chrono::steady_clock;

// CPU time of the whole process (all threads): on a shared machine wall time overstates
// the cost, so the bench also reports evaluations per CPU-second.
double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// The universe: B200 in 4 tiers x 3 regions x 12 months = 144 contracts, seeded prices.
std::vector<gv::ContractPrice> SyntheticPrices(std::mt19937_64& rng) {
  std::vector<gv::ContractPrice> prices;
  for (const char* tier : common::kTierNames) {
    for (const char* region : common::kRegionNames) {
      for (int m = 1; m <= 12; ++m) {
        prices.push_back({absl::StrCat("B200-", tier, "-", region, "-2027", m < 10 ? "0" : "", m),
                          static_cast<int64_t>(2000 + rng() % 6000)});
      }
    }
  }
  return prices;
}

// Five operators per tier, all measured on one date.
std::vector<gv::ThroughputRow> SyntheticThroughput() {
  std::vector<gv::ThroughputRow> throughput;
  for (int t = 0; t < common::kNumTiers; ++t) {
    for (int op = 0; op < 5; ++op) {
      throughput.push_back({absl::StrCat("op", t, "_", op), static_cast<common::Tier>(t), "B200",
                            common::DateFromYmd(2027, 3, 1), 800.0 + 40.0 * op + 100.0 * t});
    }
  }
  return throughput;
}

gv::MarginOptions EngineOptions(const MarginBenchOptions& options) {
  gv::MarginOptions engine_options;
  if (options.scenarios == 16) {
    engine_options.method = gv::ScenarioMethod::kSpan16;
  } else {
    engine_options.method = gv::ScenarioMethod::kMonteCarlo;
    engine_options.mc_scenarios = options.scenarios;
  }
  engine_options.backend = options.backend;
  return engine_options;
}

// `accounts` portfolios of `per` distinct contracts each, quantities in [-100, 99] but 0.
// REQUIRES: per <= prices.size().
std::vector<gv::AccountPositions> SyntheticAccounts(const std::vector<gv::ContractPrice>& prices,
                                                    int64_t accounts, int per,
                                                    std::mt19937_64& rng) {
  std::vector<gv::AccountPositions> out(accounts);
  std::vector<int32_t> pick(prices.size());
  for (size_t i = 0; i < pick.size(); ++i) pick[i] = static_cast<int32_t>(i);
  for (int64_t a = 0; a < accounts; ++a) {
    out[a].account = absl::StrCat("ACC", a);
    for (int p = 0; p < per; ++p) {  // distinct contracts: partial Fisher-Yates
      std::swap(pick[p], pick[p + rng() % (pick.size() - p)]);
      const int64_t qty = static_cast<int64_t>(rng() % 200) - 100;
      const int64_t q = qty == 0 ? 1 : qty;
      out[a].positions.push_back({prices[pick[p]].sym, q});
    }
  }
  return out;
}

// The accounts as one batch in the engine's contract indices, as ComputeMany builds it.
gv::PortfolioBatch ResidentBatch(const gv::MarginEngine& engine,
                                 const std::vector<gv::AccountPositions>& accounts) {
  gv::PortfolioBatch batch;
  for (const auto& acct : accounts) {
    for (const auto& p : acct.positions) batch.AddEntry(engine.ContractIndex(p.sym), p.qty);
    batch.EndPortfolio();
  }
  return batch;
}

// Evaluator-only timing with resident portfolios: the batch the GPU or the threads
// accelerate. Loads the batch, evaluates once to warm up, then times `iterations` batches;
// fills the load, median and CPU figures of `result` and leaves the answers in `answers`.
absl::Status TimeEvaluator(gv::Evaluator& ev, const gv::MarginEngine& engine,
                           const gv::PortfolioBatch& batch, int iterations,
                           MarginBenchResult* result, std::vector<gv::RankedLoss>* answers) {
  Clock::time_point t0 = Clock::now();
  absl::Status s = ev.SetTable(engine.table());
  if (s.ok()) s = ev.SetPortfolios(batch);
  result->load_seconds = SecondsSince(t0);
  if (s.ok()) s = ev.Evaluate(engine.scenarios().rank, answers);  // warm-up
  std::vector<double> times;
  const double cpu0 = ProcessCpuSeconds();
  for (int i = 0; s.ok() && i < iterations; ++i) {
    t0 = Clock::now();
    s = ev.Evaluate(engine.scenarios().rank, answers);
    times.push_back(SecondsSince(t0));
  }
  if (!s.ok()) return s;
  result->cpu_seconds_per_batch = (ProcessCpuSeconds() - cpu0) / iterations;
  std::sort(times.begin(), times.end());
  result->seconds = times[times.size() / 2];
  return absl::OkStatus();
}

// True when the CPU evaluator gives `answers` for the same resident batch.
bool SameOnCpu(const gv::MarginEngine& engine, const gv::PortfolioBatch& batch,
               const std::vector<gv::RankedLoss>& answers) {
  auto cpu = gv::MakeCpuEvaluator();
  std::vector<gv::RankedLoss> expected;
  absl::Status s = cpu->SetTable(engine.table());
  if (s.ok()) s = cpu->SetPortfolios(batch);
  if (s.ok()) s = cpu->Evaluate(engine.scenarios().rank, &expected);
  return s.ok() && expected == answers;
}

}  // namespace

absl::StatusOr<MarginBenchResult> RunMarginBench(const MarginBenchOptions& options) {
  if (options.accounts < 1 || options.positions < 1 || options.scenarios < 1 ||
      options.iterations < 1) {
    return absl::InvalidArgumentError("counts must be positive");
  }
  std::mt19937_64 rng(options.seed);
  std::vector<gv::ContractPrice> prices = SyntheticPrices(rng);
  const gv::MarginOptions engine_options = EngineOptions(options);
  Clock::time_point t0 = Clock::now();
  auto engine = gv::MarginEngine::Create(prices, SyntheticThroughput(), engine_options);
  if (!engine.ok()) return engine.status();
  MarginBenchResult result;
  result.setup_seconds = SecondsSince(t0);

  const int per = std::min<int>(options.positions, static_cast<int>(prices.size()));
  const std::vector<gv::AccountPositions> accounts =
      SyntheticAccounts(prices, options.accounts, per, rng);
  const gv::PortfolioBatch batch = ResidentBatch(**engine, accounts);
  auto evaluator = gv::MakeEvaluator(engine_options.backend);
  if (!evaluator.ok()) return evaluator.status();
  std::vector<gv::RankedLoss> answers;
  absl::Status s =
      TimeEvaluator(**evaluator, **engine, batch, options.iterations, &result, &answers);
  if (!s.ok()) return s;
  if (options.verify) result.verified = SameOnCpu(**engine, batch, answers);

  // End to end once: netting, evaluation and the per-position answer.
  t0 = Clock::now();
  auto many = (*engine)->ComputeMany(accounts);
  result.compute_many_seconds = SecondsSince(t0);
  if (!many.ok()) return many.status();

  result.accounts = options.accounts;
  result.positions = per;
  result.scenarios = (*engine)->table().num_scenarios;
  result.rank = (*engine)->scenarios().rank;
  result.method = gv::MethodName(engine_options.method);
  result.backend = (*evaluator)->Name();
  result.iterations = options.iterations;
  result.evals = static_cast<double>(options.accounts) * per * result.scenarios;
  return result;
}

void PrintMarginBench(const MarginBenchResult& r, std::ostream& out) {
  if (r.verified.has_value()) {
    out << "  verify against the CPU evaluator: " << (*r.verified ? "identical" : "MISMATCH")
        << "\n";
  }
  out << "margin bench: " << r.accounts << " accounts x " << r.positions << " positions x "
      << r.scenarios << " scenarios (" << r.method << ", rank " << r.rank << ") on " << r.backend
      << "\n"
      << "  evaluate (resident portfolios), median of " << r.iterations << ": " << r.seconds
      << " s = " << r.evals / r.seconds << " evals/s; " << r.cpu_seconds_per_batch
      << " CPU-s per batch = " << r.evals / r.cpu_seconds_per_batch << " evals per CPU-second\n"
      << "  engine setup " << r.setup_seconds << " s, load " << r.load_seconds
      << " s, ComputeMany end to end " << r.compute_many_seconds << " s\n";
  nlohmann::ordered_json j;
  j["bench"] = "margin";
  j["backend"] = r.backend;
  j["method"] = r.method;
  j["accounts"] = r.accounts;
  j["positions"] = r.positions;
  j["scenarios"] = r.scenarios;
  j["evals"] = r.evals;
  if (r.verified.has_value()) j["verified"] = *r.verified;
  j["seconds"] = r.seconds;
  j["evals_per_sec"] = r.evals / r.seconds;
  j["cpu_seconds_per_batch"] = r.cpu_seconds_per_batch;
  j["evals_per_cpu_sec"] = r.evals / r.cpu_seconds_per_batch;
  j["load_seconds"] = r.load_seconds;
  j["compute_many_seconds"] = r.compute_many_seconds;
  j["setup_seconds"] = r.setup_seconds;
  out << j.dump() << std::endl;
}

}  // namespace cfx::perf
