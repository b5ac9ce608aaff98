#include "cfx/security_master/derive.h"

namespace cfx::security_master {
namespace {

ContractEvent EventOf(const Contract& c, uint64_t seq, std::optional<common::TimestampUs> ts,
                      EventKind kind) {
  return ContractEvent{seq, ts, c.sym, kind, c.band_ref, c.max_order_qty};
}

}  // namespace

std::optional<ContractEvent> ApplyListing(const ListingInput& in,
                                          const common::BusinessCalendar& calendar,
                                          std::optional<Contract>* row) {
  if (!row->has_value()) {
    Contract c;
    c.sym = in.sym;
    if (auto parsed = common::ParseSymbol(in.sym); parsed.ok()) {
      c.contract = *parsed;
      c.last_trading_day = LastTradingDay(*parsed, calendar);
    }
    c.max_order_qty = in.max_order_qty;
    c.band_ref = in.band_ref;
    // The trading day it is listed in: a listing at or after a day's 16:00Z close (the month
    // that enters the window at a last trading day's close) trades from the next business
    // day, and is settled from then on (SettlesOn).
    if (in.ts) c.listing_date = calendar.TradingDayOf(*in.ts);
    c.listed_seq = c.updated_seq = in.seq;
    *row = std::move(c);
    return EventOf(**row, in.seq, in.ts, EventKind::kListed);
  }
  Contract& c = **row;
  if (!c.listed()) return std::nullopt;
  const bool ref_changed = c.band_ref != in.band_ref;
  const bool terms_changed = c.max_order_qty != in.max_order_qty;
  if (!ref_changed && !terms_changed) return std::nullopt;
  c.band_ref = in.band_ref;
  c.max_order_qty = in.max_order_qty;
  c.updated_seq = in.seq;
  return EventOf(c, in.seq, in.ts,
                 ref_changed ? EventKind::kReferenceChanged : EventKind::kTermsChanged);
}

std::optional<ContractEvent> ApplyExpiry(uint64_t seq, std::optional<common::TimestampUs> ts,
                                         Contract* row) {
  if (!row->listed()) return std::nullopt;
  row->state = ContractState::kExpired;
  row->updated_seq = seq;
  return EventOf(*row, seq, ts, EventKind::kExpired);
}

common::Date LastTradingDay(const common::ContractSymbol& contract,
                            const common::BusinessCalendar& calendar) {
  return calendar.LastBusinessDayOfMonth(contract.year, contract.month);
}

std::vector<common::ContractSymbol> ListingWindow(const common::Grade& grade, common::Date date,
                                                  int months) {
  int y, m, d;
  common::YmdFromDate(date, &y, &m, &d);
  std::vector<common::ContractSymbol> out;
  out.reserve(months);
  for (int i = 0; i < months; ++i) {
    out.push_back(common::ContractSymbol{grade, y, m});
    if (++m > 12) {
      m = 1;
      ++y;
    }
  }
  return out;
}

bool Contract::SettlesOn(common::Date date) const {
  if (listing_date && *listing_date > date) return false;
  return !last_trading_day || date <= *last_trading_day;
}

}  // namespace cfx::security_master
