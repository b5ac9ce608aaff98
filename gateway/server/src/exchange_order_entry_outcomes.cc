// ExchangeOrderEntry (exchange_order_entry.h), outcomes out: each engine event of a durable
// input turned into ExecutionListener calls, on the thread that delivers outcomes (the
// matcher's); books, listings and mass-cancel results at each input's ack.
#include <algorithm>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/str_format.h"
#include "cfx/common/date.h"
#include "exchange_order_entry_impl.h"
#include "order_type_mapping.h"

namespace cfx::gateway {

using internal::HasPrice;
using internal::Pending;
using internal::HasStop;
using internal::Str;
using internal::ToGateway;

namespace {

// A published book as market data's update.
BookUpdate BookUpdateOf(const std::string& sym, const exchange::BookView& view) {
  BookUpdate u;
  u.symbol = sym;
  for (const exchange::BookLevelView& l : view.bids)
    u.bids.push_back({l.px.value(), l.qty.value(), l.count});
  for (const exchange::BookLevelView& l : view.asks)
    u.asks.push_back({l.px.value(), l.qty.value(), l.count});
  u.time_us = view.ts == en::kNoTime || view.ts <= 0 ? 0 : view.ts / 1000;
  return u;
}

}  // namespace

// The exchange time of the input an outcome came from, in µs (0: none, the report says
// "now"): the TransactTime of its reports (SPEC §5).
int64_t ExchangeOrderEntry::Impl::TimeUs(const exchange::Outcome& o) {
  return o.ts == en::kNoTime || o.ts <= 0 ? 0 : o.ts / 1000;
}

OrderState ExchangeOrderEntry::Impl::StateOf(const en::OrderInfo& info, const en::Name& acct,
                                             const en::Name& sym, const exchange::OrderDetail& d,
                                             int64_t time_us) const {
  OrderState s;
  s.transact_time_us = time_us;
  s.session = SessionName(d.session);
  s.account = Str(acct);
  s.cl_ord_id = std::string(info.cl.view());
  s.order_id = info.oid;
  s.symbol = Str(sym);
  s.side = ToGateway(info.side);
  if (d.has_detail) {
    // A triggered stop is a market (stop) or limit (stop_limit) order in the engine, its stop
    // price kept: the client's reports keep the type it sent (40=3/4) and 99.
    en::OrderType type = d.type;
    if (d.stop_px > en::PriceTicks(0)) {
      if (type == en::OrderType::kMarket) type = en::OrderType::kStop;
      if (type == en::OrderType::kLimit) type = en::OrderType::kStopLimit;
    }
    s.ord_type = ToGateway(type);
    s.tif = ToGateway(d.tif);
    s.has_price = HasPrice(type);
    s.price_ticks = d.px.value();
    s.has_stop = HasStop(type);
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

OrderState ExchangeOrderEntry::Impl::ReportOf(const exchange::Outcome& o, bool seller) const {
  OrderState s = seller ? StateOf(o.event.other, o.other_acct, o.sym, o.other_detail(), TimeUs(o))
                        : StateOf(o.event.order, o.acct, o.sym, o.detail(), TimeUs(o));
  s.exec_id = ExecId(seller ? 1 : 0);
  s.poss_resend = poss_resend_;
  return s;
}

void ExchangeOrderEntry::Impl::Touch(const en::Name& sym) {
  if (sym.empty()) return;
  for (const std::string& t : touched_) {
    if (t == sym.view()) return;
  }
  touched_.emplace_back(sym.view());
  touched_waits_.push_back(0);
}

// The request in flight under `tag`, or nullptr (tag 0: not an order entry's input).
// Publisher thread: it alone erases or changes entries, and node_hash_map keeps element
// addresses across producers' inserts, so the pointer stays valid without the lock.
Pending* ExchangeOrderEntry::Impl::FindPending(uint64_t tag) {
  if (tag == 0) return nullptr;
  std::lock_guard<std::mutex> lock(pending_mu_);
  auto it = pending_.find(tag);
  return it == pending_.end() ? nullptr : &it->second;
}

// Turns one engine event of a durable input into listener calls. `tag` is Submit's.
void ExchangeOrderEntry::Impl::OnEvent(uint64_t tag, const exchange::Outcome& o) {
  Pending* p = FindPending(tag);
  switch (o.event.type) {
    case en::EventType::kAccepted:
      Touch(o.sym);
      listener_->OnAccepted(ReportOf(o));
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
      listener_->OnTriggered(ReportOf(o));
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
void ExchangeOrderEntry::Impl::DeliverRejected(const exchange::Outcome& o, Pending* p) {
  const en::Event& e = o.event;
  const std::string reason(en::ToString(e.reject));
  if (p != nullptr && p->kind == Pending::Kind::kMass) {
    p->mass.rejected = true;
    p->mass.reason = reason;
    p->mass.transact_time_us = TimeUs(o);
    return;
  }
  // A resend (43=Y) whose ClOrdID the account already used, of an order the lookup could not
  // find (replaced since, so it goes by its new id; or ended and forgotten): the exchange
  // has seen it, FIX asks the receiver to ignore it, and that order's own reports went out.
  // So no duplicate_client_id reject answers it. A resend whose id names an order that is
  // found with other terms is no resend of it, and gets its reject.
  if (p != nullptr && p->kind == Pending::Kind::kNew && p->poss_dup_unplaced &&
      e.reject == en::RejectReason::kDuplicateClientId) {
    return;
  }
  if (p != nullptr && p->kind == Pending::Kind::kNew) {
    OrderState asked = p->asked;
    asked.transact_time_us = TimeUs(o);  // the input's exchange stamp, as every report
    asked.exec_id = ExecId(0);
    asked.poss_resend = poss_resend_;
    listener_->OnRejected(asked, reason);
    return;
  }
  listener_->OnRejected(ReportOf(o), reason);
}

// A trade: a fill to each side's order, then the public trade.
void ExchangeOrderEntry::Impl::DeliverTrade(const exchange::Outcome& o) {
  const en::Event& e = o.event;
  Touch(o.sym);
  const Fill fill{e.px.value(), e.qty.value(), e.seq};
  listener_->OnFill(ReportOf(o), fill);
  listener_->OnFill(ReportOf(o, /*seller=*/true), fill);
  // Market data is not sent again: it is not kept for a session, and the books are
  // published as they stand. (That of inputs held back at the start, never sent, is.)
  if (poss_resend_) return;
  listener_->OnPublicTrade(PublicTrade{Str(o.sym), e.px.value(), e.qty.value(), e.seq, TimeUs(o)});
}

// A cancel, answered to the cancel or replace request that caused it (its session and
// ids), or counted into a mass cancel's result.
void ExchangeOrderEntry::Impl::DeliverCanceled(const exchange::Outcome& o, Pending* p) {
  const en::Event& e = o.event;
  Touch(o.sym);
  OrderState s = ReportOf(o);
  if (p != nullptr && p->kind == Pending::Kind::kCancel && e.cancel == en::CancelReason::kUser) {
    if (!p->asked.session.empty()) s.session = p->asked.session;
    s.orig_cl_ord_id = s.cl_ord_id;
    s.cl_ord_id = p->cl_ord_id;
  } else if (p != nullptr && p->kind == Pending::Kind::kReplace &&
             e.cancel == en::CancelReason::kReplacedToZero) {
    if (!p->asked.session.empty()) s.session = p->asked.session;
    s.cl_ord_id = p->cl_ord_id;
    s.orig_cl_ord_id = p->orig_cl_ord_id;
  } else if (p != nullptr && p->kind == Pending::Kind::kMass &&
             e.cancel == en::CancelReason::kMass) {
    // Only the request's own cancels: a close taken at its input (docs/engine.md) expires
    // day orders of every firm under its tag, which its report must not count.
    ++p->mass.canceled_count;
    p->mass.transact_time_us = TimeUs(o);
  }
  listener_->OnCanceled(s, std::string(en::ToString(e.cancel)));
}

// A replace, answered to the amending session with the order's new price and quantity.
void ExchangeOrderEntry::Impl::DeliverReplaced(const exchange::Outcome& o, Pending* p) {
  const en::Event& e = o.event;
  Touch(o.sym);
  OrderState s = ReportOf(o);
  if (p != nullptr && !p->asked.session.empty()) s.session = p->asked.session;
  s.orig_cl_ord_id = std::string(e.orig.view());
  if (e.has_px) {
    s.has_price = true;
    s.price_ticks = e.px.value();
  }
  s.qty = e.qty.value();
  listener_->OnReplaced(s);
}

// A refused cancel or replace, with the request's ids and whether the order still works.
void ExchangeOrderEntry::Impl::DeliverCancelRejected(const exchange::Outcome& o, const Pending* p) {
  const en::Event& e = o.event;
  CancelRejected r;
  r.transact_time_us = TimeUs(o);
  r.poss_resend = poss_resend_;
  r.account = Str(o.acct);
  r.orig_cl_ord_id = std::string(e.orig.view());
  r.reason = std::string(en::ToString(e.reject));
  if (p != nullptr) {
    r.session = p->asked.session.empty() ? SessionName(o.detail().session) : p->asked.session;
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
void ExchangeOrderEntry::Impl::PostListing() {
  listing_seen_.store(core_->ListingVersion(), std::memory_order_release);
  std::vector<ListedContract> contracts;
  for (const security_master::Contract& c : core_->Contracts()) {
    if (!c.listed()) continue;
    ListedContract l;
    l.symbol = c.sym;
    if (c.contract)
      l.maturity_month = absl::StrFormat("%04d%02d", c.contract->year, c.contract->month);
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

void ExchangeOrderEntry::Impl::PublishRecoveredMarket() {
  if (listener_ == nullptr) return;
  for (const security_master::Contract& c : core_->Contracts()) {
    if (!c.listed()) continue;
    std::optional<exchange::BookView> view =
        core_->BookSnapshot(c.sym, exchange::kMaxPublishedDepth);
    if (!view) continue;
    listener_->OnBookUpdate(BookUpdateOf(c.sym, *view));
    if (view->has_last_trade) {
      const int64_t ts =
          view->last_ts == en::kNoTime || view->last_ts <= 0 ? 0 : view->last_ts / 1000;
      listener_->OnPublicTrade(
          PublicTrade{c.sym, view->last_px.value(), view->last_qty.value(), 0, ts});
    }
  }
}

void ExchangeOrderEntry::Impl::OnAck(uint64_t seq, uint64_t tag, int64_t time_us) {
  // A month listed or expired while running: market data and security lists follow.
  if (core_->ListingVersion() != listing_seen_.load(std::memory_order_acquire)) PostListing();
  if (poss_resend_) {  // sent again: the books went out as they stood
    touched_.clear();
    touched_waits_.clear();
  }
  // The matcher applies a run of waiting inputs, publishing each book it changes, before it
  // delivers their outcomes: a book that already shows a later input waits for that input's
  // ack (it touched the book too), so that no subscriber sees a level change before the
  // reports and trades of the input that made it. Until 2026-12-07 it went out at once (a
  // review).
  // A book that changes at every input while delivery runs far behind the matcher (the
  // publisher thread of `cfx bench fix --publisher-thread`) would wait for good: past
  // kMaxBookWaits acks it goes out as it stands.
  constexpr uint32_t kMaxBookWaits = 64;
  size_t kept = 0;
  for (size_t i = 0; i < touched_.size(); ++i) {
    std::optional<exchange::BookView> view =
        core_->BookSnapshot(touched_[i], exchange::kMaxPublishedDepth);
    if (!view) continue;
    if (view->seq > seq && touched_waits_[i] < kMaxBookWaits) {
      if (kept != i) touched_[kept] = std::move(touched_[i]);
      touched_waits_[kept] = touched_waits_[i] + 1;
      ++kept;
      continue;
    }
    listener_->OnBookUpdate(BookUpdateOf(touched_[i], *view));
  }
  touched_.resize(kept);
  touched_waits_.resize(kept);
  if (tag == 0) return;
  Pending done;
  {
    std::lock_guard<std::mutex> lock(pending_mu_);
    auto it = pending_.find(tag);
    if (it == pending_.end()) return;
    done = std::move(it->second);
    pending_.erase(it);
  }
  if (done.kind == Pending::Kind::kAnswer) {  // the refused request is recorded now
    done.answer();
    return;
  }
  if (done.kind == Pending::Kind::kMass) {
    // The request's exchange stamp, which its cancels carry too; also when it canceled
    // nothing (SPEC §5). 0: no time yet (a manual clock before its first time input).
    if (time_us > 0) done.mass.transact_time_us = time_us;
    done.mass.poss_resend = poss_resend_;
    listener_->OnMassCancelResult(done.mass);
  }
}

// Nothing is delivered before Start (a standby's core publishes the primary's outcomes
// long before this node has a FIX gateway to send them to), and with a watermark file,
// nothing before StartReports: held back, those inputs are reported from the journal.
void ExchangeOrderEntry::OnOutcome(uint64_t seq, uint64_t tag, const exchange::Outcome& o) {
  if (o.kind != exchange::OutcomeKind::kEvent) return;
  if (!impl_->Delivers(seq)) return;
  impl_->NumberOutcome(seq);
  impl_->OnEvent(tag, o);
  impl_->delivered_since_mark_ = true;
}

void ExchangeOrderEntry::OnAck(uint64_t seq, uint64_t tag, int64_t time_us) {
  if (!impl_->Delivers(seq)) {
    // Held back: reported by StartReports from the journal, under a tag of its own; the
    // answer of a refusal's mark (which has no outcome to report again) waits for it.
    if (tag == 0) return;
    std::function<void()> answer;
    {
      std::lock_guard<std::mutex> lock(impl_->pending_mu_);
      auto it = impl_->pending_.find(tag);
      if (it == impl_->pending_.end()) return;
      if (it->second.kind == Impl::Pending::Kind::kAnswer) answer = std::move(it->second.answer);
      impl_->pending_.erase(it);
    }
    if (!answer) return;
    {
      std::lock_guard<std::mutex> lock(impl_->gate_mu_);
      if (!impl_->live_.load(std::memory_order_acquire)) {
        impl_->held_answers_.push_back(std::move(answer));
        return;
      }
    }
    answer();  // reported by StartReports already (seq <= live_after_): answered now
    return;
  }
  impl_->OnAck(seq, tag, time_us);
  impl_->acked_ = seq;
}

void ExchangeOrderEntry::OnIdle() {
  impl_->RetryDisconnectCancels();
  if (!impl_->live_.load(std::memory_order_acquire)) return;
  impl_->listener_->OnIdle();
  impl_->AfterIdle();
}

}  // namespace cfx::gateway
