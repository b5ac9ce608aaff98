#include "cfx/trade_store/format.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/common/decimal.h"
#include "cfx/json/strict_json.h"

namespace cfx::trade_store {
namespace {

using nlohmann::json;

// A stored value as a message shows it: escaped (no raw byte of a damaged record reaches a
// terminal or a log) and cut to its first 120 bytes.
std::string Shown(std::string_view text) {
  constexpr size_t kShown = 120;
  std::string out = absl::CHexEscape(absl::string_view(text.data(), std::min(text.size(), kShown)));
  if (text.size() > kShown) absl::StrAppend(&out, "... (", text.size(), " bytes)");
  return out;
}

absl::Status Bad(std::string_view what, std::string_view json_text) {
  return absl::InvalidArgumentError(
      absl::StrCat("trade store: ", std::string(what), " in ", Shown(json_text)));
}

absl::StatusOr<std::string> GetString(const json& j, const char* key, std::string_view text) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string())
    return Bad(absl::StrCat("missing or non-string '", key, "'"), text);
  return it->get<std::string>();
}

absl::StatusOr<std::optional<common::PriceTicks>> GetPrice(const json& j, const char* key,
                                                           std::string_view text) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<common::PriceTicks>();
  if (!it->is_string()) return Bad(absl::StrCat("non-string '", key, "'"), text);
  auto ticks = common::ParseScaled(it->get<std::string>(), 3);
  // Not the parser's message: it repeats the raw value, which Shown() would not escape.
  if (!ticks.ok()) return Bad(absl::StrCat("bad '", key, "' (not a price of 3 decimals)"), text);
  return std::optional<common::PriceTicks>(common::PriceTicks(*ticks));
}

}  // namespace

std::string TradeKey(int64_t seq) { return absl::StrFormat("%016d", seq); }

std::string CloseKey(std::string_view sym, common::Date date) {
  return absl::StrCat(std::string(sym), "/", common::FormatDate(date));
}

std::string FormatTradeJson(const Trade& t) {
  json j;
  j["seq"] = t.seq;
  j["ts"] = common::FormatTimestamp(t.ts);
  j["sym"] = t.sym;
  j["px"] = common::FormatScaled(t.px_ticks.value(), 3);
  j["qty"] = t.qty.value();
  j["buy_acct"] = t.buy_acct;
  j["sell_acct"] = t.sell_acct;
  j["buy_firm"] = t.buy_firm;
  j["sell_firm"] = t.sell_firm;
  j["aggressor"] = t.aggressor == Aggressor::kBuy    ? "buy"
                   : t.aggressor == Aggressor::kSell ? "sell"
                                                     : "none";
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

absl::StatusOr<Trade> ParseTradeJson(std::string_view text) {
  json j = cfx::json::ParseStored(text);  // a raw NUL is damage too
  if (!j.is_object()) return Bad("not a JSON object", text);
  Trade t;
  auto seq = j.find("seq");
  if (seq == j.end() || !seq->is_number_integer()) return Bad("missing or non-integer 'seq'", text);
  t.seq = seq->get<int64_t>();
  auto ts = GetString(j, "ts", text);
  if (!ts.ok()) return ts.status();
  auto parsed_ts = common::ParseTimestamp(*ts);
  if (!parsed_ts.ok()) return Bad("bad 'ts'", text);
  t.ts = *parsed_ts;
  auto sym = GetString(j, "sym", text);
  if (!sym.ok()) return sym.status();
  t.sym = *std::move(sym);
  auto px = GetPrice(j, "px", text);
  if (!px.ok()) return px.status();
  if (!px->has_value() || **px <= common::PriceTicks(0)) {
    return Bad("missing or non-positive 'px'", text);
  }
  t.px_ticks = **px;
  auto qty = j.find("qty");
  if (qty == j.end() || !qty->is_number_integer() || qty->get<int64_t>() <= 0) {
    return Bad("missing or non-positive integer 'qty'", text);
  }
  t.qty = common::Qty(qty->get<int64_t>());
  auto buy = GetString(j, "buy_acct", text);
  if (!buy.ok()) return buy.status();
  auto sell = GetString(j, "sell_acct", text);
  if (!sell.ok()) return sell.status();
  t.buy_acct = *std::move(buy);
  t.sell_acct = *std::move(sell);
  // Firms and aggressor are informational for settlement: optional here.
  if (auto f = j.find("buy_firm"); f != j.end() && f->is_string())
    t.buy_firm = f->get<std::string>();
  if (auto f = j.find("sell_firm"); f != j.end() && f->is_string())
    t.sell_firm = f->get<std::string>();
  if (auto a = j.find("aggressor"); a != j.end() && a->is_string()) {
    std::string s = a->get<std::string>();
    if (s == "buy") {
      t.aggressor = Aggressor::kBuy;
    } else if (s == "sell") {
      t.aggressor = Aggressor::kSell;
    } else if (s == "none") {
      t.aggressor = Aggressor::kNone;
    } else {
      return Bad("bad 'aggressor'", text);
    }
  }
  return t;
}

std::string FormatCloseJson(std::string_view sym, common::Date date, const CloseQuote& q) {
  json j;
  j["sym"] = std::string(sym);
  j["date"] = common::FormatDate(date);
  j["bid"] = q.bid_ticks ? json(common::FormatScaled(q.bid_ticks->value(), 3)) : json(nullptr);
  j["ask"] = q.ask_ticks ? json(common::FormatScaled(q.ask_ticks->value(), 3)) : json(nullptr);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

absl::StatusOr<CloseQuote> ParseCloseJson(std::string_view text) {
  json j = cfx::json::ParseStored(text);
  if (!j.is_object()) return Bad("not a JSON object", text);
  CloseQuote q;
  auto bid = GetPrice(j, "bid", text);
  if (!bid.ok()) return bid.status();
  auto ask = GetPrice(j, "ask", text);
  if (!ask.ok()) return ask.status();
  q.bid_ticks = *bid;
  q.ask_ticks = *ask;
  return q;
}

}  // namespace cfx::trade_store
