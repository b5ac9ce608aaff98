// EngineMatcher: engine + closing quotes + pre-trade risk, as the pipeline's Matcher.
#include "cfx/exchange/engine_matcher.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "book_publisher.h"
#include "cfx/common/grade.h"

namespace cfx::exchange {
namespace {

using engine::EventType;

constexpr int64_t kNsPerUs = 1000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

EngineMatcher::EngineMatcher(MatcherOptions options)
    : options_(std::move(options)),
      engine_(std::make_unique<engine::Engine>(options_.engine)),
      initial_pre_trade_risk_(options_.pre_trade_risk),
      initial_collateral_(options_.collateral) {
  engine_->set_pre_trade_risk(this);
  engine_->set_stp_groups_per_firm(0);  // only a sequenced RiskCmd sets it (RiskCmdsFor)
}

EngineMatcher::~EngineMatcher() = default;

int64_t EngineMatcher::Position(engine::AccountId acct, engine::SymbolId sym) const {
  const Exposure* x = FindExposure(acct, sym);
  return x == nullptr ? 0 : x->pos;
}

EngineMatcher::OpenQty EngineMatcher::Open(engine::AccountId acct, engine::SymbolId sym) const {
  const Exposure* x = FindExposure(acct, sym);
  if (x == nullptr) return {};
  return OpenQty{x->open_buy, x->open_sell};
}

int64_t EngineMatcher::NextMargin(int64_t now, int64_t sent, bool listed_now) const {
  constexpr int64_t kNoPrice = MatcherOptions::kNoPriceMargin.value();
  if (sent == kNoPrice) {
    // A contract the risk desk once priced keeps that margin (its positions keep counting);
    // one it never priced takes no new exposure.
    return now > 0 && now != kNoPrice ? now : kNoPrice;
  }
  if (sent >= 0) return sent;
  // -1: keep. A month listed once the risk desk's margins arrived (the roll) has no price
  // until its next poll: no new exposure meanwhile, rather than a margin of 0.
  if (listed_now) {
    for (int64_t m : margins_) {
      if (m != 0) return kNoPrice;
    }
  }
  return now;
}

int64_t EngineMatcher::Margin(engine::SymbolId sym) const {
  return sym < margins_.size() ? margins_[sym] : 0;
}

const EngineMatcher::Exposure* EngineMatcher::FindExposure(engine::AccountId acct,
                                                           engine::SymbolId sym) const {
  if (acct >= exposure_.size()) return nullptr;
  for (const SymExposure& e : exposure_[acct]) {
    if (e.sym == sym) return &e.x;
  }
  return nullptr;
}

EngineMatcher::Exposure& EngineMatcher::ExposureOf(engine::AccountId acct, engine::SymbolId sym) {
  if (acct >= exposure_.size()) exposure_.resize(acct + 1);
  std::vector<SymExposure>& v = exposure_[acct];
  for (SymExposure& e : v) {
    if (e.sym == sym) return e.x;
  }
  return v.emplace_back(SymExposure{sym, Exposure{}}).x;
}

// No table of live orders: each event says the order's leaves after it, and what they were
// before follows from the event (docs/engine.md, "Outside the engine, and not covered"). A
// map by order id here was a fifth of the matcher thread in `cfx bench pipeline --engine`,
// a cache miss an event.
void EngineMatcher::MoveLeaves(const engine::OrderInfo& info, engine::SymbolId sym,
                               int64_t before) {
  const int64_t after = engine::Ended(info.status) ? 0 : info.leaves.value();
  if (after == before) return;
  Exposure& x = ExposureOf(info.acct, sym);
  (info.side == engine::Side::kBuy ? x.open_buy : x.open_sell) += after - before;
}

void EngineMatcher::Track(const engine::Event& e) {
  if (e.order.oid == 0) return;  // rejects, cancel rejects of unknown orders
  switch (e.type) {
    case EventType::kAccepted:
      CountOpen(e.order.acct, 1);
      MoveLeaves(e.order, e.sym, 0);
      break;
    case EventType::kCanceled:  // qty: the leaves it had, now 0
      CountOpen(e.order.acct, -1);
      MoveLeaves(e.order, e.sym, e.qty.value());
      break;
    case EventType::kReplaced:
      MoveLeaves(e.order, e.sym, e.prev_leaves.value());
      break;
    case EventType::kTrade:  // each side's leaves went down by the trade's qty
      ExposureOf(e.order.acct, e.sym).pos += e.qty.value();
      ExposureOf(e.other.acct, e.sym).pos -= e.qty.value();
      MoveLeaves(e.order, e.sym, e.order.leaves.value() + e.qty.value());
      MoveLeaves(e.other, e.sym, e.other.leaves.value() + e.qty.value());
      if (engine::Ended(e.order.status)) CountOpen(e.order.acct, -1);
      if (engine::Ended(e.other.status)) CountOpen(e.other.acct, -1);
      break;
    default:  // kTriggered: a stop's leaves were open already and stay as they were
      break;
  }
}

void EngineMatcher::CountOpen(engine::AccountId acct, int delta) {
  if (acct >= open_orders_.size()) open_orders_.resize(acct + 1, 0);
  open_orders_[acct] += delta;
}

void EngineMatcher::RebuildLeaves() {
  for (std::vector<SymExposure>& v : exposure_) {
    for (SymExposure& e : v) e.x.open_buy = e.x.open_sell = 0;
  }
  open_orders_.clear();
  engine_->ForEachLiveOrder([&](const engine::Order& o) {
    CountOpen(o.acct, 1);
    engine::OrderInfo info;
    info.oid = o.oid;
    info.acct = o.acct;
    info.side = o.side;
    info.status = o.status;
    info.leaves = o.leaves();
    MoveLeaves(info, o.sym, 0);
  });
}

namespace {
constexpr int64_t kCollateralUnknown = INT64_MIN;
}  // namespace

std::vector<engine::RiskCmd> EngineMatcher::RiskCmdsFor(const MatcherOptions& config) const {
  std::vector<engine::RiskCmd> out;
  if (!risk_recorded_ || config.pre_trade_risk != options_.pre_trade_risk) {
    engine::RiskCmd c;
    c.check = config.pre_trade_risk ? 1 : 0;
    out.push_back(c);
  }
  const int64_t cap = std::max<int64_t>(0, config.max_open_orders_per_account);
  if (cap != max_open_orders_) {
    engine::RiskCmd c;
    c.max_open_orders = cap;
    out.push_back(c);
  }
  const int64_t groups = std::clamp<int64_t>(config.max_stp_groups_per_firm, 0, UINT32_MAX);
  if (static_cast<uint64_t>(groups) != engine_->stp_groups_per_firm()) {
    engine::RiskCmd c;
    c.stp_groups_per_firm = groups;
    out.push_back(c);
  }
  const bool at_stamps = config.close_day_orders && config.close_at_stamps;
  const bool clock = at_stamps && config.clock_at_stamps;
  if (config.close_day_orders != close_day_orders_ || at_stamps != close_at_stamps_ ||
      clock != clock_at_stamps_) {
    engine::RiskCmd c;
    c.close_day_orders = clock ? 3 : at_stamps ? 2 : config.close_day_orders ? 1 : 0;
    out.push_back(c);
  }
  // Each account whose configured collateral differs from the sequenced one (an account no
  // RiskCmd named has 0, as in the margin check).
  for (const auto& [name, amount] : config.collateral) {
    auto it = options_.collateral.find(name);
    const common::MicroUsd sequenced =
        it == options_.collateral.end() ? common::MicroUsd(0) : it->second;
    if (sequenced == amount) continue;
    engine::RiskCmd c;
    if (!c.acct.Assign(name)) continue;  // not an account id the engine can hold
    c.collateral = amount;
    out.push_back(c);
  }
  for (const auto& [name, amount] : options_.collateral) {
    if (config.collateral.count(name) || amount == common::MicroUsd(0)) continue;
    engine::RiskCmd c;  // an account the config no longer names: 0, as for any unnamed one
    if (!c.acct.Assign(name)) continue;
    out.push_back(c);
  }
  return out;
}

int64_t EngineMatcher::CollateralOf(engine::AccountId acct, std::string_view name) {
  if (acct >= collateral_.size()) collateral_.resize(acct + 1, kCollateralUnknown);
  int64_t& c = collateral_[acct];
  if (c == kCollateralUnknown) {
    auto it = options_.collateral.find(name);
    c = it == options_.collateral.end() ? 0 : it->second.value();
  }
  return c;
}

engine::RejectReason EngineMatcher::CheckNewOrder(const engine::NewOrderCmd& cmd,
                                                  engine::AccountId acct,
                                                  const engine::OrderBook& book) {
  // The cap on live orders (docs/reliability.md): what one account can make the exchange
  // hold, and a mass cancel or cancel-on-disconnect hold the matcher, with or without the
  // margin check.
  if (max_open_orders_ > 0 && acct < open_orders_.size() &&
      open_orders_[acct] >= max_open_orders_) {
    return engine::RejectReason::kThrottled;
  }
  if (!options_.pre_trade_risk) return engine::RejectReason::kNone;
  return CheckMargin(acct, cmd.acct.view(), book, cmd.side, cmd.qty.value());
}

engine::RejectReason EngineMatcher::CheckReplace(const engine::ReplaceCmd& cmd,
                                                 engine::AccountId acct, const engine::Order& order,
                                                 engine::Qty added, const engine::OrderBook& book) {
  if (!options_.pre_trade_risk) return engine::RejectReason::kNone;
  return CheckMargin(acct, cmd.acct.view(), book, order.side, added.value());
}

engine::RejectReason EngineMatcher::CheckMargin(engine::AccountId acct, std::string_view acct_name,
                                                const engine::OrderBook& book, engine::Side side,
                                                int64_t add) {
  const engine::SymbolId sym = book.config().id;
  const int64_t add_buy = side == engine::Side::kBuy ? add : 0;
  const int64_t add_sell = side == engine::Side::kSell ? add : 0;
  // The larger side of a contract's exposure: the position with every open buy, or with
  // every open sell, filled.
  auto exposure = [](const Exposure& x, int64_t buy, int64_t sell) {
    return std::max(std::llabs(x.pos + x.open_buy + buy), std::llabs(x.pos - x.open_sell - sell));
  };
  auto requirement = [&](engine::SymbolId s, const Exposure& x, int64_t buy,
                         int64_t sell) -> __int128 {
    const int64_t im = Margin(s);
    if (im == MatcherOptions::kNoPriceMargin.value()) return 0;
    return static_cast<__int128>(exposure(x, buy, sell)) * im;
  };
  // Nothing values a contract without a price: an order that would raise the exposure in it
  // is not taken on a margin of 0 (one that lowers or keeps it, e.g. closing, is).
  if (Margin(sym) == MatcherOptions::kNoPriceMargin.value()) {
    const Exposure* held = FindExposure(acct, sym);
    const Exposure x = held != nullptr ? *held : Exposure{};
    if (exposure(x, add_buy, add_sell) > exposure(x, 0, 0)) {
      return engine::RejectReason::kInsufficientMargin;
    }
  }
  __int128 total = 0;
  bool counted = false;
  if (acct < exposure_.size()) {
    for (const SymExposure& e : exposure_[acct]) {
      const engine::SymbolId s = e.sym;
      // An expired contract was finally settled: its position carries no margin.
      if (engine_->book(s).state() == engine::TradingState::kExpired) continue;
      const bool same = s == sym;
      counted |= same;
      total += requirement(s, e.x, same ? add_buy : 0, same ? add_sell : 0);
    }
  }
  if (!counted) total += requirement(sym, Exposure{}, add_buy, add_sell);
  const int64_t collateral = CollateralOf(acct, acct_name);
  return total > collateral ? engine::RejectReason::kInsufficientMargin
                            : engine::RejectReason::kNone;
}

void EngineMatcher::EmitCloses(engine::Timestamp from, engine::Timestamp to,
                               journal::OutcomeSink<Outcome>& sink) {
  const int64_t from_us = FloorDiv(from, kNsPerUs), to_us = FloorDiv(to, kNsPerUs);
  const int64_t d0 = FloorDiv(from_us, common::kUsPerDay), d1 = FloorDiv(to_us, common::kUsPerDay);
  for (int64_t d = d0; d <= d1; ++d) {
    const common::Date day{static_cast<int32_t>(d)};
    const common::TimestampUs close = common::AtHour(day, 16);
    if (close <= from_us || close > to_us || !options_.calendar.IsBusinessDay(day)) continue;
    EmitQuotes(day, from, sink);
    // The session close (SPEC §4): day orders expire, after the closing quotes took the book
    // at the close; the next trading day begins at once, so each book keeps its state.
    for (size_t id = 0; close_day_orders_ && id < engine_->symbol_count(); ++id) {
      const auto sid = static_cast<engine::SymbolId>(id);
      const engine::TradingState state = engine_->book(sid).state();
      if (state == engine::TradingState::kExpired) continue;
      const engine::Name sym = engine::Name::From(engine_->SymbolName(sid));
      const engine::Command close = engine::CloseCmd{sym};
      engine_->Process(close);
      EmitEvents(close, 0, sink);
      if (state != engine::TradingState::kClosed) {
        const engine::Command again = engine::StateCmd{sym, state};
        engine_->Process(again);
        EmitEvents(again, 0, sink);
      }
    }
    // Expire what trades past its last trading day: that day's close, or the first close
    // after it if time jumped over it (a restart across it restores the same decision).
    for (size_t id = 0; options_.expire_contracts && id < engine_->symbol_count(); ++id) {
      const auto sid = static_cast<engine::SymbolId>(id);
      const int32_t last_day = LastTradingDay(sid);
      if (last_day == INT32_MIN || last_day > day.days ||
          engine_->book(sid).state() == engine::TradingState::kExpired) {
        continue;
      }
      const engine::Command expire = engine::StateCmd{engine::Name::From(engine_->SymbolName(sid)),
                                                      engine::TradingState::kExpired};
      engine_->Process(expire);
      EmitEvents(expire, 0, sink);
    }
  }
}

void EngineMatcher::EmitQuotes(common::Date day, engine::Timestamp ts,
                               journal::OutcomeSink<Outcome>& sink) {
  for (size_t id = 0; id < engine_->symbol_count(); ++id) {
    const engine::OrderBook& book = engine_->book(static_cast<engine::SymbolId>(id));
    if (book.state() == engine::TradingState::kExpired) continue;  // delisted: no quote
    Outcome& o = scratch_;
    o = Outcome{};
    o.kind = OutcomeKind::kClose;
    o.sym = engine::Name::From(engine_->SymbolName(static_cast<engine::SymbolId>(id)));
    o.ts = ts;
    o.close_date_days = day.days;
    o.has_bid = book.HasBest(engine::Side::kBuy);
    if (o.has_bid) o.bid = book.BestPrice(engine::Side::kBuy);
    o.has_ask = book.HasBest(engine::Side::kSell);
    if (o.has_ask) o.ask = book.BestPrice(engine::Side::kSell);
    sink.Emit(o);
  }
}

void EngineMatcher::EmitOpenDayClose(journal::OutcomeSink<Outcome>& sink) {
  if (!options_.emit_closes || last_time_ == engine::kNoTime) return;
  const int64_t now_us = FloorDiv(last_time_, kNsPerUs);
  common::Date day{static_cast<int32_t>(FloorDiv(now_us, common::kUsPerDay))};
  // A close at the latest time itself was emitted when time reached it (EmitCloses' range
  // is (from, to]): the window open now is the next business day's.
  if (common::AtHour(day, 16) <= now_us || !options_.calendar.IsBusinessDay(day)) {
    day = options_.calendar.NextBusinessDay(day);
  }
  EmitQuotes(day, last_time_, sink);
}

// SPEC §9.1: the book at the close is the book after the last input before 16:00Z. An input
// stamped at or past a close the clock's `time` inputs have not reached yet (they tick once a
// second) is preceded by the clock at its stamp: the closing quotes, the day orders' expiry
// and the contracts' expiry first, then the input. Until 2026-12-07 inputs in the second
// after 16:00Z went into the book the closing quote took (a review).
void EngineMatcher::CloseAtStamp(engine::Timestamp stamp, journal::OutcomeSink<Outcome>& sink) {
  if (!options_.emit_closes || last_time_ == engine::kNoTime || stamp <= last_time_) return;
  if (next_close_ == engine::kNoTime || next_close_ <= last_time_) {
    // The first business day whose 16:00Z is after last_time_.
    const int64_t last_us = FloorDiv(last_time_, kNsPerUs);
    common::Date day{static_cast<int32_t>(FloorDiv(last_us, common::kUsPerDay))};
    if (common::AtHour(day, 16) <= last_us || !options_.calendar.IsBusinessDay(day)) {
      day = options_.calendar.NextBusinessDay(day);
    }
    next_close_ = common::AtHour(day, 16) * kNsPerUs;
  }
  if (stamp < next_close_) return;
  EmitCloses(last_time_, stamp, sink);
  last_time_ = stamp;
  published_time_.store(last_time_, std::memory_order_relaxed);
  const engine::Command tick = engine::TimeCmd{stamp};
  engine_->Process(tick);
  EmitEvents(tick, 0, sink);
}

int32_t EngineMatcher::LastTradingDay(engine::SymbolId id) {
  while (last_trading_day_.size() <= id && last_trading_day_.size() < engine_->symbol_count()) {
    const auto next = static_cast<engine::SymbolId>(last_trading_day_.size());
    const std::string_view name = engine_->SymbolName(next);
    absl::StatusOr<common::ContractSymbol> c =
        common::ParseSymbol(absl::string_view(name.data(), name.size()));
    last_trading_day_.push_back(
        c.ok() ? options_.calendar.LastBusinessDayOfMonth(c->year, c->month).days : INT32_MIN);
  }
  return id < last_trading_day_.size() ? last_trading_day_[id] : INT32_MIN;
}

// FillOutcome sets every field by hand: a field added to Outcome must be set there too.
static_assert(sizeof(Outcome) == 608, "a new Outcome field: set it in FillOutcome");

void EngineMatcher::FillOutcome(const engine::Event& e, Outcome* out) const {
  // Each field written once, names copied whole: the slot's lines were last read by the
  // publisher's core, and zeroing the whole Outcome first wrote every one of them twice (a
  // third of the matcher thread in `cfx bench pipeline --engine`).
  static constexpr engine::Name kNoName{};
  out->kind = OutcomeKind::kEvent;
  out->event = e;
  out->ts = input_time_;
  out->input_session = 0;
  out->sym = e.has_sym && e.sym < engine_->symbol_count() ? engine_->SymbolFixedName(e.sym)
                                                           : kNoName;
  const bool names_order =
      e.order.oid != 0 || e.type == EventType::kRejected || e.type == EventType::kCancelRejected;
  out->acct = names_order && e.order.acct < engine_->account_count()
                  ? engine_->AccountFixedName(e.order.acct)
                  : kNoName;
  out->firm = e.order.oid != 0 && e.order.firm < engine_->firm_count()
                  ? engine_->FirmFixedName(e.order.firm)
                  : kNoName;
  const bool trade = e.type == EventType::kTrade;
  out->other_acct = trade ? engine_->AccountFixedName(e.other.acct) : kNoName;
  out->other_firm = trade ? engine_->FirmFixedName(e.other.firm) : kNoName;
  out->listing_has_ref = false;
  out->listing_ref = engine::PriceTicks(0);
  out->listing_max_order_qty = engine::Qty(0);
  out->close_date_days = 0;
  out->has_bid = false;
  out->bid = engine::PriceTicks(0);
  out->has_ask = false;
  out->ask = engine::PriceTicks(0);
}

void EngineMatcher::Apply(uint64_t seq, const engine::Command& command,
                          journal::OutcomeSink<Outcome>& sink) {
  ApplyAt(seq, 0, command, sink);
}

void EngineMatcher::ApplyAt(uint64_t seq, int64_t time_us, const engine::Command& command,
                            journal::OutcomeSink<Outcome>& sink) {
  assert(seq > last_seq_);
  last_seq_ = seq;
  const auto* t = std::get_if<engine::TimeCmd>(&command);
  const bool advances = t != nullptr && (last_time_ == engine::kNoTime || t->ts > last_time_);
  const engine::Timestamp now = advances ? t->ts : last_time_;
  // Never before the exchange time the engine has seen: a stamp behind the latest TimeCmd
  // (a manual clock set ahead, a wall clock stepped back) gives way to it. Set before the
  // closes and expiries a TimeCmd brings: their outcomes carry this input's time (they
  // carried the input before's, or none after a snapshot restore, until 2026-12-07).
  input_time_ = now;
  if (time_us > 0) {
    const engine::Timestamp stamp = time_us * 1000;  // µs -> the engine's ns
    if (now == engine::kNoTime || stamp > now) input_time_ = stamp;
  }
  if (advances) {
    if (options_.emit_closes && last_time_ != engine::kNoTime) EmitCloses(last_time_, t->ts, sink);
    last_time_ = t->ts;
    published_time_.store(last_time_, std::memory_order_relaxed);
  } else if (close_at_stamps_ && time_us > 0 &&
             !std::holds_alternative<engine::FixSessionCmd>(command) &&
             !std::holds_alternative<engine::RiskCmd>(command)) {
    // Not at the exchange's own bookkeeping inputs, which publish no book: the close waits
    // for the next order input or clock tick.
    CloseAtStamp(input_time_, sink);
    // The engine's clock at the input's stamp (a compare for all but the first input of a
    // new microsecond): GTD expiries due by then go first, and a GTD order entered or
    // replaced is judged against this time (SPEC §4.2), not the last tick's.
    if (clock_at_stamps_ && input_time_ != engine::kNoTime &&
        (engine_->now() == engine::kNoTime || input_time_ > engine_->now())) {
      const engine::Command tick = engine::TimeCmd{input_time_};
      engine_->Process(tick);
      EmitEvents(tick, 0, sink);
    }
  }
  if (const auto* f = std::get_if<engine::FixSessionCmd>(&command)) {
    fix_sessions_.Apply(*f);  // no engine state, no outcome
    return;
  }
  if (const auto* r = std::get_if<engine::RiskCmd>(&command)) {
    if (r->check >= 0) options_.pre_trade_risk = r->check != 0;
    if (r->max_open_orders >= 0) max_open_orders_ = r->max_open_orders;
    if (r->close_day_orders >= 0) {
      close_day_orders_ = r->close_day_orders != 0;
      close_at_stamps_ = r->close_day_orders >= 2;
      clock_at_stamps_ = r->close_day_orders == 3;
    }
    if (r->stp_groups_per_firm >= 0) {
      engine_->set_stp_groups_per_firm(static_cast<size_t>(r->stp_groups_per_firm));
    }
    if (!r->acct.empty()) {
      options_.collateral[std::string(r->acct.view())] = r->collateral;
      collateral_.clear();  // looked up again by name
    }
    risk_recorded_ = true;
    return;  // no engine state, no outcome
  }
  engine_->Process(command);
  engine::SessionId session = 0;
  const engine::Origin* origin = nullptr;
  if (const auto* n = std::get_if<engine::NewOrderCmd>(&command)) {
    session = n->session;
    origin = &n->origin;
  } else if (const auto* x = std::get_if<engine::CancelCmd>(&command)) {
    origin = &x->origin;
  } else if (const auto* r = std::get_if<engine::ReplaceCmd>(&command)) {
    origin = &r->origin;
  } else if (const auto* m = std::get_if<engine::MassCancelCmd>(&command)) {
    session = m->session;
    origin = &m->origin;
  } else if (const auto* p = std::get_if<engine::ProductCmd>(&command)) {
    if (auto id = engine_->FindSymbol(p->sym.view())) {
      const bool listed_now = margins_.size() <= *id;
      if (listed_now) margins_.resize(*id + 1, 0);
      margins_[*id] = NextMargin(margins_[*id], p->initial_margin.value(), listed_now);
      touched_.push_back(*id);
    }
  }
  // A FIX request: its session now expects the MsgSeqNum after it (docs/replication.md).
  if (origin != nullptr && origin->msg_seq != 0) {
    fix_sessions_.Apply(engine::FixSessionCmd{origin->session, uint64_t{origin->msg_seq} + 1, 0});
  }
  EmitEvents(command, session, sink);
  if (publisher_ != nullptr) {
    std::sort(touched_.begin(), touched_.end());
    touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
    for (engine::SymbolId id : touched_) publisher_->Publish(*engine_, id, seq, input_time_);
  }
  touched_.clear();
}

void EngineMatcher::EmitEvents(const engine::Command& command, engine::SessionId session,
                               journal::OutcomeSink<Outcome>& sink) {
  for (const engine::Event& e : engine_->last_events()) {
    Track(e);
    Outcome& out = sink.Claim();  // the output ring's slot: written once, not copied
    FillOutcome(e, &out);
    out.input_session = session;
    if (e.type == EventType::kRejected && out.sym.empty()) {
      if (const auto* n = std::get_if<engine::NewOrderCmd>(&command)) {
        out.sym = n->sym;
        out.firm = n->firm.empty() ? n->acct : n->firm;
      }
    }
    sink.EmitClaimed();
    if (e.has_sym) {
      touched_.push_back(e.sym);
      if (e.type == EventType::kTrade && publisher_ != nullptr) {
        publisher_->NoteTrade(e.sym, e.px, e.qty, input_time_);
      }
    }
  }
}

void EngineMatcher::PublishAll() {
  if (publisher_ == nullptr) return;
  for (size_t id = 0; id < engine_->symbol_count(); ++id) {
    // No input time: the books after a restore or a replay were last changed by inputs whose
    // times are not kept per book (the last input's would be another book's, or none after a
    // snapshot); their market data has no entry time until an input changes them.
    publisher_->Publish(*engine_, static_cast<engine::SymbolId>(id), last_seq_, engine::kNoTime);
  }
}

}  // namespace cfx::exchange
