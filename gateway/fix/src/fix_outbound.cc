// Exchange outcomes -> ExecutionReport `8`, OrderCancelReject `9` and OrderMassCancelReport
// `r`. Every ExecutionReport goes to the session that must be answered and, marked
// CopyMsgIndicator(797)=Y, to each drop-copy session of that session's firm.
#include "fix_gateway_impl.h"
#include "fix_price.h"

namespace cfx {
namespace gateway {
namespace {

// OrdStatus(39) of a working order, from its quantities.
char WorkingStatus(const OrderState& o) {
  if (o.cum_qty > 0 && o.leaves_qty == 0) return '2';
  return o.cum_qty > 0 ? '1' : '0';
}

// OrdRejReason(103) for a cfx reject code; 58 carries the code itself.
int OrdRejReason(const std::string& r) {
  if (r == "unknown_symbol") return 1;
  if (r == "market_closed" || r == "halted") return 2;
  if (r == "qty_above_max" || r == "insufficient_margin") return 3;
  if (r == "unknown_order") return 5;
  if (r == "duplicate_client_id") return 6;
  if (r == "invalid_qty") return 13;
  if (r == "account_not_permitted") return 15;
  return 99;
}

std::string Str(char c) { return std::string(1, c); }

}  // namespace

FIX::Message FixGateway::Impl::ExecReport(const OrderState& o, char exec_type, char ord_status) {
  FIX::Message m = internal::NewMessage("8");
  m.setField(37, o.order_id ? std::to_string(o.order_id) : "NONE");
  if (!o.cl_ord_id.empty()) m.setField(11, o.cl_ord_id);
  if (!o.orig_cl_ord_id.empty()) m.setField(41, o.orig_cl_ord_id);
  m.setField(17, o.exec_id.empty() ? NextExecId() : o.exec_id);
  if (o.poss_resend) m.getHeader().setField(97, "Y");
  m.setField(150, Str(exec_type));
  m.setField(39, Str(ord_status));
  if (!o.account.empty()) m.setField(1, o.account);
  m.setField(55, o.symbol.empty() ? "NONE" : o.symbol);
  m.setField(54, internal::SideCode(o.side));
  if (o.qty > 0) m.setField(38, std::to_string(o.qty));
  if (o.order_id) {
    m.setField(40, internal::OrdTypeCode(o.ord_type));
    m.setField(59, internal::TifCode(o.tif));
  }
  if (o.has_price) m.setField(44, internal::FormatTicks(o.price_ticks));
  if (o.has_stop) m.setField(99, internal::FormatTicks(o.stop_ticks));
  m.setField(151, std::to_string(o.leaves_qty));
  m.setField(14, std::to_string(o.cum_qty));
  m.setField(6, internal::FormatAvgPx(o.cum_notional_ticks, o.cum_qty));
  m.setField(60, internal::TransactTimeFix(o.transact_time_us));
  return m;
}

void FixGateway::Impl::RouteExecReport(const OrderState& order, FIX::Message& report) {
  const FixSessionSpec* spec = entitlements_.Session(order.session);
  std::string firm = entitlements_.FirmOfAccount(order.account);
  if (firm.empty()) {
    if (!spec) return;  // neither account nor session configured: nobody may see it
    firm = spec->firm;
  }
  SendWithCopies(spec != nullptr && spec->firm == firm ? order.session : std::string(), firm,
                 report);
}

void FixGateway::Impl::SendWithCopies(const std::string& session, const std::string& firm,
                                      FIX::Message& report) {
  if (!session.empty()) Send(session, report);
  for (const std::string& copy_to : entitlements_.DropCopies(firm)) {
    FIX::Message copy = report;
    copy.setField(797, "Y");
    Send(copy_to, copy);
  }
}

void FixGateway::Impl::Accepted(const OrderState& order) {
  FIX::Message m = ExecReport(order, '0', WorkingStatus(order));
  RouteExecReport(order, m);
}

FIX::Message FixGateway::Impl::RejectReport(const OrderState& order, const std::string& reason) {
  OrderState o = order;
  o.leaves_qty = 0;
  o.cum_qty = 0;
  o.cum_notional_ticks = 0;
  FIX::Message m = ExecReport(o, '8', '8');
  m.setField(103, std::to_string(OrdRejReason(reason)));
  m.setField(58, reason);
  return m;
}

void FixGateway::Impl::Rejected(const OrderState& order, const std::string& reason) {
  FIX::Message m = RejectReport(order, reason);
  RouteExecReport(order, m);
}

void FixGateway::Impl::RejectedAtGateway(const OrderState& order, const std::string& reason) {
  const FixSessionSpec* spec = entitlements_.Session(order.session);
  if (!spec) return;
  FIX::Message m = RejectReport(order, reason);
  SendWithCopies(order.session, spec->firm, m);
}

void FixGateway::Impl::Filled(const OrderState& order, const Fill& fill) {
  FIX::Message m = ExecReport(order, 'F', WorkingStatus(order));
  m.setField(31, internal::FormatTicks(fill.last_px_ticks));
  m.setField(32, std::to_string(fill.last_qty));
  if (fill.trade_id) m.setField(1003, std::to_string(fill.trade_id));
  RouteExecReport(order, m);
}

void FixGateway::Impl::Canceled(const OrderState& order, const std::string& reason) {
  OrderState o = order;
  o.leaves_qty = 0;
  const char status = reason == "expired" ? 'C' : '4';
  FIX::Message m = ExecReport(o, status, status);
  m.setField(58, reason);
  RouteExecReport(order, m);
}

void FixGateway::Impl::Replaced(const OrderState& order) {
  FIX::Message m = ExecReport(order, '5', WorkingStatus(order));
  RouteExecReport(order, m);
}

void FixGateway::Impl::Triggered(const OrderState& order) {
  FIX::Message m = ExecReport(order, 'L', WorkingStatus(order));
  RouteExecReport(order, m);
}

void FixGateway::Impl::StatusOut(const StatusAnswer& a) {
  char status = '8';
  OrderState o = a.order;
  if (a.found && a.ended) {
    if (a.ended_reason == "filled") status = '2';
    else if (a.ended_reason == "expired") status = 'C';
    else if (a.ended_reason == "rejected") status = '8';
    else status = '4';
    o.leaves_qty = 0;
  } else if (a.found) {
    status = WorkingStatus(o);
  } else {
    o.order_id = 0;
    o.leaves_qty = o.cum_qty = o.cum_notional_ticks = 0;
    o.has_price = o.has_stop = false;
  }
  FIX::Message m = ExecReport(o, 'I', status);
  if (!a.status_req_id.empty()) m.setField(790, a.status_req_id);
  if (!a.found) m.setField(58, a.reason.empty() ? "unknown_order" : a.reason);
  // The answer to the session's own request (another firm's order is answered as unknown),
  // whatever account it names: to the session and its firm's drop copies.
  const FixSessionSpec* spec = entitlements_.Session(o.session);
  if (spec != nullptr) SendWithCopies(o.session, spec->firm, m);
}

void FixGateway::Impl::CancelRejectedOut(const CancelRejected& r) {
  FIX::Message m = internal::NewMessage("9");
  m.setField(37, r.order_live && r.order_id ? std::to_string(r.order_id) : "NONE");
  m.setField(11, r.cl_ord_id.empty() ? "NONE" : r.cl_ord_id);
  m.setField(41, r.orig_cl_ord_id.empty() ? "NONE" : r.orig_cl_ord_id);
  m.setField(39, r.order_live ? (r.cum_qty > 0 ? "1" : "0") : "8");
  if (!r.account.empty()) m.setField(1, r.account);
  m.setField(60, internal::TransactTimeFix(r.transact_time_us));
  m.setField(434, r.response_to_replace ? "2" : "1");
  m.setField(102, r.reason == "unknown_order" ? "1" : "99");
  m.setField(58, r.reason);
  if (r.poss_resend) m.getHeader().setField(97, "Y");
  Send(r.session, m);
}

void FixGateway::Impl::MassCancelOut(const MassCancelResult& r) {
  FIX::Message m = internal::NewMessage("r");
  const std::string type = !r.request_type.empty() ? r.request_type : r.symbol.empty() ? "7" : "1";
  if (!r.cl_ord_id.empty()) m.setField(11, r.cl_ord_id);
  m.setField(37, "MC-" + NextExecId());
  m.setField(530, type);
  m.setField(531, r.rejected ? "0" : type);
  if (r.rejected) {
    m.setField(532, r.reason == "unknown_symbol" ? "1" : "99");
    m.setField(58, r.reason);
  }
  m.setField(533, std::to_string(r.canceled_count));
  if (!r.account.empty()) m.setField(1, r.account);
  if (!r.symbol.empty()) m.setField(55, r.symbol);
  m.setField(60, internal::TransactTimeFix(r.transact_time_us));
  if (r.poss_resend) m.getHeader().setField(97, "Y");
  Send(r.session, m);
}

}  // namespace gateway
}  // namespace cfx
