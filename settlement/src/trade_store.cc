#include "cfx/settlement/trade_store.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/common/decimal.h"
#include "cfx/common/kv_store.h"

namespace cfx::settlement {
namespace {

using nlohmann::json;

absl::Status Bad(std::string_view what, std::string_view json_text) {
  return absl::InvalidArgumentError(
      absl::StrCat("trade store: ", std::string(what), " in ", std::string(json_text)));
}

absl::StatusOr<std::string> GetString(const json& j, const char* key, std::string_view text) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return Bad(absl::StrCat("missing or non-string '", key, "'"), text);
  return it->get<std::string>();
}

absl::StatusOr<std::optional<int64_t>> GetPrice(const json& j, const char* key,
                                                std::string_view text) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<int64_t>();
  if (!it->is_string()) return Bad(absl::StrCat("non-string '", key, "'"), text);
  auto ticks = ParseScaled(it->get<std::string>(), 3);
  if (!ticks.ok()) return Bad(absl::StrCat("bad '", key, "': ", ticks.status().message()), text);
  return std::optional<int64_t>(*ticks);
}

// Reads one transaction's view of the engine's trade store.
class LmdbTradeSource : public TradeSource {
 public:
  explicit LmdbTradeSource(std::unique_ptr<KvStore> store) : store_(std::move(store)) {}

  absl::Status ForEachTrade(TimestampUs from, TimestampUs to,
                            const std::function<absl::Status(const Trade&)>& fn) override {
    auto txn = store_->BeginRead();
    if (!txn.ok()) return txn.status();
    absl::Status inner;
    // Keys are zero-padded sequence numbers, so key order is sequence order. The whole
    // table is scanned: the contract does not promise that `ts` never goes backwards.
    absl::Status scan = (*txn)->Scan(kTradesTable, "", [&](absl::string_view key,
                                                            absl::string_view value) {
      auto trade = ParseTradeJson(std::string_view(value.data(), value.size()));
      if (!trade.ok()) {
        inner = absl::InvalidArgumentError(absl::StrCat(store_->path(), " trades/",
                                                        std::string(key), ": ",
                                                        trade.status().message()));
        return false;
      }
      if (trade->ts < from || trade->ts >= to) return true;
      inner = fn(*trade);
      return inner.ok();
    });
    if (!scan.ok()) return scan;
    return inner;
  }

  absl::StatusOr<std::optional<CloseQuote>> Close(const std::string& sym, Date date) override {
    auto txn = store_->BeginRead();
    if (!txn.ok()) return txn.status();
    std::string key = CloseKey(sym, date);
    auto value = (*txn)->Get(kClosesTable, key);
    if (!value.ok()) return value.status();
    if (!value->has_value()) return std::optional<CloseQuote>();
    auto quote = ParseCloseJson(**value);
    if (!quote.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(store_->path(), " closes/", key, ": ", quote.status().message()));
    }
    return std::optional<CloseQuote>(*quote);
  }

 private:
  std::unique_ptr<KvStore> store_;
};

}  // namespace

std::string TradeKey(int64_t seq) { return absl::StrFormat("%016d", seq); }

std::string CloseKey(std::string_view sym, Date date) {
  return absl::StrCat(std::string(sym), "/", FormatDate(date));
}

std::string FormatTradeJson(const Trade& t) {
  json j;
  j["seq"] = t.seq;
  j["ts"] = FormatTimestamp(t.ts);
  j["sym"] = t.sym;
  j["px"] = FormatScaled(t.px_ticks, 3);
  j["qty"] = t.qty;
  j["buy_acct"] = t.buy_acct;
  j["sell_acct"] = t.sell_acct;
  j["buy_firm"] = t.buy_firm;
  j["sell_firm"] = t.sell_firm;
  j["aggressor"] = t.aggressor == Aggressor::kBuy    ? "buy"
                   : t.aggressor == Aggressor::kSell ? "sell"
                                                     : "none";
  return j.dump();
}

absl::StatusOr<Trade> ParseTradeJson(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Bad("not a JSON object", text);
  Trade t;
  auto seq = j.find("seq");
  if (seq == j.end() || !seq->is_number_integer()) return Bad("missing or non-integer 'seq'", text);
  t.seq = seq->get<int64_t>();
  auto ts = GetString(j, "ts", text);
  if (!ts.ok()) return ts.status();
  auto parsed_ts = ParseTimestamp(*ts);
  if (!parsed_ts.ok()) return Bad("bad 'ts'", text);
  t.ts = *parsed_ts;
  auto sym = GetString(j, "sym", text);
  if (!sym.ok()) return sym.status();
  t.sym = *std::move(sym);
  auto px = GetPrice(j, "px", text);
  if (!px.ok()) return px.status();
  if (!px->has_value() || **px <= 0) return Bad("missing or non-positive 'px'", text);
  t.px_ticks = **px;
  auto qty = j.find("qty");
  if (qty == j.end() || !qty->is_number_integer() || qty->get<int64_t>() <= 0) {
    return Bad("missing or non-positive integer 'qty'", text);
  }
  t.qty = qty->get<int64_t>();
  auto buy = GetString(j, "buy_acct", text);
  if (!buy.ok()) return buy.status();
  auto sell = GetString(j, "sell_acct", text);
  if (!sell.ok()) return sell.status();
  t.buy_acct = *std::move(buy);
  t.sell_acct = *std::move(sell);
  // Firms and aggressor are informational for settlement: optional here.
  if (auto f = j.find("buy_firm"); f != j.end() && f->is_string()) t.buy_firm = f->get<std::string>();
  if (auto f = j.find("sell_firm"); f != j.end() && f->is_string()) t.sell_firm = f->get<std::string>();
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

std::string FormatCloseJson(std::string_view sym, Date date, const CloseQuote& q) {
  json j;
  j["sym"] = std::string(sym);
  j["date"] = FormatDate(date);
  j["bid"] = q.bid_ticks ? json(FormatScaled(*q.bid_ticks, 3)) : json(nullptr);
  j["ask"] = q.ask_ticks ? json(FormatScaled(*q.ask_ticks, 3)) : json(nullptr);
  return j.dump();
}

absl::StatusOr<CloseQuote> ParseCloseJson(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
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

absl::StatusOr<std::unique_ptr<TradeSource>> OpenLmdbTradeSource(const std::string& data_dir) {
  auto store = KvStore::Open(data_dir, KvOptions{.file = kTradeStoreFile});
  if (!store.ok()) return store.status();
  return std::unique_ptr<TradeSource>(new LmdbTradeSource(*std::move(store)));
}

void MemoryTradeSource::AddTrade(Trade trade) {
  int64_t seq = trade.seq;
  trades_[seq] = std::move(trade);
}

void MemoryTradeSource::SetClose(const std::string& sym, Date date, CloseQuote quote) {
  closes_[{sym, date}] = quote;
}

absl::Status MemoryTradeSource::ForEachTrade(TimestampUs from, TimestampUs to,
                                             const std::function<absl::Status(const Trade&)>& fn) {
  for (const auto& [seq, trade] : trades_) {
    if (trade.ts < from || trade.ts >= to) continue;
    absl::Status s = fn(trade);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<CloseQuote>> MemoryTradeSource::Close(const std::string& sym,
                                                                   Date date) {
  auto it = closes_.find({sym, date});
  if (it == closes_.end()) return std::optional<CloseQuote>();
  return std::optional<CloseQuote>(it->second);
}

absl::StatusOr<std::optional<int64_t>> MemoryFixSource::FixE4(const std::string& grade, Date date) {
  auto it = fixes_.find({grade, date});
  if (it == fixes_.end()) return std::optional<int64_t>();
  return std::optional<int64_t>(it->second);
}

}  // namespace cfx::settlement
