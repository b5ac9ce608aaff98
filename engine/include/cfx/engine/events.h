// Outputs of the engine. Events are collected while a command is processed and delivered to
// the listener after it, in order; each carries a strictly increasing engine sequence number.
// An event is self-contained (ids copied), so a listener may keep it after the call.
#ifndef CFX_ENGINE_EVENTS_H_
#define CFX_ENGINE_EVENTS_H_

#include "cfx/engine/types.h"

namespace cfx::engine {

enum class EventType : uint8_t {
  kAccepted,
  kRejected,
  kTrade,
  kCanceled,
  kReplaced,
  kTriggered,
  kCancelRejected,
  kStateChanged,
};

// An order's terms as they stand (after replaces), for ExecutionReports (38/44/99/40/59)
// and for comparing the terms a replace cannot change (18, 111, 126: docs/fix.md); on a
// rejected order: as entered.
struct OrderTerms {
  OrderType type = OrderType::kLimit;
  TimeInForce tif = TimeInForce::kDay;
  PriceTicks px{0};       // limit price; 0 for market / stop-market
  PriceTicks stop_px{0};  // stop, stop_limit
  Qty qty{0};             // total quantity
  Timestamp expire = kNoTime;
  SessionId session = 0;   // the session that entered the order
  bool post_only = false;
  Qty display{0};  // iceberg slice size; 0: fully displayed
};

// One side of an event, with the order's state right after the event (ExecutionReport
// fields: CumQty = cum, LeavesQty = leaves, AvgPx = notional / cum ticks) and its terms.
struct OrderInfo : OrderTerms {
  OrderId oid = 0;  // 0 for a rejected order
  AccountId acct = 0;
  ClientId cl;
  Side side = Side::kBuy;
  OrderStatus status = OrderStatus::kNew;
  Qty cum{0};
  Qty leaves{0};
  int64_t notional = 0;  // Σ trade px (ticks) × qty; AvgPx = notional / cum
  FirmId firm = 0;
};

struct Event {
  uint64_t seq = 0;
  EventType type = EventType::kAccepted;
  SymbolId sym = 0;
  bool has_sym = false;
  RejectReason reject = RejectReason::kNone;  // kRejected, kCancelRejected
  CancelReason cancel = CancelReason::kUser;  // kCanceled
  Aggressor aggressor = Aggressor::kNone;     // kTrade
  TradingState state = TradingState::kOpen;   // kStateChanged
  bool has_px = false;
  PriceTicks px{0};  // trade price (LastPx); replaced: the new limit price
  Qty qty{0};        // trade qty (LastQty); canceled: unfilled qty; replaced: new total
  OrderInfo order;   // trade: the buyer; others: the order concerned
  OrderInfo other;   // trade: the seller
  ClientId orig;     // kReplaced, kCancelRejected: the id the command named
  Qty prev_leaves{0};  // kReplaced: the order's leaves before the replace
};

// Receives events in sequence order. Default implementations ignore the event.
// Thread safety: called on the engine's thread, after the command that caused them.
class EngineListener {
 public:
  virtual ~EngineListener() = default;
  virtual void OnAccepted(const Event& e) {}
  virtual void OnRejected(const Event& e) {}
  virtual void OnTrade(const Event& e) {}
  virtual void OnCanceled(const Event& e) {}
  virtual void OnReplaced(const Event& e) {}
  virtual void OnTriggered(const Event& e) {}
  virtual void OnCancelRejected(const Event& e) {}
  virtual void OnStateChanged(const Event& e) {}
};

// Calls the listener method that matches e.type.
void Dispatch(const Event& e, EngineListener& listener);

}  // namespace cfx::engine

#endif  // CFX_ENGINE_EVENTS_H_
