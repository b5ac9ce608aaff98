#include "cfx/gpu_valuation/margin_engine.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <set>

#include "absl/strings/str_cat.h"
#include "cfx/common/decimal.h"
#include "cfx/reference/methodology.h"
#include "cfx/reference/throughput.h"

namespace cfx::gpu_valuation {
namespace {

absl::StatusOr<ScenarioSet> BuildScenarios(const MarginOptions& options, const TsrTable& tsr) {
  switch (options.method) {
    case ScenarioMethod::kSpan16:
      return BuildSpan16(options.psr, tsr);
    case ScenarioMethod::kMonteCarlo:
      return BuildMonteCarlo(options.psr, tsr, options.mc_scenarios, options.mc_seed);
    case ScenarioMethod::kFile:
      if (!options.file_scenarios.has_value() || options.file_scenarios->scenarios.empty()) {
        return absl::InvalidArgumentError("method file needs a scenario file");
      }
      return *options.file_scenarios;
  }
  return absl::InvalidArgumentError("unknown method");
}

}  // namespace

absl::StatusOr<std::unique_ptr<MarginEngine>> MarginEngine::Create(
    std::vector<ContractPrice> prices, std::vector<ThroughputRow> throughput,
    const MarginOptions& options) {
  std::unique_ptr<MarginEngine> engine(new MarginEngine());
  std::sort(prices.begin(), prices.end(),
            [](const ContractPrice& a, const ContractPrice& b) { return a.sym < b.sym; });
  std::map<std::string, common::Tier> operator_tier;
  for (const ThroughputRow& r : throughput) {
    if (!(r.output_tps_per_gpu > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("throughput of operator ", r.operator_name, " must be positive"));
    }
    // θ is exact on tokens/s × 10^6 (reference::TpsE6), as the input files state them.
    if (!(r.output_tps_per_gpu >= reference::kMinTps &&
          r.output_tps_per_gpu <= reference::kMaxTps)) {
      return absl::InvalidArgumentError(
          absl::StrCat("throughput of operator ", r.operator_name, " must be in [1, 1000000000]"));
    }
    auto [it, inserted] = operator_tier.try_emplace(r.operator_name, r.tier);
    if (!inserted && it->second != r.tier) {
      return absl::InvalidArgumentError(
          absl::StrCat("operator ", r.operator_name, " listed under two tiers"));
    }
  }
  const std::vector<ThroughputRow> latest = reference::LatestPerOperator(throughput, options.as_of);
  engine->tsr_ = ComputeTsr(latest);
  absl::StatusOr<ScenarioSet> scenarios = BuildScenarios(options, engine->tsr_);
  if (!scenarios.ok()) return scenarios.status();
  engine->scenarios_ = std::move(*scenarios);

  for (size_t i = 0; i < prices.size(); ++i) {
    if (i > 0 && prices[i].sym == prices[i - 1].sym) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate price for ", prices[i].sym));
    }
    absl::StatusOr<common::ContractSymbol> sym = common::ParseSymbol(prices[i].sym);
    if (!sym.ok()) return absl::InvalidArgumentError(absl::StrCat("bad symbol ", prices[i].sym));
    if (prices[i].settle_ticks <= 0 || prices[i].settle_ticks > kMaxSettleTicks) {
      return absl::InvalidArgumentError(
          absl::StrCat("settlement price of ", prices[i].sym, " out of range"));
    }
    Contract c;
    c.price = prices[i];
    c.grade = sym->grade;
    // θ and the price per million tokens as `cfx reference build` publishes them (SPEC §8:
    // the mean of the middle two, exact; the price from 2θ in integers), so `cfx margin`,
    // the HTTP answer and the fix record show one number. Until 2026-12-07 the margin printed
    // the interpolated double (260.70000000000005 against the record's 260.7) and took the
    // price from it, which could differ in the last digit.
    const std::optional<reference::Theta> theta =
        reference::GradeTheta(latest, c.grade.gpu, c.grade.tier, options.as_of);
    if (theta.has_value()) {
      c.theta = theta->Value();
      c.price_per_mtok_e4 =
          reference::PricePerMtokE4(c.price.settle_ticks * 10, theta->two_theta_e6());
    }
    engine->contracts_.push_back(std::move(c));
  }

  UTable& u = engine->table_;
  u.num_contracts = static_cast<int32_t>(engine->contracts_.size());
  u.num_scenarios = static_cast<int32_t>(engine->scenarios_.scenarios.size());
  const uint64_t cells = static_cast<uint64_t>(u.num_contracts) * u.num_scenarios;
  auto too_large = [&] {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the scenario table of ", u.num_contracts, " contracts x ", u.num_scenarios,
        " scenarios needs ", cells * sizeof(int64_t) >> 20, " MiB, more than ",
        kMaxTableBytes >> 20, " MiB (fewer scenarios, or a prices file of the contracts held)"));
  };
  if (cells > kMaxTableBytes / sizeof(int64_t)) return too_large();
  try {
    u.values.resize(static_cast<size_t>(cells));
  } catch (const std::bad_alloc&) {
    return too_large();
  }
  engine->max_abs_u_.assign(static_cast<size_t>(u.num_contracts), 0);
  for (int32_t c = 0; c < u.num_contracts; ++c) {
    const Contract& contract = engine->contracts_[c];
    for (int32_t s = 0; s < u.num_scenarios; ++s) {
      const Scenario& sc = engine->scenarios_.scenarios[s];
      const double b = engine->scenarios_.TputMove(sc, contract.grade.gpu, contract.grade.tier);
      const int64_t v =
          ScenarioValueChangeMicro(contract.price.settle_ticks, sc.price_move, b, sc.weight);
      u.values[static_cast<size_t>(c) * u.num_scenarios + s] = v;
      engine->max_abs_u_[c] = std::max(engine->max_abs_u_[c], v < 0 ? -v : v);
    }
  }

  absl::StatusOr<std::unique_ptr<Evaluator>> evaluator = MakeEvaluator(options.backend);
  if (!evaluator.ok()) return evaluator.status();
  engine->evaluator_ = std::move(*evaluator);
  absl::Status s = engine->evaluator_->SetTable(u);
  if (!s.ok() && options.backend == BackendChoice::kAuto && engine->evaluator_->Name() != "cpu") {
    // The device could not take the table (its memory held by another process, a small
    // MIG slice): the CPU gives the identical answer, as after a failure in ComputeMany.
    // Until 2026-12-07 the error ended `cfx margin`, a settlement or the serve's margin basis.
    if (std::getenv("CFX_DEBUG") != nullptr) {
      std::fprintf(stderr, "cfx gpu_valuation: the table on the CPU: %s\n",
                   std::string(s.message()).c_str());
    }
    engine->evaluator_ = MakeCpuEvaluator();
    s = engine->evaluator_->SetTable(u);
  }
  if (!s.ok()) return s;
  return engine;
}

int32_t MarginEngine::ContractIndex(absl::string_view sym) const {
  auto it = std::lower_bound(
      contracts_.begin(), contracts_.end(), sym,
      [](const Contract& c, absl::string_view s) { return absl::string_view(c.price.sym) < s; });
  if (it == contracts_.end() || it->price.sym != sym) return -1;
  return static_cast<int32_t>(it - contracts_.begin());
}

std::string MarginEngine::backend() const {
  std::lock_guard<std::mutex> lock(mu_);
  return evaluator_->Name();
}

absl::StatusOr<MarginResult> MarginEngine::ComputeAccount(
    const std::string& account, const std::vector<Position>& positions) const {
  absl::StatusOr<std::vector<MarginResult>> r = ComputeMany({{account, positions}});
  if (!r.ok()) return r.status();
  return std::move((*r)[0]);
}

absl::StatusOr<std::vector<MarginResult>> MarginEngine::ComputeMany(
    const std::vector<AccountPositions>& accounts) const {
  // Net each account (contract index -> summed qty), check the int64 bound, and build CSR.
  std::vector<std::vector<std::pair<int32_t, int64_t>>> netted(accounts.size());
  PortfolioBatch batch;
  batch.offsets.reserve(accounts.size() + 1);
  for (size_t i = 0; i < accounts.size(); ++i) {
    // Sort by contract index and merge duplicates (cheaper than a map for ~10 positions).
    std::vector<std::pair<int32_t, int64_t>> rows;
    rows.reserve(accounts[i].positions.size());
    for (const Position& p : accounts[i].positions) {
      const int32_t c = ContractIndex(p.sym);
      if (c < 0) {
        return absl::NotFoundError(
            absl::StrCat("account ", accounts[i].account, ": no settlement price for ", p.sym));
      }
      rows.emplace_back(c, p.qty);
    }
    std::sort(rows.begin(), rows.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    // Every partial sum of qty × U, in any order, is bounded by Σ |q_c| × max_s |U[c][s]|:
    // kept inside int64. By contract: until 2026-12-07 the bound took the largest |U| of
    // every contract, so one expensive contract refused accounts that did not hold it.
    constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
    __int128 bound = 0;
    bool exact = true;
    for (size_t k = 0; k < rows.size() && exact;) {
      const int32_t c = rows[k].first;
      __int128 q = 0;
      for (; k < rows.size() && rows[k].first == c; ++k) q += rows[k].second;
      if (q > kMax || q < -kMax) {
        exact = false;
        break;
      }
      bound += (q < 0 ? -q : q) * max_abs_u_[static_cast<size_t>(c)];  // < 2^126 each
      exact = bound <= kMax;
      netted[i].emplace_back(c, static_cast<int64_t>(q));
      if (q != 0) batch.AddEntry(c, static_cast<int64_t>(q));
    }
    if (!exact) {
      return absl::InvalidArgumentError(
          absl::StrCat("account ", accounts[i].account, ": positions too large to value exactly"));
    }
    batch.EndPortfolio();
  }

  std::vector<RankedLoss> worst;
  std::string backend_name;
  {
    std::lock_guard<std::mutex> lock(mu_);
    absl::Status s = evaluator_->SetPortfolios(batch);
    if (s.ok()) s = evaluator_->Evaluate(scenarios_.rank, &worst);
    if (!s.ok() && evaluator_->Name() != "cpu") {
      // A device failure must not stop margining: the CPU gives the identical answer.
      if (std::getenv("CFX_DEBUG") != nullptr) {
        std::fprintf(stderr, "cfx gpu_valuation: falling back to the CPU: %s\n",
                     std::string(s.message()).c_str());
      }
      evaluator_ = MakeCpuEvaluator();
      s = evaluator_->SetTable(table_);
      if (s.ok()) s = evaluator_->SetPortfolios(batch);
      if (s.ok()) s = evaluator_->Evaluate(scenarios_.rank, &worst);
    }
    if (!s.ok()) return s;
    backend_name = evaluator_->Name();
  }
  std::vector<MarginResult> results;
  results.reserve(accounts.size());
  for (size_t i = 0; i < accounts.size(); ++i) {
    results.push_back(Describe(accounts[i].account, netted[i], worst[i], backend_name));
  }
  return results;
}

absl::Status MarginEngine::ComputeStream(
    absl::FunctionRef<bool(AccountPositions* account)> next, size_t batch_accounts,
    absl::FunctionRef<absl::Status(std::vector<MarginResult> batch)> sink) const {
  if (batch_accounts < 1) return absl::InvalidArgumentError("batch_accounts must be >= 1");
  std::vector<AccountPositions> batch;
  bool more = true;
  while (more) {
    batch.clear();
    AccountPositions account;
    while (batch.size() < batch_accounts && (more = next(&account))) {
      batch.push_back(std::move(account));
      account = AccountPositions();
    }
    if (batch.empty()) break;
    absl::StatusOr<std::vector<MarginResult>> results = ComputeMany(batch);
    if (!results.ok()) return results.status();
    if (absl::Status s = sink(*std::move(results)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

MarginResult MarginEngine::Describe(const std::string& account,
                                    const std::vector<std::pair<int32_t, int64_t>>& netted,
                                    const RankedLoss& worst,
                                    const std::string& backend_name) const {
  MarginResult r;
  r.account = account;
  r.method = MethodName(scenarios_.method);
  r.backend = backend_name;
  r.loss_micro = worst.loss;
  r.margin_micro = std::max<int64_t>(0, worst.loss);
  r.margin_cents = common::DivRoundHalfEven(r.margin_micro, 10'000);
  r.worst_scenario_index = worst.scenario;
  const Scenario& sc = scenarios_.scenarios[worst.scenario];
  r.worst_scenario = sc.label;
  r.weight = sc.weight;
  r.price_move = sc.price_move;
  std::set<std::string> gpus;
  for (const auto& [c, q] : netted) {
    const Contract& contract = contracts_[c];
    gpus.insert(contract.grade.gpu);
    PositionRisk p;
    p.sym = contract.price.sym;
    p.qty = q;
    p.settle_ticks = contract.price.settle_ticks;
    p.theta = contract.theta;
    p.price_per_mtok_e4 = contract.price_per_mtok_e4;
    p.worst_loss_micro = -q * table_.At(c, worst.scenario);
    r.positions.push_back(std::move(p));
  }
  for (const std::string& gpu : gpus) {
    std::array<double, common::kNumTiers> moves;
    for (int t = 0; t < common::kNumTiers; ++t)
      moves[t] = scenarios_.TputMove(sc, gpu, static_cast<common::Tier>(t));
    r.tput_moves.emplace_back(gpu, moves);
  }
  return r;
}

absl::StatusOr<int64_t> MarginEngine::PerContractInitialMargin(absl::string_view sym) const {
  const std::string s(sym);
  absl::StatusOr<std::vector<MarginResult>> r =
      ComputeMany({{"long", {{s, 1}}}, {"short", {{s, -1}}}});
  if (!r.ok()) return r.status();
  return std::max((*r)[0].margin_cents, (*r)[1].margin_cents) * 10'000;
}

}  // namespace cfx::gpu_valuation
