#include "cfx/gateway/http_memory_providers.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace cfx::gateway {

HttpProviders InMemoryProviders::Providers() {
  HttpProviders p{this, this, this, this, this};
  p.contracts = this;
  return p;
}

void InMemoryProviders::SetContract(security_master::ContractRecord record) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string sym = record.contract.sym;
  contracts_[sym] = std::move(record);
}

absl::StatusOr<std::vector<security_master::Contract>> InMemoryProviders::Contracts() {
  calls_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<security_master::Contract> out;
  for (const auto& [sym, record] : contracts_) out.push_back(record.contract);
  return out;
}

absl::StatusOr<security_master::ContractRecord> InMemoryProviders::FindContract(
    const std::string& sym) {
  calls_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = contracts_.find(sym);
  if (it == contracts_.end()) return absl::NotFoundError("no such contract");
  return it->second;
}

void InMemoryProviders::SetMargin(const std::string& account, MarginMethod method,
                                  MarginResult result) {
  std::lock_guard<std::mutex> lock(mu_);
  margins_[{account, method}] = std::move(result);
}

void InMemoryProviders::SetWhatIfMarginPerContract(int64_t per_contract_micro_usd) {
  std::lock_guard<std::mutex> lock(mu_);
  whatif_per_contract_ = per_contract_micro_usd;
}

void InMemoryProviders::SetPositions(const std::string& account, std::vector<PositionLine> lines) {
  std::lock_guard<std::mutex> lock(mu_);
  positions_[account] = std::move(lines);
}

void InMemoryProviders::SetBook(BookSnapshot snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  listed_[snapshot.sym] = true;
  books_[snapshot.sym] = std::move(snapshot);
}

void InMemoryProviders::SetListed(const std::string& sym) {
  std::lock_guard<std::mutex> lock(mu_);
  listed_[sym] = true;
}

void InMemoryProviders::SetFixes(const std::string& grade, std::vector<FixRecord> records) {
  std::lock_guard<std::mutex> lock(mu_);
  fixes_[grade] = std::move(records);
}

void InMemoryProviders::SetGauges(std::vector<GaugeSample> gauges) {
  std::lock_guard<std::mutex> lock(mu_);
  gauges_ = std::move(gauges);
}

absl::StatusOr<MarginResult> InMemoryProviders::AccountMargin(const std::string& account,
                                                              MarginMethod method) {
  calls_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = margins_.find({account, method});
  if (it != margins_.end()) return it->second;
  // An account with no position: margin 0, scenario 1 (SPEC §10).
  MarginResult empty;
  empty.scenario_count = method == MarginMethod::kSpan16 ? 16 : 10000;
  return empty;
}

absl::StatusOr<MarginResult> InMemoryProviders::WhatIf(const std::vector<WhatIfPosition>& positions,
                                                       MarginMethod method) {
  calls_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  MarginResult r;
  r.scenario_count = method == MarginMethod::kSpan16 ? 16 : 10000;
  for (const WhatIfPosition& p : positions) {
    if (!listed_.count(p.sym)) return absl::InvalidArgumentError("unknown symbol " + p.sym);
    int64_t loss = std::llabs(p.qty) * whatif_per_contract_;
    r.margin_micro_usd += loss;
    r.positions.push_back({p.sym, p.qty, "5.000", "1000", "1.3889", loss});
  }
  return r;
}

absl::StatusOr<std::vector<PositionLine>> InMemoryProviders::Positions(const std::string& account) {
  calls_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = positions_.find(account);
  if (it == positions_.end()) return std::vector<PositionLine>{};
  return it->second;
}

absl::StatusOr<BookSnapshot> InMemoryProviders::Book(const std::string& sym, int depth) {
  calls_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = books_.find(sym);
  if (it == books_.end()) {
    if (!listed_.count(sym)) return absl::NotFoundError("unknown symbol " + sym);
    BookSnapshot empty;
    empty.sym = sym;
    empty.state = "open";
    return empty;
  }
  BookSnapshot out = it->second;
  if (out.bids.size() > static_cast<size_t>(depth)) out.bids.resize(depth);
  if (out.asks.size() > static_cast<size_t>(depth)) out.asks.resize(depth);
  return out;
}

absl::StatusOr<std::vector<FixRecord>> InMemoryProviders::Revisions(const common::Grade& grade,
                                                                    common::Date from,
                                                                    common::Date to) {
  calls_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = fixes_.find(grade.Key());
  if (it == fixes_.end()) return absl::NotFoundError("unknown grade " + grade.Key());
  std::vector<FixRecord> out;
  for (const FixRecord& r : it->second) {
    absl::StatusOr<common::Date> d = common::ParseDate(r.date);
    if (d.ok() && *d >= from && *d <= to) out.push_back(r);
  }
  return out;
}

absl::StatusOr<std::vector<FixRecord>> InMemoryProviders::Fixes(const common::Grade& grade,
                                                                common::Date from,
                                                                common::Date to) {
  absl::StatusOr<std::vector<FixRecord>> all = Revisions(grade, from, to);
  if (!all.ok()) return all.status();
  std::vector<FixRecord> out;
  for (FixRecord& r : *all) {
    if (!out.empty() && out.back().date == r.date) out.pop_back();  // a later revision
    out.push_back(std::move(r));
  }
  return out;
}

void InMemoryProviders::SetExplanation(const std::string& grade, const std::string& date,
                                       std::string json) {
  std::lock_guard<std::mutex> lock(mu_);
  explanations_[{grade, date}] = std::move(json);
}

absl::StatusOr<std::string> InMemoryProviders::Explain(const common::Grade& grade,
                                                       common::Date date) {
  calls_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = explanations_.find({grade.Key(), common::FormatDate(date)});
  if (it == explanations_.end()) {
    return absl::NotFoundError("no explanation for " + grade.Key() + " " + common::FormatDate(date));
  }
  return it->second;
}

std::vector<GaugeSample> InMemoryProviders::Gauges() {
  std::lock_guard<std::mutex> lock(mu_);
  return gauges_;
}

}  // namespace cfx::gateway
