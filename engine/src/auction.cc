// Opening auction (pre_open -> open), §4 and §4.2: one price maximising executed quantity;
// ties by smallest imbalance, then nearest the band reference, then the lower price; then
// the uncross of what STP left crossed.
#include <algorithm>
#include <cassert>

#include "cfx/engine/order_book.h"

namespace cfx::engine {

void OrderBook::RunAuction() {
  if (best_[0] < 0 || best_[1] < 0) return;
  // Candidates: every tick between the lowest and the highest resting limit price.
  int64_t lo = std::min(ScanUp(0, 0), best_[1]);
  int64_t hi = std::max(best_[0], ScanDown(1, n_ - 1));
  int64_t span = hi - lo + 1;
  auction_buy_.assign(span, Qty(0));  // whole quantity (icebergs count hidden) per level
  auction_sell_.assign(span, Qty(0));
  for (int s = 0; s < 2; ++s) {
    std::vector<Qty>& per = s == 0 ? auction_buy_ : auction_sell_;
    for (int64_t i = lo; i <= hi; ++i) {
      for (uint32_t o = levels_[s][i].head; o != kNoSlot; o = ctx_->store.at(o).next) {
        per[i - lo] += ctx_->store.at(o).leaves();
      }
    }
  }
  // Cumulate: buys at or above a price, sells at or below it.
  for (int64_t k = span - 2; k >= 0; --k) auction_buy_[k] += auction_buy_[k + 1];
  for (int64_t k = 1; k < span; ++k) auction_sell_[k] += auction_sell_[k - 1];
  int64_t best_k = -1;
  Qty best_exec{0}, best_imb{0};
  PriceTicks best_dist{0};
  for (int64_t k = 0; k < span; ++k) {  // ascending: a full tie keeps the lower price
    Qty exec = std::min(auction_buy_[k], auction_sell_[k]);
    if (exec == Qty(0)) continue;
    Qty imb = auction_buy_[k] > auction_sell_[k] ? auction_buy_[k] - auction_sell_[k]
                                                 : auction_sell_[k] - auction_buy_[k];
    PriceTicks px = PriceAt(lo + k);
    PriceTicks dist = !config_.has_ref   ? PriceTicks(0)
                      : px > config_.ref ? px - config_.ref
                                         : config_.ref - px;
    bool better = best_k < 0 || exec > best_exec ||
                  (exec == best_exec && (imb < best_imb || (imb == best_imb && dist < best_dist)));
    if (better) {
      best_k = k;
      best_exec = exec;
      best_imb = imb;
      best_dist = dist;
    }
  }
  if (best_k < 0) return;
  const int64_t idx = lo + best_k;
  uint32_t survivors[4] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  // Greedy pairing: buys price desc then time, sells price asc then time; whole quantities.
  while (best_[0] >= idx && best_[1] >= 0 && best_[1] <= idx) {
    PairBest(true, PriceAt(idx), &survivors[0], &survivors[1]);
  }
  // Uncross. The price was found on whole quantities, and STP cancels during the pairing
  // can take away volume it relied on, leaving orders of other firms crossed on the far
  // side of it (a bid at 5.330 over an ask at 5.329 after an open at 5.331). They cannot
  // trade at the auction price, so they trade now as in continuous trading: the
  // later-entered order is the aggressor, at the earlier one's price (docs/engine.md).
  while (best_[0] >= 0 && best_[1] >= 0 && best_[0] >= best_[1]) {
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
  const uint32_t bs = levels_[0][best_[0]].head;
  const uint32_t ss = levels_[1][best_[1]].head;
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
    levels_[Index(o.side)][IndexOf(o.px)].display_qty -= from_shown;
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
