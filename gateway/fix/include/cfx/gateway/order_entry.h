// The order-entry boundary between the FIX gateway and the exchange (engine + journal).
//
// The gateway turns FIX messages into the requests below and calls `OrderEntry`; the
// exchange answers through `ExecutionListener` once each outcome is durable. Neither side
// sees the other's types: this header is plain C++14 (it is included from the gateway's
// QuickFIX translation units, which must be compiled as C++14) and names no QuickFIX type.
//
// The exchange's implementation is ExchangeOrderEntry (gateway/server,
// cfx/gateway/exchange_order_entry.h); the FIX tests use testing::FakeExchange.
//
//   ExchangeOrderEntry entry(&core, sessions);       // : public cfx::gateway::OrderEntry
//   FixGateway gateway(config, &entry);
//   entry.SetListener(&gateway);                      // outcomes flow back to FIX sessions
//
// Prices are int64 ticks of 0.001 USD; quantities are contracts. Every request carries the
// FIX session (the client's SenderCompID) that sent it; every order outcome carries the
// session that must be answered, so the gateway can route it without an order table.
#ifndef CFX_GATEWAY_ORDER_ENTRY_H_
#define CFX_GATEWAY_ORDER_ENTRY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cfx {
namespace gateway {

enum class Side { kBuy, kSell };
enum class OrdType { kMarket, kLimit, kStop, kStopLimit };
enum class TimeInForce { kDay, kGtc, kIoc, kFok, kGtd };
enum class StpAction { kCancelResting, kCancelAggressor, kCancelBoth };

// --- Requests: gateway -> exchange -------------------------------------------------------

struct NewOrder {
  std::string session;  // FIX SenderCompID of the entering session
  uint64_t msg_seq = 0;  // the request's MsgSeqNum (FIX 34); 0 when not from FIX
  // PossDupFlag(43)=Y: a resend of a request the exchange may have had already. One whose
  // ClOrdID names an order of the account the exchange has, entered on this session with
  // these terms, is dropped: that order's reports went out, or go out again (docs/fix.md,
  // "Reports sent again after a crash").
  bool poss_dup = false;
  std::string account;  // already checked: belongs to the session's firm
  std::string firm;
  std::string cl_ord_id;
  std::string symbol;
  Side side = Side::kBuy;
  OrdType ord_type = OrdType::kLimit;
  bool has_price = false;  // limit, stop_limit
  int64_t price_ticks = 0;
  // false: the price sent is not a multiple of the tick. The engine refuses it
  // (invalid_price_tick) at that reason's place in SPEC §4.2's precedence, after
  // unknown_symbol, market_closed/halted, duplicate_client_id and the quantity checks.
  bool price_on_tick = true;
  bool has_stop = false;  // stop, stop_limit
  int64_t stop_ticks = 0;
  bool stop_on_tick = true;
  int64_t qty = 0;  // as sent; 0 or negative: the engine refuses it (invalid_qty) in its place
  TimeInForce tif = TimeInForce::kDay;
  std::string expire_time;  // gtd: UTC "YYYY-MM-DDTHH:MM:SSZ"; empty otherwise
  bool post_only = false;
  // Iceberg display quantity (FIX 111): has_display when the client sent one, whatever its
  // value (0 or more than qty: the engine refuses it invalid_qty in SPEC §4.2's order; on a
  // market or stop order invalid_field). Without has_display, 0 = fully displayed.
  bool has_display = false;
  int64_t display_qty = 0;
  std::string stp_id;       // empty = the account (engine default)
  StpAction stp_action = StpAction::kCancelResting;
};

struct CancelOrder {
  std::string session;
  uint64_t msg_seq = 0;
  std::string account;
  std::string cl_ord_id;       // id of this request (FIX 11)
  std::string orig_cl_ord_id;  // the order to cancel (FIX 41)
  std::string symbol;
};

// A missing price or quantity keeps the order's current one (SPEC §4.2).
struct ReplaceOrder {
  std::string session;
  uint64_t msg_seq = 0;
  bool poss_dup = false;  // as NewOrder's: dropped when the new ClOrdID names an order of
                          // the account with the replace's terms
  std::string account;
  std::string cl_ord_id;
  std::string orig_cl_ord_id;
  std::string symbol;
  bool has_price = false;
  int64_t price_ticks = 0;
  bool price_on_tick = true;  // as NewOrder's
  bool has_qty = false;
  int64_t qty = 0;  // new total quantity; 0 ends the order (replaced_to_zero, SPEC §4.2)
  // Terms a replace cannot change, when the request repeats them (FIX requires 54 and 40 on
  // a G): a value other than the order's refuses the replace with invalid_field, instead of
  // acknowledging a change that did not happen (docs/fix.md, "Cancel, replace, status").
  bool has_side = false;
  Side side = Side::kBuy;
  bool has_ord_type = false;
  OrdType ord_type = OrdType::kLimit;
  bool has_tif = false;
  TimeInForce tif = TimeInForce::kDay;
  bool has_stop = false;
  int64_t stop_ticks = 0;
  // The same for ExecInst (18, post-only), MaxFloor (111, the iceberg's display quantity)
  // and ExpireTime (126): a replace keeps the order's; until 2026-12-06 other values were
  // acknowledged and ignored.
  bool has_post_only = false;
  bool post_only = false;
  bool has_display = false;
  int64_t display_qty = 0;
  std::string expire_time;  // as NewOrder's; empty: not sent
};

struct OrderStatus {
  std::string session;
  std::string account;
  std::string cl_ord_id;
  std::string symbol;  // as sent (FIX 55/54), echoed in an unknown-order answer
  Side side = Side::kBuy;
  std::string status_req_id;  // FIX 790, echoed back
};

// Cancels the resting orders and pending stops of `account` (or, when empty, of every
// order entered by `session`), optionally only on `symbol`.
struct MassCancel {
  std::string session;
  uint64_t msg_seq = 0;
  std::string cl_ord_id;  // id of the request (FIX 11), echoed back
  std::string account;
  std::string symbol;
  // The session's firm (the gateway's config): a mass cancel without an account cancels only
  // what the session entered for this firm's accounts. A session moved to another firm by an
  // operator never touches its old firm's orders (SPEC §6).
  std::string firm;
};

// The session logged out or lost its connection and has cancel-on-disconnect set: the
// exchange cancels every live order that session entered, reason "disconnect".
struct SessionDisconnected {
  std::string session;
};

// Where a FIX session stands (docs/replication.md, "FIX sessions"): the next MsgSeqNum
// expected from the client and the limit below which the exchange will send. 0: unchanged.
struct SessionSequences {
  std::string session;
  uint64_t next_target = 0;
  uint64_t sender_limit = 0;
};
// How far ahead of the MsgSeqNum sent its limit is recorded (and again once what is sent
// comes within half of it: a whole half would have to go out within one journal commit to
// overtake it); a node that takes over reserves as much past the limit it resumes at.
inline constexpr uint64_t kSenderReserve = 100000;

struct CancelRejected;  // below, with the outcomes

// Requests are fire-and-forget: outcomes arrive on ExecutionListener.
// Thread safety: implementations must accept calls from any gateway thread concurrently,
// and must NOT call the listener from inside these calls (deliver from the exchange's own
// thread after journaling): the gateway may hold QuickFIX session locks while calling.
class OrderEntry {
 public:
  virtual ~OrderEntry() = default;
  virtual void Submit(const NewOrder& request) = 0;
  virtual void Cancel(const CancelOrder& request) = 0;
  virtual void Replace(const ReplaceOrder& request) = 0;
  virtual void Status(const OrderStatus& request) = 0;
  virtual void MassCancelOrders(const MassCancel& request) = 0;
  virtual void Disconnected(const SessionDisconnected& request) = 0;
  // The gateway refused a cancel or replace of an order of one of the session's own
  // accounts (a field out of range, the session's throttle): answers `refusal` through
  // OnCancelRejected with, when the order is live, its id, executed quantity and so its
  // status (FIX 37/39), so the client does not take a working order for a rejected one.
  // Changes nothing.
  virtual void RefuseAmend(const CancelRejected& refusal) = 0;
  // A replicated exchange sequences `sequences` before the inputs that follow, so that a
  // standby taking over resumes the session there; `msg_seq` of each request does the
  // same for the next expected MsgSeqNum. Returns false when it could not be recorded
  // (the gateway tries again). By default nothing is kept (one node: QuickFIX's own store).
  virtual bool RecordSequences(const SessionSequences& sequences) {
    (void)sequences;
    return true;
  }
  // The gateway refused request `msg_seq` of `session` before it became an input (a
  // throttle, a field, an entitlement, a full order path) and `answer` sends the refusal.
  // False: the caller answers now (the default: one node, whose QuickFIX store keeps where
  // the session stands). True: taken. A replicated exchange first records in its stream
  // that the session sent `msg_seq`, and runs `answer` once that is applied, on the thread
  // that delivers reports, so that a node taking over never processes the client's resend
  // (43=Y) of a request already refused; it drops `answer` when it no longer leads (the
  // client resends the request to the next primary, which processes it once).
  // docs/replication.md, "FIX sessions".
  virtual bool AnswerWhenRecorded(const std::string& session, uint64_t msg_seq,
                                  const std::function<void()>& answer) {
    (void)session, (void)msg_seq, (void)answer;
    return false;
  }
};

// --- Outcomes: exchange -> gateway -------------------------------------------------------

// The order as it stands after the outcome it accompanies.
struct OrderState {
  // The session the report goes to: the requesting one for the answer to a cancel or
  // replace, else the one that entered the order (docs/fix.md, "Bound to the exchange core").
  std::string session;
  std::string account;
  std::string cl_ord_id;       // current client id (after a replace: the new one)
  std::string orig_cl_ord_id;  // on replaced/canceled-by-request: the id it had before
  uint64_t order_id = 0;       // exchange id; 0 before acceptance (rejects)
  std::string symbol;
  Side side = Side::kBuy;
  OrdType ord_type = OrdType::kLimit;
  TimeInForce tif = TimeInForce::kDay;
  bool has_price = false;
  int64_t price_ticks = 0;
  bool has_stop = false;
  int64_t stop_ticks = 0;
  int64_t qty = 0;                 // total order quantity
  int64_t cum_qty = 0;             // executed so far
  int64_t leaves_qty = 0;          // still working (0 once the order has ended)
  int64_t cum_notional_ticks = 0;  // sum of fill px * qty, for the average price
  // TransactTime(60): the exchange time of the input that caused the report (SPEC §5: the
  // sequencer's stamp, µs since the Unix epoch); 0: not from an input (status answers):
  // the time of sending.
  int64_t transact_time_us = 0;
  // ExecID(17) of the report: "<input seq>-<n>", the same whenever the input's outcomes are
  // reported (docs/fix.md, "ExecIDs"); empty: not from an input (the gateway makes one).
  std::string exec_id;
  // The report may have gone out before: the exchange reports the input's outcomes again
  // after a restart (PossResend 97=Y; docs/durability.md).
  bool poss_resend = false;
};

// The order as a NewOrder asks for it (nothing executed yet): what a reject or an
// acknowledgement describes.
inline OrderState AskedState(const NewOrder& r) {
  OrderState s;
  s.session = r.session;
  s.account = r.account;
  s.cl_ord_id = r.cl_ord_id;
  s.symbol = r.symbol;
  s.side = r.side;
  s.ord_type = r.ord_type;
  s.tif = r.tif;
  // An off-tick price has no ticks to echo: the report leaves it out.
  s.has_price = r.has_price && r.price_on_tick;
  s.price_ticks = r.price_ticks;
  s.has_stop = r.has_stop && r.stop_on_tick;
  s.stop_ticks = r.stop_ticks;
  s.qty = r.qty;
  return s;
}

struct Fill {
  int64_t last_px_ticks = 0;
  int64_t last_qty = 0;
  uint64_t trade_id = 0;
};

// A refused cancel or replace. `response_to_replace` selects FIX 434 (1 cancel, 2 replace).
struct CancelRejected {
  std::string session;
  std::string account;
  std::string cl_ord_id;
  std::string orig_cl_ord_id;
  bool response_to_replace = false;
  std::string reason;  // SPEC §4 code, e.g. "unknown_order"
  // A live order refused a replace (halted, post_only_would_cross...): its id and state,
  // so FIX 37/39 tell the client the order still works.
  bool order_live = false;
  uint64_t order_id = 0;
  int64_t cum_qty = 0;
  int64_t transact_time_us = 0;  // as OrderState's: the refusing input's time; 0: now
  bool poss_resend = false;      // as OrderState's
  uint64_t msg_seq = 0;          // a refusal by the gateway (RefuseAmend): the request's MsgSeqNum
};

struct StatusAnswer {
  std::string status_req_id;
  bool found = false;  // false: unknown order (or another account's: same answer)
  std::string reason;  // when !found: "unknown_order"
  bool ended = false;  // the order has ended; `ended_reason` is how
  std::string ended_reason;  // "filled", "canceled", "expired", "rejected"
  // When found, the order as it stands. When !found, an echo of the request (session,
  // account, cl_ord_id, symbol, side).
  OrderState order;
};

// The answer to a status request for an order the exchange does not know, or another
// account's (the same answer, SPEC §6): "unknown_order" with an echo of the request.
inline StatusAnswer UnknownOrderAnswer(const OrderStatus& r) {
  StatusAnswer a;
  a.status_req_id = r.status_req_id;
  a.reason = "unknown_order";
  a.order.session = r.session;
  a.order.account = r.account;
  a.order.cl_ord_id = r.cl_ord_id;
  a.order.symbol = r.symbol;
  a.order.side = r.side;
  return a;
}

struct MassCancelResult {
  std::string session;
  std::string cl_ord_id;
  std::string account;
  std::string symbol;
  bool rejected = false;
  std::string reason;  // when rejected, e.g. "unknown_symbol"
  int64_t canceled_count = 0;
  // The request's 530 as sent; empty: from `symbol` (1 with a symbol, else 7).
  std::string request_type;
  bool poss_resend = false;  // as OrderState's
  // The request's exchange stamp (the ts of the cancels or the reject it caused, SPEC §5):
  // TransactTime 60. 0 (nothing canceled, or refused before the exchange): now.
  int64_t transact_time_us = 0;
};

struct BookLevel {
  int64_t price_ticks = 0;
  int64_t qty = 0;  // displayed quantity
  int64_t order_count = 0;
};

// A symbol's book after a change, best first on both sides (up to the exchange's depth).
struct BookUpdate {
  std::string symbol;
  std::vector<BookLevel> bids;
  std::vector<BookLevel> asks;
  // The exchange time of the input the book is after (SPEC §5): MDEntryDate/MDEntryTime
  // (272/273) of its entries. 0: unknown (no entry time sent).
  int64_t time_us = 0;
};

// A listed contract as SecurityList(y) describes it: the security master's terms (SPEC §3).
struct ListedContract {
  std::string symbol;
  std::string maturity_month;    // MaturityMonthYear(200) YYYYMM; empty: not <grade>-<YYYYMM>
  std::string last_trading_day;  // MaturityDate(541) YYYYMMDD; empty: unknown
  int64_t multiplier = 1000;     // ContractMultiplier(231): GPU-hours per contract
  int64_t tick_ticks = 1;        // MinPriceIncrement(969), in ticks of 0.001 USD
  int64_t max_order_qty = 0;     // MaxTradeVol(1140); 0: not sent
};

struct PublicTrade {
  std::string symbol;
  int64_t price_ticks = 0;
  int64_t qty = 0;
  uint64_t trade_id = 0;
  int64_t time_us = 0;  // the trade's exchange time (SPEC §5); 0: unknown
};

// Thread safety: the gateway accepts calls from any thread. Per order, outcomes must be
// delivered in order (one exchange thread per order is enough).
class ExecutionListener {
 public:
  virtual ~ExecutionListener() = default;
  virtual void OnAccepted(const OrderState& order) = 0;
  // `order` carries what was asked (session, account, cl_ord_id, symbol, side, qty...).
  virtual void OnRejected(const OrderState& order, const std::string& reason) = 0;
  virtual void OnFill(const OrderState& order, const Fill& fill) = 0;
  // reason: user|ioc|fok|stp|expired|mass|disconnect|no_liquidity|replaced_to_zero
  virtual void OnCanceled(const OrderState& order, const std::string& reason) = 0;
  virtual void OnReplaced(const OrderState& order) = 0;
  virtual void OnCancelRejected(const CancelRejected& reject) = 0;
  virtual void OnTriggered(const OrderState& order) = 0;
  virtual void OnStatus(const StatusAnswer& answer) = 0;
  virtual void OnMassCancelResult(const MassCancelResult& result) = 0;
  // Market data: public, fanned out to subscribed sessions of every firm.
  virtual void OnBookUpdate(const BookUpdate& book) = 0;
  virtual void OnPublicTrade(const PublicTrade& trade) = 0;
  // The listed symbols (SPEC §3); replaces the previous list.
  virtual void OnSecurityList(const std::vector<ListedContract>& contracts) = 0;
  // The exchange has delivered every outcome waiting, on this thread, and will call this
  // again after its next burst: from now on what the calls above send on this thread may be
  // held back and sent here, in one write per connection (docs/fix.md, "Batched writes").
  virtual void OnIdle() {}
  // Writes into the sessions' message stores (not to the disk) everything the calls above
  // handed over so far, whatever the connections still hold back; false when a store could
  // not be written. Any thread. The exchange calls it before it records how far the stores
  // hold its reports (docs/durability.md, "Reports a crash kept from going out").
  virtual bool FlushStores() { return true; }
  // Whether something handed over is held outside the stores for now (a FIX session's
  // messages wait while its Logon is processed: docs/fix.md, "Messages numbered during a
  // Logon"), so that FlushStores cannot put it there yet. Any thread.
  virtual bool HoldsUnstored() { return false; }
};

}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_ORDER_ENTRY_H_
