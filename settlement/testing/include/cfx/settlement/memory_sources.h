// In-memory TradeSource and FixSource for tests and benchmarks (test-only target
// cfx_settlement_testing).
//
//   MemoryTradeSource trades;
//   trades.AddTrade({.seq = 1, .ts = ts, .sym = "B200-GOLD-US-202703",
//                    .px_ticks = common::PriceTicks(5000), .qty = common::Qty(2)});
#ifndef CFX_SETTLEMENT_MEMORY_SOURCES_H_
#define CFX_SETTLEMENT_MEMORY_SOURCES_H_

#include <map>
#include <set>
#include <string>
#include <utility>

#include "cfx/settlement/sources.h"

namespace cfx::settlement {

// Trades are returned in `seq` order.
class MemoryTradeSource : public TradeSource {
 public:
  void AddTrade(Trade trade);
  void SetClose(const std::string& sym, common::Date date, CloseQuote quote);
  absl::Status ForEachTrade(common::TimestampUs from, common::TimestampUs to,
                            const std::function<absl::Status(const Trade&)>& fn) override;
  absl::StatusOr<std::optional<CloseQuote>> Close(const std::string& sym,
                                                  common::Date date) override;
  // Adds (or replaces) a security master row.
  void List(security_master::Contract contract);
  absl::StatusOr<std::vector<security_master::Contract>> Contracts() override;

 private:
  std::map<int64_t, Trade> trades_;
  std::map<std::string, security_master::Contract> contracts_;
  std::map<std::pair<std::string, common::Date>, CloseQuote> closes_;
};

// Fixes by grade and date, × 10^4.
class MemoryFixSource : public FixSource {
 public:
  void Set(const std::string& grade, common::Date date, int64_t fix_e4) {
    fixes_[{grade, date}] = fix_e4;
  }
  // `date`'s fixes were not built (FixSource::Built says false).
  void NotBuilt(common::Date date) { not_built_.insert(date); }
  absl::StatusOr<std::optional<int64_t>> FixE4(const std::string& grade,
                                               common::Date date) override;
  absl::StatusOr<bool> Built(common::Date date) override { return !not_built_.count(date); }

 private:
  std::map<std::pair<std::string, common::Date>, int64_t> fixes_;
  std::set<common::Date> not_built_;
};

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_MEMORY_SOURCES_H_
