#include "reference_book.h"

#include <algorithm>
#include <map>

namespace cfx::engine::testing {
namespace {
std::string S(int64_t v) { return std::to_string(v); }
bool Crosses(Side side, int64_t limit, int64_t px) {
  return side == Side::kBuy ? px <= limit : px >= limit;
}
}  // namespace

int ReferenceBook::BestOpp(Side side) const { return BestOppIn(book_, side); }

int ReferenceBook::BestOppIn(const std::vector<O>& book, Side side) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(book.size()); ++i) {
    const O& r = book[i];
    if (r.side == side) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const O& b = book[best];
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

void ReferenceBook::RestOrExecute(O o) {
  if (state_ == TradingState::kPreOpen) {
    Rest(o);
    return;
  }
  prints_.clear();
  Execute(o);
  Triggers(prints_);
}

void ReferenceBook::Execute(O o) {
  bool market = o.type == OrderType::kMarket;
  Ticks limit = o.px;
  int b = BestOpp(o.side);
  if (market) {
    if (b < 0) {
      Emit("C " + o.cl + " " + S(o.leaves()) + " no_liquidity");
      return;
    }
    limit = o.side == Side::kBuy ? book_[b].px + 50 : book_[b].px - 50;
  }
  if (o.tif == TimeInForce::kFok && !FillsWhole(o, limit)) {
    Emit("C " + o.cl + " " + S(o.leaves()) + " fok");
    return;
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
    Lots q = std::min(o.leaves(), r.shown);
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

// The FOK rule at its plainest: the order's own matching, run on a copy of the book, fills
// it whole. An own order that cancel_resting would cancel leaves the copy; any other STP
// action ends the run unfilled.
bool ReferenceBook::FillsWhole(O o, Ticks limit) const {
  std::vector<O> book = book_;
  uint64_t prio = prio_;
  while (o.leaves() > 0) {
    const int b = BestOppIn(book, o.side);
    if (b < 0 || !Crosses(o.side, limit, book[b].px)) return false;
    O& r = book[b];
    if (r.firm == o.firm && r.stp == o.stp) {
      if (o.act != StpAction::kCancelResting) return false;
      book.erase(book.begin() + b);
      continue;
    }
    const Lots q = std::min(o.leaves(), r.shown);
    o.cum += q;
    r.cum += q;
    r.shown -= q;
    if (r.shown == 0) {
      if (r.leaves() == 0) {
        book.erase(book.begin() + b);
      } else {
        r.shown = std::min(r.display, r.leaves());
        r.prio = ++prio;
      }
    }
  }
  return true;
}

void ReferenceBook::Triggers(std::vector<Ticks> prints) {
  while (!prints.empty()) {
    std::vector<O> batch;
    for (Ticks p : prints) {
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
        Ticks dx = std::abs(x.stop - p), dy = std::abs(y.stop - p);
        if (dx != dy) return dx > dy;
        return x.prio < y.prio;
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
    if (book_[i].acct == acct && book_[i].cl == cl) {
      *is_stop = false;
      return static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < stops_.size(); ++i) {
    if (stops_[i].acct == acct && stops_[i].cl == cl) {
      *is_stop = true;
      return static_cast<int>(i);
    }
  }
  return -1;
}

template <typename Pred>
int ReferenceBook::CancelWhere(Pred pred, const char* reason) {
  std::vector<std::pair<uint64_t, std::string>> all;
  for (const O& o : book_)
    if (pred(o)) all.push_back({o.accept, o.cl + " " + S(o.leaves())});
  for (const O& o : stops_)
    if (pred(o)) all.push_back({o.accept, o.cl + " " + S(o.leaves())});
  std::sort(all.begin(), all.end());
  for (auto& [a, s] : all) Emit("C " + s + " " + reason);
  std::erase_if(book_, pred);
  std::erase_if(stops_, pred);
  return static_cast<int>(all.size());
}

void ReferenceBook::New(const NewOrderCmd& c) {
  std::string cl(c.cl.view()), acct(c.acct.view());
  auto reject = [&](const char* r) { Emit("J " + cl + " " + r); };
  bool limit_px = c.type == OrderType::kLimit || c.type == OrderType::kStopLimit;
  bool stop = c.type == OrderType::kStop || c.type == OrderType::kStopLimit;
  bool resting_tif =
      c.tif == TimeInForce::kDay || c.tif == TimeInForce::kGtc || c.tif == TimeInForce::kGtd;
  // §4.2 precedence, in order.
  if (c.has_display && (c.type == OrderType::kMarket || c.type == OrderType::kStop)) {
    return reject("invalid_field");
  }
  if (c.post_only && (c.type != OrderType::kLimit || !resting_tif)) return reject("invalid_field");
  if (c.tif == TimeInForce::kGtd && (c.expire == kNoTime || (has_now_ && now_ >= c.expire))) {
    ++stats_.gtd_invalid;
    return reject("invalid_field");
  }
  if (c.sym.view() != sym_) {
    ++stats_.unknown_symbol;
    return reject("unknown_symbol");
  }
  if (state_ == TradingState::kClosed || state_ == TradingState::kHalted) {
    ++stats_.state_rejects;
    return reject(state_ == TradingState::kClosed ? "market_closed" : "halted");
  }
  if (taken_.count({acct, cl})) return reject("duplicate_client_id");
  if (c.qty.value() <= 0 ||
      (c.has_display && (c.display.value() < 1 || c.display.value() > c.qty.value()))) {
    return reject("invalid_qty");
  }
  if (c.qty.value() > max_qty_) return reject("qty_above_max");
  if (limit_px && !c.px.on_tick) return reject("invalid_price_tick");
  if (stop && !c.stop.on_tick) return reject("invalid_price_tick");
  if (limit_px && !InBand(c.px.ticks.value())) return reject("price_outside_band");
  if (stop && (has_last_ || has_ref_)) {
    Ticks r = has_last_ ? last_ : ref_;
    bool met = c.side == Side::kBuy ? r >= c.stop.ticks.value() : r <= c.stop.ticks.value();
    if (met) return reject("invalid_stop_price");
  }
  // Stops rest pending in pre_open whatever their tif; they are not market orders yet.
  if (state_ == TradingState::kPreOpen && !stop && (c.type == OrderType::kMarket || !resting_tif)) {
    ++stats_.pre_open_rejects;
    return reject("market_closed");
  }
  if (c.post_only && state_ == TradingState::kOpen) {  // nothing trades on arrival in pre_open
    int b = BestOpp(c.side);
    if (b >= 0 && Crosses(c.side, c.px.ticks.value(), book_[b].px))
      return reject("post_only_would_cross");
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
  o.px = limit_px ? c.px.ticks.value() : 0;
  o.stop = stop ? c.stop.ticks.value() : 0;
  o.qty = c.qty.value();
  o.display = c.has_display ? c.display.value() : 0;
  o.post_only = c.post_only;
  o.expire = c.tif == TimeInForce::kGtd ? c.expire : kNoTime;
  o.accept = ++accept_;
  if (stop) {
    o.prio = ++prio_;  // its submission time among the stops one print triggers
    stops_.push_back(o);
    return;
  }
  if (state_ == TradingState::kPreOpen) ++stats_.pre_open_accepts;
  RestOrExecute(o);
}

void ReferenceBook::Cancel(const CancelCmd& c) {
  bool is_stop = false;
  int i = FindLive(std::string(c.acct.view()), std::string(c.orig.view()), &is_stop);
  if (i < 0) {
    Emit("X " + std::string(c.orig.view()) + " unknown_order");
    return;
  }
  if (state_ == TradingState::kClosed) {
    ++stats_.cancel_state_rejects;
    Emit("X " + std::string(c.orig.view()) + " market_closed");
    return;
  }
  auto& v = is_stop ? stops_ : book_;
  Emit("C " + v[i].cl + " " + S(v[i].leaves()) + " user");
  v.erase(v.begin() + i);
}

void ReferenceBook::Replace(const ReplaceCmd& c) {
  std::string orig(c.orig.view()), acct(c.acct.view()), cl(c.cl.view());
  bool is_stop = false;
  int i = FindLive(acct, orig, &is_stop);
  if (i < 0) {
    Emit("X " + orig + " unknown_order");
    return;
  }
  if (state_ == TradingState::kClosed || state_ == TradingState::kHalted) {
    ++stats_.replace_state_rejects;
    Emit("X " + orig + (state_ == TradingState::kClosed ? " market_closed" : " halted"));
    return;
  }
  auto& v = is_stop ? stops_ : book_;
  O o = v[i];
  if (taken_.count({acct, cl})) {
    Emit("X " + orig + " duplicate_client_id");
    return;
  }
  Lots qty = c.has_qty ? c.qty.value() : o.qty;
  if (qty < 0) {
    Emit("X " + orig + " invalid_qty");
    return;
  }
  if (qty > max_qty_) {
    Emit("X " + orig + " qty_above_max");
    return;
  }
  bool has_limit = o.type == OrderType::kLimit || o.type == OrderType::kStopLimit;
  Ticks px = o.px;
  if (has_limit && c.px.present) {
    if (!c.px.on_tick) {
      Emit("X " + orig + " invalid_price_tick");
      return;
    }
    if (!InBand(c.px.ticks.value())) {
      Emit("X " + orig + " price_outside_band");
      return;
    }
    px = c.px.ticks.value();
  }
  // A new price or a larger quantity (which loses priority: the order arrives again) is
  // checked for crossing, as the engine has since 2026-12-07.
  if (o.post_only && !is_stop && state_ == TradingState::kOpen && (px != o.px || qty > o.qty) &&
      qty > o.cum) {
    int b = BestOpp(o.side);
    if (b >= 0 && Crosses(o.side, px, book_[b].px)) {
      Emit("X " + orig + " post_only_would_cross");
      return;
    }
  }
  taken_.insert({acct, cl});
  if (qty <= o.cum) {
    Emit("C " + cl + " " + S(o.leaves()) + " replaced_to_zero");
    v.erase(v.begin() + i);
    return;
  }
  std::string pxs = (o.type == OrderType::kStop || o.type == OrderType::kMarket) ? "-" : S(px);
  if (is_stop) {
    // A price change (stop_limit) or a quantity increase: submitted anew among stops.
    const bool loses = (o.type == OrderType::kStopLimit && px != o.px) || qty > o.qty;
    v[i].cl = cl;
    v[i].px = px;
    v[i].qty = qty;
    if (loses) {
      v[i].prio = ++prio_;
      O moved = v[i];
      v.erase(v.begin() + i);
      v.push_back(moved);
    }
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
  RestOrExecute(o);  // in pre-open: to the back of its level
}

void ReferenceBook::MassCancel(const MassCancelCmd& c) {
  if (!c.sym.empty() && c.sym.view() != sym_) {
    ++stats_.unknown_symbol;
    Emit("J  unknown_symbol");
    return;
  }
  if (state_ == TradingState::kClosed) return;  // nothing is allowed in closed
  std::string acct(c.acct.view());
  CancelWhere([&](const O& o) { return o.acct == acct; }, "mass");
}

void ReferenceBook::State(const StateCmd& c) {
  if (c.sym.view() != sym_) {
    ++stats_.unknown_symbol;
    Emit("J  unknown_symbol");
    return;
  }
  TradingState prev = state_;
  state_ = c.state;
  if (prev != TradingState::kPreOpen || c.state != TradingState::kOpen) return;
  prints_.clear();
  Auction();
  size_t before = out_.size();
  Triggers(prints_);  // stops triggered by auction prints enter after the auction
  for (size_t i = before; i < out_.size(); ++i) stats_.auction_triggers += out_[i][0] == 'G';
}

void ReferenceBook::Time(const TimeCmd& c) {
  if (has_now_ && c.ts < now_) return;  // time never goes back
  constexpr Timestamp kNsPerDay = 86'400'000'000'000;
  if (ids_per_day_ && has_now_ && c.ts / kNsPerDay != now_ / kNsPerDay) {
    // A new UTC date: only the ids of live orders stay taken (ClOrdIDs unique per day).
    std::set<std::pair<std::string, std::string>> live;
    for (const std::vector<O>* v : {&book_, &stops_}) {
      for (const O& o : *v) live.insert({o.acct, o.cl});
    }
    taken_.swap(live);
  }
  has_now_ = true;
  now_ = c.ts;
  stats_.gtd_expired += CancelWhere(
      [&](const O& o) { return o.tif == TimeInForce::kGtd && o.expire <= now_; }, "expired");
}

void ReferenceBook::Close(const CloseCmd& c) {
  if (c.sym.view() != sym_) {
    ++stats_.unknown_symbol;
    Emit("J  unknown_symbol");
    return;
  }
  ++stats_.closes;
  stats_.day_expired +=
      CancelWhere([](const O& o) { return o.tif == TimeInForce::kDay; }, "expired");
  state_ = TradingState::kClosed;
}

std::vector<std::string> ReferenceBook::Depth(Side side) const {
  std::map<Ticks, std::pair<Lots, int>> levels;
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
