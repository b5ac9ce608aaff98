// ExchangeOrderEntry (exchange_order_entry.h), requests in: each OrderEntry call checked,
// turned into an engine command and offered to the core; refusals answered by the worker.
// Outcomes out: exchange_order_entry_outcomes.cc.
#include "cfx/gateway/exchange_order_entry.h"

#include <chrono>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cfx/common/date.h"
#include "cfx/concurrency/thread_name.h"
#include "exchange_order_entry_impl.h"
#include "order_type_mapping.h"

namespace cfx::gateway {

using internal::Pending;
using internal::ToEngine;

engine::SessionId SessionIdOf(std::string_view name) {
  uint32_t h = 2166136261u;
  for (char c : name) {
    h ^= static_cast<uint8_t>(c);
    h *= 16777619u;
  }
  return h == 0 ? 1 : h;
}

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
  // Without a watermark file, outcomes are delivered from now on; with one, once
  // StartReports has reported what the last run may not have.
  if (impl_->reported_path_.empty() && !impl_->reports_from_stream_) {
    impl_->live_.store(true, std::memory_order_release);
  }
  impl_->PostListing();
  impl_->PublishRecoveredMarket();
  return absl::OkStatus();
}

size_t ExchangeOrderEntry::FlushDisconnectCancels(std::chrono::milliseconds budget) {
  const auto give_up = std::chrono::steady_clock::now() + budget;
  for (;;) {
    impl_->RetryDisconnectCancels();
    const int left = impl_->disconnect_pending_n_.load(std::memory_order_acquire);
    if (left == 0) return 0;
    if (std::chrono::steady_clock::now() >= give_up) {
      std::cerr << "cfx serve: " << left
                << " cancel-on-disconnect(s) found no room in the core's ring before the stop: "
                   "their sessions' orders stay\n";
      return static_cast<size_t>(left);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the matcher frees room
  }
}

void ExchangeOrderEntry::Stop() {
  StopReports();
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

// A cancel or replace whose terms contradict the live order `v`: refused invalid_field, the
// report carrying the order as it is (docs/fix.md, "Cancel, replace, status").
void RefuseAgainst(const exchange::OrderStateView& v, CancelRejected* r) {
  r->reason = "invalid_field";
  r->order_live = true;
  r->order_id = v.oid;
  r->cum_qty = v.cum.value();
}

// A GTD order's ExpireTime (NewOrder::expire_time) in the engine's ns; nullopt if it does
// not parse. Past 2262 (126=99991231-23:59:59, "never") held at the end of the engine's
// range as its own parser does (the product overflowed: a date before 1970, refused).
std::optional<en::Timestamp> ExpireOf(const std::string& iso) {
  absl::StatusOr<common::TimestampUs> ts = common::ParseTimestamp(iso);
  if (!ts.ok()) return std::nullopt;
  constexpr int64_t kMaxUs = INT64_MAX / 1000, kMinUs = INT64_MIN / 1000 + 1;
  return *ts > kMaxUs   ? en::Timestamp{INT64_MAX}
         : *ts < kMinUs ? en::Timestamp{INT64_MIN + 1}
                        : static_cast<en::Timestamp>(*ts) * 1000;
}

}  // namespace

// A resend (43=Y) of a request the exchange already has: its order's reports went out, or
// are sent again at a start after a crash (a kill -9 can leave the gateway's inbound
// sequence number behind, so the client resends what was processed).
bool ExchangeOrderEntry::Impl::AlreadyHas(const NewOrder& r, bool* named) const {
  *named = false;
  if (!r.poss_dup) return false;
  std::optional<exchange::OrderStateView> v = core_->FindOrder(r.account, r.cl_ord_id);
  *named = v.has_value();
  return v && v->sym == r.symbol && v->side == ToEngine(r.side) &&
         v->detail.session == SessionIdOf(r.session) && v->detail.qty.value() == r.qty &&
         (!r.has_price || v->detail.px.value() == r.price_ticks);
}

// 55 is optional on a G: a resend without it is matched on the rest.
bool ExchangeOrderEntry::Impl::AlreadyHas(const ReplaceOrder& r) const {
  if (!r.poss_dup) return false;
  std::optional<exchange::OrderStateView> v = core_->FindOrder(r.account, r.cl_ord_id);
  return v && (r.symbol.empty() || v->sym == r.symbol) &&
         (!r.has_qty || v->detail.qty.value() == r.qty) &&
         (!r.has_price || v->detail.px.value() == r.price_ticks);
}

void ExchangeOrderEntry::Submit(const NewOrder& r) {
  bool named = false;  // the ClOrdID names an order the exchange can still find
  if (impl_->AlreadyHas(r, &named)) return;
  Pending p;
  p.asked = AskedState(r);
  // A resend the lookup cannot place: its duplicate_client_id reject is not sent (below).
  // One whose ClOrdID names another order (other terms) is answered: it is not a resend.
  p.poss_dup_unplaced = r.poss_dup && !named;
  OrderState& s = p.asked;
  en::NewOrderCmd c;
  if (!c.cl.Assign(r.cl_ord_id) || !Assign(&c.acct, r.account) || !Assign(&c.firm, r.firm) ||
      !Assign(&c.stp, r.stp_id)) {
    impl_->RejectNew(s, "invalid_field", r.msg_seq);
    return;
  }
  if (!Assign(&c.sym, r.symbol)) {
    impl_->RejectNew(s, "unknown_symbol", r.msg_seq);
    return;
  }
  c.side = ToEngine(r.side);
  c.type = ToEngine(r.ord_type);
  c.tif = ToEngine(r.tif);
  if (r.has_price) c.px = en::PriceField{true, r.price_on_tick, en::PriceTicks(r.price_ticks)};
  if (r.has_stop) c.stop = en::PriceField{true, r.stop_on_tick, en::PriceTicks(r.stop_ticks)};
  c.qty = en::Qty(r.qty);
  c.has_display = r.has_display || r.display_qty != 0;
  c.display = en::Qty(r.display_qty);
  c.post_only = r.post_only;
  c.stp_action = ToEngine(r.stp_action);
  c.session = SessionIdOf(r.session);
  if (r.tif == TimeInForce::kGtd) {
    std::optional<en::Timestamp> expire = ExpireOf(r.expire_time);
    if (!expire) {
      impl_->RejectNew(s, "invalid_field", r.msg_seq);
      return;
    }
    c.expire = *expire;
  }
  c.origin = impl_->OriginOf(r.session, r.msg_seq);
  OrderState asked = s;
  if (impl_->DisconnectCancelPending(c.session)) {  // its last connection's cancel comes first
    impl_->RejectNew(asked, "throttled", r.msg_seq);
    return;
  }
  if (impl_->Offer(c, std::move(p)) != exchange::OfferResult::kAccepted)
    impl_->RejectNew(asked, "throttled", r.msg_seq, /*tries=*/1);
}

void ExchangeOrderEntry::Cancel(const CancelOrder& r) {
  CancelRejected refusal{r.session, r.account, r.cl_ord_id, r.orig_cl_ord_id, false, "", false,
                         0,         0};
  refusal.msg_seq = r.msg_seq;
  en::CancelCmd c;
  if (!c.orig.Assign(r.orig_cl_ord_id) || !Assign(&c.acct, r.account)) {
    refusal.reason = "unknown_order";  // no such id can exist in the engine
    impl_->RejectCancel(refusal);
    return;
  }
  if (!r.symbol.empty()) {
    // A cancel naming another contract than the order's is the client's mistake, not a
    // cancel: refused like a replace naming another side (docs/fix.md).
    std::optional<exchange::OrderStateView> v =
        impl_->core_->FindOrder(r.account, r.orig_cl_ord_id);
    if (v && !en::Ended(v->status) && v->sym != r.symbol) {
      RefuseAgainst(*v, &refusal);
      impl_->RejectCancel(refusal);
      return;
    }
  }
  c.origin = impl_->OriginOf(r.session, r.msg_seq);
  // Journaled for a report made again after a restart, so held to the engine's ids' length.
  if (!c.req.Assign(r.cl_ord_id)) {
    refusal.reason = "invalid_field";
    impl_->RejectCancel(refusal);
    return;
  }
  c.answer_to = SessionIdOf(r.session);
  impl_->OfferAmend(c, Pending::Kind::kCancel, refusal);
}

void ExchangeOrderEntry::Replace(const ReplaceOrder& r) {
  if (impl_->AlreadyHas(r)) return;
  CancelRejected refusal{r.session, r.account, r.cl_ord_id, r.orig_cl_ord_id, true, "", false,
                         0,         0};
  refusal.msg_seq = r.msg_seq;
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
  if (r.has_side || r.has_ord_type || r.has_tif || r.has_stop || !r.symbol.empty() ||
      r.has_post_only || r.has_display || !r.expire_time.empty()) {
    // Contract, side, type, time in force and stop price never change over an order's life
    // (a triggered stop's type becomes market, a stop-limit's limit: the client's code still
    // names it), so the live view can be compared before the replace is sequenced.
    std::optional<exchange::OrderStateView> v =
        impl_->core_->FindOrder(r.account, r.orig_cl_ord_id);
    if (v && !en::Ended(v->status)) {
      const en::OrderType type = ToEngine(r.ord_type);
      // A triggered stop (its stop price kept) is a market or limit order in the engine.
      const bool triggered = v->detail.stop_px > en::PriceTicks(0);
      const bool type_ok =
          type == v->detail.type ||
          (triggered && type == en::OrderType::kStop && v->detail.type == en::OrderType::kMarket) ||
          (triggered && type == en::OrderType::kStopLimit &&
           v->detail.type == en::OrderType::kLimit);
      const bool differs = (!r.symbol.empty() && r.symbol != v->sym) ||
                           (r.has_side && ToEngine(r.side) != v->side) ||
                           (r.has_ord_type && !type_ok) ||
                           (r.has_tif && ToEngine(r.tif) != v->detail.tif &&
                            v->detail.type != en::OrderType::kMarket) ||
                           (r.has_stop && en::PriceTicks(r.stop_ticks) != v->detail.stop_px);
      // Post-only, the display quantity and the expiry: an order without them has false, 0
      // and no expiry, so a replace that adds one is refused too.
      std::optional<en::Timestamp> expire;
      if (!r.expire_time.empty()) expire = ExpireOf(r.expire_time);
      const bool terms_differ =
          v->detail.has_amend_terms &&
          ((r.has_post_only && r.post_only != v->detail.post_only) ||
           (r.has_display && en::Qty(r.display_qty) != v->detail.display) ||
           (!r.expire_time.empty() && (!expire || *expire != v->detail.expire)));
      if (differs || terms_differ) {
        RefuseAgainst(*v, &refusal);
        impl_->RejectCancel(refusal);
        return;
      }
    }
  }
  if (r.has_price) c.px = en::PriceField{true, r.price_on_tick, en::PriceTicks(r.price_ticks)};
  c.has_qty = r.has_qty;
  c.qty = en::Qty(r.qty);
  c.origin = impl_->OriginOf(r.session, r.msg_seq);
  c.answer_to = SessionIdOf(r.session);
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

void ExchangeOrderEntry::RefuseAmend(const CancelRejected& refusal) {
  impl_->RejectCancel(refusal);
}

void ExchangeOrderEntry::MassCancelOrders(const MassCancel& r) {
  MassCancelResult result{r.session, r.cl_ord_id, r.account, r.symbol, false, "", 0};
  en::MassCancelCmd c;
  if (!Assign(&c.acct, r.account) || !Assign(&c.sym, r.symbol)) {
    result.rejected = true;
    result.reason = "unknown_symbol";
    impl_->AnswerRefused(r.session, r.msg_seq,
                         [this, result] { impl_->listener_->OnMassCancelResult(result); });
    return;
  }
  if (!c.req.Assign(r.cl_ord_id)) {  // journaled: held to the engine's ids' length
    result.rejected = true;
    result.reason = "invalid_field";
    impl_->AnswerRefused(r.session, r.msg_seq,
                         [this, result] { impl_->listener_->OnMassCancelResult(result); });
    return;
  }
  if (r.account.empty()) {
    c.session = SessionIdOf(r.session);
    if (!Assign(&c.firm, r.firm)) c.firm = en::Name::From("?");  // too long: no firm matches
  }
  c.origin = impl_->OriginOf(r.session, r.msg_seq);
  c.answer_to = SessionIdOf(r.session);
  Pending p;
  p.kind = Pending::Kind::kMass;
  p.asked.session = r.session;
  p.mass = result;
  if (impl_->Offer(c, std::move(p)) != exchange::OfferResult::kAccepted) {
    result.rejected = true;
    result.reason = "throttled";
    impl_->AnswerRefused(
        r.session, r.msg_seq, [this, result] { impl_->listener_->OnMassCancelResult(result); },
        /*tries=*/1);
  }
}

void ExchangeOrderEntry::Disconnected(const SessionDisconnected& r) {
  en::MassCancelCmd c;
  c.session = SessionIdOf(r.session);
  c.disconnect = true;
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

bool ExchangeOrderEntry::AnswerWhenRecorded(const std::string& session, uint64_t msg_seq,
                                            const std::function<void()>& answer) {
  return impl_->AnswerWhenRecorded(session, msg_seq, answer);
}

absl::Status ExchangeOrderEntry::ReserveSenderSequences(
    const std::vector<SessionSequences>& resume) {
  // Until 2026-12-07 the reserve came with the first Logon's RecordAtLogon, one try on the
  // ring: a node that died before it was sequenced left the next one resuming at the same
  // limit, and the client saw MsgSeqNums again (a review).
  for (const SessionSequences& r : resume) {
    if (r.sender_limit == 0) continue;  // no limit recorded: the session resumes as it is
    const en::FixSessionCmd reserve{SessionIdOf(r.session), 0, r.sender_limit + kSenderReserve};
    if (impl_->SubmitRetrying(reserve, 0) != exchange::OfferResult::kAccepted) {
      return absl::UnavailableError(
          absl::StrCat("the order path did not take the sequence reserve of session ", r.session));
    }
  }
  return impl_->core_->Flush();
}

std::vector<SessionSequences> ExchangeOrderEntry::ResumeSequences() const {
  std::vector<SessionSequences> out;
  for (const exchange::FixSessionSeqs& s : impl_->core_->FixSessions()) {
    auto it = impl_->session_names_.find(s.session);  // absent: removed from the config
    if (it != impl_->session_names_.end())
      out.push_back({it->second, s.next_target, s.sender_limit});
  }
  return out;
}

}  // namespace cfx::gateway
