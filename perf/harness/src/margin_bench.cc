#include "cfx/perf/margin_bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/gpu_valuation/margin_engine.h"
#include "nlohmann/json.hpp"
#include "margin_floor.h"
#include "margin_inputs.h"
#include "timing.h"

namespace cfx::perf {
namespace {

namespace gv = cfx::gpu_valuation;
using internal::AccountGenerator;
using internal::SecondsSince;
using internal::SyntheticPrices;
using internal::SyntheticThroughput;
using Clock = std::chrono::steady_clock;

// CPU time of the whole process (all threads): on a shared machine wall time overstates
// the cost, so the bench also reports evaluations per CPU-second.
double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
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

std::vector<gv::AccountPositions> SyntheticAccounts(const std::vector<gv::ContractPrice>& prices,
                                                    int64_t accounts, int per,
                                                    std::mt19937_64& rng) {
  std::vector<gv::AccountPositions> out(accounts);
  AccountGenerator gen(prices, per, &rng);
  for (gv::AccountPositions& a : out) gen.Next(&a);
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

// The plain loop of margin_floor.h over the same resident batch.
internal::FloorBatch FloorOf(const gv::MarginEngine& engine, const gv::PortfolioBatch& batch) {
  return {engine.table().values.data(), engine.table().num_scenarios, batch.offsets.data(),
          batch.contracts.data(), batch.qtys.data(), batch.size()};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Evaluator-only timing with resident portfolios: the batch the GPU or the threads
// accelerate. Loads the batch, evaluates once to warm up, then times `iterations` batches
// (with `floor`, each followed by one plain-loop batch on the same data); fills the load,
// median, CPU and floor figures of `result` and leaves the answers in `answers`.
absl::Status TimeEvaluator(gv::Evaluator& ev, const gv::MarginEngine& engine,
                           const gv::PortfolioBatch& batch, const MarginBenchOptions& options,
                           MarginBenchResult* result, std::vector<gv::RankedLoss>* answers) {
  Clock::time_point t0 = Clock::now();
  absl::Status s = ev.SetTable(engine.table());
  if (s.ok()) s = ev.SetPortfolios(batch);
  result->load_seconds = SecondsSince(t0);
  if (s.ok()) s = ev.Evaluate(engine.scenarios().rank, answers);  // warm-up
  const internal::FloorBatch floor_batch = FloorOf(engine, batch);
  const int floor_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int64_t> floor_max(batch.size());
  if (s.ok() && options.floor) {
    internal::PlainLoopMaxLoss(floor_batch, floor_threads, floor_max.data());  // warm-up
  }
  std::vector<double> times, floor_times;
  double cpu = 0;
  for (int i = 0; s.ok() && i < options.iterations; ++i) {
    const double cpu0 = ProcessCpuSeconds();
    t0 = Clock::now();
    s = ev.Evaluate(engine.scenarios().rank, answers);
    times.push_back(SecondsSince(t0));
    cpu += ProcessCpuSeconds() - cpu0;
    if (options.floor) {
      t0 = Clock::now();
      internal::PlainLoopMaxLoss(floor_batch, floor_threads, floor_max.data());
      floor_times.push_back(SecondsSince(t0));
    }
  }
  if (!s.ok()) return s;
  result->cpu_seconds_per_batch = cpu / options.iterations;
  result->seconds = Median(times);
  if (options.floor) {
    result->floor_seconds = Median(floor_times);
    result->floor_threads = floor_threads;
    if (engine.scenarios().rank == 1) {
      bool agree = true;
      for (size_t i = 0; i < batch.size(); ++i) agree &= floor_max[i] == (*answers)[i].loss;
      result->floor_agrees = agree;
    }
  }
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

// FNV-1a over (loss, scenario) of each answer in turn (MarginBenchResult::answers_checksum).
class AnswersChecksum {
 public:
  void Add(int64_t loss, int32_t scenario) {
    Mix(static_cast<uint64_t>(loss));
    Mix(static_cast<uint64_t>(static_cast<int64_t>(scenario)));
  }
  uint64_t value() const { return h_; }

 private:
  void Mix(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h_ ^= (v >> (8 * i)) & 0xff;
      h_ *= 1099511628211ull;
    }
  }
  uint64_t h_ = 1469598103934665603ull;
};

int64_t PeakRssBytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<int64_t>(u.ru_maxrss) * 1024;  // Linux: KiB
}

// The large-book mode: the book through ComputeStream, generated batch by batch.
absl::Status RunStream(const gv::MarginEngine& engine, const std::vector<gv::ContractPrice>& prices,
                       int per, const MarginBenchOptions& options, std::mt19937_64& rng,
                       MarginBenchResult* result) {
  AccountGenerator gen(prices, per, &rng);
  int64_t generated = 0;
  AnswersChecksum checksum;
  std::string backend;
  const Clock::time_point t0 = Clock::now();
  absl::Status s = engine.ComputeStream(
      [&](gv::AccountPositions* account) {
        if (generated == options.accounts) return false;
        ++generated;
        gen.Next(account);
        return true;
      },
      static_cast<size_t>(options.stream_batch),
      [&](std::vector<gv::MarginResult> batch) {
        for (const gv::MarginResult& r : batch) checksum.Add(r.loss_micro, r.worst_scenario_index);
        if (!batch.empty()) backend = batch.front().backend;
        return absl::OkStatus();
      });
  result->stream_seconds = SecondsSince(t0);
  result->answers_checksum = checksum.value();
  result->backend = backend;
  return s;
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
  result.accounts = options.accounts;
  result.positions = per;
  result.scenarios = (*engine)->table().num_scenarios;
  result.rank = (*engine)->scenarios().rank;
  result.method = gv::MethodName(engine_options.method);
  result.iterations = options.iterations;
  result.evals = static_cast<double>(options.accounts) * per * result.scenarios;
  result.all_losses_bytes = static_cast<double>(options.accounts) * result.scenarios * 8;
  result.streamed_bytes = result.evals * 8;
  result.resident_bytes = static_cast<double>((*engine)->table().values.size()) * 8 +
                          static_cast<double>(options.accounts) * (per * 12 + 8 + 12);
  if (options.stream_batch > 0) {
    result.stream_batch = options.stream_batch;
    absl::Status s = RunStream(**engine, prices, per, options, rng, &result);
    result.peak_rss_bytes = PeakRssBytes();
    if (!s.ok()) return s;
    return result;
  }

  const std::vector<gv::AccountPositions> accounts =
      SyntheticAccounts(prices, options.accounts, per, rng);
  const gv::PortfolioBatch batch = ResidentBatch(**engine, accounts);
  auto evaluator = gv::MakeEvaluator(engine_options.backend);
  if (!evaluator.ok()) return evaluator.status();
  result.backend = (*evaluator)->Name();
  if (result.backend == "cuda") {
    absl::StatusOr<gv::DeviceDescription> device = gv::DescribeCudaDevice();
    if (device.ok()) {
      result.device = device->name;
      result.peak_memory_bytes_per_sec = device->peak_memory_bytes_per_sec;
    }
  }
  std::vector<gv::RankedLoss> answers;
  absl::Status s = TimeEvaluator(**evaluator, **engine, batch, options, &result, &answers);
  if (!s.ok()) return s;
  if (options.verify) result.verified = SameOnCpu(**engine, batch, answers);
  AnswersChecksum checksum;
  for (const gv::RankedLoss& a : answers) checksum.Add(a.loss, a.scenario);
  result.answers_checksum = checksum.value();

  // End to end once: netting, evaluation and the per-position answer.
  t0 = Clock::now();
  auto many = (*engine)->ComputeMany(accounts);
  result.compute_many_seconds = SecondsSince(t0);
  if (!many.ok()) return many.status();
  result.peak_rss_bytes = PeakRssBytes();
  return result;
}

namespace {

// The JSON fields every report starts with: what was run, on what.
nlohmann::ordered_json ShapeJson(const MarginBenchResult& r) {
  nlohmann::ordered_json j;
  j["bench"] = "margin";
  j["backend"] = r.backend;
  j["method"] = r.method;
  j["accounts"] = r.accounts;
  j["positions"] = r.positions;
  j["scenarios"] = r.scenarios;
  j["evals"] = r.evals;
  return j;
}

void PrintStream(const MarginBenchResult& r, std::ostream& out) {
  out << "margin bench (large book): " << r.accounts << " accounts x " << r.positions
      << " positions x " << r.scenarios << " scenarios (" << r.method << ", rank " << r.rank
      << ") on " << r.backend << ", ComputeStream in batches of " << r.stream_batch << "\n"
      << "  " << r.stream_seconds << " s end to end = " << r.evals / r.stream_seconds
      << " evals/s; peak RSS " << r.peak_rss_bytes / 1048576.0 << " MiB (all losses at once "
      << r.all_losses_bytes / 1048576.0 << " MiB)\n";
  nlohmann::ordered_json j = ShapeJson(r);
  j["mode"] = "stream";
  j["stream_batch"] = r.stream_batch;
  j["seconds"] = r.stream_seconds;
  j["evals_per_sec"] = r.evals / r.stream_seconds;
  j["peak_rss_bytes"] = r.peak_rss_bytes;
  j["all_losses_bytes"] = r.all_losses_bytes;
  j["answers_checksum"] = absl::StrCat(absl::Hex(r.answers_checksum, absl::kZeroPad16));
  out << j.dump() << std::endl;
}

}  // namespace

void PrintMarginBench(const MarginBenchResult& r, std::ostream& out) {
  if (r.stream_batch > 0) {
    PrintStream(r, out);
    return;
  }
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
  const double evals_per_sec = r.evals / r.seconds;
  const double floor_per_sec = r.floor_seconds > 0 ? r.evals / r.floor_seconds : 0;
  out << "  bytes per batch: " << r.streamed_bytes << " streamed (8 per evaluation) = "
      << r.streamed_bytes / r.seconds / 1e9 << " GB/s; " << r.resident_bytes
      << " resident (table, portfolios, answers once)\n";
  if (r.peak_memory_bytes_per_sec > 0) {
    out << "  " << r.device << ": peak memory bandwidth " << r.peak_memory_bytes_per_sec / 1e9
        << " GB/s; floor " << r.streamed_bytes / r.peak_memory_bytes_per_sec
        << " s streamed, " << r.resident_bytes / r.peak_memory_bytes_per_sec
        << " s resident; measured " << r.seconds << " s\n";
  }
  if (r.floor_seconds > 0) {
    out << "  plain loop (int64 multiply-add + max per account, -O2, " << r.floor_threads
        << " threads), median of " << r.iterations << ": " << r.floor_seconds
        << " s = " << floor_per_sec << " evals/s; evaluator / plain loop = "
        << evals_per_sec / floor_per_sec << "\n";
  }
  nlohmann::ordered_json j = ShapeJson(r);
  if (r.verified.has_value()) j["verified"] = *r.verified;
  j["answers_checksum"] = absl::StrCat(absl::Hex(r.answers_checksum, absl::kZeroPad16));
  j["seconds"] = r.seconds;
  j["evals_per_sec"] = evals_per_sec;
  j["cpu_seconds_per_batch"] = r.cpu_seconds_per_batch;
  j["evals_per_cpu_sec"] = r.evals / r.cpu_seconds_per_batch;
  j["load_seconds"] = r.load_seconds;
  j["compute_many_seconds"] = r.compute_many_seconds;
  j["setup_seconds"] = r.setup_seconds;
  j["peak_rss_bytes"] = r.peak_rss_bytes;
  j["streamed_bytes"] = r.streamed_bytes;
  j["streamed_bytes_per_sec"] = r.streamed_bytes / r.seconds;
  j["resident_bytes"] = r.resident_bytes;
  if (r.peak_memory_bytes_per_sec > 0) {
    j["device"] = r.device;
    j["peak_memory_bytes_per_sec"] = r.peak_memory_bytes_per_sec;
    j["bandwidth_floor_seconds"] = r.streamed_bytes / r.peak_memory_bytes_per_sec;
    j["resident_floor_seconds"] = r.resident_bytes / r.peak_memory_bytes_per_sec;
  }
  if (r.floor_seconds > 0) {
    j["floor_seconds"] = r.floor_seconds;
    j["floor_evals_per_sec"] = floor_per_sec;
    j["floor_threads"] = r.floor_threads;
    j["ratio_to_floor"] = evals_per_sec / floor_per_sec;
    if (r.floor_agrees.has_value()) j["floor_agrees"] = *r.floor_agrees;
  }
  out << j.dump() << std::endl;
}

}  // namespace cfx::perf
