// Deterministic random engine command streams for the exchange tests: every command
// variant and most order features (stops, icebergs, post-only, STP, gtd, replaces, mass
// cancels, session changes, time), on a few symbols and accounts with crossing prices.
#ifndef CFX_TESTS_EXCHANGE_RANDOM_COMMANDS_H_
#define CFX_TESTS_EXCHANGE_RANDOM_COMMANDS_H_

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/engine/command.h"
#include "cfx/exchange/engine_matcher.h"

namespace cfx::exchange::testing {

inline constexpr int64_t kNsPerSec = 1'000'000'000;
// 2027-03-01T00:00:00Z (a Monday), in ns.
inline constexpr int64_t kMarch2027 = 1803859200LL * kNsPerSec;

class RandomCommands {
 public:
  explicit RandomCommands(uint64_t seed, int symbols = 2, int accounts = 4)
      : rng_(seed), symbols_(symbols), accounts_(accounts) {}

  std::string Sym(int i) const { return absl::StrCat("B200-GOLD-US-20270", 3 + i); }
  std::string Acct(int i) const { return absl::StrCat("A", i); }

  // The listing every stream starts with.
  std::vector<engine::Command> Listing() const {
    std::vector<engine::Command> out;
    out.push_back(engine::TimeCmd{kMarch2027 + 9 * 3600 * kNsPerSec});
    for (int i = 0; i < symbols_; ++i) {
      engine::ProductCmd p;
      p.sym = engine::Name::From(Sym(i));
      p.ref = engine::PriceField::Ticks(engine::PriceTicks(5000));
      out.push_back(p);
    }
    return out;
  }

  engine::Command Next() {
    const int r = Pick(100);
    if (r < 55) return NewOrder();
    if (r < 67 && cl_ > 0) return Cancel();
    if (r < 80 && cl_ > 0) return Replace();
    if (r < 83) {
      engine::MassCancelCmd m;
      m.acct = engine::Name::From(Acct(Pick(accounts_)));
      if (Pick(2) == 0) m.sym = engine::Name::From(Sym(Pick(symbols_)));
      if (Pick(4) == 0) {
        m.session = 1 + Pick(3);
        m.disconnect = Pick(2) == 0;  // cancel-on-disconnect, or a session's own mass cancel
      }
      m.origin = NextOrigin();
      if (!m.disconnect) Answered(m.origin, &m.req, &m.answer_to);
      return m;
    }
    if (r < 92) {
      now_ += (Pick(10) == 0 ? 6 * 3600 : 60 + Pick(1800)) * kNsPerSec;
      return engine::TimeCmd{now_};
    }
    if (r < 97) {
      static constexpr engine::TradingState kStates[] = {
          engine::TradingState::kPreOpen, engine::TradingState::kOpen,
          engine::TradingState::kOpen, engine::TradingState::kHalted};
      return engine::StateCmd{engine::Name::From(Sym(Pick(symbols_))), kStates[Pick(4)]};
    }
    if (r < 98) return engine::CloseCmd{engine::Name::From(Sym(Pick(symbols_)))};
    engine::ProductCmd p;
    p.sym = engine::Name::From(Sym(Pick(symbols_)));
    p.ref = engine::PriceField::Ticks(engine::PriceTicks(4900 + Pick(200)));
    const int64_t margin = Pick(5);  // keep, a margin, or none (nothing prices it)
    p.initial_margin = margin < 2   ? engine::MicroUsd(-1)
                       : margin < 4 ? engine::MicroUsd(Pick(3) * 1000)
                                    : MatcherOptions::kNoPriceMargin;
    return p;
  }

  engine::NewOrderCmd NewOrder() {
    engine::NewOrderCmd c;
    c.cl = engine::Name::From(absl::StrCat("c", ++cl_));
    c.acct = engine::Name::From(Acct(Pick(accounts_)));
    c.sym = engine::Name::From(Sym(Pick(symbols_)));
    c.side = Pick(2) == 0 ? engine::Side::kBuy : engine::Side::kSell;
    const int t = Pick(20);
    c.type = t < 15 ? engine::OrderType::kLimit
             : t < 17 ? engine::OrderType::kMarket
             : t < 19 ? engine::OrderType::kStopLimit
                      : engine::OrderType::kStop;
    static constexpr engine::TimeInForce kTifs[] = {
        engine::TimeInForce::kDay, engine::TimeInForce::kGtc, engine::TimeInForce::kIoc,
        engine::TimeInForce::kFok, engine::TimeInForce::kGtd, engine::TimeInForce::kDay};
    c.tif = kTifs[Pick(6)];
    if (c.tif == engine::TimeInForce::kGtd) c.expire = now_ + (1 + Pick(7200)) * kNsPerSec;
    const int64_t px = 4980 + Pick(41) + (Pick(50) == 0 ? 1000 : 0);  // rarely out of band
    if (c.type == engine::OrderType::kLimit || c.type == engine::OrderType::kStopLimit) {
      c.px = engine::PriceField::Ticks(engine::PriceTicks(px));
      if (Pick(100) == 0) c.px.on_tick = false;
    }
    if (c.type == engine::OrderType::kStop || c.type == engine::OrderType::kStopLimit) {
      c.stop = engine::PriceField::Ticks(engine::PriceTicks(4980 + Pick(41)));
    }
    c.qty = engine::Qty(Pick(60) == 0 ? 0 : 1 + Pick(20));
    if (c.type == engine::OrderType::kLimit && Pick(8) == 0) {
      c.has_display = true;
      c.display = engine::Qty(1 + Pick(5));
    }
    if (c.type == engine::OrderType::kLimit && Pick(10) == 0) c.post_only = true;
    if (Pick(5) == 0) c.stp = engine::Name::From(absl::StrCat("S", Pick(2)));
    c.stp_action = static_cast<engine::StpAction>(Pick(3));
    if (Pick(3) == 0) c.firm = engine::Name::From(absl::StrCat("F", Pick(2)));
    c.session = Pick(4);
    c.origin = NextOrigin();
    return c;
  }

  engine::CancelCmd Cancel() {
    engine::CancelCmd c;
    c.orig = engine::Name::From(absl::StrCat("c", 1 + Pick(cl_)));
    c.acct = engine::Name::From(Acct(Pick(accounts_)));
    c.origin = NextOrigin();
    Answered(c.origin, &c.req, &c.answer_to);
    return c;
  }

  engine::ReplaceCmd Replace() {
    engine::ReplaceCmd c;
    c.orig = engine::Name::From(absl::StrCat("c", 1 + Pick(cl_)));
    c.cl = engine::Name::From(absl::StrCat("c", ++cl_));
    c.acct = engine::Name::From(Acct(Pick(accounts_)));
    if (Pick(3) != 0) c.px = engine::PriceField::Ticks(engine::PriceTicks(4980 + Pick(41)));
    if (Pick(2) == 0) {
      c.has_qty = true;
      c.qty = engine::Qty(Pick(25));
    }
    c.origin = NextOrigin();
    engine::ClientId unused;
    Answered(c.origin, &unused, &c.answer_to);
    return c;
  }

 private:
  // The request's own id and session (codec version 4), from its origin: no draw either.
  static void Answered(const engine::Origin& o, engine::ClientId* req,
                       engine::SessionId* answer_to) {
    *req = engine::Name::From(absl::StrCat("r", o.session, "-", o.msg_seq));
    *answer_to = o.session;
  }
  // Requests come from FIX sessions 1..3 in turn, each numbering its own (no draw from the
  // generator: the command stream is the same as without origins).
  engine::Origin NextOrigin() {
    const engine::SessionId session = 1 + static_cast<engine::SessionId>(requests_++ % 3);
    return engine::Origin{session, ++msg_seq_[session]};
  }
  int64_t Pick(int64_t n) { return n <= 0 ? 0 : static_cast<int64_t>(rng_() % n); }

  std::mt19937_64 rng_;
  int symbols_, accounts_;
  int64_t cl_ = 0;
  uint64_t requests_ = 0;
  uint32_t msg_seq_[4] = {};
  int64_t now_ = kMarch2027 + 9 * 3600 * kNsPerSec;
};

}  // namespace cfx::exchange::testing

#endif  // CFX_TESTS_EXCHANGE_RANDOM_COMMANDS_H_
