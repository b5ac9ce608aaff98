// One contract's order book and its matching rules (SPEC §4, §4.2).
//
// Layout, chosen for speed (docs/engine.md): per side a dense window of price levels indexed
// by tick offset from `base_`, a bitmap of its non-empty levels for best-price search, an
// ordered map of the levels at prices outside the window (any price of at least one tick can
// rest: there is no hidden band), and an intrusive FIFO of pool slots per level. Orders live
// in the shared OrderStore.
//
// The book does no input validation: the Engine validates a command (reject precedence,
// band, ticks, ids) and hands the book an accepted order. The book emits events into the
// MatchContext and releases ended orders to the store.
// Thread safety: none; one matcher thread owns the book.
#ifndef CFX_ENGINE_ORDER_BOOK_H_
#define CFX_ENGINE_ORDER_BOOK_H_

#include <map>
#include <type_traits>
#include <vector>

#include "cfx/engine/events.h"
#include "cfx/engine/order_store.h"

namespace cfx::engine {

// State shared by all books of one engine: the pool, the event buffer and the counters.
struct MatchContext {
  explicit MatchContext(size_t capacity) : store(capacity) { events.reserve(1024); }
  OrderStore store;
  std::vector<Event> events;  // collected while matching, delivered after the command
  uint64_t next_event_seq = 1;
  uint64_t next_priority = 1;

  Event& Emit(EventType type) {
    // A copy of a constant blank event: with the order path's block-move options
    // (cfx_order_path_codegen) a few vector stores; GCC's default `rep stos` for the 0.3 KB
    // value-initialization was a third of Engine::Apply's time.
    static_assert(std::is_trivially_copyable_v<Event>);
    static constexpr Event kBlank{};
    Event& e = events.emplace_back(kBlank);
    e.seq = next_event_seq++;
    e.type = type;
    return e;
  }
};

struct BookConfig {
  SymbolId id = 0;
  bool has_ref = false;
  PriceTicks ref{0};
  int64_t band_percent = 10;  // 0: no band
  Qty max_order_qty{1000};
  PriceTicks protection_ticks{50};
  // Caps the dense window (memory: 16 bytes a level a side); prices outside it rest in the
  // far levels. Not a band.
  size_t max_grid_levels = size_t{1} << 20;
  PriceTicks max_price{0};  // EngineConfig::max_price (0: none)
};

struct LevelView {
  PriceTicks px;
  Qty display_qty;
  uint32_t count;
};

// Copies the order's identity, state and terms into an event's OrderInfo.
void FillOrderInfo(OrderInfo* info, const Order& o);

class OrderBook {
 public:
  OrderBook(const BookConfig& config, MatchContext* ctx);

  const BookConfig& config() const { return config_; }
  // Updates the band reference (and limits); the grid grows to cover the new band.
  void Reconfigure(const BookConfig& config);
  TradingState state() const { return state_; }
  // Changes the state; pre_open -> open runs the opening auction and then the stops it
  // triggered. Emits kStateChanged.
  void SetState(TradingState next);

  // --- Queries used by validation --------------------------------------------------------
  bool HasBand() const { return config_.has_ref && config_.band_percent > 0; }
  bool InBand(PriceTicks px) const;
  // True when an order can rest at `px`: any price of at least one tick.
  bool CanRestAt(PriceTicks px) const { return px > kNoPrice; }
  // True when `px` is within the engine's price limit (EngineConfig::max_price): checked at
  // entry and replace, with the band. Not a condition of resting: a snapshot's orders from
  // before a limit was set restore as they were.
  bool WithinPriceLimit(PriceTicks px) const {
    return config_.max_price <= PriceTicks(0) || px <= config_.max_price;
  }
  // True when a buy (sell) at `px` would meet the best opposite price.
  bool WouldCross(Side side, PriceTicks px) const;
  // True when the stop condition is already met (last trade, else band reference).
  bool StopAlreadyMet(Side side, PriceTicks stop) const;
  bool has_last_trade() const { return has_last_; }
  PriceTicks last_trade() const { return last_trade_; }
  bool HasBest(Side side) const { return best_[Index(side)] != kNoPrice; }
  PriceTicks BestPrice(Side side) const { return best_[Index(side)]; }
  // The dense window's price range (tests and docs/engine.md's bounds): `n` levels from `base`.
  PriceTicks window_base() const { return base_; }
  int64_t window_levels() const { return n_; }
  size_t far_level_count() const { return far_[0].size() + far_[1].size(); }

  // --- Order flow (REQUIRES: the order was validated and `accepted` emitted) -------------
  // Enters an accepted order: pending stop, resting (pre_open), or aggressor (open).
  void Submit(uint32_t slot);
  // Ends a resting order or pending stop with a `canceled` event and frees its slot.
  void Cancel(uint32_t slot, CancelReason reason);
  // Applies a validated replace (§4.2): new id, price (ignored for stop-market) and total.
  void Replace(uint32_t slot, const ClientId& new_cl, PriceTicks new_px, Qty new_qty);

  // --- Inspection ------------------------------------------------------------------------
  // Levels of one side, best first.
  void Depth(Side side, std::vector<LevelView>* out) const;
  // Calls fn(slot) for every resting order of `side`, best level first, FIFO within.
  template <typename Fn>
  void ForEachResting(Side side, Fn&& fn) const;
  template <typename Fn>
  void ForEachPendingStop(Fn&& fn) const {
    for (uint32_t s = stop_head_; s != kNoSlot; s = ctx_->store.at(s).next) fn(s);
  }
  size_t resting_count() const { return resting_; }
  size_t pending_stop_count() const { return stops_; }
  bool ever_accepted() const { return ever_accepted_; }
  void MarkAccepted() { ever_accepted_ = true; }
  // Snapshot restore only: links a restored order (fields, shown and priority already set)
  // at the back of its level, or of the pending-stop list when it is a pending stop.
  void RestoreOrder(uint32_t slot);
  // Snapshot restore only: the state and last-trade fields, without events or an auction.
  void RestoreMarks(TradingState state, bool has_last, PriceTicks last, bool ever_accepted);
  // Folds the book (state, prices, every order's priority position) into `h`.
  uint64_t Hash(uint64_t h) const;

 private:
  struct Level {
    Qty display_qty{0};
    uint32_t count = 0;
    uint32_t head = kNoSlot, tail = kNoSlot;
  };
  // Resting prices are at least one tick, so 0 ticks marks "no level".
  static constexpr PriceTicks kNoPrice{0};
  static int Index(Side s) { return s == Side::kBuy ? 0 : 1; }
  // Window coordinates: level i of a side holds the price base_ + i ticks. Both are at
  // least one tick, so the difference never overflows.
  int64_t IndexOf(PriceTicks px) const { return (px - base_).value(); }
  PriceTicks PriceAt(int64_t i) const { return base_ + PriceTicks(i); }
  bool InWindow(PriceTicks px) const {
    return static_cast<uint64_t>(IndexOf(px)) < static_cast<uint64_t>(n_);
  }
  // The level at `px`: in the window, or a far level (created by the non-const one, for
  // Append; the const one requires a non-empty level).
  Level& LevelAt(int side, PriceTicks px) {
    if (InWindow(px)) [[likely]]
      return levels_[side][IndexOf(px)];
    return far_[side][px.value()];
  }
  const Level& LevelAt(int side, PriceTicks px) const {
    if (InWindow(px)) [[likely]]
      return levels_[side][IndexOf(px)];
    return far_[side].find(px.value())->second;
  }
  // The best non-empty price of a side no better than `from` (buys: the highest ≤ from;
  // sells: the lowest ≥ from), else kNoPrice; and the next one after `px`.
  PriceTicks BestFrom(int side, PriceTicks from) const;
  PriceTicks After(int side, PriceTicks px) const;

  // Window and levels (order_book.cc).
  void Cover(PriceTicks lo, PriceTicks hi);  // moves or grows the window over [lo, hi] if it can
  void MoveWindow(PriceTicks base, int64_t n);
  void Rest(uint32_t slot);    // appends at the back with fresh priority and full slice
  void Unlink(uint32_t slot);  // removes from its level, keeps best prices right
  void Append(uint32_t slot);  // links at the back of its level (shown already set)
  int64_t ScanDown(int side, int64_t from) const;  // window: highest non-empty ≤ from, else -1
  int64_t ScanUp(int side, int64_t from) const;    // window: lowest non-empty ≥ from, else -1

  // Matching (matching.cc).
  void Execute(uint32_t slot);
  bool Match(uint32_t slot, PriceTicks limit);  // false: the aggressor was ended by STP
  bool FokFillable(const Order& a, PriceTicks limit) const;
  void Fill(uint32_t slot, Qty q, PriceTicks px);
  void EmitTrade(const Order& buy, const Order& sell, PriceTicks px, Qty q, Aggressor agg);
  void EndOrder(uint32_t slot, CancelReason reason);
  void Finish(uint32_t slot);  // filled: frees the slot
  void RecordPrint(PriceTicks px);

  // Stops (stops.cc).
  void AddStop(uint32_t slot);
  void RemoveStop(uint32_t slot);
  void RunTriggers();

  // Opening auction (auction.cc).
  void RunAuction();
  // Pairs the best bid's and best ask's first orders: STP by the later-entered one's action,
  // else a trade of the smaller leaves, at `auction_px` with no aggressor (the auction) or
  // at the earlier one's price with the later one as aggressor (the uncross). *last_buy and
  // *last_sell: the pair that traded.
  void PairBest(bool at_auction_price, PriceTicks auction_px, uint32_t* last_buy,
                uint32_t* last_sell);

  BookConfig config_;
  MatchContext* ctx_;
  TradingState state_ = TradingState::kOpen;
  PriceTicks base_{0};  // price of index 0
  int64_t n_ = 0;       // levels per side
  std::vector<Level> levels_[2];
  std::vector<uint64_t> bits_[2];
  size_t window_levels_used_ = 0;  // non-empty levels in the window, both sides
  // Non-empty levels at prices outside the window, by price. A std::map: references to a
  // level stay valid while others come and go, and the far levels are off the hot path.
  std::map<int64_t, Level> far_[2];
  PriceTicks best_[2] = {kNoPrice, kNoPrice};
  size_t resting_ = 0;
  bool has_last_ = false;
  PriceTicks last_trade_{0};
  bool ever_accepted_ = false;
  // Pending stops in submission order.
  uint32_t stop_head_ = kNoSlot, stop_tail_ = kNoSlot;
  size_t stops_ = 0;
  std::vector<PriceTicks> prints_, gen_prints_;  // trade prices awaiting stop checks
  std::vector<uint32_t> triggered_;
  struct AuctionPoint {
    PriceTicks px;
    Qty buy, sell;  // whole quantity at the price; then buys at or above, sells at or below
  };
  std::vector<AuctionPoint> auction_points_, auction_buys_;  // auction scratch, reused
};

template <typename Fn>
void OrderBook::ForEachResting(Side side, Fn&& fn) const {
  int s = Index(side);
  for (PriceTicks px = best_[s]; px != kNoPrice; px = After(s, px)) {
    for (uint32_t o = LevelAt(s, px).head; o != kNoSlot; o = ctx_->store.at(o).next) fn(o);
  }
}

}  // namespace cfx::engine

#endif  // CFX_ENGINE_ORDER_BOOK_H_
