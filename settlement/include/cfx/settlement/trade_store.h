// Settlement's reader of the exchange's trade store (`<data_dir>/trades`, format in
// cfx/trade_store/format.h and docs/formats.md).
//
//   absl::StatusOr<std::unique_ptr<TradeSource>> src = OpenLmdbTradeSource("/var/cfx");
#ifndef CFX_SETTLEMENT_TRADE_STORE_H_
#define CFX_SETTLEMENT_TRADE_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cfx/settlement/sources.h"
#include "cfx/trade_store/format.h"

namespace cfx::settlement {

using trade_store::CloseKey;
using trade_store::FormatCloseJson;
using trade_store::FormatTradeJson;
using trade_store::kClosesTable;
using trade_store::kTradesTable;
using trade_store::kTradeStoreFile;
using trade_store::ParseCloseJson;
using trade_store::ParseTradeJson;
using trade_store::TradeKey;

// Opens `<data_dir>/trades`, which `cfx serve` and `cfx replay --data-dir` create when they
// start (so a day without trading settles). NotFound, naming the folder, when it is not
// there: a data dir without it is not an exchange's, and a reader creates nothing.
absl::StatusOr<std::unique_ptr<TradeSource>> OpenLmdbTradeSource(const std::string& data_dir);

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_TRADE_STORE_H_
