// The demo's market makers and takers (demo_firms.h).
#include "demo_firms.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"

namespace cfx::demo {
namespace {

const char* KindOf(const FixOrder& o) {
  if (o.ord_type == OrdType::kMarket) return "market";
  if (o.ord_type == OrdType::kStop) return "stop";
  if (o.ord_type == OrdType::kStopLimit) return "stop_limit";
  if (o.display_qty > 0) return "iceberg";
  switch (o.tif) {
    case TimeInForce::kIoc:
      return "limit ioc";
    case TimeInForce::kFok:
      return "limit fok";
    case TimeInForce::kGtc:
      return "limit gtc";
    default:
      return "limit day";
  }
}

}  // namespace

absl::Status Firm::SendOrder(FixOrder& o, const std::string& kind) {
  o.cl_ord_id = session_->NextId();
  ++counts_->orders;
  ++counts_->orders_by_type[kind.empty() ? KindOf(o) : kind];
  return session_->Order(o);
}

absl::Status Firm::SendCancel(const std::string& orig, const std::string& sym) {
  ++counts_->cancels;
  return session_->Cancel(session_->NextId(), orig, sym);
}

absl::Status Firm::SendReplace(FixReplace& r) {
  r.cl_ord_id = session_->NextId();
  ++counts_->replaces;
  return session_->Replace(r);
}

const std::string& Firm::AccountFor(size_t index) const {
  const std::vector<std::string>& a = session_->accounts();
  return a[index % a.size()];
}

namespace {

class MarketMaker : public Firm {
 public:
  MarketMaker(DemoSession* s, MakerParams p, Rng* rng, RequestCounts* c)
      : Firm(s, "market maker", rng, c), p_(p) {}

  std::string Params() const override {
    return absl::StrCat("half-spread ", p_.half_spread, " ticks, size ", p_.size,
                        ", inventory limit ", p_.limit, " per contract");
  }

  absl::Status PreOpen(std::vector<LiveContract>& contracts) override {
    // Two-sided quotes leaning up or down, so that one maker's bid crosses another's ask
    // and the opening auction has something to match; never its own ask (the auction
    // prices self-crossing volume that STP then cancels, and leaves the rest crossed:
    // docs/engine.md, "Auction and STP").
    for (size_t i = 0; i < contracts.size(); ++i) {
      const LiveContract& c = contracts[i];
      const int64_t lean = rng_->Uniform(-4, 4);
      if (absl::Status s = Quote(i, c, Side::kBuy, c.mid + lean - 1, p_.size); !s.ok()) return s;
      if (absl::Status s = Quote(i, c, Side::kSell, c.mid + lean + 1, p_.size); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Amend(std::vector<LiveContract>& contracts) override {
    quoted_.clear();
    const std::map<std::string, int64_t> pos = session_->Positions();
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < contracts.size(); ++i) index[contracts[i].sym] = i;
    for (const auto& [id, o] : session_->LiveOrders()) {
      auto it = index.find(o.symbol);
      const auto key = std::make_pair(o.symbol, o.side);
      if (it == index.end() || quoted_.count(key) || o.price_ticks == 0) {
        if (absl::Status s = SendCancel(id, o.symbol); !s.ok()) return s;
        continue;
      }
      const Target t = TargetFor(contracts[it->second], Net(pos, o.symbol), o.side);
      const bool buy = o.side == Side::kBuy;
      if (!t.allowed || o.leaves * 3 < p_.size) {  // over the limit, or mostly filled
        if (absl::Status s = SendCancel(id, o.symbol); !s.ok()) return s;
        continue;
      }
      const int64_t gap = t.price - o.price_ticks;  // > 0: the target is above the quote
      if (gap == 0 || (buy ? gap > 0 && gap <= 1 : gap < 0 && gap >= -1)) {
        quoted_.insert(key);  // close enough (at most a tick less aggressive than wanted)
        continue;
      }
      if (buy ? gap < 0 : gap > 0) {  // away from the market: amend, it cannot trade
        FixReplace r{.cl_ord_id = "",
                     .orig_cl_ord_id = id,
                     .account = o.account,
                     .symbol = o.symbol,
                     .side = o.side,
                     .price_ticks = t.price,
                     .qty = o.leaves};
        if (absl::Status s = SendReplace(r); !s.ok()) return s;
        quoted_.insert(key);
        continue;
      }
      // Towards the market: cancel now, quote again in the second phase.
      if (absl::Status s = SendCancel(id, o.symbol); !s.ok()) return s;
    }
    pos_ = pos;
    return absl::OkStatus();
  }

  absl::Status Send(std::vector<LiveContract>& contracts, int) override {
    for (size_t i = 0; i < contracts.size(); ++i) {
      const LiveContract& c = contracts[i];
      // Past three quarters of its limit it hedges back to half with an IOC through the
      // other side's quotes.
      const int64_t net = Net(pos_, c.sym);
      if (std::abs(net) * 4 > p_.limit * 3) {
        const Side side = net > 0 ? Side::kSell : Side::kBuy;
        FixOrder o;
        o.account = AccountFor(i);
        o.symbol = c.sym;
        o.side = side;
        o.qty = std::abs(net) - p_.limit / 2;
        o.price_ticks = c.mid + (net > 0 ? -1 : 1) * (p_.half_spread + 4);
        o.tif = TimeInForce::kIoc;
        if (absl::Status s = SendOrder(o, "hedge (limit ioc)"); !s.ok()) return s;
      }
      for (const Side side : {Side::kBuy, Side::kSell}) {
        if (quoted_.count({c.sym, side})) continue;
        const Target t = TargetFor(c, Net(pos_, c.sym), side);
        if (!t.allowed) continue;
        if (absl::Status s = Quote(i, c, side, t.price, p_.size); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

 private:
  struct Target {
    int64_t price = 0;
    bool allowed = true;
  };

  static int64_t Net(const std::map<std::string, int64_t>& pos, const std::string& sym) {
    auto it = pos.find(sym);
    return it == pos.end() ? 0 : it->second;
  }

  // Long inventory lowers both quotes (sell more, buy less); at the limit the side that
  // would add to it is not quoted.
  Target TargetFor(const LiveContract& c, int64_t net, Side side) const {
    const int64_t skew = net * (p_.half_spread + 2) / p_.limit;
    Target t;
    if (side == Side::kBuy) {
      t.price = c.mid - p_.half_spread - skew;
      t.allowed = net + p_.size <= p_.limit;
    } else {
      t.price = c.mid + p_.half_spread - skew;
      t.allowed = net - p_.size >= -p_.limit;
    }
    return t;
  }

  absl::Status Quote(size_t index, const LiveContract& c, Side side, int64_t px, int64_t qty) {
    FixOrder o;
    o.account = AccountFor(index);
    o.symbol = c.sym;
    o.side = side;
    o.price_ticks = px;
    o.qty = qty;
    ++counts_->quotes;
    return SendOrder(o, "quote (limit day)");
  }

  MakerParams p_;
  std::set<std::pair<std::string, Side>> quoted_;  // kept or amended in phase 1
  std::map<std::string, int64_t> pos_;
};

// A taker (a hedger): market, IOC and FOK orders, limits through and near the touch,
// icebergs, stops and stop-limits; it cancels and amends its own resting orders.
class Taker : public Firm {
 public:
  Taker(DemoSession* s, Rng* rng, RequestCounts* c) : Firm(s, "taker", rng, c) {}

  absl::Status PreOpen(std::vector<LiveContract>& contracts) override {
    for (size_t i = 0; i < contracts.size(); ++i) {
      const LiveContract& c = contracts[i];
      const Side side = rng_->Chance(50) ? Side::kBuy : Side::kSell;
      const int sign = side == Side::kBuy ? 1 : -1;
      FixOrder o = Limit(c, side, c.mid + sign * rng_->Uniform(0, 6), rng_->Uniform(1, 10));
      if (absl::Status s = SendOrder(o, ""); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Amend(std::vector<LiveContract>&) override {
    std::vector<std::pair<std::string, LiveOrder>> live = session_->LiveOrders();
    if (live.empty()) return absl::OkStatus();
    // Too many resting orders: the oldest go.
    size_t first = 0;
    while (live.size() - first > 30) {
      if (absl::Status s = SendCancel(live[first].first, live[first].second.symbol); !s.ok())
        return s;
      ++first;
    }
    if (first < live.size() && rng_->Chance(25)) {
      const size_t k = first + static_cast<size_t>(
                                   rng_->Uniform(0, static_cast<int64_t>(live.size() - first) - 1));
      if (absl::Status s = SendCancel(live[k].first, live[k].second.symbol); !s.ok()) return s;
      live.erase(live.begin() + static_cast<ptrdiff_t>(k));
    }
    if (first < live.size() && rng_->Chance(15)) {
      const size_t k = first + static_cast<size_t>(
                                   rng_->Uniform(0, static_cast<int64_t>(live.size() - first) - 1));
      const auto& [id, o] = live[k];
      if (o.price_ticks > 0 && !o.stop) {  // a replace does not carry a stop price
        FixReplace r{.cl_ord_id = "",
                     .orig_cl_ord_id = id,
                     .account = o.account,
                     .symbol = o.symbol,
                     .side = o.side};
        if (rng_->Chance(50)) {  // a price further from the market: it cannot trade
          r.price_ticks = o.price_ticks + (o.side == Side::kBuy ? -1 : 1) * rng_->Uniform(1, 3);
          r.qty = o.leaves;
        } else {
          r.qty = std::max<int64_t>(1, o.leaves + rng_->Uniform(-3, 3));
        }
        if (absl::Status s = SendReplace(r); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

  absl::Status Send(std::vector<LiveContract>& contracts, int budget) override {
    for (int n = 0; n < budget; ++n) {
      if (absl::Status s = RandomOrder(contracts); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

 private:
  FixOrder Limit(const LiveContract& c, Side side, int64_t px, int64_t qty) {
    FixOrder o;
    o.account = AccountFor(static_cast<size_t>(rng_->Uniform(0, 7)));
    o.symbol = c.sym;
    o.side = side;
    o.price_ticks = px;
    o.qty = qty;
    return o;
  }

  absl::Status RandomOrder(std::vector<LiveContract>& contracts) {
    const LiveContract& c = contracts[static_cast<size_t>(
        rng_->Uniform(0, static_cast<int64_t>(contracts.size()) - 1))];
    const Side side = rng_->Chance(50) ? Side::kBuy : Side::kSell;
    const int sign = side == Side::kBuy ? 1 : -1;
    const int64_t qty = rng_->Uniform(1, 10);
    const int64_t roll = rng_->Uniform(1, 100);
    FixOrder o;
    if (roll <= 30) {  // passive, near the touch
      o = Limit(c, side, c.mid - sign * rng_->Uniform(1, 12), qty);
      if (rng_->Chance(5)) o.tif = TimeInForce::kGtc;
    } else if (roll <= 50) {  // through the market makers' quotes
      o = Limit(c, side, c.mid + sign * rng_->Uniform(2, 10), qty);
    } else if (roll <= 62) {
      o = Limit(c, side, c.mid + sign * rng_->Uniform(1, 8), qty);
      o.tif = TimeInForce::kIoc;
    } else if (roll <= 66) {
      o = Limit(c, side, c.mid + sign * rng_->Uniform(1, 8), qty);
      o.tif = TimeInForce::kFok;
    } else if (roll <= 72) {
      o = Limit(c, side, c.mid - sign * rng_->Uniform(0, 5), rng_->Uniform(20, 40));
      o.display_qty = 5;
    } else if (roll <= 88) {
      o = Limit(c, side, 0, qty);
      o.ord_type = OrdType::kMarket;
    } else {
      // Stops 6-20 ticks from the firm's own mid: most are accepted and some trigger on a
      // move; one whose stop the last trade has already passed is refused
      // invalid_stop_price (SPEC §4.2), as it would be for a real firm.
      o = Limit(c, side, 0, qty);
      o.stop_ticks = c.mid + sign * rng_->Uniform(6, 20);
      o.ord_type = OrdType::kStop;
      if (roll > 94) {
        o.ord_type = OrdType::kStopLimit;
        o.price_ticks = o.stop_ticks + sign * 3;
      }
    }
    return SendOrder(o, "");
  }
};

}  // namespace

std::unique_ptr<Firm> NewMarketMaker(DemoSession* s, MakerParams p, Rng* rng, RequestCounts* c) {
  return std::make_unique<MarketMaker>(s, p, rng, c);
}

std::unique_ptr<Firm> NewTaker(DemoSession* s, Rng* rng, RequestCounts* c) {
  return std::make_unique<Taker>(s, rng, c);
}

}  // namespace cfx::demo
