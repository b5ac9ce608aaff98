// What the exchange core tells its listeners (FIX gateway, drop copy, market data, the trade
// recorder): one Outcome per engine event, plus one per contract at each day's close.
// Plain, trivially copyable values (names copied, no pointers into the engine), so an
// Outcome rides through the pipeline's preallocated ring slots and a listener may keep it.
#ifndef CFX_EXCHANGE_OUTCOME_H_
#define CFX_EXCHANGE_OUTCOME_H_

#include <cstdint>

#include "cfx/engine/events.h"
#include "cfx/engine/types.h"

namespace cfx::exchange {

enum class OutcomeKind : uint8_t {
  kEvent,  // `event` is an engine event (accepted, trade, canceled, ...)
  kClose,  // the closing quote of `sym` for business day `close_date_days` (SPEC §9)
  // After a product input the engine applied: the book terms of `sym` (listing_*), at `ts`.
  // The security master is derived from these (exchange/src/listing_outcomes.h).
  kListing,
};

// The order an event concerns, as FIX reports it (ExecutionReport 38/44/99/40/59).
// Filled from the order's entry and its latest replace; `has_detail` false when unknown
// (rejects, cancel rejects of unknown orders).
struct OrderDetail : engine::OrderTerms {
  bool has_detail = false;
  // post_only, display and expire are known (rows of the trade store written before
  // 2026-12-06 lack them: a replace is then not compared on them, docs/fix.md).
  bool has_amend_terms = false;
};

struct Outcome {
  OutcomeKind kind = OutcomeKind::kEvent;
  // --- kEvent ----------------------------------------------------------------------------
  // The engine event: ids (oid, cl, orig), cum/leaves/notional after the event, reasons.
  // event.order is the buyer on a trade (event.other the seller), else the order concerned.
  engine::Event event;
  engine::Name sym;          // symbol name ("" when the event has none)
  engine::Name acct;         // account name of event.order
  engine::Name other_acct;   // trade: account name of event.other (the seller)
  engine::Name firm;         // firm of event.order (as entered; default the account)
  engine::Name other_firm;   // trade: firm of the seller
  // The input that caused it: the session named by the command (NewOrderCmd::session,
  // MassCancelCmd::session; 0 otherwise). The producer's tag comes with OnOutcome.
  engine::SessionId input_session = 0;
  // Exchange time (ns): the input's sequencer stamp (SPEC §5), else the latest TimeCmd
  // applied before it (engine::kNoTime before the first). A trade's time in the trade store
  // (SPEC §12), the TransactTime of its reports and the time of its market data.
  engine::Timestamp ts = engine::kNoTime;
  // --- kListing (sym and ts set; event unused) -------------------------------------------
  bool listing_has_ref = false;  // the book has a band reference
  engine::PriceTicks listing_ref{0};
  engine::Qty listing_max_order_qty{0};
  // --- kClose (sym set; event unused) ----------------------------------------------------
  int32_t close_date_days = 0;  // cfx::Date::days of the business day that closed
  bool has_bid = false;
  engine::PriceTicks bid{0};
  bool has_ask = false;
  engine::PriceTicks ask{0};

  // The terms of event.order / event.other (a trade's seller) as FIX reports them, read
  // from the event itself (OrderInfo carries them): kept out of the slot, so that an Outcome
  // is written once, in fewer lines (docs/durability.md, "The order path").
  OrderDetail detail() const { return DetailOf(event.order); }
  OrderDetail other_detail() const {
    return event.type == engine::EventType::kTrade ? DetailOf(event.other) : OrderDetail{};
  }

 private:
  OrderDetail DetailOf(const engine::OrderInfo& i) const {
    if (kind != OutcomeKind::kEvent) return OrderDetail{};
    return OrderDetail{{i}, i.oid != 0 || event.type == engine::EventType::kRejected, true};
  }
};

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_OUTCOME_H_
