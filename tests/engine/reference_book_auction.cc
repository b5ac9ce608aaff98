// The reference model's opening auction (reference_book.h), apart from its continuous
// trading: the plainest statement of the uncrossing rules the engine is compared against.
#include <algorithm>
#include <string>
#include <vector>

#include "reference_book.h"

namespace cfx::engine::testing {
// Opening auction (§4, §4.2): every tick between the lowest and highest limit price is a
// candidate; the price maximises executed quantity, then minimises the imbalance, then the
// distance to the band reference (skipped without one), then is the lower price. Buys (price
// desc, time) and sells (price asc, time) are paired greedily at that price with their whole
// quantity; STP acts with the later-entered (later time priority) order as aggressor.
void ReferenceBook::Auction() {
  ++stats_.auctions;
  if (book_.empty()) return;
  Ticks lo = book_[0].px, hi = book_[0].px;
  for (const O& o : book_) {
    lo = std::min(lo, o.px);
    hi = std::max(hi, o.px);
  }
  struct Cand {
    Ticks px;
    Lots exec, imbalance, dist;
  };
  std::vector<Cand> cands;  // ascending price
  for (Ticks p = lo; p <= hi; ++p) {
    Lots buys = 0, sells = 0;
    for (const O& o : book_) {
      if (o.side == Side::kBuy && o.px >= p) buys += o.leaves();
      if (o.side == Side::kSell && o.px <= p) sells += o.leaves();
    }
    Lots exec = std::min(buys, sells);
    if (exec > 0) cands.push_back({p, exec, std::abs(buys - sells), std::abs(p - ref_)});
  }
  if (cands.empty()) return;
  // Keeps the candidates with the smallest key; returns how many are left.
  auto keep_min = [&](auto key) {
    Lots best = key(cands[0]);
    for (const Cand& c : cands) best = std::min(best, key(c));
    std::erase_if(cands, [&](const Cand& c) { return key(c) != best; });
    return cands.size();
  };
  size_t n_exec = keep_min([](const Cand& c) { return -c.exec; });
  size_t n_imb = keep_min([](const Cand& c) { return c.imbalance; });
  size_t n_ref = has_ref_ ? keep_min([](const Cand& c) { return c.dist; }) : n_imb;
  if (n_exec > 1 && n_imb == 1) ++stats_.auction_by_imbalance;
  if (n_imb > 1 && n_ref == 1) ++stats_.auction_by_ref;
  if (n_ref > 1) ++stats_.auction_by_lower;
  const Ticks px = cands[0].px;  // the lower price of what is left

  // The best order of `side` that is executable at px, -1 if none.
  auto best = [&](Side side) {
    int b = -1;
    for (int i = 0; i < static_cast<int>(book_.size()); ++i) {
      const O& o = book_[i];
      if (o.side != side || (side == Side::kBuy ? o.px < px : o.px > px)) continue;
      if (b < 0) {
        b = i;
        continue;
      }
      const O& x = book_[b];
      bool better = side == Side::kBuy ? o.px > x.px : o.px < x.px;
      if (better || (o.px == x.px && o.prio < x.prio)) b = i;
    }
    return b;
  };
  // Erases book_ entries by index (descending, so the others stay valid).
  auto erase = [&](std::vector<int> idx) {
    std::sort(idx.rbegin(), idx.rend());
    for (int i : idx) book_.erase(book_.begin() + i);
  };
  // STP between the buy at b and the sell at s, the later-entered one the aggressor.
  auto stp = [&](int b, int s) {
    int later = book_[b].prio > book_[s].prio ? b : s, earlier = later == b ? s : b;
    StpAction act = book_[later].act;
    std::vector<int> gone;  // cancel_both reports the resting (earlier) order first
    if (act != StpAction::kCancelAggressor) gone.push_back(earlier);
    if (act != StpAction::kCancelResting) gone.push_back(later);
    for (int i : gone) {
      Emit("C " + book_[i].cl + " " + std::to_string(book_[i].leaves()) + " stp");
      ++stats_.auction_stp_cancels;
    }
    erase(gone);
  };
  bool traded = false;
  for (;;) {
    int b = best(Side::kBuy), s = best(Side::kSell);
    if (b < 0 || s < 0) break;
    O& buy = book_[b];
    O& sell = book_[s];
    if (buy.firm == sell.firm && buy.stp == sell.stp) {
      stp(b, s);
      continue;
    }
    Lots q = std::min(buy.leaves(), sell.leaves());
    for (O* o : {&buy, &sell}) {
      o->cum += q;
      o->shown -= std::min(o->shown, q);  // the displayed part is consumed first
    }
    Emit("T " + std::to_string(px) + " " + std::to_string(q) + " " + buy.cl + " " + sell.cl +
         " none");
    ++stats_.auction_trades;
    traded = true;
    prints_.push_back(px);
    last_ = px;
    has_last_ = true;
    std::vector<int> filled;
    if (buy.leaves() == 0) filled.push_back(b);
    if (sell.leaves() == 0) filled.push_back(s);
    erase(filled);
  }
  if (traded) ++stats_.auctions_with_trades;
  // Uncross: what STP cancels left crossed trades as in continuous trading, the later-entered
  // order the aggressor, at the earlier one's price; STP as above.
  for (;;) {
    int b = -1, s = -1;  // the best bid and ask, price then time
    for (int i = 0; i < static_cast<int>(book_.size()); ++i) {
      const O& o = book_[i];
      int& best_i = o.side == Side::kBuy ? b : s;
      if (best_i < 0) {
        best_i = i;
        continue;
      }
      const O& x = book_[best_i];
      bool better = o.side == Side::kBuy ? o.px > x.px : o.px < x.px;
      if (better || (o.px == x.px && o.prio < x.prio)) best_i = i;
    }
    if (b < 0 || s < 0 || book_[b].px < book_[s].px) break;
    O& buy = book_[b];
    O& sell = book_[s];
    const bool buy_later = buy.prio > sell.prio;
    if (buy.firm == sell.firm && buy.stp == sell.stp) {
      stp(b, s);
      continue;
    }
    const Ticks tpx = buy_later ? sell.px : buy.px;
    Lots q = std::min(buy.leaves(), sell.leaves());
    for (O* o : {&buy, &sell}) {
      o->cum += q;
      o->shown -= std::min(o->shown, q);
    }
    Emit("T " + std::to_string(tpx) + " " + std::to_string(q) + " " + buy.cl + " " + sell.cl + " " +
         (buy_later ? "buy" : "sell"));
    ++stats_.auction_uncross_trades;
    prints_.push_back(tpx);
    last_ = tpx;
    has_last_ = true;
    std::vector<int> filled;
    if (buy.leaves() == 0) filled.push_back(b);
    if (sell.leaves() == 0) filled.push_back(s);
    erase(filled);
  }
  // An iceberg whose displayed part was used up refills and goes to the back of its level.
  for (O& o : book_) {
    if (o.display > 0 && o.shown == 0) {
      o.shown = std::min(o.display, o.leaves());
      o.prio = ++prio_;
      ++stats_.auction_iceberg_refills;
    }
  }
}

}  // namespace cfx::engine::testing
