#include "fix_market_data.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <utility>

#include "fix_gateway_impl.h"  // ValidId
#include "fix_price.h"

namespace cfx {
namespace gateway {
namespace internal {
namespace {

// FIX 281 MDReqRejReason values used.
constexpr char kRejUnknownSymbol = '0';
constexpr char kRejDuplicateId = '1';
constexpr char kRejInsufficientBandwidth = '2';
constexpr char kRejUnsupportedSubscription = '4';
constexpr char kRejUnsupportedDepth = '5';
constexpr char kRejUnsupportedUpdateType = '6';
constexpr char kRejUnsupportedEntryType = '8';

const int kSnapshotEntryOrder[] = {269, 270, 271, 272, 273, 346, 0};
const int kIncrementalEntryOrder[] = {279, 269, 55, 270, 271, 272, 273, 346, 0};
const int kSymbolOrder[] = {55, 167, 200, 541, 231, 969, 1140, 0};

// MDEntryDate/MDEntryTime (272/273) of an entry: the exchange time of the input that made
// it (SPEC §5); none when unknown (0).
void AddEntryTime(FIX::Group& g, int64_t time_us) {
  if (time_us <= 0) return;
  const std::string ts = TransactTimeFix(time_us);  // YYYYMMDD-HH:MM:SS.ffffff
  g.setField(272, ts.substr(0, 8));
  g.setField(273, ts.substr(9));
}

void AddLevel(FIX::Message& msg, char type, const BookLevel& level, int64_t time_us) {
  FIX::Group g(268, 269, kSnapshotEntryOrder);
  g.setField(269, std::string(1, type));
  g.setField(270, FormatTicks(level.price_ticks));
  g.setField(271, std::to_string(level.qty));
  AddEntryTime(g, time_us);
  g.setField(346, std::to_string(level.order_count));
  msg.addGroup(g);
}

void AddChange(FIX::Message& msg, char action, char type, const std::string& symbol, int64_t px,
               int64_t qty, int64_t orders, bool with_orders, int64_t time_us = 0) {
  FIX::Group g(268, 279, kIncrementalEntryOrder);
  g.setField(279, std::string(1, action));
  g.setField(269, std::string(1, type));
  g.setField(55, symbol);
  g.setField(270, FormatTicks(px));
  g.setField(271, std::to_string(qty));
  AddEntryTime(g, time_us);
  if (with_orders) g.setField(346, std::to_string(orders));
  msg.addGroup(g);
}

// Appends to `msg` the price-level changes that turn `before` into `after` (one side).
int DiffSide(FIX::Message& msg, char type, const std::string& symbol,
             const std::vector<BookLevel>& before, const std::vector<BookLevel>& after,
             int64_t time_us) {
  std::map<int64_t, BookLevel> old_levels, new_levels;
  for (const BookLevel& l : before) old_levels[l.price_ticks] = l;
  for (const BookLevel& l : after) new_levels[l.price_ticks] = l;
  int n = 0;
  for (const auto& o : old_levels) {
    if (!new_levels.count(o.first)) {
      AddChange(msg, '2', type, symbol, o.first, 0, 0, false, time_us);
      ++n;
    }
  }
  for (const auto& l : new_levels) {
    auto it = old_levels.find(l.first);
    if (it == old_levels.end()) {
      AddChange(msg, '0', type, symbol, l.first, l.second.qty, l.second.order_count, true, time_us);
      ++n;
    } else if (it->second.qty != l.second.qty ||
               it->second.order_count != l.second.order_count) {
      AddChange(msg, '1', type, symbol, l.first, l.second.qty, l.second.order_count, true, time_us);
      ++n;
    }
  }
  return n;
}

}  // namespace

void MarketData::SetContracts(const std::vector<ListedContract>& contracts) {
  Held held(this);
  contracts_ = contracts;
  std::sort(contracts_.begin(), contracts_.end(),
            [](const ListedContract& a, const ListedContract& b) { return a.symbol < b.symbol; });
  symbols_.clear();
  for (const ListedContract& c : contracts_) symbols_.push_back(c.symbol);
}

void MarketData::OnSecurityListRequest(const std::string& session, uint64_t generation,
                                       const FIX::Message& request) {
  Held held(this);
  std::string req_id = FieldOr(request, 320);
  std::string type = FieldOr(request, 559);
  std::vector<const ListedContract*> out;
  if (type == "0") {
    std::string symbol = FieldOr(request, 55);
    auto it = std::lower_bound(symbols_.begin(), symbols_.end(), symbol);
    if (it != symbols_.end() && *it == symbol) out.push_back(&contracts_[it - symbols_.begin()]);
  } else {
    for (const ListedContract& c : contracts_) out.push_back(&c);
  }
  FIX::Message y = NewMessage("y");
  y.setField(320, req_id);
  y.setField(322, "SL" + std::to_string(next_response_id_++));
  y.setField(560, out.empty() ? "2" : "0");  // 2 = no instruments found
  for (const ListedContract* c : out) {
    FIX::Group g(146, 55, kSymbolOrder);
    g.setField(55, c->symbol);
    g.setField(167, "FUT");
    if (!c->maturity_month.empty()) g.setField(200, c->maturity_month);
    if (!c->last_trading_day.empty()) g.setField(541, c->last_trading_day);
    g.setField(231, std::to_string(c->multiplier));
    g.setField(969, FormatTicks(c->tick_ticks));
    if (c->max_order_qty > 0) g.setField(1140, std::to_string(c->max_order_qty));
    y.addGroup(g);
  }
  send_(session, generation, y);
}

void MarketData::Reject(const std::string& session, uint64_t generation,
                        const std::string& md_req_id, char reason, const std::string& text) {
  FIX::Message y = NewMessage("Y");
  y.setField(262, md_req_id);
  y.setField(281, std::string(1, reason));
  y.setField(58, text);
  send_(session, generation, y);
}

BookUpdate MarketData::Cut(const BookUpdate& book, size_t depth) const {
  BookUpdate out = book;
  if (depth > 0) {
    if (out.bids.size() > depth) out.bids.resize(depth);
    if (out.asks.size() > depth) out.asks.resize(depth);
  }
  return out;
}

FIX::Message MarketData::Snapshot(const Subscription& sub, const std::string& symbol) const {
  FIX::Message w = NewMessage("W");
  w.setField(262, sub.md_req_id);
  w.setField(55, symbol);
  int n = 0;
  auto book = books_.find(symbol);
  if (book != books_.end()) {
    BookUpdate cut = Cut(book->second, sub.depth);
    if (sub.bids)
      for (const BookLevel& l : cut.bids) AddLevel(w, '0', l, cut.time_us), ++n;
    if (sub.offers)
      for (const BookLevel& l : cut.asks) AddLevel(w, '1', l, cut.time_us), ++n;
  }
  auto trade = last_trade_.find(symbol);
  if (sub.trades && trade != last_trade_.end()) {
    FIX::Group g(268, 269, kSnapshotEntryOrder);
    g.setField(269, "2");
    g.setField(270, FormatTicks(trade->second.price_ticks));
    g.setField(271, std::to_string(trade->second.qty));
    AddEntryTime(g, trade->second.time_us);  // the last trade's exchange time, as in X
    w.addGroup(g);
    ++n;
  }
  if (n == 0) w.setField(268, "0");  // an empty book still answers, with no entries
  return w;
}

void MarketData::OnRequest(const std::string& session, uint64_t generation,
                           const FIX::Message& request) {
  Held held(this);
  Subscription sub;
  sub.session = session;
  sub.generation = generation;
  sub.md_req_id = FieldOr(request, 262);
  std::string type = FieldOr(request, 263);
  // Drop subscriptions of an earlier logon of this session.
  subs_.erase(std::remove_if(subs_.begin(), subs_.end(),
                             [&](const Subscription& s) {
                               return s.session == session && s.generation != generation;
                             }),
              subs_.end());
  if (type == "2") {
    auto it = std::find_if(subs_.begin(), subs_.end(), [&](const Subscription& s) {
      return s.session == session && s.md_req_id == sub.md_req_id;
    });
    if (it == subs_.end()) {
      Reject(session, generation, sub.md_req_id, kRejUnsupportedSubscription,
             "no subscription with this MDReqID");
    } else {
      subs_.erase(it);
    }
    return;
  }
  if (type != "0" && type != "1") {
    Reject(session, generation, sub.md_req_id, kRejUnsupportedSubscription,
           "SubscriptionRequestType must be 0, 1 or 2");
    return;
  }
  if (type == "1") {
    for (const Subscription& s : subs_) {
      if (s.session == session && s.md_req_id == sub.md_req_id) {
        Reject(session, generation, sub.md_req_id, kRejDuplicateId, "duplicate MDReqID");
        return;
      }
    }
    // Each subscription keeps the book it sent per symbol and is walked on every book change
    // and trade, on the delivering thread: a session holds a bounded number.
    const auto held = std::count_if(subs_.begin(), subs_.end(),
                                    [&](const Subscription& s) { return s.session == session; });
    if (static_cast<size_t>(held) >= kMaxSubscriptionsPerSession) {
      Reject(session, generation, sub.md_req_id, kRejInsufficientBandwidth,
             "at most " + std::to_string(kMaxSubscriptionsPerSession) +
                 " subscriptions a session: unsubscribe (263=2) first");
      return;
    }
    std::string update_type = FieldOr(request, 265, "1");
    if (update_type != "1") {
      Reject(session, generation, sub.md_req_id, kRejUnsupportedUpdateType,
             "only incremental updates (265=1) are supported");
      return;
    }
  }
  std::string depth_text = FieldOr(request, 264, "0");
  long depth = -1;
  try {
    depth = std::stol(depth_text);
  } catch (...) {
  }
  if (depth < 0 || depth > 1000) {
    Reject(session, generation, sub.md_req_id, kRejUnsupportedDepth, "MarketDepth 0..1000");
    return;
  }
  sub.depth = static_cast<size_t>(depth);
  size_t n_types = request.groupCount(267);
  for (size_t i = 1; i <= n_types; ++i) {
    FIX::Group g(267, 269);
    request.getGroup(static_cast<unsigned>(i), g);
    std::string t = FieldOr(g, 269);
    if (t == "0") sub.bids = true;
    else if (t == "1") sub.offers = true;
    else if (t == "2") sub.trades = true;
    else {
      Reject(session, generation, sub.md_req_id, kRejUnsupportedEntryType, "MDEntryType 0, 1, 2");
      return;
    }
  }
  size_t n_syms = request.groupCount(146);
  std::set<std::string> seen;
  for (size_t i = 1; i <= n_syms; ++i) {
    FIX::Group g(146, 55);
    request.getGroup(static_cast<unsigned>(i), g);
    std::string s = FieldOr(g, 55);
    if (!std::binary_search(symbols_.begin(), symbols_.end(), s)) {
      // Named when it could be a symbol: a refused value is never echoed (SPEC §5).
      Reject(session, generation, sub.md_req_id, kRejUnknownSymbol,
             ValidId(s) ? "unknown_symbol: " + s : std::string("unknown_symbol"));
      return;
    }
    if (seen.insert(s).second) sub.symbols.push_back(s);
  }
  if (sub.symbols.empty() || (!sub.bids && !sub.offers && !sub.trades)) {
    Reject(session, generation, sub.md_req_id, kRejUnknownSymbol, "no symbols or entry types");
    return;
  }
  for (const std::string& s : sub.symbols) {
    FIX::Message w = Snapshot(sub, s);
    if (!send_(session, generation, w)) return;
    auto book = books_.find(s);
    sub.sent[s] = book == books_.end() ? BookUpdate{s, {}, {}, 0} : Cut(book->second, sub.depth);
  }
  if (type == "1") subs_.push_back(std::move(sub));
}

MarketData::Held::Held(MarketData* md) : md_(md) {
  std::unique_lock<std::mutex> lock(md_->mu_);  // let go if the drain throws
  md_->DrainLocked();  // a snapshot shows every update delivered before it
  lock.release();
}

// A destructor does not throw: an update whose send failed with an exception (none is
// expected: the sender catches QuickFIX's) is dropped here rather than ending the process.
MarketData::Held::~Held() {
  try {
    md_->DrainLocked();
  } catch (...) {
  }
  md_->mu_.unlock();
  try {
    md_->DrainIfFree();
  } catch (...) {
  }
}

void MarketData::DrainLocked() {
  auto apply = [this](Update& u) {
    if (u.is_trade) {
      ApplyTrade(u.trade);
    } else {
      ApplyBook(std::move(u.book));
    }
  };
  Update u;
  for (;;) {
    // Read before the ring is emptied: while the flag is set the producer adds to the
    // overflow, never to the ring, so what the ring holds then is older than the overflow.
    // (Read after, the producer could refill the ring and overflow again in between, and
    // the overflow would go before the updates it had put in the ring.)
    const bool spill = overflowed_.load(std::memory_order_acquire);
    while (pending_.TryPop(&u)) apply(u);
    if (!spill) {
      if (!overflowed_.load(std::memory_order_acquire)) return;
      continue;  // it overflowed meanwhile: the ring again first
    }
    std::deque<Update> spilled;
    {
      std::lock_guard<std::mutex> lock(overflow_mu_);
      spilled.swap(overflow_);
      overflowed_.store(false, std::memory_order_release);
    }
    for (Update& v : spilled) apply(v);
  }
}

void MarketData::DrainIfFree() {
  // Dekker with Push: a producer that pushed and then found mu_ taken relies on the holder
  // seeing its update here; the fences keep either the push or the unlock visible to the
  // other side.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  while (pending_.SizeApprox() > 0 || overflowed_.load(std::memory_order_acquire)) {
    std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) return;  // its holder drains before it lets go
    DrainLocked();
    lock.unlock();
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
}

void MarketData::Push(Update update) {
  std::lock_guard<std::mutex> producer(produce_mu_);
  if (overflowed_.load(std::memory_order_acquire) || !pending_.TryPush(std::move(update))) {
    // Full: a request has held mu_ through 1,024 updates. Kept in order behind them, never
    // dropped (a dropped book update would leave subscribers' books wrong) and never
    // waited for (the matcher never waits on a reader's lock, SPEC §2).
    std::lock_guard<std::mutex> lock(overflow_mu_);
    overflow_.push_back(std::move(update));
    overflowed_.store(true, std::memory_order_release);
  }
  DrainIfFree();
}

void MarketData::OnBook(const BookUpdate& book) {
  Update u;
  u.book = book;
  Push(std::move(u));
}

void MarketData::OnTrade(const PublicTrade& trade) {
  Update u;
  u.is_trade = true;
  u.trade = trade;
  Push(std::move(u));
}

// Takes the update's own copy (queued, so the delivering thread's is not kept): kept as the
// symbol's book once the subscribers have their incrementals.
void MarketData::ApplyBook(BookUpdate book) {
  for (auto it = subs_.begin(); it != subs_.end();) {
    Subscription& sub = *it;
    if (std::find(sub.symbols.begin(), sub.symbols.end(), book.symbol) == sub.symbols.end() ||
        (!sub.bids && !sub.offers)) {
      ++it;
      continue;
    }
    BookUpdate now = Cut(book, sub.depth);
    BookUpdate& before = sub.sent[book.symbol];
    FIX::Message x = NewMessage("X");
    x.setField(262, sub.md_req_id);
    int n = 0;
    if (sub.bids) n += DiffSide(x, '0', book.symbol, before.bids, now.bids, book.time_us);
    if (sub.offers) n += DiffSide(x, '1', book.symbol, before.asks, now.asks, book.time_us);
    before = now;
    if (n > 0 && !send_(sub.session, sub.generation, x)) {
      it = subs_.erase(it);
      continue;
    }
    ++it;
  }
  std::string symbol = book.symbol;
  books_[std::move(symbol)] = std::move(book);
}

void MarketData::ApplyTrade(const PublicTrade& trade) {
  last_trade_[trade.symbol] = trade;
  for (auto it = subs_.begin(); it != subs_.end();) {
    const Subscription& sub = *it;
    if (!sub.trades ||
        std::find(sub.symbols.begin(), sub.symbols.end(), trade.symbol) == sub.symbols.end()) {
      ++it;
      continue;
    }
    FIX::Message x = NewMessage("X");
    x.setField(262, sub.md_req_id);
    AddChange(x, '0', '2', trade.symbol, trade.price_ticks, trade.qty, 0, false, trade.time_us);
    if (!send_(sub.session, sub.generation, x)) {
      it = subs_.erase(it);
      continue;
    }
    ++it;
  }
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
