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
    // The band always fits the grid, so banded prices never need a regrid on the order path.
    // In 128 bits: a ref above INT64_MAX / 110 overflowed (undefined behaviour).
    const __int128 ref = config_.ref.value();
    const __int128 lo128 = (ref * (100 - config_.band_percent) + 99) / 100;
    const __int128 hi128 = ref * (100 + config_.band_percent) / 100;
    PriceTicks lo(static_cast<int64_t>(std::min<__int128>(lo128, INT64_MAX)));
    PriceTicks hi(static_cast<int64_t>(std::min<__int128>(hi128, INT64_MAX)));
    EnsureGrid(std::max(lo, PriceTicks(1)));
    EnsureGrid(hi);
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

bool OrderBook::CanRestAt(PriceTicks px) const {
  if (px <= PriceTicks(0)) return false;
  if (n_ == 0) return true;
  PriceTicks lo = std::min(base_, px), hi = std::max(PriceAt(n_ - 1), px);
  return static_cast<uint64_t>((hi - lo).value() + 1) <= config_.max_grid_levels;
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

// --- Grid ------------------------------------------------------------------------------

bool OrderBook::EnsureGrid(PriceTicks px) {
  if (n_ > 0 && px >= base_ && IndexOf(px) < n_) return true;  // base_ + n_ may not be a price
  if (!CanRestAt(px)) return false;
  PriceTicks lo = n_ == 0 ? px : std::min(base_, px);
  PriceTicks hi = n_ == 0 ? px : std::max(PriceAt(n_ - 1), px);
  Regrid(lo, hi);
  return true;
}

void OrderBook::Regrid(PriceTicks lo, PriceTicks hi) {
  // Re-center with slack on both sides so a drifting unbanded market regrids rarely.
  int64_t need = (hi - lo).value() + 1;
  int64_t n = std::max<int64_t>(kMinGrid, static_cast<int64_t>(std::bit_ceil(
                                              static_cast<uint64_t>(need) * 2)));
  n = std::min<int64_t>(n, static_cast<int64_t>(std::bit_ceil(config_.max_grid_levels)));
  if (n < need) n = need;
  PriceTicks base = std::max(PriceTicks(1), lo - PriceTicks((n - need) / 2));
  if (base < hi - PriceTicks(n - 1)) base = hi - PriceTicks(n - 1);
  // The grid's last level stays a price a tick count holds (near INT64_MAX ticks the slack
  // above `hi` overflowed: undefined behaviour, found by the sanitizer build).
  if (base > PriceTicks(INT64_MAX - (n - 1))) base = PriceTicks(INT64_MAX - (n - 1));
  int64_t shift = (base_ - base).value();  // old index i -> new index i + shift
  for (int s = 0; s < 2; ++s) {
    std::vector<Level> levels(n);
    std::vector<uint64_t> bits((n + 63) / 64, 0);
    for (int64_t i = 0; i < n_; ++i) {
      if (levels_[s][i].count == 0) continue;
      int64_t j = i + shift;
      assert(j >= 0 && j < n);
      levels[j] = levels_[s][i];
      bits[j >> 6] |= uint64_t{1} << (j & 63);
    }
    levels_[s] = std::move(levels);
    bits_[s] = std::move(bits);
    if (best_[s] >= 0) best_[s] += shift;
  }
  base_ = base;
  n_ = n;
}

int64_t OrderBook::ScanDown(int side, int64_t from) const {
  if (from < 0) return -1;
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
  int s = Index(o.side);
  int64_t i = IndexOf(o.px);
  Level& level = levels_[s][i];
  o.prev = level.tail;
  o.next = kNoSlot;
  if (level.tail != kNoSlot) {
    ctx_->store.at(level.tail).next = slot;
  } else {
    level.head = slot;
    bits_[s][i >> 6] |= uint64_t{1} << (i & 63);
    if (best_[s] < 0 || (s == 0 ? i > best_[s] : i < best_[s])) best_[s] = i;
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
    ReserveStopLimitPrice(o);
    AddStop(slot);
    return;
  }
  bool ok = EnsureGrid(o.px);
  assert(ok && "a snapshot holds only representable prices");
  (void)ok;
  Append(slot);
}

void OrderBook::RestoreMarks(TradingState state, bool has_last, PriceTicks last,
                             bool ever_accepted) {
  state_ = state;
  has_last_ = has_last;
  last_trade_ = last;
  ever_accepted_ = ever_accepted;
}

// A pending stop_limit will rest at its limit price when it triggers: the grid covers that
// price from entry on, so that no order entered meanwhile can grow the grid (of a product
// without band) to where that price no longer fits (the trigger then found no room: an
// assert, the process gone). Validation checked CanRestAt(px), so this succeeds.
void OrderBook::ReserveStopLimitPrice(const Order& o) {
  if (o.type != OrderType::kStopLimit) return;
  bool ok = EnsureGrid(o.px);
  assert(ok && "validation guarantees a representable price");
  (void)ok;
}

void OrderBook::Rest(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  bool ok = EnsureGrid(o.px);
  assert(ok && "validation guarantees a representable price");
  (void)ok;
  o.priority_seq = ctx_->next_priority++;
  o.shown = o.display > Qty(0) ? std::min(o.display, o.leaves()) : o.leaves();
  o.status = o.cum > Qty(0) ? OrderStatus::kPartiallyFilled : OrderStatus::kNew;
  Append(slot);
}

void OrderBook::Unlink(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  assert(o.in_level);
  int s = Index(o.side);
  int64_t i = IndexOf(o.px);
  Level& level = levels_[s][i];
  OrderStore& st = ctx_->store;
  if (o.prev != kNoSlot) st.at(o.prev).next = o.next; else level.head = o.next;
  if (o.next != kNoSlot) st.at(o.next).prev = o.prev; else level.tail = o.prev;
  o.prev = o.next = kNoSlot;
  --level.count;
  level.display_qty -= o.shown;
  o.in_level = false;
  --resting_;
  if (level.count == 0) {
    bits_[s][i >> 6] &= ~(uint64_t{1} << (i & 63));
    if (best_[s] == i) best_[s] = s == 0 ? ScanDown(s, i - 1) : ScanUp(s, i + 1);
  }
}

// --- Order flow ------------------------------------------------------------------------

void OrderBook::Submit(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  if (o.type == OrderType::kStop || o.type == OrderType::kStopLimit) {
    o.status = OrderStatus::kPendingStop;
    o.priority_seq = ctx_->next_priority++;  // its submission time among triggered stops
    ReserveStopLimitPrice(o);
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
    if (o.type == OrderType::kStopLimit) {
      o.px = new_px;
      ReserveStopLimitPrice(o);  // ValidateReplace checked CanRestAt(new_px)
    }
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
    Level& level = levels_[Index(o.side)][IndexOf(o.px)];
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
  for (int64_t i = best_[s]; i >= 0; i = (s == 0) ? ScanDown(s, i - 1) : ScanUp(s, i + 1)) {
    out->push_back(LevelView{PriceAt(i), levels_[s][i].display_qty, levels_[s][i].count});
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
