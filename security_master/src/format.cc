#include "cfx/security_master/format.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/common/decimal.h"

namespace cfx::security_master {
namespace {

using ojson = nlohmann::ordered_json;

// A stored value as a message shows it: escaped (no raw byte of a damaged record reaches a
// terminal or a log) and cut to its first 120 bytes.
std::string Shown(std::string_view text) {
  constexpr size_t kShown = 120;
  std::string out = absl::CHexEscape(absl::string_view(text.data(), std::min(text.size(), kShown)));
  if (text.size() > kShown) absl::StrAppend(&out, "... (", text.size(), " bytes)");
  return out;
}

absl::Status Bad(std::string_view what, std::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("security master: ", std::string(what), " in ", Shown(text)));
}

ojson OptPrice(const std::optional<common::PriceTicks>& p) {
  return p ? ojson(common::FormatScaled(p->value(), 3)) : ojson(nullptr);
}
ojson OptDate(const std::optional<common::Date>& d) {
  return d ? ojson(common::FormatDate(*d)) : ojson(nullptr);
}

std::string Dump(const ojson& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Field readers: each returns the first problem naming the key.
class Reader {
 public:
  Reader(const ojson& j, std::string_view text) : j_(j), text_(text) {}

  absl::StatusOr<std::string> String(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end() || !it->is_string())
      return Bad(absl::StrCat("missing or non-string '", key, "'"), text_);
    return it->get<std::string>();
  }
  absl::StatusOr<int64_t> Integer(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end() || !it->is_number_integer())
      return Bad(absl::StrCat("missing or non-integer '", key, "'"), text_);
    return it->get<int64_t>();
  }
  // A key that may be null: nullopt for null, else the string.
  absl::StatusOr<std::optional<std::string>> OptString(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end()) return Bad(absl::StrCat("missing '", key, "'"), text_);
    if (it->is_null()) return std::optional<std::string>();
    if (!it->is_string()) return Bad(absl::StrCat("non-string '", key, "'"), text_);
    return std::optional<std::string>(it->get<std::string>());
  }
  absl::StatusOr<std::optional<common::PriceTicks>> OptPrice(const char* key) const {
    auto s = OptString(key);
    if (!s.ok()) return s.status();
    if (!s->has_value()) return std::optional<common::PriceTicks>();
    auto ticks = common::ParseScaled(**s, 3);
    if (!ticks.ok() || *ticks <= 0) return Bad(absl::StrCat("bad '", key, "'"), text_);
    return std::optional<common::PriceTicks>(common::PriceTicks(*ticks));
  }
  absl::StatusOr<std::optional<common::Date>> OptDate(const char* key) const {
    auto s = OptString(key);
    if (!s.ok()) return s.status();
    if (!s->has_value()) return std::optional<common::Date>();
    auto d = common::ParseDate(**s);
    if (!d.ok()) return Bad(absl::StrCat("bad '", key, "'"), text_);
    return std::optional<common::Date>(*d);
  }

 private:
  const ojson& j_;
  std::string_view text_;
};

#define CFX_ASSIGN_OR_RETURN_SM(lhs, expr) \
  {                                        \
    auto _v = (expr);                      \
    if (!_v.ok()) return _v.status();      \
    lhs = *std::move(_v);                  \
  }

}  // namespace

const char* ContractStateName(ContractState s) {
  return s == ContractState::kListed ? "listed" : "expired";
}

const char* EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kListed:
      return "listed";
    case EventKind::kReferenceChanged:
      return "reference_changed";
    case EventKind::kTermsChanged:
      return "terms_changed";
    case EventKind::kExpired:
      return "expired";
  }
  return "listed";
}

std::string HistoryKey(std::string_view sym, uint64_t seq) {
  return absl::StrFormat("%s/%016d", std::string(sym), seq);
}

std::string FormatContractJson(const Contract& c) {
  ojson j;
  j["sym"] = c.sym;
  j["grade"] = c.contract ? ojson(c.contract->grade.Key()) : ojson(nullptr);
  j["month"] = c.contract ? ojson(absl::StrFormat("%04d-%02d", c.contract->year,
                                                  c.contract->month))
                          : ojson(nullptr);
  j["tick"] = common::FormatScaled(c.tick.value(), 3);
  j["multiplier"] = c.multiplier;
  j["max_order_qty"] = c.max_order_qty.value();
  j["band_ref"] = OptPrice(c.band_ref);
  j["listing_date"] = OptDate(c.listing_date);
  j["last_trading_day"] = OptDate(c.last_trading_day);
  j["state"] = ContractStateName(c.state);
  j["listed_seq"] = c.listed_seq;
  j["updated_seq"] = c.updated_seq;
  return Dump(j);
}

absl::StatusOr<Contract> ParseContractJson(std::string_view text) {
  // A NUL is in no JSON text; nlohmann would stop reading at it (`{...}\0junk` passed).
  if (text.find('\0') != std::string_view::npos) return Bad("not a JSON object", text);
  ojson j = ojson::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Bad("not a JSON object", text);
  Reader r(j, text);
  Contract c;
  CFX_ASSIGN_OR_RETURN_SM(c.sym, r.String("sym"));
  if (auto parsed = common::ParseSymbol(c.sym); parsed.ok()) c.contract = *parsed;
  std::string tick;
  CFX_ASSIGN_OR_RETURN_SM(tick, r.String("tick"));
  auto tick_ticks = common::ParseScaled(tick, 3);
  if (!tick_ticks.ok() || *tick_ticks <= 0) return Bad("bad 'tick'", text);
  c.tick = common::PriceTicks(*tick_ticks);
  CFX_ASSIGN_OR_RETURN_SM(c.multiplier, r.Integer("multiplier"));
  int64_t max_qty = 0;
  CFX_ASSIGN_OR_RETURN_SM(max_qty, r.Integer("max_order_qty"));
  c.max_order_qty = common::Qty(max_qty);
  CFX_ASSIGN_OR_RETURN_SM(c.band_ref, r.OptPrice("band_ref"));
  CFX_ASSIGN_OR_RETURN_SM(c.listing_date, r.OptDate("listing_date"));
  CFX_ASSIGN_OR_RETURN_SM(c.last_trading_day, r.OptDate("last_trading_day"));
  std::string state;
  CFX_ASSIGN_OR_RETURN_SM(state, r.String("state"));
  if (state == "listed") {
    c.state = ContractState::kListed;
  } else if (state == "expired") {
    c.state = ContractState::kExpired;
  } else {
    return Bad("bad 'state'", text);
  }
  int64_t seq = 0;
  CFX_ASSIGN_OR_RETURN_SM(seq, r.Integer("listed_seq"));
  c.listed_seq = static_cast<uint64_t>(seq);
  CFX_ASSIGN_OR_RETURN_SM(seq, r.Integer("updated_seq"));
  c.updated_seq = static_cast<uint64_t>(seq);
  // What no listing writes: a row this damaged is refused, never settled on (until
  // 2026-12-07 such a row was read as written, and a last trading day mid-month expired the
  // contract there, at an FSP of half its month: a review).
  if (c.multiplier <= 0) return Bad("'multiplier' not positive", text);
  if (c.max_order_qty <= common::Qty(0)) return Bad("'max_order_qty' not positive", text);
  if (c.last_trading_day) {
    if (!c.contract) return Bad("a last trading day for a symbol with no month", text);
    int y = 0, m = 0, d = 0;
    common::YmdFromDate(*c.last_trading_day, &y, &m, &d);
    if (y != c.contract->year || m != c.contract->month) {
      return Bad("'last_trading_day' outside the symbol's month", text);
    }
  }
  return c;
}

std::string FormatContractEventJson(const ContractEvent& e) {
  ojson j;
  j["seq"] = e.seq;
  j["ts"] = e.ts ? ojson(common::FormatTimestamp(*e.ts)) : ojson(nullptr);
  j["sym"] = e.sym;
  j["event"] = EventKindName(e.kind);
  j["band_ref"] = OptPrice(e.band_ref);
  j["max_order_qty"] = e.max_order_qty.value();
  return Dump(j);
}

absl::StatusOr<ContractEvent> ParseContractEventJson(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return Bad("not a JSON object", text);
  ojson j = ojson::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Bad("not a JSON object", text);
  Reader r(j, text);
  ContractEvent e;
  int64_t seq = 0;
  CFX_ASSIGN_OR_RETURN_SM(seq, r.Integer("seq"));
  e.seq = static_cast<uint64_t>(seq);
  std::optional<std::string> ts;
  CFX_ASSIGN_OR_RETURN_SM(ts, r.OptString("ts"));
  if (ts) {
    auto parsed = common::ParseTimestamp(*ts);
    if (!parsed.ok()) return Bad("bad 'ts'", text);
    e.ts = *parsed;
  }
  CFX_ASSIGN_OR_RETURN_SM(e.sym, r.String("sym"));
  std::string kind;
  CFX_ASSIGN_OR_RETURN_SM(kind, r.String("event"));
  bool known = false;
  for (EventKind k : {EventKind::kListed, EventKind::kReferenceChanged, EventKind::kTermsChanged,
                      EventKind::kExpired}) {
    if (kind == EventKindName(k)) {
      e.kind = k;
      known = true;
    }
  }
  if (!known) return Bad("bad 'event'", text);
  CFX_ASSIGN_OR_RETURN_SM(e.band_ref, r.OptPrice("band_ref"));
  int64_t max_qty = 0;
  CFX_ASSIGN_OR_RETURN_SM(max_qty, r.Integer("max_order_qty"));
  e.max_order_qty = common::Qty(max_qty);
  return e;
}

}  // namespace cfx::security_master
