// Continuous matching: an aggressor against the opposite side, FIFO per level, with STP,
// FOK pre-check, market protection, IOC remainders and iceberg slices.
#include <algorithm>
#include <cassert>
#include <cstdint>

#include "cfx/engine/order_book.h"

namespace cfx::engine {

void FillOrderInfo(OrderInfo* info, const Order& o) {
  info->oid = o.oid;
  info->acct = o.acct;
  info->cl = o.cl;
  info->side = o.side;
  info->status = o.status;
  info->cum = o.cum;
  info->leaves = o.leaves();
  info->notional = o.notional;
  info->firm = o.firm;
  info->type = o.type;
  info->tif = o.tif;
  info->px = o.px;
  info->stop_px = o.stop_px;
  info->qty = o.qty;
  info->expire = o.expire;
  info->post_only = o.post_only;
  info->display = o.display;
  info->session = o.session;
}

void OrderBook::RecordPrint(PriceTicks px) {
  last_trade_ = px;
  has_last_ = true;
  // Only prints that can trigger something are kept; no stops -> nothing to remember.
  if (stops_ > 0) prints_.push_back(px);
}

void OrderBook::EmitTrade(const Order& buy, const Order& sell, PriceTicks px, Qty q,
                          Aggressor agg) {
  Event& e = ctx_->Emit(EventType::kTrade);
  e.sym = config_.id;
  e.has_sym = true;
  e.has_px = true;
  e.px = px;
  e.qty = q;
  e.aggressor = agg;
  FillOrderInfo(&e.order, buy);
  FillOrderInfo(&e.other, sell);
}

void OrderBook::Fill(uint32_t slot, Qty q, PriceTicks px) {
  Order& o = ctx_->store.at(slot);
  o.cum += q;
  // Saturating: an order that trades at prices near the largest tick count (a book without
  // band takes any price, SPEC §4.1) can pass INT64_MAX ticks·lots (undefined behaviour,
  // found by the sanitizer build); its average price is then not meaningful, its fills are.
  int64_t value = 0;
  if (__builtin_mul_overflow(px.value(), q.value(), &value) ||
      __builtin_add_overflow(o.notional, value, &o.notional)) {
    o.notional = INT64_MAX;
  }
  o.status = o.leaves() == Qty(0) ? OrderStatus::kFilled : OrderStatus::kPartiallyFilled;
}

void OrderBook::Finish(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  if (o.in_level) Unlink(slot);
  o.status = OrderStatus::kFilled;
  ctx_->store.Release(slot);
}

void OrderBook::EndOrder(uint32_t slot, CancelReason reason) {
  Order& o = ctx_->store.at(slot);
  if (o.in_level) Unlink(slot);
  if (o.is_stop_pending()) RemoveStop(slot);
  o.status = OrderStatus::kCanceled;
  Event& e = ctx_->Emit(EventType::kCanceled);
  e.sym = config_.id;
  e.has_sym = true;
  e.cancel = reason;
  e.qty = o.leaves();  // unfilled quantity, hidden part included
  FillOrderInfo(&e.order, o);
  e.order.leaves = Qty(0);
  ctx_->store.Release(slot);
}

bool OrderBook::FokFillable(const Order& a, PriceTicks limit) const {
  int opp = Index(Opposite(a.side));
  Qty need = a.leaves(), avail{0};
  const bool self_stops = a.stp_action != StpAction::kCancelResting;
  auto is_self = [&a](const Order& r) { return r.firm == a.firm && r.stp == a.stp; };
  for (PriceTicks px = best_[opp]; px != kNoPrice; px = After(opp, px)) {
    if (a.side == Side::kBuy ? px > limit : px < limit) break;
    const uint32_t head = LevelAt(opp, px).head;
    // With cancel_aggressor or cancel_both the first self order of the level ends matching
    // when it comes to the head (Match). An iceberg ahead of it trades its shown slice and
    // then goes to the back of the level, behind it: only that slice is reached. Without
    // such an order every order of the level trades out in turn, icebergs' hidden parts
    // included. (Counting the whole iceberg filled part of a FOK and then canceled the rest
    // `stp`: a FOK is never part filled.)
    bool blocked = false;
    if (self_stops) {
      for (uint32_t s = head; s != kNoSlot && !blocked; s = ctx_->store.at(s).next) {
        blocked = is_self(ctx_->store.at(s));
      }
    }
    for (uint32_t s = head; s != kNoSlot; s = ctx_->store.at(s).next) {
      const Order& r = ctx_->store.at(s);
      if (is_self(r)) {
        // cancel_resting removes the self order and goes on; the other actions stop here.
        if (!self_stops) continue;
        return false;
      }
      avail += blocked ? r.shown : r.leaves();
      if (avail >= need) return true;
    }
  }
  return false;
}

bool OrderBook::Match(uint32_t slot, PriceTicks limit) {
  Order& a = ctx_->store.at(slot);
  const int opp = Index(Opposite(a.side));
  const bool buy = a.side == Side::kBuy;
  const Aggressor agg = buy ? Aggressor::kBuy : Aggressor::kSell;
  while (a.leaves() > Qty(0)) {
    const PriceTicks px = best_[opp];
    if (px == kNoPrice) break;
    if (buy ? px > limit : px < limit) break;
    Level& level = LevelAt(opp, px);
    uint32_t rs = level.head;
    Order& r = ctx_->store.at(rs);
    if (r.firm == a.firm && r.stp == a.stp) {
      switch (a.stp_action) {
        case StpAction::kCancelResting:
          EndOrder(rs, CancelReason::kStp);
          continue;
        case StpAction::kCancelAggressor:
          EndOrder(slot, CancelReason::kStp);
          return false;
        case StpAction::kCancelBoth:
          EndOrder(rs, CancelReason::kStp);
          EndOrder(slot, CancelReason::kStp);
          return false;
      }
    }
    Qty q = std::min(a.leaves(), r.shown);
    Fill(slot, q, px);
    Fill(rs, q, px);
    r.shown -= q;
    level.display_qty -= q;
    RecordPrint(px);
    if (buy) EmitTrade(a, r, px, q, agg); else EmitTrade(r, a, px, q, agg);
    if (r.shown == Qty(0)) {
      if (r.leaves() == Qty(0)) {
        Finish(rs);
      } else {
        // Iceberg slice executed: refill and go to the back of the level.
        Unlink(rs);
        r.shown = std::min(r.display, r.leaves());
        r.priority_seq = ctx_->next_priority++;
        Append(rs);
      }
    }
  }
  return true;
}

void OrderBook::Execute(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  const bool market = o.type == OrderType::kMarket;
  const bool immediate = market || o.tif == TimeInForce::kIoc || o.tif == TimeInForce::kFok;
  const Side opp = Opposite(o.side);
  PriceTicks limit = o.px;
  if (market) {
    if (!HasBest(opp)) {
      EndOrder(slot, CancelReason::kNoLiquidity);
      return;
    }
    PriceTicks best = BestPrice(opp);
    // Saturating: a best price near the largest tick count plus the protection overflowed
    // (undefined; it wrapped to a negative limit, so a market buy never traded).
    int64_t bound = 0;
    const bool over =
        o.side == Side::kBuy
            ? __builtin_add_overflow(best.value(), config_.protection_ticks.value(), &bound)
            : __builtin_sub_overflow(best.value(), config_.protection_ticks.value(), &bound);
    if (over) bound = o.side == Side::kBuy ? INT64_MAX : INT64_MIN;
    limit = PriceTicks(bound);
  }
  if (o.tif == TimeInForce::kFok && !FokFillable(o, limit)) {
    EndOrder(slot, CancelReason::kFok);
    return;
  }
  if (!Match(slot, limit)) return;
  if (o.leaves() == Qty(0)) {
    Finish(slot);
  } else if (immediate) {
    EndOrder(slot, o.tif == TimeInForce::kFok ? CancelReason::kFok : CancelReason::kIoc);
  } else {
    Rest(slot);
  }
}

}  // namespace cfx::engine
