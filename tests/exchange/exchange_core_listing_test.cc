// ExchangeCore and the calendar: closing quotes at 16:00Z of business days, a month's
// expiry at its last trading day's close and the next month's listing, and what an expired
// contract still counts for (nothing, in pre-trade margin).
#include <string>
#include <vector>

#include "cfx/exchange/exchange_core.h"
#include "core_test_util.h"
#include "exchange_core_test_util.h"
#include "gtest/gtest.h"

namespace cfx::exchange {
namespace {

using testing::kMarch2027;
using testing::kNsPerSec;
using testing::Order;
using testing::Recorder;
using testing::SubmitOrDie;

TEST(ExchangeCoreTest, ClosingQuotesAtFourPmOfBusinessDays) {
  testing::TempDir dir;
  {
    ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir.path()));
    ASSERT_TRUE(core.Start().ok());
    SubmitOrDie(core, Order("b", "A0", engine::Side::kBuy, 4990, 1));
    SubmitOrDie(core, Order("s", "A1", engine::Side::kSell, 5010, 1));
    // Mon 2027-03-01 15:59 -> Tue 2027-03-02 17:00: closes for Monday only... and Tuesday.
    core.AdvanceTime(kMarch2027 + (15 * 3600 + 59 * 60) * kNsPerSec);
    core.AdvanceTime(kMarch2027 + (24 + 17) * 3600 * kNsPerSec);
    ASSERT_TRUE(core.Flush().ok());
    ASSERT_TRUE(core.Stop().ok());
  }
  auto src = settlement::OpenLmdbTradeSource(dir.path());
  ASSERT_TRUE(src.ok());
  for (int day : {1, 2}) {
    auto q = (*src)->Close("B200-GOLD-US-202703", common::DateFromYmd(2027, 3, day));
    ASSERT_TRUE(q.ok());
    ASSERT_TRUE(q->has_value()) << day;
    EXPECT_EQ((*q)->bid_ticks, common::PriceTicks(4990));
    EXPECT_EQ((*q)->ask_ticks, common::PriceTicks(5010));
  }
  auto other = (*src)->Close("B200-GOLD-US-202704", common::DateFromYmd(2027, 3, 1));
  ASSERT_TRUE(other.ok() && other->has_value());
  EXPECT_FALSE((*other)->bid_ticks.has_value());
  auto none = (*src)->Close("B200-GOLD-US-202703", common::DateFromYmd(2027, 3, 3));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

// SPEC §4: day orders expire at the session close. `cfx serve`'s trading day ends at each
// business day's 16:00Z close and the next begins at once: a day order resting then is
// canceled `expired` after the closing quotes took it, a gtc order stays, and the book stays
// open. A restart replays to the same state. Until 2026-12-07 day orders in `cfx serve`
// never expired (only a `close` input, which nothing sent, did it).
TEST(ExchangeCoreTest, DayOrdersExpireAtTheFourPmCloseAndTheBookStaysOpen) {
  testing::TempDir dir;
  {
    ExchangeCore core(testing::TestConfig(), testing::TestOptions(dir.path()));
    testing::Recorder rec(&core);
    core.AddListener(&rec);
    ASSERT_TRUE(core.Start().ok());
    ASSERT_TRUE(core.OpenAll().ok());
    engine::NewOrderCmd day = Order("day", "A0", engine::Side::kBuy, 4990, 1);
    day.tif = engine::TimeInForce::kDay;
    SubmitOrDie(core, day);
    SubmitOrDie(core, Order("gtc", "A1", engine::Side::kSell, 5010, 1));
    core.AdvanceTime(kMarch2027 + (15 * 3600 + 59 * 60) * kNsPerSec);  // Mon 15:59: still live
    ASSERT_TRUE(core.Flush().ok());
    auto before = core.FindOrder("A0", "day");
    ASSERT_TRUE(before.has_value());
    EXPECT_EQ(before->status, engine::OrderStatus::kNew);
    core.AdvanceTime(kMarch2027 + 17 * 3600 * kNsPerSec);  // Mon 17:00
    ASSERT_TRUE(core.Flush().ok());
    auto after = core.FindOrder("A0", "day");
    ASSERT_TRUE(after.has_value());
    EXPECT_EQ(after->status, engine::OrderStatus::kCanceled);
    EXPECT_TRUE(after->expired);
    auto gtc = core.FindOrder("A1", "gtc");
    ASSERT_TRUE(gtc.has_value());
    EXPECT_EQ(gtc->status, engine::OrderStatus::kNew);
    std::optional<BookView> book = core.BookSnapshot("B200-GOLD-US-202703", 5);
    ASSERT_TRUE(book.has_value());
    EXPECT_EQ(book->state, engine::TradingState::kOpen);
    EXPECT_TRUE(book->bids.empty());
    // The next trading day takes orders, day ones too.
    engine::NewOrderCmd next = Order("next", "A0", engine::Side::kBuy, 5010, 1);
    next.tif = engine::TimeInForce::kDay;
    SubmitOrDie(core, next);
    ASSERT_TRUE(core.Flush().ok());
    EXPECT_TRUE(rec.rejects.empty());
    EXPECT_EQ(rec.trades.size(), 1u);
    ASSERT_TRUE(core.Stop().ok());
  }
  // The closing quote of Monday still holds the day order's bid.
  auto src = settlement::OpenLmdbTradeSource(dir.path());
  ASSERT_TRUE(src.ok());
  auto q = (*src)->Close("B200-GOLD-US-202703", common::DateFromYmd(2027, 3, 1));
  ASSERT_TRUE(q.ok() && q->has_value());
  EXPECT_EQ((*q)->bid_ticks, common::PriceTicks(4990));
  src->reset();
  ExchangeOptions again = testing::TestOptions(dir.path());
  again.snapshot_every = 0;  // the whole journal replayed
  ExchangeCore core(testing::TestConfig(), again);
  auto info = core.Start();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->snapshot_seq, 0u);
  auto day = core.FindOrder("A0", "day");
  ASSERT_TRUE(day.has_value());
  EXPECT_EQ(day->status, engine::OrderStatus::kCanceled);
  EXPECT_TRUE(day->expired);
  for (const auto& [acct, cl] : {std::pair{"A0", "next"}, std::pair{"A1", "gtc"}}) {
    auto o = core.FindOrder(acct, cl);
    ASSERT_TRUE(o.has_value()) << cl;
    EXPECT_EQ(o->status, engine::OrderStatus::kFilled) << cl;
  }
  ASSERT_TRUE(core.Stop().ok());
}

// The exchange's matcher (cfx serve's, MatcherOptions' default engine) refuses limit prices
// above MatcherOptions::kMaxLimitPrice, also on a contract without a band (docs/engine.md,
// "Price limit"); at the limit an order is taken.
TEST(ExchangeCoreTest, TheExchangesMatcherRefusesLimitPricesAboveItsLimit) {
  EngineMatcher matcher(MatcherOptions{});
  class Rejects : public journal::OutcomeSink<Outcome> {
   public:
    void Emit(const Outcome& o) override {
      if (o.kind == OutcomeKind::kEvent && o.event.type == engine::EventType::kRejected) {
        reasons.push_back(o.event.reject);
      }
      if (o.kind == OutcomeKind::kEvent && o.event.type == engine::EventType::kAccepted) {
        ++accepted;
      }
    }
    std::vector<engine::RejectReason> reasons;
    int accepted = 0;
  } sink;
  uint64_t seq = 0;
  engine::ProductCmd unbanded;
  unbanded.sym = engine::Name::From("B200-GOLD-US-202704");
  matcher.Apply(++seq, engine::TimeCmd{kMarch2027 + 9 * 3600 * kNsPerSec}, sink);
  matcher.Apply(++seq, unbanded, sink);
  for (int64_t px :
       {MatcherOptions::kMaxLimitPrice.value(), MatcherOptions::kMaxLimitPrice.value() + 1}) {
    engine::NewOrderCmd n;
    n.cl = engine::ClientId::From("o" + std::to_string(px));
    n.acct = engine::Name::From("A1");
    n.sym = unbanded.sym;
    n.px = engine::PriceField::Ticks(engine::PriceTicks(px));
    n.qty = engine::Qty(1);
    matcher.Apply(++seq, n, sink);
  }
  EXPECT_EQ(sink.accepted, 1);
  ASSERT_EQ(sink.reasons.size(), 1u);
  EXPECT_EQ(sink.reasons[0], engine::RejectReason::kPriceOutsideBand);
  EXPECT_EQ(MatcherOptions::kMaxLimitPrice, engine::PriceTicks(1'000'000'000));
}

TEST(ExchangeCoreTest, AContractListedAfterItsLastTradingDayExpiresAtTheNextClose) {
  // Catch-up: the contract's last trading day (2027-02-26) is before the first close the
  // clock crosses, so no close of that day ever comes.
  EngineMatcher matcher(MatcherOptions{});
  class Count : public journal::OutcomeSink<Outcome> {
   public:
    void Emit(const Outcome& o) override {
      if (o.kind == OutcomeKind::kEvent && o.event.type == engine::EventType::kStateChanged &&
          o.event.state == engine::TradingState::kExpired) {
        ++expired;
      }
    }
    int expired = 0;
  } sink;
  uint64_t seq = 0;
  engine::ProductCmd feb;
  feb.sym = engine::Name::From("B200-GOLD-US-202702");
  engine::ProductCmd apr;
  apr.sym = engine::Name::From("B200-GOLD-US-202704");
  matcher.Apply(++seq, engine::TimeCmd{kMarch2027 + 9 * 3600 * kNsPerSec}, sink);
  matcher.Apply(++seq, feb, sink);
  matcher.Apply(++seq, apr, sink);
  EXPECT_EQ(sink.expired, 0) << "nothing before a close";
  matcher.Apply(++seq, engine::TimeCmd{kMarch2027 + 17 * 3600 * kNsPerSec}, sink);  // 16:00Z
  EXPECT_EQ(sink.expired, 1);
  EXPECT_EQ(matcher.engine().book(0).state(), engine::TradingState::kExpired);  // February
  EXPECT_NE(matcher.engine().book(1).state(), engine::TradingState::kExpired);  // April
}

TEST(ExchangeCoreTest, PositionsInAnExpiredContractCarryNoPreTradeMargin) {
  testing::TempDir dir;
  common::ExchangeConfig config = testing::TestConfig();
  config.accounts[0].collateral = common::MicroUsd(5'000'000'000);  // 5 lots at 1,000 USD
  ExchangeOptions options = testing::TestOptions(dir.path());
  ExchangeCore core(config, options);
  Recorder rec(&core);
  core.AddListener(&rec);
  ASSERT_TRUE(core.Start().ok());
  ASSERT_TRUE(core.RefreshMargins({{"B200-GOLD-US-202703", engine::MicroUsd(1'000'000'000)},
                                   {"B200-GOLD-US-202704", engine::MicroUsd(1'000'000'000)}})
                  .ok());
  SubmitOrDie(core, Order("buy", "A0", engine::Side::kBuy, 5000, 5));  // March: 5 lots
  SubmitOrDie(core, Order("sell", "A1", engine::Side::kSell, 5000, 5));
  engine::NewOrderCmd april = Order("apr1", "A0", engine::Side::kBuy, 5000, 1);
  april.sym = engine::Name::From("B200-GOLD-US-202704");
  SubmitOrDie(core, april);  // 6 lots > 5: refused while March counts
  ASSERT_TRUE(core.Flush().ok());
  {
    std::lock_guard<std::mutex> lock(rec.mu);
    ASSERT_EQ(rec.rejects.size(), 1u);
    EXPECT_EQ(rec.rejects[0].event.reject, engine::RejectReason::kInsufficientMargin);
  }
  // March expires at 2027-03-31 16:00Z: its 5 lots no longer need margin.
  ASSERT_EQ(
      core.AdvanceTime(options.start_time + 30ll * 86400 * kNsPerSec + 8ll * 3600 * kNsPerSec),
      OfferResult::kAccepted);
  april.cl = engine::ClientId::From("apr2");
  SubmitOrDie(core, april);
  ASSERT_TRUE(core.Flush().ok());
  {
    std::lock_guard<std::mutex> lock(rec.mu);
    EXPECT_EQ(rec.rejects.size(), 1u);
  }
  EXPECT_TRUE(core.FindOrder("A0", "apr2").has_value());
  ASSERT_TRUE(core.Stop().ok());
}

TEST(ExchangeCoreTest, AtTheLastTradingDaysCloseTheMonthExpiresAndTheNextIsListed) {
  testing::TempDir dir;
  const ExchangeOptions options = testing::TestOptions(dir.path());  // 2027-03-01 09:00Z
  const std::string march = "B200-GOLD-US-202703", next = "B200-GOLD-US-202803";
  const int64_t hour = 3600ll * kNsPerSec, day = 24 * hour;
  // Wednesday 2027-03-31 is March's last trading day; its close is 16:00Z.
  const engine::Timestamp close = options.start_time + 30 * day + 7 * hour;
  auto count = [](const std::vector<std::string>& v, const std::string& s) {
    return std::count(v.begin(), v.end(), s);
  };
  {
    ExchangeCore core(testing::TestConfig(), options);
    Recorder rec(&core);
    core.AddListener(&rec);
    auto r = core.Start();
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->listed.size(), 12u);
    SubmitOrDie(core, Order("gtc", "A0", engine::Side::kBuy, 5000, 2));  // March, GTC
    // The last trading day, before the close: March still trades, nothing new is listed.
    ASSERT_EQ(core.AdvanceTime(close - kNsPerSec), OfferResult::kAccepted);
    ASSERT_TRUE(core.Flush().ok());
    EXPECT_EQ(core.ListedSymbols().size(), 12u);
    EXPECT_EQ(core.FindOrder("A0", "gtc")->status, engine::OrderStatus::kNew);
    // Past the close: March expires (its GTC order canceled `expired`), March 2028 is listed.
    ASSERT_EQ(core.AdvanceTime(close + kNsPerSec), OfferResult::kAccepted);
    ASSERT_TRUE(core.Flush().ok());
    EXPECT_EQ(count(core.ListedSymbols(), next), 1);
    EXPECT_EQ(core.ListedSymbols().size(), 12u);  // March is no longer listed
    EXPECT_EQ(count(core.ListedSymbols(), march), 0);
    std::optional<OrderStateView> gtc = core.FindOrder("A0", "gtc");
    ASSERT_TRUE(gtc.has_value());
    EXPECT_EQ(gtc->status, engine::OrderStatus::kCanceled);
    EXPECT_TRUE(gtc->expired);
    auto book = core.BookSnapshot(march, 5);
    ASSERT_TRUE(book.has_value());
    EXPECT_EQ(book->state, engine::TradingState::kExpired);
    EXPECT_EQ(book->bids.size(), 0u);
    SubmitOrDie(core, Order("late", "A0", engine::Side::kBuy, 5000, 1));
    ASSERT_TRUE(core.OpenAll().ok());  // reopening every book leaves an expired one expired
    SubmitOrDie(core, Order("later", "A0", engine::Side::kBuy, 5000, 1));
    engine::NewOrderCmd o = Order("n1", "A0", engine::Side::kBuy, 5000, 1);
    o.sym = engine::Name::From(next);
    SubmitOrDie(core, o);
    ASSERT_TRUE(core.Flush().ok());
    {
      std::lock_guard<std::mutex> lock(rec.mu);
      ASSERT_EQ(rec.rejects.size(), 2u);
      for (const Outcome& x : rec.rejects) {
        EXPECT_EQ(x.event.reject, engine::RejectReason::kMarketClosed);
      }
    }
    EXPECT_TRUE(core.FindOrder("A0", "n1").has_value()) << "the new month accepts orders";
    ASSERT_TRUE(core.Stop().ok());
  }
  ExchangeCore again(testing::TestConfig(), options);
  auto r = again.Start();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->listed.empty()) << "recovered symbols are not listed again";
  EXPECT_EQ(count(again.ListedSymbols(), next), 1);
  EXPECT_EQ(again.BookSnapshot(march, 1)->state, engine::TradingState::kExpired);
  ASSERT_TRUE(again.Stop().ok());
}

}  // namespace
}  // namespace cfx::exchange
