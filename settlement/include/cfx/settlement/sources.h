// The inputs of the settlement batch, as narrow interfaces so that the batch can run on
// the LMDB stores written by other modules (engine trades, reference fixes, valuation
// margin) or on in-memory fakes in tests and benchmarks.
//
//   std::unique_ptr<TradeSource> trades = *OpenLmdbTradeSource(data_dir);
//   SettleInputs in{.trades = trades.get(), .fixes = &my_fixes, .margin = &my_margin};
#ifndef CFX_SETTLEMENT_SOURCES_H_
#define CFX_SETTLEMENT_SOURCES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/common/units.h"
#include "cfx/security_master/format.h"
#include "cfx/trade_store/format.h"

namespace cfx::settlement {

// The trade store's rows (cfx/trade_store/format.h), as settlement reads them.
using trade_store::Aggressor;
using trade_store::CloseQuote;
using trade_store::Trade;

// Trades, closing books and the security master, as the exchange's post-trade store holds
// them. Thread safety: used from one thread at a time.
class TradeSource {
 public:
  virtual ~TradeSource() = default;
  // Calls fn for every trade with from <= ts < to, in sequence order. Returns the first
  // error reading or decoding the store (naming the record), or fn's first non-OK status.
  virtual absl::Status ForEachTrade(common::TimestampUs from, common::TimestampUs to,
                                    const std::function<absl::Status(const Trade&)>& fn) = 0;
  // The closing book of `sym` on `date`; nullopt when no close was recorded.
  virtual absl::StatusOr<std::optional<CloseQuote>> Close(const std::string& sym,
                                                          common::Date date) = 0;
  // The security master (cfx/security_master/format.h), every contract it ever held, in
  // symbol order. A source without one (a synthetic benchmark) returns none: then only
  // contracts with trades, positions or a prior settlement are settled.
  virtual absl::StatusOr<std::vector<security_master::Contract>> Contracts() {
    return std::vector<security_master::Contract>();
  }
  // The last exchange input (journal seq) the store holds everything of; nullopt when the
  // source does not say (a synthetic one, a store no exchange wrote).
  virtual absl::StatusOr<std::optional<uint64_t>> RecordedThrough() {
    return std::optional<uint64_t>();
  }
};

// Daily benchmark fixes (SPEC §8), as published by `cfx reference build`.
class FixSource {
 public:
  virtual ~FixSource() = default;
  // The fix of `grade` (e.g. "B200-GOLD-US") on `date`, × 10^4. A stale (carried) fix is
  // returned like any other; nullopt when there is no record or no fix
  // (`insufficient_data`). An error only when the store cannot be read.
  virtual absl::StatusOr<std::optional<int64_t>> FixE4(const std::string& grade,
                                                       common::Date date) = 0;
  // Whether `date`'s fixes were built. False only for a date on or after the first date
  // the source has fixes for and with no record at all (`cfx reference build --date` has not
  // run for it yet): a missing fix there is not a day without a fix (SPEC §8 publishes those,
  // fix null), and settling would take it as one for good. A source without such
  // knowledge says true.
  virtual absl::StatusOr<bool> Built(common::Date /*date*/) { return true; }
};

// A position handed to the margin model: `sym` points into storage the batch keeps alive
// for the duration of the call.
struct SymQty {
  std::string_view sym;
  common::Qty qty;
};

// Settlement prices of the day, by symbol.
using SettlePrices = std::map<std::string, common::PriceTicks, std::less<>>;

// Initial margin (span16, SPEC §10) of one account's open positions.
class MarginSource {
 public:
  virtual ~MarginSource() = default;
  // Initial margin (>= 0) of `positions` (non-zero quantities, sorted by symbol) valued at
  // `prices` (contains every symbol of `positions`).
  virtual absl::StatusOr<common::MicroUsd> InitialMargin(std::string_view account,
                                                         const std::vector<SymQty>& positions,
                                                         const SettlePrices& prices) = 0;
};

// A fix source with no fixes: tiers T3 (prior unchanged) and T1/T2 only. For running
// without a reference store; the batch reports that it used it.
class NoFixes : public FixSource {
 public:
  absl::StatusOr<std::optional<int64_t>> FixE4(const std::string&, common::Date) override {
    return std::optional<int64_t>();
  }
};

// A margin source that reports zero initial margin (so no margin calls).
class NoMargin : public MarginSource {
 public:
  absl::StatusOr<common::MicroUsd> InitialMargin(std::string_view, const std::vector<SymQty>&,
                                                 const SettlePrices&) override {
    return common::MicroUsd(0);
  }
};

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_SOURCES_H_
