#include "cfx/gateway/fix_fake_exchange.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

namespace cfx {
namespace gateway {
namespace testing {

struct FakeOrder {
  OrderState state;
  NewOrder entry;
  bool live = false;
  bool pending_stop = false;
  std::string ended_reason;
};

// Orders, books and client ids. Worker thread only.
class FakeExchange::Book {
 public:
  Book(ExecutionListener* l, std::vector<std::string> symbols, int64_t max_qty)
      : l_(l), symbols_(symbols.begin(), symbols.end()), max_qty_(max_qty) {}

  void Submit(const NewOrder& r) {
    OrderState s = AskedState(r);
    const bool bad_display =
        (r.has_display || r.display_qty != 0) && (r.display_qty < 1 || r.display_qty > r.qty);
    std::string reason;
    if (!symbols_.count(r.symbol)) reason = "unknown_symbol";
    else if (used_.count({r.account, r.cl_ord_id})) reason = "duplicate_client_id";
    else if (r.qty <= 0 || bad_display)
      reason = "invalid_qty";
    else if (r.qty > max_qty_) reason = "qty_above_max";
    else if (!r.price_on_tick || !r.stop_on_tick)
      reason = "invalid_price_tick";
    else if (r.post_only && r.ord_type != OrdType::kLimit) reason = "invalid_field";
    else if (r.post_only && Crosses(s, BestOpposite(s))) reason = "post_only_would_cross";
    if (!reason.empty()) {
      l_->OnRejected(s, reason);
      return;
    }
    used_.insert({r.account, r.cl_ord_id});
    s.order_id = next_id_++;
    s.leaves_qty = r.qty;
    FakeOrder& o = orders_[s.order_id];
    o.state = s;
    o.entry = r;
    o.live = true;
    by_cl_[{r.account, r.cl_ord_id}] = s.order_id;
    l_->OnAccepted(o.state);
    if (r.ord_type == OrdType::kStop || r.ord_type == OrdType::kStopLimit) {
      o.pending_stop = true;
      return;
    }
    Enter(s.order_id);
  }

  void Cancel(const CancelOrder& r) {
    FakeOrder* o = FindLive(r.account, r.orig_cl_ord_id);
    if (!o) {
      l_->OnCancelRejected({r.session, r.account, r.cl_ord_id, r.orig_cl_ord_id, false,
                            "unknown_order"});
      return;
    }
    used_.insert({r.account, r.cl_ord_id});
    o->state.session = r.session;
    o->state.orig_cl_ord_id = o->state.cl_ord_id;
    o->state.cl_ord_id = r.cl_ord_id;
    End(*o, "user");
    PublishBook(o->state.symbol);
  }

  void RefuseAmend(CancelRejected r) {
    if (FakeOrder* o = FindLive(r.account, r.orig_cl_ord_id)) {
      r.order_live = true;
      r.order_id = o->state.order_id;
      r.cum_qty = o->state.cum_qty;
    }
    l_->OnCancelRejected(r);
  }

  void Replace(const ReplaceOrder& r) {
    FakeOrder* o = FindLive(r.account, r.orig_cl_ord_id);
    CancelRejected rej{r.session, r.account, r.cl_ord_id, r.orig_cl_ord_id, true, ""};
    if (!o) {
      rej.reason = "unknown_order";
    } else if (used_.count({r.account, r.cl_ord_id})) {
      rej.reason = "duplicate_client_id";
      rej.order_live = true;
      rej.order_id = o->state.order_id;
      rej.cum_qty = o->state.cum_qty;
    }
    if (!rej.reason.empty()) {
      l_->OnCancelRejected(rej);
      return;
    }
    used_.insert({r.account, r.cl_ord_id});
    by_cl_.erase({r.account, o->state.cl_ord_id});
    by_cl_[{r.account, r.cl_ord_id}] = o->state.order_id;
    o->state.session = r.session;
    o->state.orig_cl_ord_id = o->state.cl_ord_id;
    o->state.cl_ord_id = r.cl_ord_id;
    if (r.has_qty && r.qty <= o->state.cum_qty) {
      End(*o, "replaced_to_zero");
      PublishBook(o->state.symbol);
      return;
    }
    RemoveFromBook(*o);
    if (r.has_price) o->state.price_ticks = r.price_ticks;
    if (r.has_qty) {
      o->state.qty = r.qty;
      o->state.leaves_qty = r.qty - o->state.cum_qty;
    }
    l_->OnReplaced(o->state);
    if (!o->pending_stop) Enter(o->state.order_id);  // loses priority: back of the level
  }

  void Status(const OrderStatus& r) {
    auto it = by_cl_.find({r.account, r.cl_ord_id});
    if (it == by_cl_.end()) {
      l_->OnStatus(UnknownOrderAnswer(r));
      return;
    }
    const FakeOrder& o = orders_[it->second];
    StatusAnswer a;
    a.status_req_id = r.status_req_id;
    a.found = true;
    a.order = o.state;
    a.order.session = r.session;
    a.order.orig_cl_ord_id.clear();
    a.ended = !o.live;
    a.ended_reason = o.ended_reason;
    l_->OnStatus(a);
  }

  void MassCancel(const gateway::MassCancel& r) {
    MassCancelResult res{r.session, r.cl_ord_id, r.account, r.symbol, false, "", 0};
    if (!r.symbol.empty() && !symbols_.count(r.symbol)) {
      res.rejected = true;
      res.reason = "unknown_symbol";
    } else {
      std::set<std::string> touched;
      for (auto& e : orders_) {
        FakeOrder& o = e.second;
        if (!o.live || (!r.symbol.empty() && o.state.symbol != r.symbol)) continue;
        if (r.account.empty()
                ? o.entry.session != r.session || (!r.firm.empty() && o.entry.firm != r.firm)
                : o.state.account != r.account) {
          continue;
        }
        End(o, "mass");
        touched.insert(o.state.symbol);
        ++res.canceled_count;
      }
      for (const std::string& s : touched) PublishBook(s);
    }
    l_->OnMassCancelResult(res);
  }

  void Disconnected(const SessionDisconnected& r) {
    std::set<std::string> touched;
    for (auto& e : orders_) {
      FakeOrder& o = e.second;
      if (!o.live || o.entry.session != r.session) continue;
      End(o, "disconnect");
      touched.insert(o.state.symbol);
    }
    for (const std::string& s : touched) PublishBook(s);
  }

  void PublishSymbols() {
    std::vector<ListedContract> contracts;
    for (const std::string& s : symbols_) contracts.push_back(ListedContract{s});
    l_->OnSecurityList(contracts);
  }

 private:
  using Level = std::deque<uint64_t>;
  struct SymbolBook {
    std::map<int64_t, Level, std::greater<int64_t>> bids;
    std::map<int64_t, Level> asks;
    bool has_last = false;
    int64_t last_px = 0;
  };

  FakeOrder* FindLive(const std::string& account, const std::string& cl) {
    auto it = by_cl_.find({account, cl});
    if (it == by_cl_.end()) return nullptr;
    FakeOrder& o = orders_[it->second];
    return o.live ? &o : nullptr;
  }

  // Best opposite price for `s`; false in .first if that side is empty.
  std::pair<bool, int64_t> BestOpposite(const OrderState& s) {
    SymbolBook& b = books_[s.symbol];
    if (s.side == Side::kBuy) {
      if (b.asks.empty()) return {false, 0};
      return {true, b.asks.begin()->first};
    }
    if (b.bids.empty()) return {false, 0};
    return {true, b.bids.begin()->first};
  }

  bool Crosses(const OrderState& s, std::pair<bool, int64_t> best) const {
    if (!best.first) return false;
    if (!s.has_price || s.ord_type == OrdType::kMarket || s.ord_type == OrdType::kStop) {
      return true;
    }
    return s.side == Side::kBuy ? best.second <= s.price_ticks : best.second >= s.price_ticks;
  }

  int64_t CrossingQty(const OrderState& s) {
    SymbolBook& b = books_[s.symbol];
    int64_t total = 0;
    auto add = [&](int64_t px, const Level& level) {
      if (!Crosses(s, {true, px})) return false;
      for (uint64_t id : level) total += orders_[id].state.leaves_qty;
      return true;
    };
    if (s.side == Side::kBuy) {
      for (auto& l : b.asks) if (!add(l.first, l.second)) break;
    } else {
      for (auto& l : b.bids) if (!add(l.first, l.second)) break;
    }
    return total;
  }

  // Matches order `id` as an aggressor, then rests or cancels its remainder.
  void Enter(uint64_t id) {
    std::vector<int64_t> prints;
    FakeOrder& agg = orders_[id];
    OrderState& s = agg.state;
    const bool market = s.ord_type == OrdType::kMarket || s.ord_type == OrdType::kStop;
    const bool opposite_empty = !BestOpposite(s).first;
    if (s.tif == TimeInForce::kFok && CrossingQty(s) < s.leaves_qty) {
      End(agg, "fok");
      return;
    }
    SymbolBook& b = books_[s.symbol];
    while (s.leaves_qty > 0) {
      std::pair<bool, int64_t> best = BestOpposite(s);
      if (!Crosses(s, best)) break;
      Level& level = s.side == Side::kBuy ? b.asks.begin()->second : b.bids.begin()->second;
      FakeOrder& rest = orders_[level.front()];
      int64_t qty = std::min(s.leaves_qty, rest.state.leaves_qty);
      int64_t px = best.second;
      Fill f{px, qty, next_trade_++};
      for (OrderState* o : {&rest.state, &s}) {
        o->cum_qty += qty;
        o->leaves_qty -= qty;
        o->cum_notional_ticks += px * qty;
      }
      if (rest.state.leaves_qty == 0) {
        rest.live = false;
        rest.ended_reason = "filled";
        level.pop_front();
        if (level.empty()) {
          if (s.side == Side::kBuy) b.asks.erase(b.asks.begin());
          else b.bids.erase(b.bids.begin());
        }
      }
      if (s.leaves_qty == 0) {
        agg.live = false;
        agg.ended_reason = "filled";
      }
      l_->OnFill(rest.state, f);
      l_->OnFill(s, f);
      l_->OnPublicTrade({s.symbol, px, qty, f.trade_id});
      b.has_last = true;
      b.last_px = px;
      prints.push_back(px);
    }
    if (s.leaves_qty > 0) {
      if (market) End(agg, opposite_empty ? "no_liquidity" : "ioc");
      else if (s.tif == TimeInForce::kIoc) End(agg, "ioc");
      else if (s.side == Side::kBuy) b.bids[s.price_ticks].push_back(id);
      else b.asks[s.price_ticks].push_back(id);
    }
    PublishBook(s.symbol);
    if (!prints.empty()) TriggerStops(s.symbol, b.last_px);
  }

  void TriggerStops(const std::string& symbol, int64_t last) {
    std::vector<uint64_t> due;
    for (auto& e : orders_) {
      FakeOrder& o = e.second;
      if (!o.live || !o.pending_stop || o.state.symbol != symbol) continue;
      if (o.state.side == Side::kBuy ? last >= o.state.stop_ticks : last <= o.state.stop_ticks) {
        due.push_back(e.first);
      }
    }
    for (uint64_t id : due) {
      FakeOrder& o = orders_[id];
      o.pending_stop = false;
      l_->OnTriggered(o.state);
      o.state.ord_type =
          o.state.ord_type == OrdType::kStop ? OrdType::kMarket : OrdType::kLimit;
      Enter(id);
    }
  }

  void RemoveFromBook(FakeOrder& o) {
    SymbolBook& b = books_[o.state.symbol];
    auto drop = [&](auto& side) {
      auto it = side.find(o.state.price_ticks);
      if (it == side.end()) return;
      auto& q = it->second;
      q.erase(std::remove(q.begin(), q.end(), o.state.order_id), q.end());
      if (q.empty()) side.erase(it);
    };
    if (o.state.side == Side::kBuy) drop(b.bids);
    else drop(b.asks);
  }

  void End(FakeOrder& o, const std::string& reason) {
    RemoveFromBook(o);
    o.live = false;
    o.pending_stop = false;
    o.ended_reason = reason == "expired" ? "expired" : "canceled";
    l_->OnCanceled(o.state, reason);
    o.state.leaves_qty = 0;
  }

  void PublishBook(const std::string& symbol) {
    SymbolBook& b = books_[symbol];
    BookUpdate u;
    u.symbol = symbol;
    auto fold = [&](int64_t px, const Level& level, std::vector<BookLevel>* out) {
      BookLevel l{px, 0, 0};
      for (uint64_t id : level) {
        l.qty += orders_[id].state.leaves_qty;
        ++l.order_count;
      }
      out->push_back(l);
    };
    for (auto& l : b.bids) fold(l.first, l.second, &u.bids);
    for (auto& l : b.asks) fold(l.first, l.second, &u.asks);
    l_->OnBookUpdate(u);
  }

  ExecutionListener* l_;
  std::set<std::string> symbols_;
  int64_t max_qty_;
  std::map<uint64_t, FakeOrder> orders_;  // by id: acceptance order
  std::map<std::pair<std::string, std::string>, uint64_t> by_cl_;
  std::set<std::pair<std::string, std::string>> used_;
  std::map<std::string, SymbolBook> books_;
  uint64_t next_id_ = 1;
  uint64_t next_trade_ = 1;
};

FakeExchange::FakeExchange(std::vector<std::string> symbols, int64_t max_order_qty)
    : symbols_(std::move(symbols)), max_order_qty_(max_order_qty) {}

FakeExchange::~FakeExchange() { Stop(); }

void FakeExchange::Start() {
  book_.reset(new Book(listener_, symbols_, max_order_qty_));
  stopping_ = false;
  worker_ = std::thread([this] { Run(); });
  Post([this] { book_->PublishSymbols(); });
}

void FakeExchange::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!worker_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void FakeExchange::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  uint64_t target = posted_;
  cv_.wait(lock, [&] { return done_ >= target || !worker_.joinable(); });
}

void FakeExchange::Post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
    ++posted_;
  }
  cv_.notify_all();
}

void FakeExchange::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping with nothing left
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    lock.lock();
    ++done_;
    cv_.notify_all();
  }
}

void FakeExchange::Submit(const NewOrder& r) { Post([this, r] { book_->Submit(r); }); }
void FakeExchange::Cancel(const CancelOrder& r) { Post([this, r] { book_->Cancel(r); }); }
void FakeExchange::Replace(const ReplaceOrder& r) { Post([this, r] { book_->Replace(r); }); }
void FakeExchange::Status(const OrderStatus& r) { Post([this, r] { book_->Status(r); }); }
void FakeExchange::MassCancelOrders(const MassCancel& r) {
  Post([this, r] { book_->MassCancel(r); });
}
void FakeExchange::RefuseAmend(const CancelRejected& r) {
  Post([this, r] { book_->RefuseAmend(r); });
}
void FakeExchange::Disconnected(const SessionDisconnected& r) {
  Post([this, r] { book_->Disconnected(r); });
}
void FakeExchange::Inject(std::function<void(ExecutionListener&)> deliver) {
  Post([this, deliver] { deliver(*listener_); });
}

void FakeExchange::HoldRefusals() {
  std::lock_guard<std::mutex> lock(refusals_mu_);
  hold_refusals_ = true;
}

void FakeExchange::ReleaseRefusals() {
  std::vector<std::function<void()>> held;
  {
    std::lock_guard<std::mutex> lock(refusals_mu_);
    held.swap(held_);
  }
  for (std::function<void()>& answer : held) Post(std::move(answer));
}

std::vector<std::pair<std::string, uint64_t>> FakeExchange::RecordedRefusals() {
  std::lock_guard<std::mutex> lock(refusals_mu_);
  return recorded_;
}

bool FakeExchange::AnswerWhenRecorded(const std::string& session, uint64_t msg_seq,
                                      const std::function<void()>& answer) {
  std::lock_guard<std::mutex> lock(refusals_mu_);
  if (!hold_refusals_) return false;
  recorded_.emplace_back(session, msg_seq);
  held_.push_back(answer);
  return true;
}

}  // namespace testing
}  // namespace gateway
}  // namespace cfx
