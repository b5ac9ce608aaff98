// Opening auction (pre_open -> open), §4 and §4.2: one price maximising executed quantity;
// ties by smallest imbalance, then nearest the band reference, then the lower price; then
// the uncross of what STP left crossed.
#include <algorithm>
#include <cassert>
#include <cstddef>

#include "cfx/engine/order_book.h"

namespace cfx::engine {

void OrderBook::RunAuction() {
  if (best_[0] == kNoPrice || best_[1] == kNoPrice) return;
  // Every tick between the lowest and the highest resting limit price is a candidate, but
  // only the prices that hold an order are visited: between two neighbouring ones the buys
  // at or above and the sells at or below a price do not change, so of such a gap only its
  // tick nearest the reference (without one, its lowest) can win, and it is checked in its
  // place in the ascending order. The far levels can be any distance apart (docs/engine.md).
  auction_buys_.clear();  // whole quantity (icebergs count hidden) per level, best first
  for (PriceTicks px = best_[0]; px != kNoPrice; px = After(0, px)) {
    Qty q{0};
    for (uint32_t o = LevelAt(0, px).head; o != kNoSlot; o = ctx_->store.at(o).next) {
      q += ctx_->store.at(o).leaves();
    }
    auction_buys_.push_back({px, q, Qty(0)});
  }
  auction_points_.clear();  // ascending price, buys and sells merged
  auto buy = auction_buys_.rbegin();
  for (PriceTicks px = best_[1]; px != kNoPrice; px = After(1, px)) {
    Qty q{0};
    for (uint32_t o = LevelAt(1, px).head; o != kNoSlot; o = ctx_->store.at(o).next) {
      q += ctx_->store.at(o).leaves();
    }
    for (; buy != auction_buys_.rend() && buy->px < px; ++buy) auction_points_.push_back(*buy);
    if (buy != auction_buys_.rend() && buy->px == px) {
      auction_points_.push_back({px, buy->buy, q});
      ++buy;
    } else {
      auction_points_.push_back({px, Qty(0), q});
    }
  }
  for (; buy != auction_buys_.rend(); ++buy) auction_points_.push_back(*buy);
  // Cumulate: buys at or above a price, sells at or below it.
  const size_t m = auction_points_.size();
  for (size_t j = m - 1; j-- > 0;) auction_points_[j].buy += auction_points_[j + 1].buy;
  for (size_t j = 1; j < m; ++j) auction_points_[j].sell += auction_points_[j - 1].sell;

  bool found = false;
  PriceTicks best_px{0};
  Qty best_exec{0}, best_imb{0};
  PriceTicks best_dist{0};
  auto consider = [&](PriceTicks px, Qty buys, Qty sells) {
    Qty exec = std::min(buys, sells);
    if (exec == Qty(0)) return;
    Qty imb = buys > sells ? buys - sells : sells - buys;
    PriceTicks dist = !config_.has_ref   ? PriceTicks(0)
                      : px > config_.ref ? px - config_.ref
                                         : config_.ref - px;
    // Ascending: a full tie keeps the lower price.
    bool better = !found || exec > best_exec ||
                  (exec == best_exec && (imb < best_imb || (imb == best_imb && dist < best_dist)));
    if (better) {
      found = true;
      best_px = px;
      best_exec = exec;
      best_imb = imb;
      best_dist = dist;
    }
  };
  for (size_t j = 0; j < m; ++j) {
    const AuctionPoint& p = auction_points_[j];
    consider(p.px, p.buy, p.sell);
    if (j + 1 == m || auction_points_[j + 1].px - p.px < PriceTicks(2)) continue;
    // The gap (p.px, next.px): buys at or above any of its ticks are those at or above
    // next.px, sells at or below are those at or below p.px.
    const PriceTicks first = p.px + PriceTicks(1);
    const PriceTicks last = auction_points_[j + 1].px - PriceTicks(1);
    const PriceTicks px = config_.has_ref ? std::clamp(config_.ref, first, last) : first;
    consider(px, auction_points_[j + 1].buy, p.sell);
  }
  if (!found) return;
  uint32_t survivors[4] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  // Greedy pairing: buys price desc then time, sells price asc then time; whole quantities.
  while (best_[0] != kNoPrice && best_[0] >= best_px && best_[1] != kNoPrice &&
         best_[1] <= best_px) {
    PairBest(true, best_px, &survivors[0], &survivors[1]);
  }
  // Uncross. The price was found on whole quantities, and STP cancels during the pairing
  // can take away volume it relied on, leaving orders of other firms crossed on the far
  // side of it (a bid at 5.330 over an ask at 5.329 after an open at 5.331). They cannot
  // trade at the auction price, so they trade now as in continuous trading: the
  // later-entered order is the aggressor, at the earlier one's price (docs/engine.md).
  while (best_[0] != kNoPrice && best_[1] != kNoPrice && best_[0] >= best_[1]) {
    PairBest(false, PriceTicks(0), &survivors[2], &survivors[3]);
  }
  // A survivor whose displayed part was consumed refills and goes to the back (as in
  // continuous trading). Only the last pair of each loop can survive partially filled.
  for (uint32_t slot : survivors) {
    if (slot == kNoSlot) continue;
    Order& o = ctx_->store.at(slot);
    if (o.live && o.in_level && o.shown == Qty(0) && o.leaves() > Qty(0)) {
      Unlink(slot);
      o.shown = std::min(o.display, o.leaves());
      o.priority_seq = ctx_->next_priority++;
      Append(slot);
    }
  }
}

void OrderBook::PairBest(bool at_auction_price, PriceTicks auction_px, uint32_t* last_buy,
                         uint32_t* last_sell) {
  const uint32_t bs = LevelAt(0, best_[0]).head;
  const uint32_t ss = LevelAt(1, best_[1]).head;
  Order& b = ctx_->store.at(bs);
  Order& s = ctx_->store.at(ss);
  // The later-entered order is the aggressor: its STP action decides; in the uncross it
  // also takes the earlier one's price.
  const bool buy_later = b.priority_seq > s.priority_seq;
  if (b.firm == s.firm && b.stp == s.stp) {
    uint32_t later = buy_later ? bs : ss, earlier = buy_later ? ss : bs;
    switch (ctx_->store.at(later).stp_action) {
      case StpAction::kCancelResting:
        EndOrder(earlier, CancelReason::kStp);
        break;
      case StpAction::kCancelAggressor:
        EndOrder(later, CancelReason::kStp);
        break;
      case StpAction::kCancelBoth:
        EndOrder(earlier, CancelReason::kStp);
        EndOrder(later, CancelReason::kStp);
        break;
    }
    return;
  }
  const PriceTicks px = at_auction_price ? auction_px : buy_later ? s.px : b.px;
  const Aggressor agg = at_auction_price ? Aggressor::kNone
                        : buy_later      ? Aggressor::kBuy
                                         : Aggressor::kSell;
  Qty q = std::min(b.leaves(), s.leaves());
  for (uint32_t slot : {bs, ss}) {
    Order& o = ctx_->store.at(slot);
    Qty from_shown = std::min(o.shown, q);
    o.shown -= from_shown;
    LevelAt(Index(o.side), o.px).display_qty -= from_shown;
    Fill(slot, q, px);
  }
  RecordPrint(px);
  EmitTrade(b, s, px, q, agg);
  *last_buy = bs;
  *last_sell = ss;
  if (b.leaves() == Qty(0)) Finish(bs);
  if (s.leaves() == Qty(0)) Finish(ss);
}

}  // namespace cfx::engine
