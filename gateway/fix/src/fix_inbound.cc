// Incoming order messages (D F G H q) -> OrderEntry requests. The gateway answers by itself
// only what the exchange cannot see: malformed fields (invalid_field and friends), accounts
// of another firm, and the throttle. Its answers are built by the same code as the
// exchange's, so a client cannot tell another firm's order from an unknown one.
#include "fix_gateway_impl.h"
#include "fix_price.h"

namespace cfx {
namespace gateway {
namespace internal {

// Anything but printable ASCII (control bytes, invalid or any UTF-8) is refused, never stored.
bool ValidId(const std::string& id) {
  constexpr size_t kMaxIdLength = 64;
  if (id.empty() || id.size() > kMaxIdLength) return false;
  for (char c : id) {
    if (c < 0x21 || c > 0x7E) return false;
  }
  return true;
}

bool ValidText(const std::string& text) {
  if (text.size() > kMaxTextLength) return false;
  for (char c : text) {
    if (c < 0x20 || c > 0x7E) return false;
  }
  return true;
}

}  // namespace internal

namespace {

using internal::ValidId;

// An optional id: absent is fine, present must be valid.
bool ValidOptionalId(const std::string& id) { return id.empty() || ValidId(id); }

// FIX UTCTIMESTAMP "YYYYMMDD-HH:MM:SS[.sss]" -> "YYYY-MM-DDTHH:MM:SS[.sss]Z" (the fraction
// kept: an expiry at 16:00:00.500 is not one at 16:00:00); false if malformed (the digits
// are checked when the time is parsed).
bool FixTimeToIso(const std::string& t, std::string* out) {
  if (t.size() < 17 || t[8] != '-' || t[11] != ':' || t[14] != ':') return false;
  if (t.size() > 17 && (t[17] != '.' || t.size() == 18)) return false;
  *out = t.substr(0, 4) + "-" + t.substr(4, 2) + "-" + t.substr(6, 2) + "T" + t.substr(9) + "Z";
  return true;
}

// The request's MsgSeqNum (34), which QuickFIX has checked; 0 if unreadable.
// PossDupFlag(43)=Y: the client may have sent the message before (a resend).
bool PossDupOf(const FIX::Message& m) {
  std::string v;
  return internal::GetField(m.getHeader(), 43, &v) && v == "Y";
}

uint64_t MsgSeqOf(const FIX::Message& m) {
  std::string v;
  if (!internal::GetField(m.getHeader(), 34, &v) || v.empty() || v.size() > 18) return 0;
  uint64_t seq = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return 0;
    seq = seq * 10 + static_cast<uint64_t>(c - '0');
  }
  return seq;
}

// A request's identifier (ClOrdID, OrigClOrdID, Account, Symbol) as a reject may carry it
// back: as sent when it is one cfx could have taken (internal::ValidId: printable ASCII, at
// most 64 characters), else left out. A refused value is never echoed, and so never stored
// in the session's message store or copied to the firm's drop copies (SPEC §5: text from
// outside is refused, never stored raw). Until 2026-12-07 a 10 kB or non-ASCII ClOrdID came
// back in the reject that refused it, once for the session and once for each drop copy.
std::string Echoable(std::string v) { return internal::ValidId(v) ? v : std::string(); }

// Echo of a request's order fields, for a reject built by the gateway.
OrderState Echo(const std::string& session, const FIX::Message& m) {
  OrderState o;
  o.session = session;
  o.account = Echoable(internal::FieldOr(m, 1));
  o.cl_ord_id = Echoable(internal::FieldOr(m, 11));
  o.symbol = Echoable(internal::FieldOr(m, 55));
  o.side = internal::FieldOr(m, 54) == "2" ? Side::kSell : Side::kBuy;
  int64_t qty = 0;
  if (internal::ParseQty(internal::FieldOr(m, 38), &qty)) o.qty = qty;
  return o;
}

// FIX codes of Side (54), OrdType (40) and TimeInForce (59); false for any other value.
bool ParseSide(const std::string& v, Side* out) {
  if (v != "1" && v != "2") return false;
  *out = v == "2" ? Side::kSell : Side::kBuy;
  return true;
}
bool ParseOrdType(const std::string& v, OrdType* out) {
  if (v == "1")
    *out = OrdType::kMarket;
  else if (v == "2")
    *out = OrdType::kLimit;
  else if (v == "3")
    *out = OrdType::kStop;
  else if (v == "4")
    *out = OrdType::kStopLimit;
  else
    return false;
  return true;
}
bool ParseTif(const std::string& v, TimeInForce* out) {
  if (v == "0")
    *out = TimeInForce::kDay;
  else if (v == "1")
    *out = TimeInForce::kGtc;
  else if (v == "3")
    *out = TimeInForce::kIoc;
  else if (v == "4")
    *out = TimeInForce::kFok;
  else if (v == "6")
    *out = TimeInForce::kGtd;
  else
    return false;
  return true;
}

// Fills `order` from a NewOrderSingle. Returns "" or the reject reason.
std::string ParseNewOrder(const FIX::Message& m, NewOrder* order) {
  using internal::FieldOr;
  using internal::GetField;
  std::string v;
  order->cl_ord_id = FieldOr(m, 11);
  order->account = FieldOr(m, 1);
  order->symbol = FieldOr(m, 55);
  if (!ValidId(order->cl_ord_id) || !ValidId(order->account) || !ValidId(order->symbol)) {
    return "invalid_field";
  }
  order->side = FieldOr(m, 54) == "2" ? Side::kSell : Side::kBuy;
  if (!ParseOrdType(FieldOr(m, 40), &order->ord_type)) return "invalid_field";
  if (!GetField(m, 38, &v)) return "invalid_field";
  // A zero, negative or off-tick value goes to the engine, which refuses it at its place in
  // SPEC §4.2's precedence (after unknown_symbol, halted, duplicate_client_id ...); only
  // what is no number at all is refused here.
  if (!internal::ParseWholeQty(v, &order->qty)) return "invalid_field";

  const bool needs_price =
      order->ord_type == OrdType::kLimit || order->ord_type == OrdType::kStopLimit;
  const bool needs_stop =
      order->ord_type == OrdType::kStop || order->ord_type == OrdType::kStopLimit;
  if (GetField(m, 44, &v) != needs_price) return "invalid_field";
  if (needs_price) {
    internal::PriceParse p = internal::ParsePriceTicks(v, &order->price_ticks);
    if (p != internal::PriceParse::kOk && p != internal::PriceParse::kOffTick) {
      return "invalid_field";
    }
    order->has_price = true;
    order->price_on_tick = p == internal::PriceParse::kOk;
  }
  if (GetField(m, 99, &v) != needs_stop) return "invalid_field";
  if (needs_stop) {
    internal::PriceParse p = internal::ParsePriceTicks(v, &order->stop_ticks);
    if (p != internal::PriceParse::kOk && p != internal::PriceParse::kOffTick) {
      return "invalid_field";
    }
    order->has_stop = true;
    order->stop_on_tick = p == internal::PriceParse::kOk;
  }
  if (!ParseTif(FieldOr(m, 59, "0"), &order->tif)) return "invalid_field";
  const bool has_expire = GetField(m, 126, &v);
  if (has_expire != (order->tif == TimeInForce::kGtd)) return "invalid_field";
  if (has_expire && !FixTimeToIso(v, &order->expire_time)) return "invalid_field";
  if (GetField(m, 18, &v)) {
    if (v != "6") return "invalid_field";  // the only ExecInst cfx knows: post-only
    order->post_only = true;
  }
  if (GetField(m, 111, &v)) {  // judged by the engine in its place, as 38
    if (!internal::ParseWholeQty(v, &order->display_qty)) return "invalid_field";
    order->has_display = true;
  }
  if (GetField(m, 7928, &v)) {
    if (!ValidId(v)) return "invalid_field";
    order->stp_id = v;
  }
  if (GetField(m, 8000, &v)) {
    if (v == "O") order->stp_action = StpAction::kCancelResting;
    else if (v == "N") order->stp_action = StpAction::kCancelAggressor;
    else if (v == "B") order->stp_action = StpAction::kCancelBoth;
    else return "invalid_field";
  }
  return "";
}

}  // namespace

void FixGateway::Impl::OnNewOrder(const FixSessionSpec& spec, const FIX::Message& m) {
  NewOrder order;
  order.session = spec.sender_comp_id;
  order.msg_seq = MsgSeqOf(m);
  order.poss_dup = PossDupOf(m);
  order.firm = spec.firm;
  std::string reason = ParseNewOrder(m, &order);
  if (reason.empty() && !entitlements_.AccountAllowed(spec.firm, order.account)) {
    reason = "account_not_permitted";
  }
  if (!reason.empty()) {
    const OrderState echo = Echo(spec.sender_comp_id, m);
    Refuse(spec.sender_comp_id, m, [this, echo, reason] { RejectedAtGateway(echo, reason); });
    return;
  }
  exchange_->Submit(order);
}

void FixGateway::Impl::Refuse(const std::string& session, const FIX::Message& m,
                              const std::function<void()>& answer) {
  if (!exchange_->AnswerWhenRecorded(session, MsgSeqOf(m), answer)) answer();
}

void FixGateway::Impl::RejectCancelOrReplace(const FixSessionSpec& spec, const FIX::Message& m,
                                             bool replace, const std::string& reason) {
  CancelRejected r;
  r.session = spec.sender_comp_id;
  r.account = Echoable(internal::FieldOr(m, 1));
  r.cl_ord_id = Echoable(internal::FieldOr(m, 11));
  r.orig_cl_ord_id = Echoable(internal::FieldOr(m, 41));
  r.response_to_replace = replace;
  r.reason = reason;
  r.msg_seq = MsgSeqOf(m);
  // An order of the firm's own that the request names well enough to find: the exchange
  // answers, with the order's id and status when it still works (a client reading 39=8
  // would take a working order for a dead one). Another firm's account or an unknown order
  // gets 37=NONE 39=8 from here, the same answer either way (SPEC §6).
  if (reason != "unknown_order" && ValidId(r.account) && ValidId(r.orig_cl_ord_id) &&
      entitlements_.AccountAllowed(spec.firm, r.account)) {
    exchange_->RefuseAmend(r);  // recorded there, as Refuse does
    return;
  }
  Refuse(spec.sender_comp_id, m, [this, r] { CancelRejectedOut(r); });
}

std::string FixGateway::Impl::CheckAmend(const FixSessionSpec& spec, const FIX::Message& m,
                                         AmendIds* ids) const {
  ids->account = internal::FieldOr(m, 1);
  ids->cl_ord_id = internal::FieldOr(m, 11);
  ids->orig_cl_ord_id = internal::FieldOr(m, 41);
  ids->symbol = internal::FieldOr(m, 55);
  if (!ValidId(ids->cl_ord_id) || !ValidId(ids->orig_cl_ord_id) || !ValidId(ids->account) ||
      !ValidOptionalId(ids->symbol)) {
    return "invalid_field";
  }
  // Another firm's account: exactly what an unknown order gets.
  if (!entitlements_.AccountAllowed(spec.firm, ids->account)) return "unknown_order";
  return "";
}

void FixGateway::Impl::OnCancel(const FixSessionSpec& spec, const FIX::Message& m) {
  CancelOrder req;
  req.session = spec.sender_comp_id;
  req.msg_seq = MsgSeqOf(m);
  AmendIds ids;
  const std::string reason = CheckAmend(spec, m, &ids);
  if (!reason.empty()) {
    RejectCancelOrReplace(spec, m, /*replace=*/false, reason);
    return;
  }
  req.account = ids.account;
  req.cl_ord_id = ids.cl_ord_id;
  req.orig_cl_ord_id = ids.orig_cl_ord_id;
  req.symbol = ids.symbol;
  exchange_->Cancel(req);
}

void FixGateway::Impl::OnReplace(const FixSessionSpec& spec, const FIX::Message& m) {
  ReplaceOrder req;
  req.poss_dup = PossDupOf(m);
  req.session = spec.sender_comp_id;
  req.msg_seq = MsgSeqOf(m);
  AmendIds ids;
  std::string reason = CheckAmend(spec, m, &ids), v;
  req.account = ids.account;
  req.cl_ord_id = ids.cl_ord_id;
  req.orig_cl_ord_id = ids.orig_cl_ord_id;
  req.symbol = ids.symbol;
  if (reason.empty()) {
    // Off-tick prices and totals of 0 or less go to the engine, as on a new order.
    if (internal::GetField(m, 44, &v)) {
      internal::PriceParse p = internal::ParsePriceTicks(v, &req.price_ticks);
      if (p != internal::PriceParse::kOk && p != internal::PriceParse::kOffTick) {
        reason = "invalid_field";
      }
      req.has_price = true;
      req.price_on_tick = p == internal::PriceParse::kOk;
    }
    if (reason.empty() && internal::GetField(m, 38, &v)) {
      if (!internal::ParseWholeQty(v, &req.qty)) reason = "invalid_field";
      req.has_qty = true;
    }
    // What cannot change: passed on to be compared with the order's own terms.
    if (reason.empty() && internal::GetField(m, 54, &v)) {
      req.has_side = true;
      if (!ParseSide(v, &req.side)) reason = "invalid_field";
    }
    if (reason.empty() && internal::GetField(m, 40, &v)) {
      req.has_ord_type = true;
      if (!ParseOrdType(v, &req.ord_type)) reason = "invalid_field";
    }
    if (reason.empty() && internal::GetField(m, 59, &v)) {
      req.has_tif = true;
      if (!ParseTif(v, &req.tif)) reason = "invalid_field";
    }
    if (reason.empty() && internal::GetField(m, 99, &v)) {
      req.has_stop = true;
      if (internal::ParsePriceTicks(v, &req.stop_ticks) != internal::PriceParse::kOk) {
        reason = "invalid_field";
      }
    }
    if (reason.empty() && internal::GetField(m, 18, &v)) {
      req.has_post_only = true;
      req.post_only = true;
      if (v != "6") reason = "invalid_field";  // as on a new order: the one ExecInst cfx knows
    }
    if (reason.empty() && internal::GetField(m, 111, &v)) {
      req.has_display = true;
      if (!internal::ParseWholeQty(v, &req.display_qty)) reason = "invalid_field";
    }
    if (reason.empty() && internal::GetField(m, 126, &v)) {
      if (!FixTimeToIso(v, &req.expire_time) || req.expire_time.empty()) reason = "invalid_field";
    }
  }
  if (!reason.empty()) {
    RejectCancelOrReplace(spec, m, /*replace=*/true, reason);
    return;
  }
  exchange_->Replace(req);
}

void FixGateway::Impl::OnStatusRequest(const FixSessionSpec& spec, const FIX::Message& m) {
  OrderStatus req;
  req.session = spec.sender_comp_id;
  req.account = internal::FieldOr(m, 1);
  req.cl_ord_id = internal::FieldOr(m, 11);
  req.symbol = internal::FieldOr(m, 55);
  req.side = internal::FieldOr(m, 54) == "2" ? Side::kSell : Side::kBuy;
  req.status_req_id = internal::FieldOr(m, 790);
  // What a refusal may echo of the request.
  auto echoable = [&req] {
    OrderStatus e = req;
    e.account = Echoable(e.account);
    e.cl_ord_id = Echoable(e.cl_ord_id);
    e.symbol = Echoable(e.symbol);
    return e;
  };
  if (req.account.empty()) {
    // Client ids are per account (SPEC §4.2): without one no order is named. Refused as F
    // and G refuse it (invalid_field), not answered "unknown" for a live order (an audit).
    StatusAnswer refused = UnknownOrderAnswer(echoable());
    refused.reason = "invalid_field";
    StatusOut(refused);
    return;
  }
  if (!entitlements_.AccountAllowed(spec.firm, req.account) || !ValidId(req.cl_ord_id)) {
    StatusOut(UnknownOrderAnswer(echoable()));  // another firm's account: as an unknown order
    return;
  }
  // The Symbol is only echoed (the order is found by account and ClOrdID): an id from
  // outside like the others (SPEC §5), never echoed unless valid (until 2026-12-07 an
  // unknown order's answer carried it as sent).
  req.symbol = Echoable(req.symbol);
  exchange_->Status(req);
}

void FixGateway::Impl::OnMassCancel(const FixSessionSpec& spec, const FIX::Message& m) {
  MassCancel req;
  req.session = spec.sender_comp_id;
  req.firm = spec.firm;
  req.msg_seq = MsgSeqOf(m);
  req.cl_ord_id = internal::FieldOr(m, 11);
  req.account = internal::FieldOr(m, 1);
  const std::string type = internal::FieldOr(m, 530);
  if (type == "1") req.symbol = internal::FieldOr(m, 55);
  MassCancelResult reject;
  reject.session = req.session;
  reject.cl_ord_id = Echoable(req.cl_ord_id);
  reject.account = Echoable(req.account);
  reject.symbol = Echoable(req.symbol);
  reject.rejected = true;
  reject.request_type = Echoable(type);  // as sent (530=1 without 55 is not 530=7)
  if ((type == "1" && !ValidId(req.symbol)) || !ValidId(req.cl_ord_id) ||
      !ValidOptionalId(req.account)) {
    reject.reason = "invalid_field";
  } else if (!req.account.empty() && !entitlements_.AccountAllowed(spec.firm, req.account)) {
    reject.reason = "account_not_permitted";
  } else {
    exchange_->MassCancelOrders(req);
    return;
  }
  Refuse(spec.sender_comp_id, m, [this, reject] { MassCancelOut(reject); });
}

void FixGateway::Impl::Throttled(const FixSessionSpec& spec, const std::string& type,
                                 const FIX::Message& m) {
  const std::string reason = "throttled";
  if (type == "D") {
    const OrderState echo = Echo(spec.sender_comp_id, m);
    Refuse(spec.sender_comp_id, m, [this, echo, reason] { RejectedAtGateway(echo, reason); });
  } else if (type == "F" || type == "G") {
    RejectCancelOrReplace(spec, m, type == "G", reason);
  } else if (type == "q") {  // a mass cancel: one the next primary must not run either
    const FIX::Message ref = m;
    const std::string session = spec.sender_comp_id;
    Refuse(session, m, [this, session, ref, reason] { BusinessReject(session, ref, 0, reason); });
  } else {  // a status or market data request: a resend asks again, nothing more
    BusinessReject(spec.sender_comp_id, m, 0, reason);
  }
}

}  // namespace gateway
}  // namespace cfx
