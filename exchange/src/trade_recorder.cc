// TradeRecorder: trades, closes, positions and open orders in <data_dir>/trades.
#include "cfx/exchange/trade_recorder.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cfx/json/strict_json.h"
#include "cfx/security_master/derive.h"
#include "cfx/storage/kv_store.h"
#include "cfx/trade_store/format.h"
#include "nlohmann/json.hpp"
#include "order_row.h"

namespace cfx::exchange {
namespace {

using engine::EventType;
using json = nlohmann::json;

// Meta rows `last_trade/<sym>`: the symbol's latest trade, a trade row (TradeRecorder::LastTrade).
constexpr char kLastTradePrefix[] = "last_trade/";

std::string Str(const engine::Name& n) { return std::string(n.view()); }

trade_store::Aggressor ToSettlement(engine::Aggressor a) {
  switch (a) {
    case engine::Aggressor::kBuy:
      return trade_store::Aggressor::kBuy;
    case engine::Aggressor::kSell:
      return trade_store::Aggressor::kSell;
    default:
      return trade_store::Aggressor::kNone;
  }
}

}  // namespace

std::string TradeRecorder::OrderRowText(const OrderStateView& v, uint64_t end_serial) {
  return internal::OrderRowText(v, end_serial);
}

absl::StatusOr<std::unique_ptr<TradeRecorder>> TradeRecorder::Open(
    const std::string& data_dir, size_t ended_kept, common::BusinessCalendar calendar,
    uint64_t map_size_bytes) {
  std::unique_ptr<TradeRecorder> r(new TradeRecorder());
  r->ended_kept_ = ended_kept;
  r->calendar_ = std::move(calendar);
  if (data_dir.empty()) return r;
  storage::KvOptions opt;
  opt.file = trade_store::kTradeStoreFile;
  // Derived from the journal, which re-derives a commit a power loss undid (Load, then
  // ExchangeCore's catch-up): one flush a commit (docs/durability.md, "The trade store").
  opt.no_meta_sync = true;
  opt.map_size_bytes = map_size_bytes;
  opt.map_size_setting = "exchange.trade_store_map_gib in the config";
  auto store = storage::KvStore::Open(data_dir, opt);
  if (!store.ok()) return store.status();
  r->store_ = std::move(*store);
  if (absl::Status s = r->Load(); !s.ok()) return s;
  return r;
}

absl::Status TradeRecorder::Load() {
  auto txn = store_->BeginRead();
  if (!txn.ok()) return txn.status();
  auto last = (*txn)->Get(kMetaTable, trade_store::kLastSeqKey);
  if (!last.ok()) return last.status();
  if (last->has_value()) {
    // Where re-derivation from the journal starts: a damaged value read as a number would
    // re-apply inputs already in the positions (a smaller one) or skip some (a larger one).
    uint64_t seq = 0;
    if (!absl::SimpleAtoi(**last, &seq)) {
      return absl::DataLossError(absl::StrCat(store_->path(), ": meta/last_seq: not a number: '",
                                              absl::CHexEscape(**last), "'"));
    }
    last_seq_.store(seq);
  }
  std::string error;
  absl::Status s = (*txn)->Scan(kPositionsTable, "", [&](absl::string_view k, absl::string_view v) {
    json j = cfx::json::ParseStored({v.data(), v.size()});
    // Every field checked before it is read: a missing or mistyped one threw out of the
    // start (nlohmann's type_error), ending the process without naming the file.
    const bool well_formed = j.is_object() && j.contains("acct") && j["acct"].is_string() &&
                             j.contains("sym") && j["sym"].is_string();
    bool numbers = well_formed;
    for (const char* f : {"qty", "bought", "sold"}) {
      numbers = numbers && j.contains(f) && j[f].is_number_integer();
    }
    if (!numbers) {
      error = absl::StrCat(store_->path(), ": positions/", k, ": malformed");
      return false;
    }
    positions_[{j["acct"].get<std::string>(), j["sym"].get<std::string>()}] =
        Position{engine::Qty(j["qty"].get<int64_t>()), engine::Qty(j["bought"].get<int64_t>()),
                 engine::Qty(j["sold"].get<int64_t>())};
    return true;
  });
  if (!s.ok()) return s;
  if (!error.empty()) return absl::DataLossError(error);
  // The latest trade of each symbol (absent in a store written before 2026-12-06).
  s = (*txn)->Scan(kMetaTable, kLastTradePrefix, [&](absl::string_view k, absl::string_view v) {
    auto t = trade_store::ParseTradeJson(std::string_view(v.data(), v.size()));
    if (!t.ok()) {
      error = absl::StrCat(store_->path(), ": meta/", k, ": ", t.status().message());
      return false;
    }
    last_trades_[t->sym] = *std::move(t);
    return true;
  });
  if (!s.ok()) return s;
  if (!error.empty()) return absl::DataLossError(error);
  // Open orders, so that re-derived rows can re-key or delete rows written before a crash.
  s = (*txn)->Scan(kOrdersTable, "", [&](absl::string_view k, absl::string_view v) {
    OrderStateView o;
    if (!internal::ParseOrderRow(v, &o, nullptr)) {
      error = absl::StrCat(store_->path(), ": orders/", k, ": malformed");
      return false;
    }
    order_keys_[o.oid] = {o.acct, o.cl};
    CountOpen(o, 1);
    orders_[{o.acct, o.cl}] = std::move(o);
    return true;
  });
  if (!s.ok()) return s;
  if (!error.empty()) return absl::DataLossError(error);
  s = (*txn)->Scan(kEndedOrdersTable, "", [&](absl::string_view k, absl::string_view v) {
    EndedOrder e;
    if (!internal::ParseOrderRow(v, &e.view, &e.serial)) {
      error = absl::StrCat(store_->path(), ": ended_orders/", k, ": malformed");
      return false;
    }
    Key key{e.view.acct, e.view.cl};
    ended_by_serial_[e.serial] = key;
    next_ended_serial_ = std::max(next_ended_serial_, e.serial + 1);
    ended_[std::move(key)] = std::move(e);
    return true;
  });
  if (!s.ok()) return s;
  if (!error.empty()) return absl::DataLossError(error);
  // The security master, so that re-derived listings continue its history.
  s = (*txn)->Scan(security_master::kContractsTable, "",
                   [&](absl::string_view k, absl::string_view v) {
                     auto c = security_master::ParseContractJson(std::string_view(v.data(), v.size()));
                     if (!c.ok()) {
                       error = absl::StrCat(store_->path(), ": ", security_master::kContractsTable,
                                            "/", k, ": ", c.status().message());
                       return false;
                     }
                     master_[c->sym].contract = *std::move(c);
                     return true;
                   });
  if (!s.ok()) return s;
  if (!error.empty()) return absl::DataLossError(error);
  s = (*txn)->Scan(security_master::kHistoryTable, "",
                   [&](absl::string_view k, absl::string_view v) {
                     auto e = security_master::ParseContractEventJson(
                         std::string_view(v.data(), v.size()));
                     if (!e.ok()) {
                       error = absl::StrCat(store_->path(), ": ", security_master::kHistoryTable,
                                            "/", k, ": ", e.status().message());
                       return false;
                     }
                     master_[e->sym].history.push_back(*std::move(e));
                     return true;
                   });
  // A cap lowered since the rows were written: forget the oldest now (the deletes go
  // out with the next commit).
  if (s.ok() && error.empty()) ForgetEndedBeyondCap();
  if (!s.ok()) return s;
  if (!error.empty()) return absl::DataLossError(error);
  return CheckLastTradingDays();
}

// A contract's last trading day is one of its terms, fixed at listing (SPEC §3; FIX 541, GET
// /v1/contracts, settlement's final day). A holiday list that moves it expired the contract
// on the new day while the master and settlement kept the old one, and its settlement could
// then never end (a review, 2026-12-07). The start is refused, naming the contract.
absl::Status TradeRecorder::CheckLastTradingDays() const {
  for (const auto& [sym, rec] : master_) {
    const security_master::Contract& c = rec.contract;
    if (!c.last_trading_day || !c.contract) continue;
    const common::Date now = security_master::LastTradingDay(*c.contract, calendar_);
    if (now == *c.last_trading_day) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        store_ != nullptr ? store_->path() : "trade store", ": contract ", sym,
        " was listed with last trading day ", common::FormatDate(*c.last_trading_day),
        ", and the holidays in force now make it ", common::FormatDate(now),
        ": a listed contract's last trading day does not change. Run with the holidays it was "
        "listed under (the data dir's settlement_terms.toml keeps the last ones); a holiday on "
        "a month's last business day can be added for months not yet listed"));
  }
  return absl::OkStatus();
}

void TradeRecorder::PutPosition(const std::string& acct, const std::string& sym) {
  const Position& p = positions_[{acct, sym}];
  if (!store_) return;
  ops_.push_back({kPositionsTable, absl::StrCat(acct, "/", sym),
                  PositionRow{acct, sym, p.qty, p.bought, p.sold}});
}

void TradeRecorder::PutOrder(const OrderStateView& v) {
  if (store_) ops_.push_back({kOrdersTable, absl::StrCat(v.acct, "/", v.cl), OrderRow{v, 0}});
}

void TradeRecorder::DeleteOrder(const std::string& acct, const std::string& cl) {
  if (store_) ops_.push_back({kOrdersTable, absl::StrCat(acct, "/", cl), std::monostate{}});
}

void TradeRecorder::CountOpen(const OrderStateView& v, int sign) {
  if (v.leaves == engine::Qty(0)) return;
  auto it = open_qty_.try_emplace({v.acct, v.sym}).first;
  engine::Qty& q = v.side == engine::Side::kBuy ? it->second.buy : it->second.sell;
  q = engine::Qty(q.value() + sign * v.leaves.value());
  if (it->second.buy == engine::Qty(0) && it->second.sell == engine::Qty(0)) open_qty_.erase(it);
}

void TradeRecorder::UpdateOrder(const engine::OrderInfo& info, const Outcome& o,
                                const OrderDetail& d, std::string_view acct) {
  if (info.oid == 0) return;
  auto it = order_keys_.find(info.oid);
  const Key key{std::string(acct), std::string(info.cl.view())};
  if (it != order_keys_.end() && it->second != key) {  // replaced: the new id names it
    auto old = orders_.find(it->second);
    OrderStateView moved = old != orders_.end() ? old->second : OrderStateView{};
    DeleteOrder(it->second.first, it->second.second);
    if (old != orders_.end()) orders_.erase(old);
    orders_[key] = moved;
    it->second = key;
  }
  if (engine::Ended(info.status)) {
    auto live = orders_.find(key);
    OrderStateView v = live != orders_.end() ? std::move(live->second) : OrderStateView{};
    if (live != orders_.end()) {
      CountOpen(v, -1);
      orders_.erase(live);
    }
    DeleteOrder(key.first, key.second);
    if (it != order_keys_.end()) order_keys_.erase(it);
    Fill(info, o, d, key, &v);
    RememberEnded(std::move(v));
    return;
  }
  OrderStateView& v = orders_[key];
  CountOpen(v, -1);  // a fresh view has no leaves: nothing
  Fill(info, o, d, key, &v);
  CountOpen(v, 1);
  order_keys_[info.oid] = key;
  PutOrder(v);
}

void TradeRecorder::ForgetEndedBeyondCap() {
  while (ended_.size() > ended_kept_) {
    auto oldest = ended_by_serial_.begin();
    if (store_) {
      ops_.push_back({kEndedOrdersTable,
                      absl::StrCat(oldest->second.first, "/", oldest->second.second),
                      std::monostate{}});
    }
    ended_.erase(oldest->second);
    ended_by_serial_.erase(oldest);
  }
}

void TradeRecorder::RememberEnded(OrderStateView v) {
  if (ended_kept_ == 0) return;
  Key key{v.acct, v.cl};
  EndedOrder& e = ended_[key];
  if (e.serial) ended_by_serial_.erase(e.serial);  // the id ended before: the newest wins
  e.serial = next_ended_serial_++;
  e.view = std::move(v);
  ended_by_serial_[e.serial] = key;
  if (store_) {
    ops_.push_back(
        {kEndedOrdersTable, absl::StrCat(key.first, "/", key.second), OrderRow{e.view, e.serial}});
  }
  ForgetEndedBeyondCap();
}

void TradeRecorder::Fill(const engine::OrderInfo& info, const Outcome& o, const OrderDetail& d,
                         const Key& key, OrderStateView* out) {
  OrderStateView& v = *out;
  v.oid = info.oid;
  v.acct = key.first;
  v.cl = key.second;
  if (o.event.has_sym) v.sym = Str(o.sym);
  v.side = info.side;
  v.status = info.status;
  if (d.has_detail || !v.detail.has_detail) v.detail = d;
  v.cum = info.cum;
  v.leaves = info.leaves;
  v.notional = info.notional;
  if (o.event.type == EventType::kCanceled) {
    v.expired = o.event.cancel == engine::CancelReason::kExpired;
  }
}

void TradeRecorder::OnEvent(const Outcome& o) {
  const engine::Event& e = o.event;
  switch (e.type) {
    case EventType::kTrade: {
      trade_store::Trade t;
      t.seq = static_cast<int64_t>(e.seq);
      t.ts = o.ts == engine::kNoTime ? 0 : o.ts / 1000;
      t.sym = Str(o.sym);
      t.px_ticks = common::PriceTicks(e.px);
      t.qty = common::Qty(e.qty);
      t.buy_acct = Str(o.acct);
      t.sell_acct = Str(o.other_acct);
      t.buy_firm = Str(o.firm);
      t.sell_firm = Str(o.other_firm);
      t.aggressor = ToSettlement(e.aggressor);
      if (store_) {
        ops_.push_back({trade_store::kTradesTable, trade_store::TradeKey(t.seq), t});
        ops_.push_back({kMetaTable, std::string(kLastTradePrefix) + t.sym, t});
      }
      last_trades_[t.sym] = t;
      Position& b = positions_[{t.buy_acct, t.sym}];
      b.qty += e.qty;
      b.bought += e.qty;
      Position& s = positions_[{t.sell_acct, t.sym}];
      s.qty -= e.qty;
      s.sold += e.qty;
      PutPosition(t.buy_acct, t.sym);
      PutPosition(t.sell_acct, t.sym);
      trades_.fetch_add(1, std::memory_order_relaxed);
      UpdateOrder(e.order, o, o.detail(), o.acct.view());
      UpdateOrder(e.other, o, o.other_detail(), o.other_acct.view());
      break;
    }
    case EventType::kAccepted:
    case EventType::kCanceled:
    case EventType::kReplaced:
    case EventType::kTriggered:
      UpdateOrder(e.order, o, o.detail(), o.acct.view());
      break;
    default:
      break;
  }
}

void TradeRecorder::PutContract(const security_master::Contract& c,
                                const security_master::ContractEvent& e) {
  master_version_.fetch_add(1, std::memory_order_release);
  if (!store_) return;
  ops_.push_back({security_master::kContractsTable, c.sym, security_master::FormatContractJson(c)});
  ops_.push_back({security_master::kHistoryTable, security_master::HistoryKey(c.sym, e.seq),
                  security_master::FormatContractEventJson(e)});
}

void TradeRecorder::OnListing(uint64_t seq, const Outcome& o) {
  security_master::ListingInput in;
  in.seq = seq;
  if (o.ts != engine::kNoTime) in.ts = o.ts / 1000;
  in.sym = Str(o.sym);
  if (o.listing_has_ref) in.band_ref = common::PriceTicks(o.listing_ref);
  in.max_order_qty = common::Qty(o.listing_max_order_qty);
  auto it = master_.find(in.sym);
  std::optional<security_master::Contract> row;
  if (it != master_.end()) row = it->second.contract;
  std::optional<security_master::ContractEvent> e = security_master::ApplyListing(in, calendar_, &row);
  if (!e) return;
  security_master::ContractRecord& rec = master_[in.sym];
  rec.contract = *std::move(row);
  rec.history.push_back(*e);
  PutContract(rec.contract, *e);
}

void TradeRecorder::OnExpiry(uint64_t seq, const Outcome& o) {
  auto it = master_.find(o.sym.view());
  if (it == master_.end()) return;
  std::optional<common::TimestampUs> ts;
  if (o.ts != engine::kNoTime) ts = o.ts / 1000;
  std::optional<security_master::ContractEvent> e =
      security_master::ApplyExpiry(seq, ts, &it->second.contract);
  if (!e) return;
  it->second.history.push_back(*e);
  PutContract(it->second.contract, *e);
}

std::vector<security_master::Contract> TradeRecorder::Contracts() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<security_master::Contract> out;
  out.reserve(master_.size());
  for (const auto& [sym, rec] : master_) out.push_back(rec.contract);
  return out;
}

std::optional<security_master::ContractRecord> TradeRecorder::FindContract(
    std::string_view sym) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = master_.find(sym);
  if (it == master_.end()) return std::nullopt;
  return it->second;
}

void TradeRecorder::Add(uint64_t seq, const Outcome& o) {
  if (seq <= last_seq()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (o.kind == OutcomeKind::kListing) {
    OnListing(seq, o);
    return;
  }
  if (o.kind == OutcomeKind::kEvent && o.event.type == EventType::kStateChanged &&
      o.event.state == engine::TradingState::kExpired) {
    OnExpiry(seq, o);
  }
  if (o.kind == OutcomeKind::kClose) {
    if (!store_) return;
    trade_store::CloseQuote q;
    if (o.has_bid) q.bid_ticks = common::PriceTicks(o.bid);
    if (o.has_ask) q.ask_ticks = common::PriceTicks(o.ask);
    const common::Date d{o.close_date_days};
    ops_.push_back({trade_store::kClosesTable, trade_store::CloseKey(o.sym.view(), d),
                    trade_store::FormatCloseJson(o.sym.view(), d, q)});
    return;
  }
  OnEvent(o);
}

void TradeRecorder::EndInput(uint64_t seq) {
  if (seq <= last_seq()) return;
  pending_seq_ = seq;
  ++pending_inputs_;
}

void TradeRecorder::PutMeta(const std::string& key, std::string value) {
  if (store_) ops_.push_back({kMetaTable, key, std::move(value)});
}

std::optional<trade_store::Trade> TradeRecorder::LastTrade(std::string_view sym) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = last_trades_.find(sym);
  if (it == last_trades_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<std::optional<std::string>> TradeRecorder::GetMeta(const std::string& key) const {
  if (!store_) return std::optional<std::string>();
  auto txn = store_->BeginRead();
  if (!txn.ok()) return txn.status();
  return (*txn)->Get(kMetaTable, key);
}

std::string TradeRecorder::RowText(const decltype(Op::value)& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* o = std::get_if<OrderRow>(&value)) return OrderRowText(o->view, o->end_serial);
  if (const auto* t = std::get_if<trade_store::Trade>(&value))
    return trade_store::FormatTradeJson(*t);
  if (const auto* p = std::get_if<PositionRow>(&value)) {
    json j = {{"acct", p->acct},
              {"sym", p->sym},
              {"qty", p->qty.value()},
              {"bought", p->bought.value()},
              {"sold", p->sold.value()}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return std::string();
}

void TradeRecorder::SeedOrders(const std::vector<OrderStateView>& orders) {
  std::lock_guard<std::mutex> lock(mu_);
  orders_.clear();
  order_keys_.clear();
  open_qty_.clear();
  for (const OrderStateView& v : orders) {
    CountOpen(v, 1);
    orders_[{v.acct, v.cl}] = v;
    order_keys_[v.oid] = {v.acct, v.cl};
  }
}

std::vector<PositionView> TradeRecorder::Positions(std::string_view account) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, PositionView> out;
  const std::string acct(account);
  for (auto it = positions_.lower_bound({acct, ""});
       it != positions_.end() && it->first.first == acct; ++it) {
    PositionView& v = out[it->first.second];
    v.sym = it->first.second;
    v.qty = it->second.qty;
    v.bought = it->second.bought;
    v.sold = it->second.sold;
  }
  for (auto it = open_qty_.lower_bound({acct, ""});
       it != open_qty_.end() && it->first.first == acct; ++it) {
    PositionView& v = out[it->first.second];
    v.sym = it->first.second;
    v.open_buy_qty = it->second.buy;
    v.open_sell_qty = it->second.sell;
  }
  std::vector<PositionView> result;
  for (auto& [sym, v] : out) result.push_back(std::move(v));
  return result;
}

std::optional<OrderStateView> TradeRecorder::FindOrder(std::string_view account,
                                                       std::string_view cl) const {
  std::lock_guard<std::mutex> lock(mu_);
  const Key key{std::string(account), std::string(cl)};
  if (auto it = orders_.find(key); it != orders_.end()) return it->second;
  if (auto it = ended_.find(key); it != ended_.end()) return it->second.view;
  return std::nullopt;
}

}  // namespace cfx::exchange
