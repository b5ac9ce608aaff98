#include "cfx/settlement/memory_sources.h"

namespace cfx::settlement {

void MemoryTradeSource::AddTrade(Trade trade) {
  int64_t seq = trade.seq;
  trades_[seq] = std::move(trade);
}

void MemoryTradeSource::SetClose(const std::string& sym, common::Date date, CloseQuote quote) {
  closes_[{sym, date}] = quote;
}

absl::Status MemoryTradeSource::ForEachTrade(common::TimestampUs from, common::TimestampUs to,
                                             const std::function<absl::Status(const Trade&)>& fn) {
  for (const auto& [seq, trade] : trades_) {
    if (trade.ts < from || trade.ts >= to) continue;
    absl::Status s = fn(trade);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<CloseQuote>> MemoryTradeSource::Close(const std::string& sym,
                                                                   common::Date date) {
  auto it = closes_.find({sym, date});
  if (it == closes_.end()) return std::optional<CloseQuote>();
  return std::optional<CloseQuote>(it->second);
}

void MemoryTradeSource::List(security_master::Contract contract) {
  std::string sym = contract.sym;
  contracts_[sym] = std::move(contract);
}

absl::StatusOr<std::vector<security_master::Contract>> MemoryTradeSource::Contracts() {
  std::vector<security_master::Contract> out;
  for (const auto& [sym, c] : contracts_) out.push_back(c);
  return out;
}

absl::StatusOr<std::optional<int64_t>> MemoryFixSource::FixE4(const std::string& grade,
                                                              common::Date date) {
  auto it = fixes_.find({grade, date});
  if (it == fixes_.end()) return std::optional<int64_t>();
  return std::optional<int64_t>(it->second);
}

}  // namespace cfx::settlement
