// An order as the engine keeps it: one slot of the OrderStore pool. Linked intrusively into
// its price level (or the book's pending-stop list), so no container owns it and nothing
// allocates per order.
#ifndef CFX_ENGINE_ORDER_H_
#define CFX_ENGINE_ORDER_H_

#include "cfx/engine/types.h"

namespace cfx::engine {

struct Order {
  // First cache line: what matching reads and writes.
  OrderId oid = 0;
  PriceTicks px{0};                         // limit price (unused for market / stop-market)
  Qty qty{0};                               // total quantity
  Qty cum{0};                               // executed
  Qty shown{0};                             // displayed part still resting (≤ leaves)
  uint32_t prev = kNoSlot, next = kNoSlot;  // level FIFO / stop list
  FirmId firm = 0;
  StpId stp = 0;
  Side side = Side::kBuy;
  OrderType type = OrderType::kLimit;
  TimeInForce tif = TimeInForce::kDay;
  StpAction stp_action = StpAction::kCancelResting;
  OrderStatus status = OrderStatus::kNew;
  bool post_only = false;
  bool live = false;      // in the store's live lists
  bool in_level = false;  // linked into a price level
  // Then the rest.
  Qty display{0};  // iceberg slice size; 0: fully displayed
  int64_t notional = 0;
  // Time priority in the book, and a pending stop's submission time among the stops one
  // print triggers; renewed when the order loses priority.
  uint64_t priority_seq = 0;
  PriceTicks stop_px{0};
  Timestamp expire = kNoTime;
  AccountId acct = 0;
  SymbolId sym = 0;
  SessionId session = 0;
  uint32_t live_idx = kNoSlot;  // its place in the store's list of live slots
  ClientId cl;

  Qty leaves() const { return qty - cum; }
  bool is_stop_pending() const { return status == OrderStatus::kPendingStop; }
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_ORDER_H_
