// Span16 margin for the demo (demo_margin.h).
#include "demo_margin.h"

#include <cstdio>

#include "cfx/gateway/http_providers.h"
#include "cfx/gateway/http_server.h"
#include "cfx/reference/fix_store.h"
#include "cfx/settlement/ledger.h"

namespace cfx::gateway::demo {
namespace {

std::string Ticks3(int64_t ticks) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%lld.%03lld", static_cast<long long>(ticks / 1000),
                static_cast<long long>(ticks % 1000));
  return buf;
}

std::string E4Text(int64_t e4) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%lld.%04lld", static_cast<long long>(e4 / 10000),
                static_cast<long long>(e4 % 10000));
  return buf;
}

MarginResult ToHttp(const gpu_valuation::MarginEngine& engine,
                    const gpu_valuation::MarginResult& r) {
  MarginResult out;
  out.margin_micro_usd = r.margin_micro;
  out.scenario_count = static_cast<int>(engine.scenarios().scenarios.size());
  out.worst_scenario.number = r.worst_scenario_index + 1;
  out.worst_scenario.label = r.worst_scenario;
  out.worst_scenario.weight = r.weight;
  out.worst_scenario.price_move = r.price_move;
  if (!r.tput_moves.empty()) out.worst_scenario.tput_moves = r.tput_moves.front().second;
  for (const gpu_valuation::PositionRisk& p : r.positions) {
    MarginPositionLine line{.sym = p.sym, .qty = p.qty, .settle = Ticks3(p.settle_ticks)};
    if (p.theta) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.1f", *p.theta);
      line.theta = buf;
    }
    if (p.price_per_mtok_e4) line.price_per_mtok = E4Text(*p.price_per_mtok_e4);
    line.worst_loss_micro_usd = p.worst_loss_micro;
    out.positions.push_back(line);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<gpu_valuation::ThroughputRow>> StoredThroughput(
    const std::string& data_dir, Date date) {
  absl::StatusOr<std::unique_ptr<reference::FixStore>> store = reference::FixStore::Open(data_dir);
  if (!store.ok()) return store.status();
  absl::StatusOr<std::vector<reference::OperatorThroughput>> rows =
      (*store)->LatestThroughput(date);
  if (!rows.ok()) return rows.status();
  std::vector<gpu_valuation::ThroughputRow> out;
  for (const reference::OperatorThroughput& r : *rows) {
    out.push_back({.operator_name = r.operator_name, .tier = r.tier, .gpu = r.gpu,
                   .date = r.date, .output_tps_per_gpu = r.output_tps_per_gpu});
  }
  return out;
}

// Margin endpoints over the ledger. Thread safety: Load() swaps under mu_; queries share
// the engine (MarginEngine is thread-safe).
class LedgerMarginProvider : public MarginProvider {
 public:
  absl::Status Load(const std::string& data_dir, Date date, double psr);
  absl::StatusOr<MarginResult> AccountMargin(const std::string& account,
                                             MarginMethod method) override;
  absl::StatusOr<MarginResult> WhatIf(const std::vector<WhatIfPosition>& positions,
                                      MarginMethod method) override;

 private:
  absl::StatusOr<MarginResult> Compute(const std::string& account,
                                       const std::vector<gpu_valuation::Position>& positions);
  std::mutex mu_;
  std::shared_ptr<gpu_valuation::MarginEngine> engine_;
  std::map<std::string, std::vector<gpu_valuation::Position>> positions_;
};

absl::Status LedgerMarginProvider::Load(const std::string& data_dir, Date date, double psr) {
  absl::StatusOr<std::unique_ptr<settlement::Ledger>> ledger = settlement::Ledger::Open(data_dir);
  if (!ledger.ok()) return ledger.status();
  absl::StatusOr<std::optional<settlement::DayRecord>> day = (*ledger)->ReadDay(date);
  if (!day.ok()) return day.status();
  if (!*day) return absl::FailedPreconditionError(FormatDate(date) + " is not settled");
  std::vector<gpu_valuation::ContractPrice> prices;
  for (const settlement::ContractDay& c : (*day)->contracts) prices.push_back({c.sym, c.settle});
  std::map<std::string, std::vector<gpu_valuation::Position>> positions;
  absl::Status st = (*ledger)->ForEachAccount(date, [&](settlement::AccountDay&& a) {
    std::vector<gpu_valuation::Position>& held = positions[a.account];
    for (const settlement::AccountLine& line : a.lines) {
      const settlement::ContractDay& c = (*day)->contracts[line.contract];
      if (line.qty != 0 && !c.expired) held.push_back({c.sym, line.qty});
    }
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  absl::StatusOr<std::vector<gpu_valuation::ThroughputRow>> tput = StoredThroughput(data_dir, date);
  if (!tput.ok()) return tput.status();
  gpu_valuation::MarginOptions options;
  options.psr = psr;
  options.as_of = date;
  absl::StatusOr<std::unique_ptr<gpu_valuation::MarginEngine>> engine =
      gpu_valuation::MarginEngine::Create(prices, *tput, options);
  if (!engine.ok()) return engine.status();
  std::lock_guard<std::mutex> lock(mu_);
  engine_ = std::move(*engine);
  positions_ = std::move(positions);
  return absl::OkStatus();
}

absl::StatusOr<MarginResult> LedgerMarginProvider::Compute(
    const std::string& account, const std::vector<gpu_valuation::Position>& positions) {
  std::shared_ptr<gpu_valuation::MarginEngine> engine;
  {
    std::lock_guard<std::mutex> lock(mu_);
    engine = engine_;
  }
  if (!engine) return absl::UnavailableError("no settlement yet");
  absl::StatusOr<gpu_valuation::MarginResult> r = engine->ComputeAccount(account, positions);
  if (!r.ok()) {
    if (absl::IsNotFound(r.status())) return absl::InvalidArgumentError(r.status().message());
    return r.status();
  }
  return ToHttp(*engine, *r);
}

absl::StatusOr<MarginResult> LedgerMarginProvider::AccountMargin(const std::string& account,
                                                                 MarginMethod method) {
  if (method != MarginMethod::kSpan16) return absl::InvalidArgumentError("demo serves span16");
  std::vector<gpu_valuation::Position> held;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = positions_.find(account);
    if (it != positions_.end()) held = it->second;
  }
  return Compute(account, held);
}

absl::StatusOr<MarginResult> LedgerMarginProvider::WhatIf(
    const std::vector<WhatIfPosition>& positions, MarginMethod method) {
  if (method != MarginMethod::kSpan16) return absl::InvalidArgumentError("demo serves span16");
  std::vector<gpu_valuation::Position> held;
  for (const WhatIfPosition& p : positions) held.push_back({p.sym, p.qty});
  return Compute("what-if", held);
}

struct LedgerHttp::Impl {
  LedgerMarginProvider margin;
  std::unique_ptr<HttpServer> server;
};

absl::StatusOr<std::unique_ptr<LedgerHttp>> LedgerHttp::Start(const ExchangeConfig& config) {
  auto impl = std::make_unique<Impl>();
  ExchangeConfig http = config;
  http.http_port = 0;
  impl->server = std::make_unique<HttpServer>(http, HttpProviders{.margin = &impl->margin});
  if (absl::Status s = impl->server->Start(); !s.ok()) return s;
  return std::unique_ptr<LedgerHttp>(new LedgerHttp(std::move(impl)));
}

LedgerHttp::LedgerHttp(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LedgerHttp::~LedgerHttp() { Stop(); }
absl::Status LedgerHttp::Load(const std::string& data_dir, Date date, double psr) {
  return impl_->margin.Load(data_dir, date, psr);
}
int LedgerHttp::port() const { return impl_->server->port(); }
void LedgerHttp::Stop() { impl_->server->Stop(); }

}  // namespace cfx::gateway::demo
