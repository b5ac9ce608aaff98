// The margin engine (SPEC §10): scenario margin for accounts, what-if portfolios and the
// per-contract initial margin used by the pre-trade risk check.
//
//   MarginOptions opt;                      // span16, PSR 0.15
//   opt.as_of = date;                       // throughput rows dated <= date count
//   auto engine = MarginEngine::Create(prices, throughput_rows, opt);
//   if (!engine.ok()) return engine.status();
//   absl::StatusOr<MarginResult> r = (*engine)->ComputeAccount("A1", {{"B200-GOLD-US-202703", 5}});
//   std::vector<AccountPositions> accounts = ...;
//   auto all = (*engine)->ComputeMany(accounts);         // batched: GPU or threads
//   (*engine)->ComputeStream(next_account, 65536, sink);  // a book of any size, by batches
//   auto im = (*engine)->PerContractInitialMargin("B200-GOLD-US-202703");  // micro-USD
#ifndef CFX_GPU_VALUATION_MARGIN_ENGINE_H_
#define CFX_GPU_VALUATION_MARGIN_ENGINE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/gpu_valuation/evaluator.h"
#include "cfx/gpu_valuation/scenarios.h"
#include "cfx/gpu_valuation/throughput.h"

namespace cfx::gpu_valuation {

// The highest settlement price the engine values: 10^6 USD per GPU-hour, far above any real
// price; it keeps |U| below ~1.2e17 micro-USD for every accepted move, so the double -> int64
// conversion is always in range. Create refuses a price above it.
inline constexpr int64_t kMaxSettleTicks = 1'000'000'000;

// The price the exchange values a contract at: its price, or kMaxSettleTicks above it. The
// exchange's own consumers (the margin basis of `cfx serve`, `cfx settle`'s margin calls)
// value with it, so that a trade at an absurd price on a contract without a band cannot stop
// the exchange from starting or a day from settling; the margin at the cap is already far
// beyond any collateral (docs/valuation.md, "Prices past the engine's range").
inline int64_t ValuedTicks(int64_t settle_ticks) {
  return settle_ticks > kMaxSettleTicks ? kMaxSettleTicks : settle_ticks;
}

// The most memory the U table (one int64 per contract and scenario) may take: 8 GiB, e.g.
// 1,000 contracts × 1,000,000 scenarios. Past it Create refuses, naming both counts, rather
// than ending the process on a failed allocation.
inline constexpr uint64_t kMaxTableBytes = 8ull << 30;

// Latest settlement price S_c of a contract, in 0.001 USD ticks (> 0).
struct ContractPrice {
  std::string sym;  // "B200-GOLD-US-202703"
  int64_t settle_ticks = 0;
};

struct Position {
  std::string sym;
  int64_t qty = 0;  // signed lots; duplicate rows of one symbol are summed
};

struct AccountPositions {
  std::string account;
  std::vector<Position> positions;
};

struct MarginOptions {
  ScenarioMethod method = ScenarioMethod::kSpan16;
  double psr = kDefaultPsr;
  int32_t mc_scenarios = kDefaultMcScenarios;
  uint64_t mc_seed = kDefaultMcSeed;
  // method == kFile: the parsed file (ReadScenarioFile).
  std::optional<ScenarioSet> file_scenarios;
  // Only throughput rows dated <= as_of count (all rows when unset).
  std::optional<common::Date> as_of;
  BackendChoice backend = BackendChoice::kAuto;
};

struct PositionRisk {
  std::string sym;
  int64_t qty = 0;  // net
  int64_t settle_ticks = 0;
  std::optional<double> theta;               // θ_g: median output tokens/s per GPU
  std::optional<int64_t> price_per_mtok_e4;  // USD per 1M tokens × 10^4 (4 dp), null without θ
  int64_t worst_loss_micro = 0;              // -qty × U[c][worst scenario]
};

struct MarginResult {
  std::string account;
  std::string method;                // "span16", "mc", "file"
  std::string backend;               // "cpu" or "cuda"
  int64_t loss_micro = 0;            // L(worst scenario), may be negative
  int64_t margin_micro = 0;          // max(0, loss_micro)
  int64_t margin_cents = 0;          // margin_micro rounded half to even to cents
  int32_t worst_scenario_index = 0;  // 0-based into the scenario set
  std::string worst_scenario;        // its label: "1".."16", "1".."N" or the file's label
  double weight = 1.0;
  double price_move = 0.0;  // a of the worst scenario
  // Throughput move b per tier for each gpu held by the account, sorted by gpu.
  std::vector<std::pair<std::string, std::array<double, common::kNumTiers>>> tput_moves;
  std::vector<PositionRisk> positions;  // netted, sorted by symbol
};

// Thread safety: all methods may be called concurrently; batches are serialised on one
// evaluator (the GPU or the CPU thread pool, which each use the whole machine).
class MarginEngine {
 public:
  // Builds the scenario set and the U table for every contract in `prices`. InvalidArgument
  // on a bad symbol, a duplicate or non-positive price, bad options or scenario file;
  // ResourceExhausted when the table (contracts × scenarios × 8 bytes) would pass
  // kMaxTableBytes or cannot be allocated; Unavailable if options.backend == kCuda and no
  // device is usable.
  static absl::StatusOr<std::unique_ptr<MarginEngine>> Create(std::vector<ContractPrice> prices,
                                                              std::vector<ThroughputRow> throughput,
                                                              const MarginOptions& options);

  // Margin of one portfolio (what-if or account). NotFound for a symbol without a price;
  // InvalidArgument when the portfolio is too large to evaluate exactly in int64.
  absl::StatusOr<MarginResult> ComputeAccount(const std::string& account,
                                              const std::vector<Position>& positions) const;
  // One result per account, in input order, evaluated as one batch.
  absl::StatusOr<std::vector<MarginResult>> ComputeMany(
      const std::vector<AccountPositions>& accounts) const;
  // A book too large to hold at once: accounts are read from `next` (it fills *account and
  // returns true, or returns false at the end) and evaluated in batches of at most
  // `batch_accounts` (>= 1), each batch's results handed to `sink` in input order before the
  // next batch is read. Memory is bounded by one batch, its results and the evaluator's
  // per-thread scratch (one loss vector per thread), whatever the book's size. The results
  // are those of ComputeMany on the whole book. Stops at the first error of a batch (as
  // ComputeMany) or of `sink`, which is returned; InvalidArgument if batch_accounts < 1.
  absl::Status ComputeStream(absl::FunctionRef<bool(AccountPositions* account)> next,
                             size_t batch_accounts,
                             absl::FunctionRef<absl::Status(std::vector<MarginResult> batch)> sink)
      const;
  // Initial margin per contract for the pre-trade check: the margin of a one-lot position,
  // the larger of long and short, in micro-USD rounded to cents. NotFound without a price.
  absl::StatusOr<int64_t> PerContractInitialMargin(absl::string_view sym) const;

  const ScenarioSet& scenarios() const { return scenarios_; }
  const UTable& table() const { return table_; }
  const TsrTable& tsr() const { return tsr_; }
  std::string backend() const;
  // Index of `sym` in the U table, or -1.
  int32_t ContractIndex(absl::string_view sym) const;

 private:
  struct Contract {
    ContractPrice price;
    common::Grade grade;
    std::optional<double> theta;
    std::optional<int64_t> price_per_mtok_e4;
  };
  MarginEngine() = default;
  MarginResult Describe(const std::string& account,
                        const std::vector<std::pair<int32_t, int64_t>>& netted,
                        const RankedLoss& worst, const std::string& backend_name) const;

  std::vector<Contract> contracts_;  // sorted by symbol; index = U table row
  ScenarioSet scenarios_;
  TsrTable tsr_;
  UTable table_;
  // By contract: the largest |U| over the scenarios (the exactness bound of a portfolio is
  // Σ |q_c| × this, so a contract an account does not hold never refuses it).
  std::vector<int64_t> max_abs_u_;
  mutable std::mutex mu_;  // guards evaluator_ (replaced by the CPU after a device failure)
  mutable std::unique_ptr<Evaluator> evaluator_;
};

// Builds U[c][s] = round_half_even((S_c(s) - S_c) × 1000 × weight_s × 10^6) in double with
// S_c(s) = S_c × (1 + a_s) × (1 + b_{s,tier}), in exactly that evaluation order.
int64_t ScenarioValueChangeMicro(int64_t settle_ticks, double a, double b, double weight);

// "123.45" from micro-USD, rounded half to even to cents.
std::string FormatMicroAsUsd(int64_t micro);

}  // namespace cfx::gpu_valuation

#endif  // CFX_GPU_VALUATION_MARGIN_ENGINE_H_
