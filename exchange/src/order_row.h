// The text form of a trade-store order row (internal to cfx_exchange): TradeRecorder writes
// and loads the `orders` and `ended_orders` tables with these.
#ifndef CFX_EXCHANGE_SRC_ORDER_ROW_H_
#define CFX_EXCHANGE_SRC_ORDER_ROW_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "cfx/exchange/exchange_core.h"

namespace cfx::exchange::internal {

// The row of `v`: keys in sorted order, as nlohmann::json writes them; `end_serial` (an
// ended order's place in the ended list) only when not 0.
std::string OrderRowText(const OrderStateView& v, uint64_t end_serial);

// Reads a row OrderRowText wrote; false if a field is missing or bad. With `serial`, the row
// must carry `end` (an ended order's row).
bool ParseOrderRow(absl::string_view text, OrderStateView* o, uint64_t* serial);

}  // namespace cfx::exchange::internal

#endif  // CFX_EXCHANGE_SRC_ORDER_ROW_H_
