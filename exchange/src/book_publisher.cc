#include "book_publisher.h"

#include <cstring>
#include <iterator>
#include <thread>

namespace cfx::exchange::internal {
namespace {

using engine::TradingState;

// PublishedBook::state is a TradingState as a byte: StateCode writes it (a switch, so a new
// state is a compile warning), Read decodes it through kStateOfCode, which must invert it
// (checked below; a new state needs its case and its entry at that code).
constexpr uint8_t StateCode(TradingState s) {
  switch (s) {
    case TradingState::kPreOpen: return 0;
    case TradingState::kOpen: return 1;
    case TradingState::kHalted: return 2;
    case TradingState::kClosed: return 3;
    case TradingState::kExpired: return 4;
  }
  return 0;
}

constexpr TradingState kStateOfCode[] = {TradingState::kPreOpen, TradingState::kOpen,
                                         TradingState::kHalted, TradingState::kClosed,
                                         TradingState::kExpired};

constexpr bool StateTableInvertsCodes() {
  for (size_t i = 0; i < std::size(kStateOfCode); ++i) {
    if (StateCode(kStateOfCode[i]) != i) return false;
  }
  return true;
}
static_assert(StateTableInvertsCodes(), "kStateOfCode[StateCode(s)] must be s");

}  // namespace

BookPublisher::BookPublisher() : slots_(new Slot[kMaxSymbols]) {}

void BookPublisher::NoteTrade(engine::SymbolId id, engine::PriceTicks px, engine::Qty qty,
                              engine::Timestamp ts) {
  if (id >= kMaxSymbols) return;
  PublishedBook& b = slots_[id].last;
  b.has_last = 1;
  b.last_px = px;
  b.last_qty = qty;
  b.last_ts = ts;
}

void BookPublisher::Publish(const engine::Engine& engine, engine::SymbolId id, uint64_t seq,
                            engine::Timestamp ts) {
  if (id >= kMaxSymbols) return;
  Slot& slot = slots_[id];
  size_t n = count_.load(std::memory_order_relaxed);
  bool listing_changed = n <= id;
  // Symbols are interned densely in listing order, so ids below engine.symbol_count() exist.
  while (n <= id) {
    std::string_view name = engine.SymbolName(static_cast<engine::SymbolId>(n));
    Slot& s = slots_[n];
    std::memcpy(s.name, name.data(), std::min(name.size(), engine::kMaxIdLength));
    ++n;
    count_.store(n, std::memory_order_release);  // names are immutable once published
  }
  PublishedBook b = slot.last;
  const engine::OrderBook& book = engine.book(id);
  b.seq = seq;
  b.ts = ts;
  b.state = StateCode(book.state());
  for (int side = 0; side < 2; ++side) {
    scratch_.clear();
    book.Depth(side == 0 ? engine::Side::kBuy : engine::Side::kSell, &scratch_);
    size_t k = std::min<size_t>(scratch_.size(), kMaxPublishedDepth);
    for (size_t i = 0; i < k; ++i) {
      b.levels[side][i] = {scratch_[i].px, scratch_[i].display_qty,
                           static_cast<int64_t>(scratch_[i].count)};
    }
    (side == 0 ? b.nbids : b.nasks) = static_cast<uint8_t>(k);
  }
  uint64_t words[kWords];
  std::memcpy(words, &b, sizeof(b));
  const uint64_t v = slot.version.load(std::memory_order_relaxed);
  slot.version.store(v + 1, std::memory_order_relaxed);  // odd: write in progress
  std::atomic_thread_fence(std::memory_order_release);
  for (size_t i = 0; i < kWords; ++i) slot.words[i].store(words[i], std::memory_order_relaxed);
  slot.version.store(v + 2, std::memory_order_release);
  const bool expired = book.state() == engine::TradingState::kExpired;
  if (expired != slot.expired) {
    slot.expired = expired;
    listing_changed = true;
  }
  if (listing_changed) listing_version_.fetch_add(1, std::memory_order_acq_rel);
}

int BookPublisher::Find(std::string_view sym) const {
  const size_t n = count_.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    if (std::string_view(slots_[i].name) == sym) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> BookPublisher::Symbols() const {
  const size_t n = count_.load(std::memory_order_acquire);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.emplace_back(slots_[i].name);
  return out;
}

std::optional<BookView> BookPublisher::Read(std::string_view sym, int depth) const {
  const int id = Find(sym);
  if (id < 0) return std::nullopt;
  const Slot& slot = slots_[id];
  uint64_t words[kWords];
  for (int attempt = 0;; ++attempt) {
    const uint64_t v1 = slot.version.load(std::memory_order_acquire);
    if (v1 & 1) {
      std::this_thread::yield();
      continue;
    }
    for (size_t i = 0; i < kWords; ++i) words[i] = slot.words[i].load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (slot.version.load(std::memory_order_relaxed) == v1) {
      if (v1 == 0) return std::nullopt;  // listed but not published yet
      break;
    }
  }
  PublishedBook b;
  std::memcpy(&b, words, sizeof(b));
  BookView view;
  view.sym = std::string(sym);
  view.state = kStateOfCode[b.state];  // only StateCode writes b.state
  view.seq = b.seq;
  view.ts = b.ts;
  depth = std::clamp(depth, 0, kMaxPublishedDepth);
  for (int side = 0; side < 2; ++side) {
    auto& out = side == 0 ? view.bids : view.asks;
    const int n = std::min<int>(side == 0 ? b.nbids : b.nasks, depth);
    for (int i = 0; i < n; ++i) {
      const auto& l = b.levels[side][i];
      out.push_back({l.px, l.qty, static_cast<uint32_t>(l.count)});
    }
  }
  view.has_last_trade = b.has_last != 0;
  view.last_px = b.last_px;
  view.last_qty = b.last_qty;
  view.last_ts = b.last_ts;
  return view;
}

}  // namespace cfx::exchange::internal
