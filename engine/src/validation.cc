// Entry and replace checks in the reject precedence of §4.2:
// invalid_field -> unknown_symbol -> market_closed / halted -> duplicate_client_id ->
// invalid_qty / qty_above_max -> invalid_price_tick (px, then stop) -> price_outside_band ->
// invalid_stop_price -> pre_open restriction -> post_only_would_cross.
#include "cfx/engine/engine.h"

namespace cfx::engine {
namespace {

bool UsesLimitPrice(OrderType t) { return t == OrderType::kLimit || t == OrderType::kStopLimit; }
bool IsStop(OrderType t) { return t == OrderType::kStop || t == OrderType::kStopLimit; }

}  // namespace

bool Engine::StpGroupOverCap(const NewOrderCmd& c, AccountId acct) const {
  // The order's firm as Apply will take it, without interning anything: a firm or group
  // not in the table yet has named nothing.
  FirmId firm = NameTable::kNone;
  if (!c.firm.empty()) {
    firm = firms_.Find(c.firm);
  } else {
    firm = acct < default_firm_.size() ? default_firm_[acct] : NameTable::kNone;
    if (firm == NameTable::kNone) firm = firms_.Find(c.acct);
  }
  const uint32_t named = firm < stp_groups_of_firm_.size() ? stp_groups_of_firm_[firm] : 0;
  if (named < config_.max_stp_groups_per_firm) return false;
  const uint32_t stp = firms_.Find(c.stp);
  return stp == NameTable::kNone || !stp_groups_.contains(StpKey(firm, stp));
}

void Engine::CountStpGroup(const Order& o) {
  if (!stp_groups_.insert(StpKey(o.firm, o.stp)).second) return;
  if (o.firm >= stp_groups_of_firm_.size()) stp_groups_of_firm_.resize(o.firm + 1, 0);
  ++stp_groups_of_firm_[o.firm];
}

RejectReason Engine::ValidateNew(const NewOrderCmd& c, OrderBook** book_out, AccountId acct,
                                 uint64_t acct_hash, uint32_t* cl_rec) {
  const RejectReason r = ValidateNewTerms(c, book_out, acct, acct_hash, cl_rec);
  if (r != RejectReason::kNone && *cl_rec != ClientIdIndex::kNone) client_ids_.EraseLast();
  return r;
}

RejectReason Engine::ValidateNewTerms(const NewOrderCmd& c, OrderBook** book_out, AccountId acct,
                                      uint64_t acct_hash, uint32_t* cl_rec) {
  *cl_rec = ClientIdIndex::kNone;
  // invalid_field: shape of the order, independent of the market.
  if (c.cl.empty() || c.acct.empty() || c.sym.empty()) return RejectReason::kInvalidField;
  if (UsesLimitPrice(c.type) && (!c.px.present || (c.px.on_tick && c.px.ticks <= PriceTicks(0)))) {
    return RejectReason::kInvalidField;
  }
  if (IsStop(c.type) && (!c.stop.present || (c.stop.on_tick && c.stop.ticks <= PriceTicks(0)))) {
    return RejectReason::kInvalidField;
  }
  if (c.has_display && (c.type == OrderType::kMarket || c.type == OrderType::kStop)) {
    return RejectReason::kInvalidField;
  }
  if (c.post_only &&
      (c.type != OrderType::kLimit ||
       !(c.tif == TimeInForce::kDay || c.tif == TimeInForce::kGtc || c.tif == TimeInForce::kGtd))) {
    return RejectReason::kInvalidField;
  }
  if (c.tif == TimeInForce::kGtd &&
      (c.expire == kNoTime || (now_ != kNoTime && now_ >= c.expire))) {
    return RejectReason::kInvalidField;  // missing, or already expired on arrival
  }
  // An STP group of its own past the firm's cap: each name stays for good (a client sending a
  // fresh STP id an order grew the table and every snapshot without bound). Firms are the
  // exchange's (`cfx serve` sets the session's firm from its config), and the accounts'
  // defaults are bounded with the accounts.
  if (config_.max_stp_groups_per_firm != 0 && NamesOwnStpGroup(c) && StpGroupOverCap(c, acct)) {
    return RejectReason::kInvalidField;
  }

  OrderBook* book = BookOf(c.sym);
  if (book == nullptr) return RejectReason::kUnknownSymbol;
  *book_out = book;
  if (book->state() == TradingState::kClosed || book->state() == TradingState::kExpired) {
    return RejectReason::kMarketClosed;
  }
  if (book->state() == TradingState::kHalted) return RejectReason::kHalted;

  // Taken now (one probe for the check and the insertion); given back on a later reject.
  auto [rec, fresh] = client_ids_.TryInsert(ClHash(acct_hash, c.cl), acct, c.cl);
  if (!fresh) return RejectReason::kDuplicateClientId;
  *cl_rec = rec;

  if (c.qty <= Qty(0)) return RejectReason::kInvalidQty;
  if (c.has_display && (c.display < Qty(1) || c.display > c.qty)) {
    return RejectReason::kInvalidQty;
  }
  if (c.qty > book->config().max_order_qty) return RejectReason::kQtyAboveMax;

  if (UsesLimitPrice(c.type) && !c.px.on_tick) return RejectReason::kInvalidPriceTick;
  if (IsStop(c.type) && !c.stop.on_tick) return RejectReason::kInvalidPriceTick;

  if (UsesLimitPrice(c.type) && (!book->InBand(c.px.ticks) || !book->CanRestAt(c.px.ticks) ||
                                 !book->WithinPriceLimit(c.px.ticks))) {
    return RejectReason::kPriceOutsideBand;
  }

  if (IsStop(c.type) && book->StopAlreadyMet(c.side, c.stop.ticks)) {
    return RejectReason::kInvalidStopPrice;
  }

  if (book->state() == TradingState::kPreOpen && !IsStop(c.type) &&
      (c.type == OrderType::kMarket || c.tif == TimeInForce::kIoc || c.tif == TimeInForce::kFok)) {
    return RejectReason::kMarketClosed;
  }

  if (c.post_only && book->state() == TradingState::kOpen && book->WouldCross(c.side, c.px.ticks)) {
    return RejectReason::kPostOnlyWouldCross;
  }
  return RejectReason::kNone;
}

RejectReason Engine::ValidateReplace(const ReplaceCmd& c, const Order& o, const OrderBook& book,
                                     uint64_t acct_hash, PriceTicks* px, Qty* qty) {
  if (c.cl.empty()) return RejectReason::kInvalidField;
  if (c.px.present && c.px.on_tick && c.px.ticks <= PriceTicks(0)) {
    return RejectReason::kInvalidField;
  }
  if (book.state() == TradingState::kClosed || book.state() == TradingState::kExpired) {
    return RejectReason::kMarketClosed;
  }
  if (book.state() == TradingState::kHalted) return RejectReason::kHalted;
  if (client_ids_.Find(ClHash(acct_hash, c.cl), o.acct, c.cl) != ClientIdIndex::kNone) {
    return RejectReason::kDuplicateClientId;
  }

  // A new total of 0 is at or below what was executed: it ends the order (replaced_to_zero,
  // SPEC §4.2), like any total <= cum. Only a negative total is refused.
  *qty = c.has_qty ? c.qty : o.qty;
  if (*qty < Qty(0)) return RejectReason::kInvalidQty;
  if (*qty > book.config().max_order_qty) return RejectReason::kQtyAboveMax;

  // A stop-market order has no limit price; a px on its replace is ignored.
  bool has_limit = UsesLimitPrice(o.type);
  *px = o.px;
  if (has_limit && c.px.present) {
    if (!c.px.on_tick) return RejectReason::kInvalidPriceTick;
    if (!book.InBand(c.px.ticks) || !book.CanRestAt(c.px.ticks) ||
        !book.WithinPriceLimit(c.px.ticks)) {
      return RejectReason::kPriceOutsideBand;
    }
    *px = c.px.ticks;
  }
  // Checked whenever the replace loses priority (a new price, or more quantity): the order
  // then enters the book again as an aggressor. A book left crossed (pre_open -> halted ->
  // open runs no auction) made a quantity-only raise trade a post-only order until
  // 2026-12-07.
  if (o.post_only && !o.is_stop_pending() && book.state() == TradingState::kOpen &&
      (*px != o.px || *qty > o.qty) && *qty > o.cum && book.WouldCross(o.side, *px)) {
    return RejectReason::kPostOnlyWouldCross;
  }
  return RejectReason::kNone;
}

}  // namespace cfx::engine
