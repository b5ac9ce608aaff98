// Price grid, levels and the order-flow entry points of OrderBook.
#include "cfx/engine/order_book.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>

namespace cfx::engine {
namespace {

constexpr int64_t kMinGrid = 1024;

}  // namespace

OrderBook::OrderBook(const BookConfig& config, MatchContext* ctx) : config_(config), ctx_(ctx) {
  prints_.reserve(256);
  gen_prints_.reserve(256);
  triggered_.reserve(256);
  Reconfigure(config);
}

void OrderBook::Reconfigure(const BookConfig& config) {
  config_ = config;
  if (HasBand()) {
    // The window covers the band where the cap allows, so banded prices do not move it on
    // the order path. In 128 bits: a ref above INT64_MAX / 110 overflowed (undefined
    // behaviour).
    const __int128 ref = config_.ref.value();
    const __int128 lo128 = (ref * (100 - config_.band_percent) + 99) / 100;
    const __int128 hi128 = ref * (100 + config_.band_percent) / 100;
    PriceTicks lo(static_cast<int64_t>(std::max<__int128>(lo128, 1)));
    PriceTicks hi(static_cast<int64_t>(std::min<__int128>(hi128, INT64_MAX)));
    if (hi >= lo) Cover(lo, hi);
    if (!InWindow(config_.ref)) Cover(config_.ref, config_.ref);  // a band wider than the cap
  }
}

void OrderBook::SetState(TradingState next) {
  TradingState prev = state_;
  state_ = next;
  Event& e = ctx_->Emit(EventType::kStateChanged);
  e.sym = config_.id;
  e.has_sym = true;
  e.state = next;
  if (prev == TradingState::kPreOpen && next == TradingState::kOpen) {
    RunAuction();
    RunTriggers();
  }
}

bool OrderBook::InBand(PriceTicks px) const {
  if (!HasBand()) return true;
  // 0.9·ref ≤ px ≤ 1.1·ref, exact: scale by 100 instead of dividing.
  __int128 p = static_cast<__int128>(px.value()) * 100;
  __int128 r = config_.ref.value();
  return p >= r * (100 - config_.band_percent) && p <= r * (100 + config_.band_percent);
}

bool OrderBook::WouldCross(Side side, PriceTicks px) const {
  Side opp = Opposite(side);
  if (!HasBest(opp)) return false;
  PriceTicks best = BestPrice(opp);
  return side == Side::kBuy ? px >= best : px <= best;
}

bool OrderBook::StopAlreadyMet(Side side, PriceTicks stop) const {
  PriceTicks ref;
  if (has_last_) {
    ref = last_trade_;
  } else if (config_.has_ref) {
    ref = config_.ref;
  } else {
    return false;
  }
  return side == Side::kBuy ? ref >= stop : ref <= stop;
}

// --- Window and far levels -------------------------------------------------------------
//
// The window is moved or grown only by Cover: moved (the base alone, O(1)) when none of its
// levels holds an order, grown (a new array, its levels copied) when the prices asked for
// and the window's own range fit in max_grid_levels. It never shrinks and never drops a
// level, so it grows at most log2(cap / kMinGrid) times per book, and a client cannot make
// it regrid over and over. A price it cannot cover rests in a far level; far levels move
// into the window when it comes over them, never out.

void OrderBook::Cover(PriceTicks lo, PriceTicks hi) {
  if (n_ > 0 && InWindow(lo) && InWindow(hi)) return;
  const bool keep = window_levels_used_ > 0;  // the window's levels must stay in it
  PriceTicks a = keep ? std::min(lo, base_) : lo;
  PriceTicks b = keep ? std::max(hi, PriceAt(n_ - 1)) : hi;
  const uint64_t need = static_cast<uint64_t>((b - a).value()) + 1;
  const uint64_t cap = std::bit_ceil(std::max<size_t>(config_.max_grid_levels, 1));
  if (need > cap) return;  // the price rests in a far level
  uint64_t n = std::max<uint64_t>(
      {static_cast<uint64_t>(n_), static_cast<uint64_t>(kMinGrid), std::bit_ceil(need * 2)});
  n = std::max(std::min(n, cap), need);
  // Centered with slack on both sides, so a drifting market moves it rarely; kept inside
  // [1, INT64_MAX] ticks (near INT64_MAX the slack above `b` overflowed: undefined
  // behaviour, found by the sanitizer build).
  const int64_t slack = static_cast<int64_t>(n - need) / 2;
  PriceTicks base = a.value() - 1 < slack ? PriceTicks(1) : a - PriceTicks(slack);
  const int64_t last_base = INT64_MAX - static_cast<int64_t>(n - 1);
  if (base.value() > last_base) base = PriceTicks(last_base);
  MoveWindow(base, static_cast<int64_t>(n));
}

void OrderBook::MoveWindow(PriceTicks base, int64_t n) {
  const int64_t shift = (base_ - base).value();  // old index i -> new index i + shift
  for (int s = 0; s < 2; ++s) {
    if (n == n_ && window_levels_used_ == 0) break;  // empty and as large: only the base moves
    std::vector<Level> levels(n);
    std::vector<uint64_t> bits((n + 63) / 64, 0);
    for (int64_t i = ScanUp(s, 0); i >= 0; i = ScanUp(s, i + 1)) {
      const int64_t j = i + shift;
      assert(j >= 0 && j < n && "a grown window holds the old one's levels");
      levels[j] = levels_[s][i];
      bits[j >> 6] |= uint64_t{1} << (j & 63);
    }
    levels_[s] = std::move(levels);
    bits_[s] = std::move(bits);
  }
  base_ = base;
  n_ = n;
  // Far levels the window now covers move in (each at most once: none moves out).
  const PriceTicks last = PriceAt(n_ - 1);
  for (int s = 0; s < 2; ++s) {
    auto it = far_[s].lower_bound(base_.value());
    while (it != far_[s].end() && it->first <= last.value()) {
      const int64_t i = IndexOf(PriceTicks(it->first));
      levels_[s][i] = it->second;
      bits_[s][i >> 6] |= uint64_t{1} << (i & 63);
      ++window_levels_used_;
      it = far_[s].erase(it);
    }
  }
}

PriceTicks OrderBook::BestFrom(int side, PriceTicks from) const {
  PriceTicks r = kNoPrice;
  if (side == 0) {  // buys: the highest ≤ from
    if (n_ > 0 && from >= base_) {
      const int64_t i = ScanDown(0, std::min(IndexOf(from), n_ - 1));
      if (i >= 0) r = PriceAt(i);
    }
    if (!far_[0].empty()) {
      auto it = far_[0].upper_bound(from.value());
      if (it != far_[0].begin() && std::prev(it)->first > r.value())
        r = PriceTicks(std::prev(it)->first);
    }
  } else {  // sells: the lowest ≥ from
    if (n_ > 0 && from <= PriceAt(n_ - 1)) {
      const int64_t i = ScanUp(1, std::max<int64_t>(IndexOf(from), 0));
      if (i >= 0) r = PriceAt(i);
    }
    if (!far_[1].empty()) {
      auto it = far_[1].lower_bound(from.value());
      if (it != far_[1].end() && (r == kNoPrice || it->first < r.value()))
        r = PriceTicks(it->first);
    }
  }
  return r;
}

PriceTicks OrderBook::After(int side, PriceTicks px) const {
  if (side == 0) return BestFrom(0, px - PriceTicks(1));  // px ≥ 1 tick: no overflow
  if (px.value() == INT64_MAX) return kNoPrice;
  return BestFrom(1, px + PriceTicks(1));
}

int64_t OrderBook::ScanDown(int side, int64_t from) const {
  if (from < 0 || n_ == 0) return -1;
  const std::vector<uint64_t>& bits = bits_[side];
  int64_t w = from >> 6;
  uint64_t word = bits[w] & (~uint64_t{0} >> (63 - (from & 63)));
  while (true) {
    if (word != 0) return (w << 6) + 63 - std::countl_zero(word);
    if (--w < 0) return -1;
    word = bits[w];
  }
}

int64_t OrderBook::ScanUp(int side, int64_t from) const {
  if (from >= n_) return -1;
  const std::vector<uint64_t>& bits = bits_[side];
  int64_t words = static_cast<int64_t>(bits.size());
  int64_t w = from >> 6;
  uint64_t word = bits[w] & (~uint64_t{0} << (from & 63));
  while (true) {
    if (word != 0) return (w << 6) + std::countr_zero(word);
    if (++w >= words) return -1;
    word = bits[w];
  }
}

void OrderBook::Append(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  const int s = Index(o.side);
  const PriceTicks px = o.px;
  Level& level = LevelAt(s, px);
  o.prev = level.tail;
  o.next = kNoSlot;
  if (level.tail != kNoSlot) {
    ctx_->store.at(level.tail).next = slot;
  } else {
    level.head = slot;
    if (InWindow(px)) {
      const int64_t i = IndexOf(px);
      bits_[s][i >> 6] |= uint64_t{1} << (i & 63);
      ++window_levels_used_;
    }
    if (best_[s] == kNoPrice || (s == 0 ? px > best_[s] : px < best_[s])) best_[s] = px;
  }
  level.tail = slot;
  ++level.count;
  level.display_qty += o.shown;
  o.in_level = true;
  ++resting_;
}

void OrderBook::RestoreOrder(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  if (o.is_stop_pending()) {
    AddStop(slot);
    return;
  }
  Cover(o.px, o.px);
  Append(slot);
}

void OrderBook::RestoreMarks(TradingState state, bool has_last, PriceTicks last,
                             bool ever_accepted) {
  state_ = state;
  has_last_ = has_last;
  last_trade_ = last;
  ever_accepted_ = ever_accepted;
}

void OrderBook::Rest(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  assert(CanRestAt(o.px) && "validation refuses a price below one tick");
  Cover(o.px, o.px);
  o.priority_seq = ctx_->next_priority++;
  o.shown = o.display > Qty(0) ? std::min(o.display, o.leaves()) : o.leaves();
  o.status = o.cum > Qty(0) ? OrderStatus::kPartiallyFilled : OrderStatus::kNew;
  Append(slot);
}

void OrderBook::Unlink(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  assert(o.in_level);
  const int s = Index(o.side);
  const PriceTicks px = o.px;
  Level& level = LevelAt(s, px);
  OrderStore& st = ctx_->store;
  if (o.prev != kNoSlot) st.at(o.prev).next = o.next; else level.head = o.next;
  if (o.next != kNoSlot) st.at(o.next).prev = o.prev; else level.tail = o.prev;
  o.prev = o.next = kNoSlot;
  --level.count;
  level.display_qty -= o.shown;
  o.in_level = false;
  --resting_;
  if (level.count == 0) {
    assert(level.display_qty == Qty(0) && level.head == kNoSlot);  // a window level is reused
    if (InWindow(px)) {
      const int64_t i = IndexOf(px);
      bits_[s][i >> 6] &= ~(uint64_t{1} << (i & 63));
      --window_levels_used_;
    } else {
      far_[s].erase(px.value());  // `level` is gone from here on
    }
    if (best_[s] == px) best_[s] = After(s, px);
  }
}

// --- Order flow ------------------------------------------------------------------------

void OrderBook::Submit(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  if (o.type == OrderType::kStop || o.type == OrderType::kStopLimit) {
    o.status = OrderStatus::kPendingStop;
    o.priority_seq = ctx_->next_priority++;  // its submission time among triggered stops
    AddStop(slot);
    return;
  }
  if (state_ == TradingState::kPreOpen) {
    Rest(slot);
    return;
  }
  Execute(slot);
  RunTriggers();
}

void OrderBook::Cancel(uint32_t slot, CancelReason reason) { EndOrder(slot, reason); }

void OrderBook::Replace(uint32_t slot, const ClientId& new_cl, PriceTicks new_px, Qty new_qty) {
  Order& o = ctx_->store.at(slot);
  ClientId orig = o.cl;
  const Qty prev_leaves = o.leaves();
  o.cl = new_cl;
  if (new_qty <= o.cum) {
    EndOrder(slot, CancelReason::kReplacedToZero);
    return;
  }
  auto emit_replaced = [&](const Order& ord) {
    Event& e = ctx_->Emit(EventType::kReplaced);
    e.sym = config_.id;
    e.has_sym = true;
    e.has_px = ord.type != OrderType::kStop && ord.type != OrderType::kMarket;
    e.px = ord.px;
    e.qty = ord.qty;
    e.orig = orig;
    e.prev_leaves = prev_leaves;
    FillOrderInfo(&e.order, ord);
  };
  if (o.is_stop_pending()) {
    // As in the book (§4: a price change or a quantity increase loses time priority): a
    // pending stop so replaced counts as submitted now among the stops one print triggers.
    const bool loses = (o.type == OrderType::kStopLimit && new_px != o.px) || new_qty > o.qty;
    if (o.type == OrderType::kStopLimit) o.px = new_px;
    o.qty = new_qty;
    if (loses) {
      o.priority_seq = ctx_->next_priority++;
      RemoveStop(slot);
      AddStop(slot);  // the list stays in submission order (snapshots keep it)
    }
    emit_replaced(o);
    return;
  }
  bool loses = new_px != o.px || new_qty > o.qty;
  if (!loses) {
    Level& level = LevelAt(Index(o.side), o.px);
    o.qty = new_qty;
    Qty shown = std::min(o.shown, o.leaves());
    level.display_qty -= o.shown - shown;
    o.shown = shown;
    emit_replaced(o);
    return;
  }
  Unlink(slot);
  o.px = new_px;
  o.qty = new_qty;
  o.shown = o.display > Qty(0) ? std::min(o.display, o.leaves()) : o.leaves();
  emit_replaced(o);
  if (state_ == TradingState::kOpen) {
    Execute(slot);
    RunTriggers();
  } else {
    Rest(slot);
  }
}

// --- Inspection ------------------------------------------------------------------------

void OrderBook::Depth(Side side, std::vector<LevelView>* out) const {
  out->clear();
  int s = Index(side);
  for (PriceTicks px = best_[s]; px != kNoPrice; px = After(s, px)) {
    const Level& level = LevelAt(s, px);
    out->push_back(LevelView{px, level.display_qty, level.count});
  }
}

uint64_t OrderBook::Hash(uint64_t h) const {
  h = HashMix(h, config_.id);
  h = HashMix(h, static_cast<uint64_t>(state_));
  h = HashMix(h, config_.has_ref ? static_cast<uint64_t>(config_.ref.value()) : ~0ull);
  h = HashMix(h, has_last_ ? static_cast<uint64_t>(last_trade_.value()) : ~0ull);
  auto fold = [&](uint32_t slot) {
    const Order& o = ctx_->store.at(slot);
    h = HashMix(h, o.oid);
    h = HashMix(h, static_cast<uint64_t>(o.px.value()));
    h = HashMix(h, static_cast<uint64_t>(o.stop_px.value()));
    h = HashMix(h, static_cast<uint64_t>(o.qty.value()));
    h = HashMix(h, static_cast<uint64_t>(o.cum.value()));
    h = HashMix(h, static_cast<uint64_t>(o.shown.value()));
    h = HashMix(h, static_cast<uint64_t>(o.notional));
    h = HashMix(h, o.priority_seq);
    for (uint8_t i = 0; i < o.cl.len; ++i) h = HashMix(h, static_cast<uint8_t>(o.cl.data[i]));
  };
  ForEachResting(Side::kBuy, fold);
  h = HashMix(h, 0xB1D5);
  ForEachResting(Side::kSell, fold);
  h = HashMix(h, 0xA5C5);
  ForEachPendingStop(fold);
  return h;
}

}  // namespace cfx::engine
