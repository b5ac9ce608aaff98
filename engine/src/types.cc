#include "cfx/engine/events.h"
#include "cfx/engine/types.h"

namespace cfx::engine {

std::string_view ToString(Side v) { return v == Side::kBuy ? "buy" : "sell"; }

std::string_view ToString(OrderType v) {
  switch (v) {
    case OrderType::kLimit: return "limit";
    case OrderType::kMarket: return "market";
    case OrderType::kStop: return "stop";
    case OrderType::kStopLimit: return "stop_limit";
  }
  return "?";
}

std::string_view ToString(TimeInForce v) {
  switch (v) {
    case TimeInForce::kDay: return "day";
    case TimeInForce::kGtc: return "gtc";
    case TimeInForce::kIoc: return "ioc";
    case TimeInForce::kFok: return "fok";
    case TimeInForce::kGtd: return "gtd";
  }
  return "?";
}

std::string_view ToString(StpAction v) {
  switch (v) {
    case StpAction::kCancelResting: return "cancel_resting";
    case StpAction::kCancelAggressor: return "cancel_aggressor";
    case StpAction::kCancelBoth: return "cancel_both";
  }
  return "?";
}

std::string_view ToString(TradingState v) {
  switch (v) {
    case TradingState::kPreOpen: return "pre_open";
    case TradingState::kOpen: return "open";
    case TradingState::kHalted: return "halted";
    case TradingState::kClosed: return "closed";
    case TradingState::kExpired: return "expired";
  }
  return "?";
}

std::string_view ToString(Aggressor v) {
  switch (v) {
    case Aggressor::kBuy: return "buy";
    case Aggressor::kSell: return "sell";
    case Aggressor::kNone: return "none";
  }
  return "?";
}

std::string_view ToString(RejectReason v) {
  switch (v) {
    case RejectReason::kNone: return "none";
    case RejectReason::kInvalidField: return "invalid_field";
    case RejectReason::kUnknownSymbol: return "unknown_symbol";
    case RejectReason::kMarketClosed: return "market_closed";
    case RejectReason::kHalted: return "halted";
    case RejectReason::kDuplicateClientId: return "duplicate_client_id";
    case RejectReason::kInvalidQty: return "invalid_qty";
    case RejectReason::kQtyAboveMax: return "qty_above_max";
    case RejectReason::kInvalidPriceTick: return "invalid_price_tick";
    case RejectReason::kPriceOutsideBand: return "price_outside_band";
    case RejectReason::kInvalidStopPrice: return "invalid_stop_price";
    case RejectReason::kPostOnlyWouldCross: return "post_only_would_cross";
    case RejectReason::kUnknownOrder: return "unknown_order";
    case RejectReason::kInsufficientMargin: return "insufficient_margin";
    case RejectReason::kAccountNotPermitted: return "account_not_permitted";
    case RejectReason::kThrottled: return "throttled";
  }
  return "?";
}

std::string_view ToString(CancelReason v) {
  switch (v) {
    case CancelReason::kUser: return "user";
    case CancelReason::kIoc: return "ioc";
    case CancelReason::kFok: return "fok";
    case CancelReason::kStp: return "stp";
    case CancelReason::kExpired: return "expired";
    case CancelReason::kMass: return "mass";
    case CancelReason::kDisconnect: return "disconnect";
    case CancelReason::kNoLiquidity: return "no_liquidity";
    case CancelReason::kReplacedToZero: return "replaced_to_zero";
  }
  return "?";
}

std::string_view ToString(OrderStatus v) {
  switch (v) {
    case OrderStatus::kPendingStop: return "pending_stop";
    case OrderStatus::kNew: return "new";
    case OrderStatus::kPartiallyFilled: return "partially_filled";
    case OrderStatus::kFilled: return "filled";
    case OrderStatus::kCanceled: return "canceled";
  }
  return "?";
}

void Dispatch(const Event& e, EngineListener& l) {
  switch (e.type) {
    case EventType::kAccepted: l.OnAccepted(e); break;
    case EventType::kRejected: l.OnRejected(e); break;
    case EventType::kTrade: l.OnTrade(e); break;
    case EventType::kCanceled: l.OnCanceled(e); break;
    case EventType::kReplaced: l.OnReplaced(e); break;
    case EventType::kTriggered: l.OnTriggered(e); break;
    case EventType::kCancelRejected: l.OnCancelRejected(e); break;
    case EventType::kStateChanged: l.OnStateChanged(e); break;
  }
}

}  // namespace cfx::engine
