#include "cfx/gateway/exchange_order_entry.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/common/date.h"
#include "cfx/concurrency/thread_name.h"
#include "order_type_mapping.h"

namespace cfx::gateway {
namespace {

namespace en = cfx::engine;

// How often a full input ring is retried before the request is refused `throttled`.
constexpr int kFullRetries = 2000;

using internal::HasPrice;
using internal::HasStop;
using internal::Str;
using internal::ToEngine;
using internal::ToGateway;

// What the publisher needs to answer one request: the request itself, as sent.
struct Pending {
  enum class Kind { kNew, kCancel, kReplace, kMass, kDisconnect };
  Kind kind = Kind::kNew;
  OrderState asked;            // kNew: the order as asked (for rejects)
  std::string cl_ord_id;       // cancel/replace/mass: the request's id
  std::string orig_cl_ord_id;  // cancel/replace: the order named
  MassCancelResult mass;       // kMass: filled as outcomes arrive
};

}  // namespace

engine::SessionId SessionIdOf(std::string_view name) {
  uint32_t h = 2166136261u;
  for (char c : name) {
    h ^= static_cast<uint8_t>(c);
    h *= 16777619u;
  }
  return h == 0 ? 1 : h;
}

class ExchangeOrderEntry::Impl {
 public:
  Impl(exchange::ExchangeCore* core, const std::vector<std::string>& sessions) : core_(core) {
    for (const std::string& s : sessions) {
      auto [it, inserted] = session_names_.emplace(SessionIdOf(s), s);
      if (!inserted && it->second != s) collision_ = absl::StrCat(it->second, " and ", s);
    }
  }

  exchange::ExchangeCore* core_;
  ExecutionListener* listener_ = nullptr;
  std::atomic<bool> delivering_{false};  // Start has run: listener_ is set
  absl::flat_hash_map<en::SessionId, std::string> session_names_;  // immutable after ctor
  std::string collision_;

  // Requests in flight, by tag. Producers insert, the publisher erases at the ack. A node
  // map: the publisher keeps a pointer to an entry across producers' inserts (rehashes).
  std::mutex pending_mu_;
  absl::node_hash_map<uint64_t, Pending> pending_;
  std::atomic<uint64_t> next_tag_{1};

  // Publisher thread only: symbols whose book changed during the current input.
  std::vector<std::string> touched_;
  std::atomic<uint64_t> listing_seen_{0};  // the ListingVersion of the last list handed over

  // The worker: status answers and local rejects, so that no listener call happens inside
  // an OrderEntry call.
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread worker_;

  // Sessions whose cancel-on-disconnect met a full ring: offered again at each end of a
  // delivery burst (OnIdle, when the matcher has freed room), and their new orders refused
  // meanwhile, so that the late mass cancel cannot cancel the orders of the client's next
  // connection. The count keeps the order path to one load.
  struct DisconnectCancel {
    en::MassCancelCmd command;
    Pending pending;
  };
  std::mutex disconnect_mu_;
  absl::flat_hash_set<en::SessionId> disconnect_pending_;
  std::vector<DisconnectCancel> disconnect_retry_;  // under disconnect_mu_
  std::atomic<int> disconnect_pending_n_{0};

  // Offers what waits in disconnect_retry_, once each, without waiting.
  void RetryDisconnectCancels() {
    if (disconnect_pending_n_.load(std::memory_order_acquire) == 0) return;
    std::lock_guard<std::mutex> lock(disconnect_mu_);
    auto& q = disconnect_retry_;
    for (size_t i = 0; i < q.size();) {
      if (OfferOnce(q[i].command, q[i].pending) == exchange::OfferResult::kFull) {
        ++i;
        continue;
      }
      disconnect_pending_.erase(q[i].command.session);
      disconnect_pending_n_.fetch_sub(1, std::memory_order_release);
      q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  bool DisconnectCancelPending(en::SessionId session) {
    if (disconnect_pending_n_.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard<std::mutex> lock(disconnect_mu_);
    return disconnect_pending_.contains(session);
  }

  void Post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      std::function<void()> task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  const std::string& SessionName(en::SessionId id) const {
    static const std::string kNone;
    auto it = session_names_.find(id);
    return it == session_names_.end() ? kNone : it->second;
  }

  // Registers the request and offers the command; on kFull (after retries) or kStopped the
  // request is forgotten.
  exchange::OfferResult Offer(const en::Command& command, Pending pending) {
    return Register(command, std::move(pending), kFullRetries);
  }
  // As Offer, with one try: for the threads that must not wait (the delivering thread, and
  // QuickFIX callbacks under a session's lock).
  exchange::OfferResult OfferOnce(const en::Command& command, Pending pending) {
    return Register(command, std::move(pending), 1);
  }
  exchange::OfferResult Register(const en::Command& command, Pending pending, int tries) {
    const uint64_t tag = next_tag_.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(pending_mu_);
      pending_.emplace(tag, std::move(pending));
    }
    const exchange::OfferResult r = SubmitRetrying(command, tag, tries);
    if (r != exchange::OfferResult::kAccepted) {
      std::lock_guard<std::mutex> lock(pending_mu_);
      pending_.erase(tag);
    }
    return r;
  }

  // Replicated: a request names its FIX session and MsgSeqNum (docs/replication.md, "FIX
  // sessions"). One node: none (QuickFIX's own store keeps the session).
  en::Origin OriginOf(const std::string& session, uint64_t msg_seq) const {
    if (!core_->replicated() || msg_seq == 0 || msg_seq > UINT32_MAX) return {};
    return en::Origin{SessionIdOf(session), static_cast<uint32_t>(msg_seq)};
  }
  // Submit, tried (yielding between tries) while the input ring is full, up to `tries`
  // times.
  exchange::OfferResult SubmitRetrying(const en::Command& command, uint64_t tag,
                                       int tries = kFullRetries) {
    exchange::OfferResult r = exchange::OfferResult::kFull;
    for (int i = 0; i < tries && r == exchange::OfferResult::kFull; ++i) {
      r = core_->Submit(command, tag);
      if (r == exchange::OfferResult::kFull && i + 1 < tries) std::this_thread::yield();
    }
    return r;
  }

  // The exchange time of the input an outcome came from, in µs (0: none, the report says
  // "now"): the TransactTime of its reports (SPEC §5).
  static int64_t TimeUs(const exchange::Outcome& o) {
    return o.ts == en::kNoTime || o.ts <= 0 ? 0 : o.ts / 1000;
  }

  OrderState StateOf(const en::OrderInfo& info, const en::Name& acct, const en::Name& sym,
                     const exchange::OrderDetail& d, int64_t time_us = 0) const {
    OrderState s;
    s.transact_time_us = time_us;
    s.session = SessionName(d.session);
    s.account = Str(acct);
    s.cl_ord_id = std::string(info.cl.view());
    s.order_id = info.oid;
    s.symbol = Str(sym);
    s.side = ToGateway(info.side);
    if (d.has_detail) {
      s.ord_type = ToGateway(d.type);
      s.tif = ToGateway(d.tif);
      s.has_price = HasPrice(d.type);
      s.price_ticks = d.px.value();
      s.has_stop = HasStop(d.type);
      s.stop_ticks = d.stop_px.value();
      s.qty = d.qty.value();
    } else {
      s.qty = (info.cum + info.leaves).value();
    }
    s.cum_qty = info.cum.value();
    s.leaves_qty = info.leaves.value();
    s.cum_notional_ticks = info.notional;
    return s;
  }

  void Touch(const en::Name& sym) {
    if (sym.empty()) return;
    for (const std::string& t : touched_) {
      if (t == sym.view()) return;
    }
    touched_.emplace_back(sym.view());
  }

  // The request in flight under `tag`, or nullptr (tag 0: not an order entry's input).
  // Publisher thread: it alone erases or changes entries, and node_hash_map keeps element
  // addresses across producers' inserts, so the pointer stays valid without the lock.
  Pending* FindPending(uint64_t tag) {
    if (tag == 0) return nullptr;
    std::lock_guard<std::mutex> lock(pending_mu_);
    auto it = pending_.find(tag);
    return it == pending_.end() ? nullptr : &it->second;
  }

  // Turns one engine event of a durable input into listener calls. `tag` is Submit's.
  void OnEvent(uint64_t tag, const exchange::Outcome& o) {
    Pending* p = FindPending(tag);
    switch (o.event.type) {
      case en::EventType::kAccepted:
        Touch(o.sym);
        listener_->OnAccepted(StateOf(o.event.order, o.acct, o.sym, o.detail(), TimeUs(o)));
        return;
      case en::EventType::kRejected:
        DeliverRejected(o, p);
        return;
      case en::EventType::kTrade:
        DeliverTrade(o);
        return;
      case en::EventType::kCanceled:
        DeliverCanceled(o, p);
        return;
      case en::EventType::kReplaced:
        DeliverReplaced(o, p);
        return;
      case en::EventType::kTriggered:
        Touch(o.sym);
        listener_->OnTriggered(StateOf(o.event.order, o.acct, o.sym, o.detail(), TimeUs(o)));
        return;
      case en::EventType::kCancelRejected:
        DeliverCancelRejected(o, p);
        return;
      case en::EventType::kStateChanged:
        Touch(o.sym);
        return;
    }
  }

  // A reject: counted into a mass cancel's result, else an order reject (as asked, when the
  // request is ours).
  void DeliverRejected(const exchange::Outcome& o, Pending* p) {
    const en::Event& e = o.event;
    const std::string reason(en::ToString(e.reject));
    if (p != nullptr && p->kind == Pending::Kind::kMass) {
      p->mass.rejected = true;
      p->mass.reason = reason;
      return;
    }
    if (p != nullptr && p->kind == Pending::Kind::kNew) {
      listener_->OnRejected(p->asked, reason);
      return;
    }
    listener_->OnRejected(StateOf(e.order, o.acct, o.sym, o.detail(), TimeUs(o)), reason);
  }

  // A trade: a fill to each side's order, then the public trade.
  void DeliverTrade(const exchange::Outcome& o) {
    const en::Event& e = o.event;
    Touch(o.sym);
    const Fill fill{e.px.value(), e.qty.value(), e.seq};
    listener_->OnFill(StateOf(e.order, o.acct, o.sym, o.detail(), TimeUs(o)), fill);
    listener_->OnFill(StateOf(e.other, o.other_acct, o.sym, o.other_detail(), TimeUs(o)), fill);
    listener_->OnPublicTrade(
        PublicTrade{Str(o.sym), e.px.value(), e.qty.value(), e.seq, TimeUs(o)});
  }

  // A cancel, answered to the cancel or replace request that caused it (its session and
  // ids), or counted into a mass cancel's result.
  void DeliverCanceled(const exchange::Outcome& o, Pending* p) {
    const en::Event& e = o.event;
    Touch(o.sym);
    OrderState s = StateOf(e.order, o.acct, o.sym, o.detail(), TimeUs(o));
    if (p != nullptr && p->kind == Pending::Kind::kCancel && e.cancel == en::CancelReason::kUser) {
      s.session = p->asked.session;
      s.orig_cl_ord_id = s.cl_ord_id;
      s.cl_ord_id = p->cl_ord_id;
    } else if (p != nullptr && p->kind == Pending::Kind::kReplace &&
               e.cancel == en::CancelReason::kReplacedToZero) {
      s.session = p->asked.session;
      s.cl_ord_id = p->cl_ord_id;
      s.orig_cl_ord_id = p->orig_cl_ord_id;
    } else if (p != nullptr && p->kind == Pending::Kind::kMass) {
      ++p->mass.canceled_count;
    }
    listener_->OnCanceled(s, std::string(en::ToString(e.cancel)));
  }

  // A replace, answered to the amending session with the order's new price and quantity.
  void DeliverReplaced(const exchange::Outcome& o, Pending* p) {
    const en::Event& e = o.event;
    Touch(o.sym);
    OrderState s = StateOf(e.order, o.acct, o.sym, o.detail(), TimeUs(o));
    if (p != nullptr) s.session = p->asked.session;
    s.orig_cl_ord_id = std::string(e.orig.view());
    if (e.has_px) {
      s.has_price = true;
      s.price_ticks = e.px.value();
    }
    s.qty = e.qty.value();
    listener_->OnReplaced(s);
  }

  // A refused cancel or replace, with the request's ids and whether the order still works.
  void DeliverCancelRejected(const exchange::Outcome& o, const Pending* p) {
    const en::Event& e = o.event;
    CancelRejected r;
    r.transact_time_us = TimeUs(o);
    r.account = Str(o.acct);
    r.orig_cl_ord_id = std::string(e.orig.view());
    r.reason = std::string(en::ToString(e.reject));
    if (p != nullptr) {
      r.session = p->asked.session;
      r.account = p->asked.account;
      r.cl_ord_id = p->cl_ord_id;
      r.orig_cl_ord_id = p->orig_cl_ord_id;
      r.response_to_replace = p->kind == Pending::Kind::kReplace;
    } else {
      r.session = SessionName(o.detail().session);
    }
    // Refused for another reason than "unknown": the order still works.
    if (e.reject != en::RejectReason::kUnknownOrder && e.order.oid != 0) {
      r.order_live = true;
      r.order_id = e.order.oid;
      r.cum_qty = e.order.cum.value();
    }
    listener_->OnCancelRejected(r);
  }

  // Hands the current listing to the listener, through the worker like the first one so
  // that lists arrive in the order they were read. Any thread; PostListing calls race only
  // in the harmless way (a list re-sent).
  void PostListing() {
    listing_seen_.store(core_->ListingVersion(), std::memory_order_release);
    std::vector<ListedContract> contracts;
    for (const security_master::Contract& c : core_->Contracts()) {
      if (!c.listed()) continue;
      ListedContract l;
      l.symbol = c.sym;
      if (c.contract) l.maturity_month = absl::StrFormat("%04d%02d", c.contract->year, c.contract->month);
      if (c.last_trading_day) {
        std::string d = common::FormatDate(*c.last_trading_day);  // YYYY-MM-DD
        d.erase(std::remove(d.begin(), d.end(), '-'), d.end());
        l.last_trading_day = d;
      }
      l.multiplier = c.multiplier;
      l.tick_ticks = c.tick.value();
      l.max_order_qty = c.max_order_qty.value();
      contracts.push_back(std::move(l));
    }
    Post([this, contracts] { listener_->OnSecurityList(contracts); });
  }

  void OnAck(uint64_t tag) {
    // A month listed or expired while running: market data and security lists follow.
    if (core_->ListingVersion() != listing_seen_.load(std::memory_order_acquire)) PostListing();
    for (const std::string& sym : touched_) {
      std::optional<exchange::BookView> view =
          core_->BookSnapshot(sym, exchange::kMaxPublishedDepth);
      if (!view) continue;
      BookUpdate u;
      u.symbol = sym;
      for (const exchange::BookLevelView& l : view->bids)
        u.bids.push_back({l.px.value(), l.qty.value(), l.count});
      for (const exchange::BookLevelView& l : view->asks)
        u.asks.push_back({l.px.value(), l.qty.value(), l.count});
      listener_->OnBookUpdate(u);
    }
    touched_.clear();
    if (tag == 0) return;
    Pending done;
    {
      std::lock_guard<std::mutex> lock(pending_mu_);
      auto it = pending_.find(tag);
      if (it == pending_.end()) return;
      done = std::move(it->second);
      pending_.erase(it);
    }
    if (done.kind == Pending::Kind::kMass) listener_->OnMassCancelResult(done.mass);
  }

  // Refuses a request locally, from the worker thread.
  void RejectNew(const OrderState& asked, const std::string& reason) {
    Post([this, asked, reason] { listener_->OnRejected(asked, reason); });
  }
  // Offers the cancel or replace `command` of the request `refusal` describes; refuses it
  // `throttled` when the input ring stays full.
  void OfferAmend(const en::Command& command, Pending::Kind kind, CancelRejected refusal) {
    Pending p;
    p.kind = kind;
    p.asked.session = refusal.session;
    p.asked.account = refusal.account;
    p.cl_ord_id = refusal.cl_ord_id;
    p.orig_cl_ord_id = refusal.orig_cl_ord_id;
    if (Offer(command, std::move(p)) != exchange::OfferResult::kAccepted) {
      refusal.reason = "throttled";
      RejectCancel(refusal);
    }
  }

  void RejectCancel(CancelRejected r) {
    Post([this, r] { listener_->OnCancelRejected(r); });
  }
};

ExchangeOrderEntry::ExchangeOrderEntry(exchange::ExchangeCore* core,
                                       const std::vector<std::string>& sessions)
    : impl_(std::make_unique<Impl>(core, sessions)) {
  core->AddListener(this);
}

ExchangeOrderEntry::~ExchangeOrderEntry() { Stop(); }

void ExchangeOrderEntry::SetListener(ExecutionListener* listener) { impl_->listener_ = listener; }

absl::Status ExchangeOrderEntry::Start() {
  if (!impl_->collision_.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sessions ", impl_->collision_, " map to one engine session id; rename one"));
  }
  impl_->worker_ = concurrency::NamedThread("cfx-fix-worker", [this] { impl_->Run(); });
  impl_->delivering_.store(true, std::memory_order_release);
  impl_->PostListing();
  return absl::OkStatus();
}

void ExchangeOrderEntry::Stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu_);
    impl_->stopping_ = true;
  }
  impl_->cv_.notify_all();
  if (impl_->worker_.joinable()) impl_->worker_.join();
}

namespace {

// Copies `s` into an engine name; false if it does not fit.
bool Assign(en::Name* out, const std::string& s) { return out->Assign(s); }

}  // namespace

void ExchangeOrderEntry::Submit(const NewOrder& r) {
  Pending p;
  p.asked = AskedState(r);
  OrderState& s = p.asked;
  en::NewOrderCmd c;
  if (!c.cl.Assign(r.cl_ord_id) || !Assign(&c.acct, r.account) || !Assign(&c.firm, r.firm) ||
      !Assign(&c.stp, r.stp_id)) {
    impl_->RejectNew(s, "invalid_field");
    return;
  }
  if (!Assign(&c.sym, r.symbol)) {
    impl_->RejectNew(s, "unknown_symbol");
    return;
  }
  c.side = ToEngine(r.side);
  c.type = ToEngine(r.ord_type);
  c.tif = ToEngine(r.tif);
  if (r.has_price) c.px = en::PriceField::Ticks(en::PriceTicks(r.price_ticks));
  if (r.has_stop) c.stop = en::PriceField::Ticks(en::PriceTicks(r.stop_ticks));
  c.qty = en::Qty(r.qty);
  c.has_display = r.display_qty != 0;
  c.display = en::Qty(r.display_qty);
  c.post_only = r.post_only;
  c.stp_action = ToEngine(r.stp_action);
  c.session = SessionIdOf(r.session);
  if (r.tif == TimeInForce::kGtd) {
    absl::StatusOr<common::TimestampUs> ts = common::ParseTimestamp(r.expire_time);
    if (!ts.ok()) {
      impl_->RejectNew(s, "invalid_field");
      return;
    }
    c.expire = static_cast<en::Timestamp>(*ts) * 1000;
  }
  c.origin = impl_->OriginOf(r.session, r.msg_seq);
  OrderState asked = s;
  if (impl_->DisconnectCancelPending(c.session)) {  // its last connection's cancel comes first
    impl_->RejectNew(asked, "throttled");
    return;
  }
  if (impl_->Offer(c, std::move(p)) != exchange::OfferResult::kAccepted)
    impl_->RejectNew(asked, "throttled");
}

void ExchangeOrderEntry::Cancel(const CancelOrder& r) {
  CancelRejected refusal{r.session, r.account, r.cl_ord_id, r.orig_cl_ord_id, false, "", false,
                         0,         0};
  en::CancelCmd c;
  if (!c.orig.Assign(r.orig_cl_ord_id) || !Assign(&c.acct, r.account)) {
    refusal.reason = "unknown_order";  // no such id can exist in the engine
    impl_->RejectCancel(refusal);
    return;
  }
  c.origin = impl_->OriginOf(r.session, r.msg_seq);
  impl_->OfferAmend(c, Pending::Kind::kCancel, refusal);
}

void ExchangeOrderEntry::Replace(const ReplaceOrder& r) {
  CancelRejected refusal{r.session, r.account, r.cl_ord_id, r.orig_cl_ord_id, true, "", false,
                         0,         0};
  en::ReplaceCmd c;
  if (!c.orig.Assign(r.orig_cl_ord_id) || !Assign(&c.acct, r.account)) {
    refusal.reason = "unknown_order";
    impl_->RejectCancel(refusal);
    return;
  }
  if (!c.cl.Assign(r.cl_ord_id)) {
    refusal.reason = "invalid_field";
    impl_->RejectCancel(refusal);
    return;
  }
  if (r.has_price) c.px = en::PriceField::Ticks(en::PriceTicks(r.price_ticks));
  c.has_qty = r.has_qty;
  c.qty = en::Qty(r.qty);
  c.origin = impl_->OriginOf(r.session, r.msg_seq);
  impl_->OfferAmend(c, Pending::Kind::kReplace, refusal);
}

void ExchangeOrderEntry::Status(const OrderStatus& r) {
  impl_->Post([this, r] {
    std::optional<exchange::OrderStateView> v = impl_->core_->FindOrder(r.account, r.cl_ord_id);
    if (!v) {
      // Unknown (or forgotten, docs/fix.md) or another account's: the same answer (SPEC §6).
      impl_->listener_->OnStatus(UnknownOrderAnswer(r));
      return;
    }
    en::OrderInfo info;
    info.oid = v->oid;
    info.cl.Assign(v->cl);
    info.side = v->side;
    info.status = v->status;
    info.cum = v->cum;
    info.leaves = v->leaves;
    info.notional = v->notional;
    StatusAnswer a;
    a.status_req_id = r.status_req_id;
    a.found = true;
    if (en::Ended(v->status)) {
      a.ended = true;
      a.ended_reason = v->status == en::OrderStatus::kFilled ? "filled"
                       : v->expired                          ? "expired"
                                                             : "canceled";
    }
    a.order = impl_->StateOf(info, en::Name::From(v->acct), en::Name::From(v->sym), v->detail);
    a.order.session = r.session;
    impl_->listener_->OnStatus(a);
  });
}

void ExchangeOrderEntry::MassCancelOrders(const MassCancel& r) {
  MassCancelResult result{r.session, r.cl_ord_id, r.account, r.symbol, false, "", 0};
  en::MassCancelCmd c;
  if (!Assign(&c.acct, r.account) || !Assign(&c.sym, r.symbol)) {
    result.rejected = true;
    result.reason = "unknown_symbol";
    impl_->Post([this, result] { impl_->listener_->OnMassCancelResult(result); });
    return;
  }
  if (r.account.empty()) c.session = SessionIdOf(r.session);
  c.origin = impl_->OriginOf(r.session, r.msg_seq);
  Pending p;
  p.kind = Pending::Kind::kMass;
  p.asked.session = r.session;
  p.mass = result;
  if (impl_->Offer(c, std::move(p)) != exchange::OfferResult::kAccepted) {
    result.rejected = true;
    result.reason = "throttled";
    impl_->Post([this, result] { impl_->listener_->OnMassCancelResult(result); });
  }
}

void ExchangeOrderEntry::Disconnected(const SessionDisconnected& r) {
  en::MassCancelCmd c;
  c.session = SessionIdOf(r.session);
  Pending p;
  p.kind = Pending::Kind::kDisconnect;
  p.asked.session = r.session;
  // This runs under the QuickFIX session's lock (onLogout), which the thread delivering
  // outcomes (the matcher's) takes to send this session a report: no waiting here. A full
  // ring would leave orders working after a disconnect, so the cancel is kept and offered
  // again at each end of a delivery burst (the matcher has freed room by then), and the
  // session's new orders are refused until it is in.
  if (impl_->OfferOnce(c, p) != exchange::OfferResult::kFull) return;
  {
    std::lock_guard<std::mutex> lock(impl_->disconnect_mu_);
    if (!impl_->disconnect_pending_.insert(c.session).second) return;  // already waiting
    impl_->disconnect_retry_.push_back({c, p});
    impl_->disconnect_pending_n_.fetch_add(1, std::memory_order_release);
  }
  // The matcher may have emptied the ring, and ended its last burst, since the first try.
  impl_->RetryDisconnectCancels();
}

bool ExchangeOrderEntry::RecordSequences(const SessionSequences& sequences) {
  if (!impl_->core_->replicated()) return true;  // one node: QuickFIX's own store
  const en::FixSessionCmd mark{SessionIdOf(sequences.session), sequences.next_target,
                               sequences.sender_limit};
  // One try: this runs in QuickFIX's toApp on the sending thread, which for reports is the
  // matcher's, and retrying there while the ring is full would keep the ring full. Not
  // recorded, the next message sent tries again (half the reserve ahead of the limit).
  return impl_->core_->Submit(mark, 0) == exchange::OfferResult::kAccepted;
}

std::vector<SessionSequences> ExchangeOrderEntry::ResumeSequences() const {
  std::vector<SessionSequences> out;
  for (const exchange::FixSessionSeqs& s : impl_->core_->FixSessions()) {
    auto it = impl_->session_names_.find(s.session);  // absent: removed from the config
    if (it != impl_->session_names_.end()) out.push_back({it->second, s.next_target, s.sender_limit});
  }
  return out;
}

// Nothing is delivered before Start: a standby's core publishes the primary's outcomes
// long before this node has a FIX gateway to send them to (or clients to send them to).
void ExchangeOrderEntry::OnOutcome(uint64_t seq, uint64_t tag, const exchange::Outcome& o) {
  if (o.kind != exchange::OutcomeKind::kEvent) return;
  if (!impl_->delivering_.load(std::memory_order_acquire)) return;
  impl_->OnEvent(tag, o);
}

void ExchangeOrderEntry::OnAck(uint64_t seq, uint64_t tag) {
  if (!impl_->delivering_.load(std::memory_order_acquire)) return;
  impl_->OnAck(tag);
}

void ExchangeOrderEntry::OnIdle() {
  impl_->RetryDisconnectCancels();
  if (!impl_->delivering_.load(std::memory_order_acquire)) return;
  impl_->listener_->OnIdle();
}

}  // namespace cfx::gateway
