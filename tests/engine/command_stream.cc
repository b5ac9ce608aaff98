#include "command_stream.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <string_view>
#include <utility>

#include "cfx/engine/price.h"

namespace cfx::engine::testing {
namespace {

constexpr Timestamp kSecond = 1'000'000'000;

Timestamp DayStart() {
  Timestamp t = 0;
  ParseTimestamp("2027-03-01T00:00:00Z", &t);
  return t;
}

// Random commands for the contract "S" (ref 5.000 or none). The generator follows the state
// its own state/close commands set (they always apply), so streams can be built up front.
// With `sessions` false the contract stays open (no state or close commands): long sessions
// with deep books and long stop cascades.
class StreamGenerator {
 public:
  StreamGenerator(uint64_t seed, Timestamp day_start, bool sessions)
      : rng_(seed), day_start_(day_start), sessions_(sessions) {}

  Command Next() {
    int roll = Pick(1000);
    if (roll < 37 && !sessions_) roll = 999;
    if (roll < 30) return NextState();
    if (roll < 37) {
      state_ = TradingState::kClosed;
      return CloseCmd{Name::From("S")};
    }
    if (roll < 77) return NextTime();
    if (roll < 80) {  // commands naming a symbol that is not listed
      int k = Pick(3);
      if (k == 0) return StateCmd{Name::From("Z"), TradingState::kOpen};
      if (k == 1) return CloseCmd{Name::From("Z")};
      MassCancelCmd m;
      m.acct.Assign(kAccts[Pick(5)]);
      m.sym.Assign("Z");
      return m;
    }
    roll = Pick(100);
    if (roll < 12 && !used_.empty()) return NextCancel();
    if (roll < 30 && !used_.empty()) return NextReplace();
    if (roll < 32) {
      MassCancelCmd c;
      c.acct.Assign(kAccts[Pick(5)]);
      if (Pick(3) == 0) c.sym.Assign("S");
      return c;
    }
    return NextNew();
  }

 private:
  static constexpr const char* kAccts[] = {"A1", "A2", "B1", "C1", "D1"};

  int Pick(int n) { return static_cast<int>(rng_() % n); }
  // A fresh client id ("o17", "r18").
  std::string Id(char prefix) {
    std::string id(1, prefix);
    id += std::to_string(next_cl_++);
    return id;
  }

  // Leaves a non-open state quickly and goes from pre_open mostly to open (an auction).
  Command NextState() {
    static constexpr TradingState kP = TradingState::kPreOpen, kO = TradingState::kOpen,
                                  kH = TradingState::kHalted, kC = TradingState::kClosed;
    static constexpr TradingState kFrom[4][10] = {
        {kO, kO, kO, kO, kO, kO, kO, kH, kC, kP},  // from pre_open
        {kP, kP, kP, kP, kH, kH, kH, kC, kO, kO},  // from open
        {kO, kO, kO, kO, kO, kP, kP, kP, kC, kC},  // from halted
        {kP, kP, kP, kP, kP, kP, kO, kO, kO, kH},  // from closed
    };
    state_ = kFrom[static_cast<int>(state_)][Pick(10)];
    return StateCmd{Name::From("S"), state_};
  }

  Command NextTime() {
    TimeCmd t;
    if (Pick(10) == 0) {  // earlier than the previous one: ignored
      t.ts = Ts(std::max<int64_t>(0, now_s_ - 1 - Pick(100)));
      return t;
    }
    now_s_ += Pick(60);
    t.ts = Ts(now_s_);
    return t;
  }

  Command NextCancel() {
    auto& [acct, cl] = used_[rng_() % used_.size()];
    CancelCmd c;
    c.orig.Assign(cl);
    c.acct.Assign(Pick(20) == 0 ? "C1" : acct);
    return c;
  }

  Command NextReplace() {
    auto [acct, cl] = used_[rng_() % used_.size()];
    ReplaceCmd c;
    c.orig.Assign(cl);
    c.acct.Assign(acct);
    std::string ncl = Pick(30) == 0 ? used_[rng_() % used_.size()].second : Id('r');
    c.cl.Assign(ncl);
    if (Pick(3) != 0) c.px = PriceField::Ticks(PriceTicks(5000 + Pick(41) - 20));
    if (Pick(2) == 0) {
      c.has_qty = true;
      c.qty = Qty(Pick(25) - 2);
    }
    if (Pick(40) == 0) c.px.on_tick = false;
    used_.push_back({acct, ncl});
    return c;
  }

  Command NextNew() {
    NewOrderCmd c;
    std::string acct = kAccts[Pick(5)];
    std::string cl =
        Pick(50) == 0 && !used_.empty() ? used_[rng_() % used_.size()].second : Id('o');
    c.cl.Assign(cl);
    c.acct.Assign(acct);
    c.sym.Assign(Pick(100) == 0 ? "Z" : "S");
    used_.push_back({acct, cl});
    c.side = Pick(2) ? Side::kBuy : Side::kSell;
    int t = Pick(100);
    c.type = t < 70   ? OrderType::kLimit
             : t < 80 ? OrderType::kMarket
             : t < 90 ? OrderType::kStop
                      : OrderType::kStopLimit;
    int tif = Pick(100);
    c.tif = tif < 50   ? TimeInForce::kDay
            : tif < 63 ? TimeInForce::kGtc
            : tif < 75 ? TimeInForce::kIoc
            : tif < 85 ? TimeInForce::kFok
                       : TimeInForce::kGtd;
    if (c.tif == TimeInForce::kGtd && Pick(40) != 0) {               // else: missing expire
      c.expire = Ts(std::max<int64_t>(0, now_s_ + Pick(200) - 10));  // some already expired
    }
    int spread = Pick(10) == 0 ? 600 : 20;  // sometimes outside the band
    c.px = PriceField::Ticks(PriceTicks(5000 + Pick(2 * spread + 1) - spread));
    if (Pick(60) == 0) c.px.on_tick = false;
    c.stop = PriceField::Ticks(PriceTicks(5000 + Pick(41) - 20));
    c.qty = Qty(Pick(60) == 0 ? 1001 : Pick(40) == 0 ? 0 : 1 + Pick(20));
    if (Pick(6) == 0) {
      c.has_display = true;
      c.display = Qty(Pick(6));
    }
    c.post_only = Pick(12) == 0;
    if (Pick(3) == 0) c.firm.Assign(Pick(2) ? "F1" : "F2");
    if (Pick(3) == 0) c.stp.Assign(Pick(2) ? "X" : "Y");
    c.stp_action = static_cast<StpAction>(Pick(3));
    return c;
  }

  Timestamp Ts(int64_t seconds) const { return day_start_ + seconds * kSecond; }

  std::mt19937_64 rng_;
  Timestamp day_start_;
  bool sessions_;
  int64_t now_s_ = 0;  // seconds after day_start_ of the latest time sent
  TradingState state_ = TradingState::kOpen;
  int next_cl_ = 1;
  std::vector<std::pair<std::string, std::string>> used_;
};

std::string Quote(std::string_view s) {
  std::string q(1, '"');
  q.append(s);
  q.push_back('"');
  return q;
}
std::string Px(const PriceField& p) { return Quote(FormatPrice(p.ticks) + (p.on_tick ? "" : "5")); }
std::string Ts(Timestamp t) {
  int64_t s = (t - DayStart()) / kSecond;
  char buf[32];
  std::snprintf(buf, sizeof buf, "2027-03-%02lldT%02lld:%02lld:%02lldZ",
                static_cast<long long>(1 + s / 86400), static_cast<long long>(s / 3600 % 24),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  return Quote(buf);
}

}  // namespace

std::string ToReplayLine(const Command& cmd) {
  std::string j;
  auto add = [&](const char* key, const std::string& value) {
    j += (j.empty() ? "{\"" : ",\"") + std::string(key) + "\":" + value;
  };
  if (auto* p = std::get_if<ProductCmd>(&cmd)) {
    add("op", Quote("product"));
    add("sym", Quote(p->sym.view()));
    if (p->ref.present) add("ref", Px(p->ref));
  } else if (auto* s = std::get_if<StateCmd>(&cmd)) {
    add("op", Quote("state"));
    add("sym", Quote(s->sym.view()));
    add("state", Quote(ToString(s->state)));
  } else if (auto* n = std::get_if<NewOrderCmd>(&cmd)) {
    add("op", Quote("new"));
    add("cl", Quote(n->cl.view()));
    add("acct", Quote(n->acct.view()));
    add("sym", Quote(n->sym.view()));
    add("side", Quote(ToString(n->side)));
    add("type", Quote(ToString(n->type)));
    if (n->type == OrderType::kLimit || n->type == OrderType::kStopLimit) add("px", Px(n->px));
    if (n->type == OrderType::kStop || n->type == OrderType::kStopLimit) add("stop", Px(n->stop));
    add("qty", std::to_string(n->qty.value()));
    add("tif", Quote(ToString(n->tif)));
    if (n->expire != kNoTime) add("expire", Ts(n->expire));
    if (n->has_display) add("display", std::to_string(n->display.value()));
    if (n->post_only) add("post_only", "true");
    if (!n->stp.empty()) add("stp", Quote(n->stp.view()));
    add("stp_action", Quote(ToString(n->stp_action)));
    if (!n->firm.empty()) add("firm", Quote(n->firm.view()));
  } else if (auto* c = std::get_if<CancelCmd>(&cmd)) {
    add("op", Quote("cancel"));
    add("orig", Quote(c->orig.view()));
    add("acct", Quote(c->acct.view()));
  } else if (auto* r = std::get_if<ReplaceCmd>(&cmd)) {
    add("op", Quote("replace"));
    add("cl", Quote(r->cl.view()));
    add("orig", Quote(r->orig.view()));
    add("acct", Quote(r->acct.view()));
    if (r->px.present) add("px", Px(r->px));
    if (r->has_qty) add("qty", std::to_string(r->qty.value()));
  } else if (auto* m = std::get_if<MassCancelCmd>(&cmd)) {
    add("op", Quote("mass_cancel"));
    add("acct", Quote(m->acct.view()));
    if (!m->sym.empty()) add("sym", Quote(m->sym.view()));
  } else if (auto* t = std::get_if<TimeCmd>(&cmd)) {
    add("op", Quote("time"));
    add("ts", Ts(t->ts));
  } else if (auto* cl = std::get_if<CloseCmd>(&cmd)) {
    add("op", Quote("close"));
    add("sym", Quote(cl->sym.view()));
  }
  return j + "}";
}

std::vector<Command> RandomStream(uint64_t seed, int n, bool sessions) {
  StreamGenerator gen(seed, DayStart(), sessions);
  std::vector<Command> cmds;
  for (int i = 0; i < n; ++i) cmds.push_back(gen.Next());
  return cmds;
}

}  // namespace cfx::engine::testing
