// The engine's trade store, read by settlement: an LMDB environment `<data_dir>/trades`
// with tables `trades` (key: 16-digit zero-padded sequence number) and `closes` (key:
// `<sym>/<YYYY-MM-DD>`), values JSON. The format is the contract with the engine's
// persistence, documented in docs/formats.md ("Trade store"); the Format*/Parse* helpers
// here are its reference encoding.
//
//   absl::StatusOr<std::unique_ptr<TradeSource>> src = OpenLmdbTradeSource("/var/cfx");
#ifndef CFX_SETTLEMENT_TRADE_STORE_H_
#define CFX_SETTLEMENT_TRADE_STORE_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cfx/settlement/sources.h"

namespace cfx::settlement {

inline constexpr char kTradeStoreFile[] = "trades";
inline constexpr char kTradesTable[] = "trades";
inline constexpr char kClosesTable[] = "closes";

std::string TradeKey(int64_t seq);                // "0000000000000042"
std::string CloseKey(std::string_view sym, Date date);  // "B200-GOLD-US-202703/2027-03-01"

std::string FormatTradeJson(const Trade& trade);
// InvalidArgument naming the field when the JSON is malformed or a field is missing/bad.
absl::StatusOr<Trade> ParseTradeJson(std::string_view json);
std::string FormatCloseJson(std::string_view sym, Date date, const CloseQuote& quote);
absl::StatusOr<CloseQuote> ParseCloseJson(std::string_view json);

// Opens `<data_dir>/trades` (created empty if absent, so a day without trading settles).
absl::StatusOr<std::unique_ptr<TradeSource>> OpenLmdbTradeSource(const std::string& data_dir);

// An in-memory TradeSource for tests and tools. Trades are returned in `seq` order.
class MemoryTradeSource : public TradeSource {
 public:
  void AddTrade(Trade trade);
  void SetClose(const std::string& sym, Date date, CloseQuote quote);
  absl::Status ForEachTrade(TimestampUs from, TimestampUs to,
                            const std::function<absl::Status(const Trade&)>& fn) override;
  absl::StatusOr<std::optional<CloseQuote>> Close(const std::string& sym, Date date) override;

 private:
  std::map<int64_t, Trade> trades_;
  std::map<std::pair<std::string, Date>, CloseQuote> closes_;
};

// An in-memory FixSource: fixes by grade and date, × 10^4.
class MemoryFixSource : public FixSource {
 public:
  void Set(const std::string& grade, Date date, int64_t fix_e4) { fixes_[{grade, date}] = fix_e4; }
  absl::StatusOr<std::optional<int64_t>> FixE4(const std::string& grade, Date date) override;

 private:
  std::map<std::pair<std::string, Date>, int64_t> fixes_;
};

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_TRADE_STORE_H_
