#include "reference_book.h"

#include <algorithm>
#include <map>

namespace cfx::engine::testing {
namespace {
std::string S(int64_t v) { return std::to_string(v); }
bool Crosses(Side side, PriceTicks limit, PriceTicks px) {
  return side == Side::kBuy ? px <= limit : px >= limit;
}
}  // namespace

int ReferenceBook::BestOpp(Side side) const {
  int best = -1;
  for (int i = 0; i < static_cast<int>(book_.size()); ++i) {
    const O& r = book_[i];
    if (r.side == side) continue;
    if (best < 0) { best = i; continue; }
    const O& b = book_[best];
    bool better = r.side == Side::kSell ? r.px < b.px : r.px > b.px;
    if (better || (r.px == b.px && r.prio < b.prio)) best = i;
  }
  return best;
}

void ReferenceBook::Rest(O o) {
  o.prio = ++prio_;
  o.shown = o.display > 0 ? std::min(o.display, o.leaves()) : o.leaves();
  book_.push_back(o);
}

void ReferenceBook::Execute(O o) {
  bool market = o.type == OrderType::kMarket;
  PriceTicks limit = o.px;
  int b = BestOpp(o.side);
  if (market) {
    if (b < 0) { Emit("C " + o.cl + " " + S(o.leaves()) + " no_liquidity"); return; }
    limit = o.side == Side::kBuy ? book_[b].px + 50 : book_[b].px - 50;
  }
  if (o.tif == TimeInForce::kFok) {
    // Walk a sorted copy of the opposite side.
    std::vector<O> opp;
    for (const O& r : book_) if (r.side != o.side && Crosses(o.side, limit, r.px)) opp.push_back(r);
    std::sort(opp.begin(), opp.end(), [&](const O& x, const O& y) {
      if (x.px != y.px) return o.side == Side::kBuy ? x.px < y.px : x.px > y.px;
      return x.prio < y.prio;
    });
    Qty avail = 0;
    bool ok = false;
    for (const O& r : opp) {
      if (r.firm == o.firm && r.stp == o.stp) {
        if (o.act == StpAction::kCancelResting) continue;
        break;
      }
      avail += r.leaves();
      if (avail >= o.leaves()) { ok = true; break; }
    }
    if (!ok) { Emit("C " + o.cl + " " + S(o.leaves()) + " fok"); return; }
  }
  while (o.leaves() > 0) {
    b = BestOpp(o.side);
    if (b < 0 || !Crosses(o.side, limit, book_[b].px)) break;
    O& r = book_[b];
    if (r.firm == o.firm && r.stp == o.stp) {
      if (o.act == StpAction::kCancelResting || o.act == StpAction::kCancelBoth) {
        Emit("C " + r.cl + " " + S(r.leaves()) + " stp");
        book_.erase(book_.begin() + b);
      }
      if (o.act == StpAction::kCancelResting) continue;
      Emit("C " + o.cl + " " + S(o.leaves()) + " stp");
      return;
    }
    Qty q = std::min(o.leaves(), r.shown);
    o.cum += q;
    r.cum += q;
    r.shown -= q;
    last_ = r.px;
    has_last_ = true;
    prints_.push_back(r.px);
    const O& buy = o.side == Side::kBuy ? o : r;
    const O& sell = o.side == Side::kBuy ? r : o;
    Emit("T " + S(r.px) + " " + S(q) + " " + buy.cl + " " + sell.cl + " " +
         (o.side == Side::kBuy ? "buy" : "sell"));
    if (r.shown == 0) {
      if (r.leaves() == 0) {
        book_.erase(book_.begin() + b);
      } else {
        r.shown = std::min(r.display, r.leaves());
        r.prio = ++prio_;
      }
    }
  }
  if (o.leaves() == 0) return;
  if (market || o.tif == TimeInForce::kIoc || o.tif == TimeInForce::kFok) {
    Emit("C " + o.cl + " " + S(o.leaves()) + (o.tif == TimeInForce::kFok ? " fok" : " ioc"));
    return;
  }
  Rest(o);
}

void ReferenceBook::Triggers(std::vector<PriceTicks> prints) {
  while (!prints.empty()) {
    std::vector<O> batch;
    for (PriceTicks p : prints) {
      std::vector<O> now;
      for (size_t i = 0; i < stops_.size();) {
        const O& s = stops_[i];
        if (s.side == Side::kBuy ? s.stop <= p : s.stop >= p) {
          now.push_back(s);
          stops_.erase(stops_.begin() + i);
        } else {
          ++i;
        }
      }
      std::stable_sort(now.begin(), now.end(), [&](const O& x, const O& y) {
        PriceTicks dx = std::abs(x.stop - p), dy = std::abs(y.stop - p);
        if (dx != dy) return dx > dy;
        return x.accept < y.accept;
      });
      batch.insert(batch.end(), now.begin(), now.end());
    }
    prints_.clear();
    for (O s : batch) {
      Emit("G " + s.cl);
      s.type = s.type == OrderType::kStop ? OrderType::kMarket : OrderType::kLimit;
      Execute(s);
    }
    prints = prints_;
    prints_.clear();
  }
}

int ReferenceBook::FindLive(const std::string& acct, const std::string& cl, bool* is_stop) const {
  for (size_t i = 0; i < book_.size(); ++i) {
    if (book_[i].acct == acct && book_[i].cl == cl) { *is_stop = false; return static_cast<int>(i); }
  }
  for (size_t i = 0; i < stops_.size(); ++i) {
    if (stops_[i].acct == acct && stops_[i].cl == cl) { *is_stop = true; return static_cast<int>(i); }
  }
  return -1;
}

void ReferenceBook::New(const NewOrderCmd& c) {
  std::string cl(c.cl.view()), acct(c.acct.view());
  auto reject = [&](const char* r) { Emit("J " + cl + " " + r); };
  bool limit_px = c.type == OrderType::kLimit || c.type == OrderType::kStopLimit;
  bool stop = c.type == OrderType::kStop || c.type == OrderType::kStopLimit;
  if (c.has_display && (c.type == OrderType::kMarket || c.type == OrderType::kStop)) return reject("invalid_field");
  if (c.post_only && (c.type != OrderType::kLimit || c.tif == TimeInForce::kIoc || c.tif == TimeInForce::kFok)) return reject("invalid_field");
  if (taken_.count({acct, cl})) return reject("duplicate_client_id");
  if (c.qty <= 0 || (c.has_display && (c.display < 1 || c.display > c.qty))) return reject("invalid_qty");
  if (c.qty > max_qty_) return reject("qty_above_max");
  if (limit_px && !c.px.on_tick) return reject("invalid_price_tick");
  if (stop && !c.stop.on_tick) return reject("invalid_price_tick");
  if (limit_px && (c.px.ticks * 10 < ref_ * 9 || c.px.ticks * 10 > ref_ * 11)) return reject("price_outside_band");
  if (stop) {
    PriceTicks r = has_last_ ? last_ : ref_;
    if (c.side == Side::kBuy ? r >= c.stop.ticks : r <= c.stop.ticks) return reject("invalid_stop_price");
  }
  if (c.post_only) {
    int b = BestOpp(c.side);
    if (b >= 0 && Crosses(c.side, c.px.ticks, book_[b].px)) return reject("post_only_would_cross");
  }
  taken_.insert({acct, cl});
  Emit("A " + cl);
  O o;
  o.cl = cl;
  o.acct = acct;
  o.firm = c.firm.empty() ? acct : std::string(c.firm.view());
  o.stp = c.stp.empty() ? acct : std::string(c.stp.view());
  o.side = c.side;
  o.type = c.type;
  o.tif = c.type == OrderType::kMarket && c.tif != TimeInForce::kFok ? TimeInForce::kIoc : c.tif;
  o.act = c.stp_action;
  o.px = limit_px ? c.px.ticks : 0;
  o.stop = stop ? c.stop.ticks : 0;
  o.qty = c.qty;
  o.display = c.has_display ? c.display : 0;
  o.post_only = c.post_only;
  o.accept = ++accept_;
  if (stop) {
    stops_.push_back(o);
    return;
  }
  prints_.clear();
  Execute(o);
  Triggers(prints_);
}

void ReferenceBook::Cancel(const CancelCmd& c) {
  bool is_stop = false;
  int i = FindLive(std::string(c.acct.view()), std::string(c.orig.view()), &is_stop);
  if (i < 0) { Emit("X " + std::string(c.orig.view()) + " unknown_order"); return; }
  auto& v = is_stop ? stops_ : book_;
  Emit("C " + v[i].cl + " " + S(v[i].leaves()) + " user");
  v.erase(v.begin() + i);
}

void ReferenceBook::Replace(const ReplaceCmd& c) {
  std::string orig(c.orig.view()), acct(c.acct.view()), cl(c.cl.view());
  bool is_stop = false;
  int i = FindLive(acct, orig, &is_stop);
  if (i < 0) { Emit("X " + orig + " unknown_order"); return; }
  auto& v = is_stop ? stops_ : book_;
  O o = v[i];
  if (taken_.count({acct, cl})) { Emit("X " + orig + " duplicate_client_id"); return; }
  Qty qty = c.has_qty ? c.qty : o.qty;
  if (qty <= 0) { Emit("X " + orig + " invalid_qty"); return; }
  if (qty > max_qty_) { Emit("X " + orig + " qty_above_max"); return; }
  bool has_limit = o.type == OrderType::kLimit || o.type == OrderType::kStopLimit;
  PriceTicks px = o.px;
  if (has_limit && c.px.present) {
    if (!c.px.on_tick) { Emit("X " + orig + " invalid_price_tick"); return; }
    if (c.px.ticks * 10 < ref_ * 9 || c.px.ticks * 10 > ref_ * 11) { Emit("X " + orig + " price_outside_band"); return; }
    px = c.px.ticks;
  }
  if (o.post_only && !is_stop && px != o.px && qty > o.cum) {
    int b = BestOpp(o.side);
    if (b >= 0 && Crosses(o.side, px, book_[b].px)) { Emit("X " + orig + " post_only_would_cross"); return; }
  }
  taken_.insert({acct, cl});
  if (qty <= o.cum) {
    Emit("C " + cl + " " + S(o.leaves()) + " replaced_to_zero");
    v.erase(v.begin() + i);
    return;
  }
  std::string pxs = (o.type == OrderType::kStop || o.type == OrderType::kMarket) ? "-" : S(px);
  if (is_stop) {
    v[i].cl = cl;
    v[i].px = px;
    v[i].qty = qty;
    Emit("P " + cl + " " + orig + " " + pxs + " " + S(qty));
    return;
  }
  bool loses = px != o.px || qty > o.qty;
  if (!loses) {
    v[i].cl = cl;
    v[i].qty = qty;
    v[i].shown = std::min(v[i].shown, v[i].leaves());
    Emit("P " + cl + " " + orig + " " + pxs + " " + S(qty));
    return;
  }
  v.erase(v.begin() + i);
  o.cl = cl;
  o.px = px;
  o.qty = qty;
  Emit("P " + cl + " " + orig + " " + pxs + " " + S(qty));
  prints_.clear();
  Execute(o);
  Triggers(prints_);
}

void ReferenceBook::MassCancel(const std::string& acct) {
  std::vector<std::pair<uint64_t, std::string>> all;
  for (const O& o : book_) if (o.acct == acct) all.push_back({o.accept, "C " + o.cl + " " + S(o.leaves()) + " mass"});
  for (const O& o : stops_) if (o.acct == acct) all.push_back({o.accept, "C " + o.cl + " " + S(o.leaves()) + " mass"});
  std::sort(all.begin(), all.end());
  for (auto& [a, s] : all) Emit(s);
  std::erase_if(book_, [&](const O& o) { return o.acct == acct; });
  std::erase_if(stops_, [&](const O& o) { return o.acct == acct; });
}

std::vector<std::string> ReferenceBook::Depth(Side side) const {
  std::map<PriceTicks, std::pair<Qty, int>> levels;
  for (const O& o : book_) {
    if (o.side != side) continue;
    levels[o.px].first += o.shown;
    levels[o.px].second += 1;
  }
  std::vector<std::string> r;
  for (const auto& [px, v] : levels) r.push_back(S(px) + ":" + S(v.first) + ":" + S(v.second));
  if (side == Side::kBuy) std::reverse(r.begin(), r.end());
  return r;
}

}  // namespace cfx::engine::testing
