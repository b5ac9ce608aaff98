// ExchangeCore tests' shared pieces: a listener that checks outcomes arrive durable and in
// order and keeps trades, rejects and live orders; an order of the test contract; a submit
// that retries a full ring.
#ifndef CFX_TESTS_EXCHANGE_EXCHANGE_CORE_TEST_UTIL_H_
#define CFX_TESTS_EXCHANGE_EXCHANGE_CORE_TEST_UTIL_H_

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cfx/exchange/exchange_core.h"
#include "gtest/gtest.h"

namespace cfx::exchange::testing {

class Recorder : public OutcomeListener {
 public:
  explicit Recorder(const ExchangeCore* core) : core_(core) {}
  void OnOutcome(uint64_t seq, uint64_t tag, const Outcome& o) override {
    // Durable first: the journal has committed at least up to this seq.
    const ExchangeStats s = core_->Stats();
    if (start_seq + s.inputs <= seq) not_durable++;
    if (seq < last_seq) out_of_order++;
    last_seq = seq;
    std::lock_guard<std::mutex> lock(mu);
    if (o.kind == OutcomeKind::kEvent && o.event.type == engine::EventType::kTrade)
      trades.push_back(o);
    if (o.kind == OutcomeKind::kEvent && o.event.type == engine::EventType::kAccepted) {
      live[{std::string(o.acct.view()), std::string(o.event.order.cl.view())}] = o.event.order;
    }
    for (const engine::OrderInfo* i : {&o.event.order, &o.event.other}) {
      if (o.kind != OutcomeKind::kEvent || i->oid == 0) continue;
      for (auto it = live.begin(); it != live.end(); ++it) {
        if (it->second.oid == i->oid) {
          it->second = *i;
          break;
        }
      }
    }
    if (o.kind == OutcomeKind::kEvent && o.event.type == engine::EventType::kRejected)
      rejects.push_back(o);
  }
  void OnAck(uint64_t, uint64_t, int64_t) override { acks++; }

  const ExchangeCore* core_;
  uint64_t start_seq = 1;
  std::atomic<uint64_t> not_durable{0}, out_of_order{0}, acks{0};
  uint64_t last_seq = 0;
  std::mutex mu;
  std::vector<Outcome> trades, rejects;
  std::map<std::pair<std::string, std::string>, engine::OrderInfo> live;
};

inline engine::NewOrderCmd Order(const std::string& cl, const std::string& acct, engine::Side side,
                                 int64_t px, int64_t qty) {
  engine::NewOrderCmd c;
  c.cl = engine::Name::From(cl);
  c.acct = engine::Name::From(acct);
  c.sym = engine::Name::From("B200-GOLD-US-202703");
  c.side = side;
  c.px = engine::PriceField::Ticks(engine::PriceTicks(px));
  c.qty = engine::Qty(qty);
  c.tif = engine::TimeInForce::kGtc;
  return c;
}

inline void SubmitOrDie(ExchangeCore& core, const engine::Command& c, uint64_t tag = 0) {
  for (;;) {
    OfferResult r = core.Submit(c, tag);
    if (r == OfferResult::kAccepted) return;
    ASSERT_NE(r, OfferResult::kStopped);
    std::this_thread::yield();
  }
}

}  // namespace cfx::exchange::testing

#endif  // CFX_TESTS_EXCHANGE_EXCHANGE_CORE_TEST_UTIL_H_
