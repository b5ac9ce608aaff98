// Engine: command dispatch, ids, indexes, mass actions and expiry.
#include "cfx/engine/engine.h"

#include <algorithm>
#include <cassert>

#include "absl/strings/string_view.h"

namespace cfx::engine {
namespace {

// `book` (the book a command names), or after the unknown_symbol reject nullptr.
OrderBook* KnownBook(OrderBook* book, MatchContext& ctx) {
  if (book == nullptr) ctx.Emit(EventType::kRejected).reject = RejectReason::kUnknownSymbol;
  return book;
}

}  // namespace

Engine::Engine(const EngineConfig& config)
    : config_(config),
      ctx_(config.order_capacity),
      accounts_(config.account_capacity),
      firms_(config.account_capacity),
      client_ids_(config.client_id_capacity) {
  default_firm_.reserve(config.account_capacity);
}

AccountId Engine::InternAccount(const Name& name, uint64_t hash) {
  const AccountId id = accounts_.Intern(name, hash);
  if (id >= default_firm_.size()) default_firm_.resize(accounts_.size(), NameTable::kNone);
  return id;
}

FirmId Engine::DefaultFirm(AccountId acct, const Name& acct_name) {
  FirmId& f = default_firm_[acct];
  if (f == NameTable::kNone) f = firms_.Intern(acct_name);
  return f;
}

OrderBook* Engine::BookOf(const Name& sym) {
  // Orders come in runs on one contract: the last book found is compared before the name is
  // hashed and looked up (books are never removed, so a remembered one stays valid).
  if (last_book_ != nullptr && sym == last_sym_) return last_book_;
  const uint32_t id = symbols_.Find(sym);
  if (id == NameTable::kNone) return nullptr;
  last_sym_ = sym;
  last_book_ = books_[id].get();
  return last_book_;
}

std::optional<SymbolId> Engine::FindSymbol(std::string_view sym) const {
  const uint32_t id = symbols_.Find(sym);
  if (id == NameTable::kNone) return std::nullopt;
  return id;
}

std::optional<AccountId> Engine::FindAccount(std::string_view acct) const {
  const uint32_t id = accounts_.Find(acct);
  if (id == NameTable::kNone) return std::nullopt;
  return id;
}

uint32_t Engine::LookupLive(uint64_t acct_hash, AccountId acct, const ClientId& cl,
                            uint32_t* rec_out) const {
  const uint32_t rec = client_ids_.Find(ClHash(acct_hash, cl), acct, cl);
  if (rec_out != nullptr) *rec_out = rec;
  if (rec == ClientIdIndex::kNone || client_ids_.oid(rec) == 0) return kNoSlot;
  const uint32_t slot = client_ids_.slot(rec);
  return ctx_.store.HoldsLive(slot, client_ids_.oid(rec)) ? slot : kNoSlot;
}

void Engine::Prefetch(const Command& cmd) const {
  const Name* acct = nullptr;
  const ClientId* cl = nullptr;
  if (const auto* n = std::get_if<NewOrderCmd>(&cmd)) {
    acct = &n->acct;
    cl = &n->cl;
  } else if (const auto* x = std::get_if<CancelCmd>(&cmd)) {
    acct = &x->acct;
    cl = &x->orig;
  } else if (const auto* r = std::get_if<ReplaceCmd>(&cmd)) {
    acct = &r->acct;
    cl = &r->orig;
  } else {
    return;
  }
  const uint64_t acct_hash = accounts_.Hash(*acct);
  accounts_.Prefetch(acct_hash);
  client_ids_.Prefetch(ClHash(acct_hash, *cl));
}

void Engine::Process(const Command& cmd) {
  ctx_.events.clear();
  std::visit([this](const auto& c) { Apply(c); }, cmd);
  Deliver();
}

void Engine::Deliver() {
  if (listener_ == nullptr) return;
  for (const Event& e : ctx_.events) Dispatch(e, *listener_);
}

void Engine::EmitReject(const NewOrderCmd& c, AccountId acct, RejectReason reason) {
  Event& e = ctx_.Emit(EventType::kRejected);
  e.reject = reason;
  e.order.acct = acct;
  e.order.cl = c.cl;
  e.order.side = c.side;
  e.order.status = OrderStatus::kCanceled;
  e.order.type = c.type;
  e.order.tif = c.tif;
  e.order.px = c.px.ticks;
  e.order.stop_px = c.stop.ticks;
  e.order.qty = c.qty;
  e.order.expire = c.expire;
  e.order.session = c.session;
  e.order.post_only = c.post_only;
  e.order.display = c.has_display ? c.display : Qty(0);
  e.qty = c.qty;
}

void Engine::EmitCancelReject(const ClientId& orig, const ClientId* cl, AccountId acct,
                              RejectReason reason, const Order* live) {
  Event& e = ctx_.Emit(EventType::kCancelRejected);
  e.reject = reason;
  e.orig = orig;
  e.order.acct = acct;
  if (cl != nullptr) e.order.cl = *cl;
  if (live != nullptr) {
    e.order.oid = live->oid;
    e.order.cum = live->cum;
    e.order.leaves = live->leaves();
    e.order.side = live->side;
    e.order.status = live->status;
    e.order.firm = live->firm;
  }
}

void Engine::Apply(const ProductCmd& c) {
  if (c.sym.empty() || (c.ref.present && (!c.ref.on_tick || c.ref.ticks <= PriceTicks(0)))) {
    Event& e = ctx_.Emit(EventType::kRejected);
    e.reject = RejectReason::kInvalidField;
    return;
  }
  OrderBook* book = BookOf(c.sym);
  BookConfig cfg;
  if (book != nullptr) cfg = book->config();
  cfg.band_percent = c.band_percent;
  cfg.max_order_qty = c.max_order_qty;
  cfg.protection_ticks = c.protection_ticks;
  cfg.max_grid_levels = config_.max_grid_levels;
  cfg.max_price = config_.max_price;
  if (c.ref.present) {
    cfg.has_ref = true;
    cfg.ref = c.ref.ticks;
  }
  if (book != nullptr) {
    book->Reconfigure(cfg);
    return;
  }
  cfg.id = symbols_.Intern(c.sym);
  books_.push_back(std::make_unique<OrderBook>(cfg, &ctx_));
}

void Engine::Apply(const StateCmd& c) {
  OrderBook* book = KnownBook(BookOf(c.sym), ctx_);
  if (book == nullptr) return;
  if (book->state() == TradingState::kExpired) return;  // delisted for good
  if (c.state == TradingState::kExpired) {
    const SymbolId id = book->config().id;
    OrderStore& st = ctx_.store;
    st.ForEachLive([&](uint32_t s) {
      if (st.at(s).sym == id) book->Cancel(s, CancelReason::kExpired);
    });
  }
  book->SetState(c.state);
}

void Engine::Apply(const NewOrderCmd& c) {
  const uint64_t acct_hash = accounts_.Hash(c.acct);
  AccountId acct = InternAccount(c.acct, acct_hash);
  OrderBook* book = nullptr;
  uint32_t cl_rec = ClientIdIndex::kNone;
  RejectReason r = ValidateNew(c, &book, acct, acct_hash, &cl_rec);
  if (r == RejectReason::kNone && risk_ != nullptr) {
    r = risk_->CheckNewOrder(c, acct, *book);  // takes no client id: cl_rec stays the last record
    if (r != RejectReason::kNone) client_ids_.EraseLast();
  }
  if (r != RejectReason::kNone) {
    EmitReject(c, acct, r);
    return;
  }
  OrderId oid = next_oid_++;
  uint32_t slot = ctx_.store.Allocate(oid, acct);
  Order& o = ctx_.store.at(slot);
  ++next_accept_;
  o.side = c.side;
  o.type = c.type;
  // A market order is IOC whatever its tif, except FOK (§4.2).
  o.tif = c.tif;
  if (c.type == OrderType::kMarket && c.tif != TimeInForce::kFok) o.tif = TimeInForce::kIoc;
  o.px =
      (c.type == OrderType::kLimit || c.type == OrderType::kStopLimit) ? c.px.ticks : PriceTicks(0);
  o.stop_px = (c.type == OrderType::kStop || c.type == OrderType::kStopLimit) ? c.stop.ticks
                                                                              : PriceTicks(0);
  o.qty = c.qty;
  o.display = c.has_display ? c.display : Qty(0);
  o.post_only = c.post_only;
  o.expire = c.tif == TimeInForce::kGtd ? c.expire : kNoTime;
  // Firm and STP group default to the account (remembered per account); one lookup when
  // both name the same.
  const Name& firm = c.firm.empty() ? c.acct : c.firm;
  const Name& stp = c.stp.empty() ? c.acct : c.stp;
  o.firm = c.firm.empty() ? DefaultFirm(acct, c.acct) : firms_.Intern(firm);
  o.stp = stp == firm ? o.firm : stp == c.acct ? DefaultFirm(acct, c.acct) : firms_.Intern(stp);
  o.stp_action = c.stp_action;
  if (config_.max_stp_groups_per_firm != 0 && NamesOwnStpGroup(c)) CountStpGroup(o);
  o.sym = book->config().id;
  o.session = c.session;
  o.cl = c.cl;
  o.status = OrderStatus::kNew;
  client_ids_.set_order(cl_rec, oid, slot);
  if (o.tif == TimeInForce::kGtd) next_gtd_expiry_ = std::min(next_gtd_expiry_, o.expire);
  book->MarkAccepted();
  Event& e = ctx_.Emit(EventType::kAccepted);
  e.sym = o.sym;
  e.has_sym = true;
  e.qty = o.qty;
  FillOrderInfo(&e.order, o);
  book->Submit(slot);
}

uint32_t Engine::FindAmended(const Name& acct_name, uint64_t acct_hash, const ClientId& orig,
                             const ClientId* cl, AccountId* acct, uint32_t* orig_rec) {
  const uint32_t found = accounts_.Find(acct_name, acct_hash);
  *acct = found == NameTable::kNone ? 0 : found;
  uint32_t slot =
      found == NameTable::kNone ? kNoSlot : LookupLive(acct_hash, *acct, orig, orig_rec);
  if (slot == kNoSlot) {
    AccountId shown = InternAccount(acct_name, acct_hash);
    EmitCancelReject(orig, cl, shown, RejectReason::kUnknownOrder);
  }
  return slot;
}

void Engine::Apply(const CancelCmd& c) {
  AccountId acct = 0;
  uint32_t slot = FindAmended(c.acct, accounts_.Hash(c.acct), c.orig, nullptr, &acct, nullptr);
  if (slot == kNoSlot) return;
  OrderBook& book = *books_[ctx_.store.at(slot).sym];
  if (book.state() == TradingState::kClosed || book.state() == TradingState::kExpired) {
    EmitCancelReject(c.orig, nullptr, acct, RejectReason::kMarketClosed, &ctx_.store.at(slot));
    return;
  }
  book.Cancel(slot, CancelReason::kUser);
}

void Engine::Apply(const ReplaceCmd& c) {
  AccountId acct = 0;
  uint32_t orig_rec = ClientIdIndex::kNone;
  const uint64_t acct_hash = accounts_.Hash(c.acct);
  uint32_t slot = FindAmended(c.acct, acct_hash, c.orig, &c.cl, &acct, &orig_rec);
  if (slot == kNoSlot) return;
  Order& o = ctx_.store.at(slot);
  OrderBook& book = *books_[o.sym];
  PriceTicks px{0};
  Qty qty{0};
  RejectReason r = ValidateReplace(c, o, book, acct_hash, &px, &qty);
  // More open quantity is more margin (SPEC §4: pre-trade risk counts open buys and
  // sells): a replace that raises the total is checked as a new order of the difference
  // would be. Until 2026-12-07 no replace was, so one could take an account far past its
  // collateral.
  if (r == RejectReason::kNone && risk_ != nullptr && qty > o.qty) {
    r = risk_->CheckReplace(c, acct, o, Qty(qty.value() - o.qty.value()), book);
  }
  if (r != RejectReason::kNone) {
    EmitCancelReject(c.orig, &c.cl, acct, r, &o);
    return;
  }
  // After a replace only the new id names the order; the old one stays taken.
  client_ids_.set_order(orig_rec, 0, kNoSlot);
  const uint32_t new_rec = client_ids_.TryInsert(ClHash(acct_hash, c.cl), acct, c.cl).first;
  client_ids_.set_order(new_rec, o.oid, slot);
  book.Replace(slot, c.cl, px, qty);
}

void Engine::Apply(const MassCancelCmd& c) {
  OrderStore& st = ctx_.store;
  if (c.session != 0 && c.disconnect) {
    st.ForEachLive([&](uint32_t s) {
      const Order& o = st.at(s);
      if (o.session == c.session && books_[o.sym]->state() != TradingState::kClosed) {
        books_[o.sym]->Cancel(s, CancelReason::kDisconnect);
      }
    });
    return;
  }
  std::optional<SymbolId> sym;
  if (!c.sym.empty()) {
    sym = FindSymbol(c.sym.view());
    if (!sym) {
      Event& e = ctx_.Emit(EventType::kRejected);
      e.reject = RejectReason::kUnknownSymbol;
      if (!c.acct.empty()) e.order.acct = InternAccount(c.acct);
      return;
    }
  }
  if (c.session != 0) {  // a mass cancel of the orders one session entered (for its firm)
    const bool any_firm = c.firm.empty();
    const uint32_t firm = any_firm ? NameTable::kNone : firms_.Find(c.firm);
    if (!any_firm && firm == NameTable::kNone) return;  // no order of that firm
    st.ForEachLive([&](uint32_t s) {
      const Order& o = st.at(s);
      if (o.session == c.session && (any_firm || o.firm == firm) && (!sym || o.sym == *sym) &&
          books_[o.sym]->state() != TradingState::kClosed) {
        books_[o.sym]->Cancel(s, CancelReason::kMass);
      }
    });
    return;
  }
  const uint32_t acct = accounts_.Find(c.acct);
  if (acct == NameTable::kNone) return;
  // Every live order in acceptance order, filtered (no per-account list: docs/engine.md).
  st.ForEachLive([&](uint32_t s) {
    const Order& o = st.at(s);
    if (o.acct == acct && (!sym || o.sym == *sym) &&
        books_[o.sym]->state() != TradingState::kClosed) {
      books_[o.sym]->Cancel(s, CancelReason::kMass);
    }
  });
}

void Engine::Apply(const TimeCmd& c) {
  if (now_ != kNoTime && c.ts < now_) return;  // time never goes back
  constexpr Timestamp kNsPerDay = 86'400'000'000'000;
  const bool new_day = now_ != kNoTime && c.ts / kNsPerDay != now_ / kNsPerDay;
  now_ = c.ts;
  if (new_day && config_.client_ids_per_day) ForgetEndedClientIds();
  if (now_ < next_gtd_expiry_) return;
  OrderStore& st = ctx_.store;
  Timestamp next = INT64_MAX;
  st.ForEachLive([&](uint32_t s) {
    const Order& o = st.at(s);
    if (o.tif == TimeInForce::kGtd) {
      if (o.expire <= now_) {
        books_[o.sym]->Cancel(s, CancelReason::kExpired);
      } else {
        next = std::min(next, o.expire);
      }
    }
  });
  next_gtd_expiry_ = next;
}

// With client_ids_per_day a ClOrdID is unique per account for the trading day (docs/fix.md):
// at the UTC date change the ids of orders that have ended are forgotten, so the set holds
// one day's ids and those of live (GTC, GTD) orders, never every id the exchange has seen.
// One pass over the set a day.
void Engine::ForgetEndedClientIds() {
  client_ids_.RetainIf(
      [this](OrderId oid, uint32_t slot) { return oid != 0 && ctx_.store.HoldsLive(slot, oid); });
}

void Engine::Apply(const CloseCmd& c) {
  OrderBook* book = KnownBook(BookOf(c.sym), ctx_);
  if (book == nullptr) return;
  if (book->state() == TradingState::kExpired) return;  // nothing left to close
  OrderStore& st = ctx_.store;
  SymbolId id = book->config().id;
  st.ForEachLive([&](uint32_t s) {
    const Order& o = st.at(s);
    if (o.sym == id && o.tif == TimeInForce::kDay) book->Cancel(s, CancelReason::kExpired);
  });
  book->SetState(TradingState::kClosed);
}

OrderView Engine::ViewOf(const Order& o) const {
  OrderView v;
  FillOrderInfo(&v, o);
  v.sym = o.sym;
  return v;
}

std::optional<OrderView> Engine::FindOrder(std::string_view acct, std::string_view cl) const {
  ClientId id;
  Name acct_name;
  if (!id.Assign(cl) || !acct_name.Assign(acct)) return std::nullopt;
  const uint64_t acct_hash = accounts_.Hash(acct_name);
  const uint32_t acct_id = accounts_.Find(acct_name, acct_hash);
  if (acct_id == NameTable::kNone) return std::nullopt;
  uint32_t slot = LookupLive(acct_hash, acct_id, id);
  if (slot == kNoSlot) return std::nullopt;
  return ViewOf(ctx_.store.at(slot));
}

uint64_t Engine::StateHash() const {
  uint64_t h = 0xCF0E11ull;
  h = HashMix(h, next_oid_);
  h = HashMix(h, next_accept_);
  h = HashMix(h, ctx_.next_event_seq);
  h = HashMix(h, ctx_.next_priority);
  h = HashMix(h, static_cast<uint64_t>(now_));
  h = HashMix(h, ctx_.store.live_count());
  h = HashMix(h, client_ids_.size());
  uint64_t ids = 0;  // order-independent fold of the client-id map
  client_ids_.ForEach([&](AccountId acct, const ClientId& cl, OrderId oid) {
    // Deterministic across processes (the index's own hash is seeded per index).
    uint64_t k = HashMix(0, acct);
    for (uint8_t i = 0; i < cl.len; ++i) k = HashMix(k, static_cast<uint8_t>(cl.data[i]));
    ids += HashMix(k, oid);
  });
  h = HashMix(h, ids);
  for (const auto& book : books_) h = book->Hash(h);
  if (!stp_groups_.empty()) {  // (an engine without the cap, or no group yet, hashes as before)
    uint64_t groups = 0;       // order-independent, as the client ids
    for (const uint64_t key : stp_groups_) groups += HashMix(0x57B, key);
    h = HashMix(h, groups);
  }
  return h;
}

}  // namespace cfx::engine
