// Demo step d: the settlement batch for a trading day, as `cfx settle --date D --data-dir
// <out>/data --out <out>/statements --config demo.toml` runs it, with span16 initial margin
// from the reference store's throughput (settlement/valuation_margin.h).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cfx/settlement/batch.h"
#include "cfx/settlement/ledger.h"
#include "cfx/settlement/reference_fixes.h"
#include "cfx/settlement/trade_store.h"
#include "cfx/settlement/valuation_margin.h"
#include "demo_internal.h"

namespace cfx::demo {

absl::StatusOr<SettleDayResult> SettleDay(const common::ExchangeConfig& config, common::Date date,
                                          const DemoPaths& paths, std::ostream& log) {
  settlement::SettleConfig settle_config;
  settle_config.calendar = config.Calendar();
  for (const common::ProductConfig& p : config.products) settle_config.grades.push_back(p.grade);
  for (const common::AccountConfig& a : config.accounts) {
    settle_config.collateral[a.id] = a.collateral;
  }
  absl::StatusOr<std::unique_ptr<settlement::TradeSource>> trades =
      settlement::OpenLmdbTradeSource(paths.data);
  if (!trades.ok()) return trades.status();
  absl::StatusOr<std::unique_ptr<settlement::FixSource>> fixes =
      settlement::OpenReferenceFixSource(paths.data);
  if (!fixes.ok()) return fixes.status();
  absl::StatusOr<std::unique_ptr<settlement::MarginSource>> margin =
      settlement::OpenValuationMarginSource(paths.data, date, config.psr);
  if (!margin.ok()) return margin.status();

  settlement::SettleInputs inputs{trades->get(), fixes->get(), margin->get()};
  settlement::SettleOptions options{.data_dir = paths.data, .out_dir = paths.statements};
  absl::StatusOr<settlement::SettleReport> report =
      settlement::SettleDate(date, settle_config, inputs, options);
  if (!report.ok()) return report.status();

  SettleDayResult result;
  result.date = date;
  result.margin_available = report->day.margin_available;
  result.margin_source = "span16 (settlement::OpenValuationMarginSource, PSR " +
                         std::to_string(config.psr).substr(0, 4) + ", stored throughput)";
  result.listed = static_cast<int64_t>(report->day.contracts.size());
  for (const settlement::ContractDay& c : report->day.contracts) {
    ++result.tiers[settlement::PriceTierName(c.tier)];
    result.contracts.push_back({.sym = c.sym,
                                .settle = c.settle,
                                .tier = settlement::PriceTierName(c.tier),
                                .prior_settle = c.prior_settle});
  }
  absl::StatusOr<std::unique_ptr<settlement::Ledger>> ledger = settlement::Ledger::Open(paths.data);
  if (!ledger.ok()) return ledger.status();
  std::map<std::string, bool> active;  // contracts with a position at the end of the day
  absl::Status st = (*ledger)->ForEachAccount(date, [&](settlement::AccountDay&& a) {
    AccountSettlement s{.account = a.account,
                        .vm = a.VmTotal(),
                        .cash = a.cash,
                        .collateral = settle_config.collateral.count(a.account)
                                          ? settle_config.collateral.at(a.account)
                                          : common::MicroUsd(0),
                        .margin = a.margin,
                        .call = a.call};
    for (const settlement::AccountLine& line : a.lines) {
      const std::string& sym = report->day.contracts[line.contract].sym;
      s.positions[sym] = line.qty;
      active[sym] = true;
    }
    result.vm_sum += s.vm;
    result.accounts.push_back(std::move(s));
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (result.vm_sum != common::MicroUsd(0)) {
    return absl::InternalError("settlement of " + common::FormatDate(date) + ": sum of VM is " +
                               std::to_string(result.vm_sum.value()) + " micro-USD, not 0");
  }
  // Contracts that traded or are held first, then the rest (settled from fixes).
  std::stable_partition(result.contracts.begin(), result.contracts.end(),
                        [&](const SettledContract& c) { return active.count(c.sym) != 0; });
  const std::string dir = paths.statements + "/" + common::FormatDate(date);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    result.statement_files.push_back(entry.path().filename().string());
  }
  std::sort(result.statement_files.begin(), result.statement_files.end());
  {
    std::ifstream in(dir + "/_surveillance.json");
    std::stringstream text;
    text << in.rdbuf();
    result.surveillance_json = text.str();
  }
  log << "  " << common::FormatDate(date) << ": " << result.listed << " contracts settled (";
  bool first = true;
  for (const auto& [tier, n] : result.tiers) {
    log << (first ? "" : ", ") << tier << " " << n;
    first = false;
  }
  log << "), " << result.accounts.size() << " accounts, sum of VM = " << result.vm_sum.value()
      << "; statements in " << dir << "/\n";
  return result;
}

}  // namespace cfx::demo
