// The trade store's format: the contract between its writer (the exchange's TradeRecorder)
// and its readers (settlement, `cfx settle`). An LMDB environment `<data_dir>/trades` with
// tables `trades` (key: 16-digit zero-padded sequence number) and `closes` (key:
// `<sym>/<YYYY-MM-DD>`), values JSON; documented in docs/formats.md ("Trade store"). The
// Format*/Parse* functions here are its one encoding.
//
//   std::string row = FormatTradeJson(trade);
//   absl::StatusOr<Trade> back = ParseTradeJson(row);   // == trade
#ifndef CFX_TRADE_STORE_FORMAT_H_
#define CFX_TRADE_STORE_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/common/units.h"

namespace cfx::trade_store {

inline constexpr char kTradeStoreFile[] = "trades";
inline constexpr char kTradesTable[] = "trades";
inline constexpr char kClosesTable[] = "closes";
// The exchange's own bookkeeping; under kLastSeqKey, in decimal, the last journal input the
// store holds everything of (the exchange's next start stores the rest from the journal).
inline constexpr char kMetaTable[] = "meta";
inline constexpr char kLastSeqKey[] = "last_seq";

enum class Aggressor { kBuy, kSell, kNone };

// One execution, as persisted by the exchange.
struct Trade {
  int64_t seq = 0;
  common::TimestampUs ts = 0;
  std::string sym;
  common::PriceTicks px_ticks;  // > 0
  common::Qty qty;              // > 0
  std::string buy_acct;
  std::string sell_acct;
  std::string buy_firm;
  std::string sell_firm;
  Aggressor aggressor = Aggressor::kNone;
};

// Best bid and ask of a book at the close of a trading day (either side may be empty).
struct CloseQuote {
  std::optional<common::PriceTicks> bid_ticks;
  std::optional<common::PriceTicks> ask_ticks;
};

std::string TradeKey(int64_t seq);                              // "0000000000000042"
std::string CloseKey(std::string_view sym, common::Date date);  // "B200-GOLD-US-202703/2027-03-01"

std::string FormatTradeJson(const Trade& trade);
// InvalidArgument naming the field when the JSON is malformed or a field is missing/bad.
absl::StatusOr<Trade> ParseTradeJson(std::string_view json);
std::string FormatCloseJson(std::string_view sym, common::Date date, const CloseQuote& quote);
absl::StatusOr<CloseQuote> ParseCloseJson(std::string_view json);

}  // namespace cfx::trade_store

#endif  // CFX_TRADE_STORE_FORMAT_H_
