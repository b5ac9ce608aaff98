// EngineMatcher: the matching engine as the journal pipeline's state machine
// (journal::Matcher<engine::Command, Outcome>). Applies each durable input to the engine and
// emits one Outcome per engine event with the names and order terms FIX needs, and the
// closing quotes of SPEC §9: when a TimeCmd first reaches or passes D 16:00Z of a business
// day D, before the TimeCmd is applied, one kClose outcome per listed symbol with the best
// bid and ask (the book after the last input before D 16:00Z).
//
// It also owns the pre-trade risk check (SPEC §4), fed only from sequenced state: positions
// and open quantities derived from engine events, margins per contract from
// ProductCmd::initial_margin, and the check's switch and collateral as the latest RiskCmds
// set them (before any, MatcherOptions'; docs/durability.md, "Determinism of pre-trade
// risk"), so that a replay of the journal takes the decisions that were acknowledged.
//
//   EngineMatcher matcher({.calendar = config.Calendar()});
//   Pipeline<engine::Command, Outcome> p(opt, journal, &codec, &matcher, &listener);
#ifndef CFX_EXCHANGE_ENGINE_MATCHER_H_
#define CFX_EXCHANGE_ENGINE_MATCHER_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cfx/common/date.h"
#include "cfx/common/units.h"
#include "cfx/engine/engine.h"
#include "cfx/exchange/fix_session_table.h"
#include "cfx/exchange/outcome.h"
#include "cfx/journal/pipeline_interfaces.h"

namespace cfx::exchange {

namespace internal {
class BookPublisher;
}

struct MatcherOptions {
  common::BusinessCalendar calendar;
  bool emit_closes = true;
  // Expire each contract at its last trading day's 16:00Z close (with emit_closes). Off for
  // `cfx replay --data-dir`, whose store must match the §4.1 events it prints.
  bool expire_contracts = true;
  // Day orders expire at each business day's 16:00Z close, the session close of SPEC §4
  // (with emit_closes): `cfx serve`'s trading day ends there and the next begins, so the
  // books stay in their state. Like the risk settings, taken only through a sequenced
  // RiskCmd (RiskCmdsFor). Off for `cfx replay --data-dir` (only its `close` inputs).
  bool close_day_orders = true;
  // With close_day_orders: a close is taken at the first input stamped at or past it, as if
  // a `time` input at that stamp came first (SPEC §9.1: the book at the close is the book
  // after the last input before 16:00Z), not at the next clock tick up to a second later.
  // Sequenced with close_day_orders (RiskCmd::close_day_orders = 2; 3 with clock_at_stamps),
  // so that a journal written before it replays as it ran.
  bool close_at_stamps = true;
  // With close_at_stamps: the engine's clock moves to each order input's stamp before the
  // input is applied (as if a `time` input at that stamp came first), so a GTD order is
  // judged expired on arrival, and expires before anything trades with it, at the input's
  // time (SPEC §4.2, §5), not at the clock's next tick up to a second later. Sequenced
  // (RiskCmd::close_day_orders = 3) like the closes at stamps.
  bool clock_at_stamps = true;
  // Pre-trade risk: on when set; collateral by account, others have 0.
  bool pre_trade_risk = false;
  std::map<std::string, common::MicroUsd, std::less<>> collateral;
  // Live orders one account may have (0: no cap), on or off with pre_trade_risk alike. The
  // matcher starts with no cap and takes this one only through a sequenced RiskCmd
  // (RiskCmdsFor), so that a replay decides as the run it replays did.
  int64_t max_open_orders_per_account = 0;
  // STP groups of its own one firm may name (engine::EngineConfig::max_stp_groups_per_firm;
  // 0: no cap). Taken only through a sequenced RiskCmd (RiskCmdsFor), so that a journal
  // written before the cap replays as it ran and every node counts from the same input
  // (engine.max_stp_groups_per_firm is not taken: the matcher's engine starts without a cap).
  // `cfx replay --data-dir` sets 0.
  int64_t max_stp_groups_per_firm = kMaxStpGroupsPerFirm;
  // The exchange's engine: ClOrdIDs per UTC date (client_ids_per_day), as `cfx serve`;
  // `cfx replay --data-dir` turns it off, its store matching the §4.1 events it prints.
  engine::EngineConfig engine = ExchangeEngineConfig();

  // The highest limit price the exchange takes: USD 1,000,000 a GPU-hour, the highest its
  // margin engine values (gpu_valuation::kMaxSettleTicks) and far above any market. One lot's
  // notional there is 1e12 ticks, so no trade's sums, VM or AvgPx come near int64's end.
  static constexpr engine::PriceTicks kMaxLimitPrice{1'000'000'000};
  // max_stp_groups_per_firm's default: far more than a firm's traders and strategies, a
  // bound on what a firm's clients sending fresh STP ids can make every snapshot hold, which
  // no firm can use up for another.
  static constexpr int64_t kMaxStpGroupsPerFirm = 4096;
  // A contract's initial margin (ProductCmd::initial_margin) when nothing prices it (never
  // settled, no fix in the window, no config `ref`): under the pre-trade check an order that
  // raises the account's exposure in it is refused `insufficient_margin` rather than taken at
  // a margin of 0 (docs/engine.md, "Outside the engine"); positions in it count 0 towards the
  // sum. Sent for a contract priced before, it keeps the margin it had. A month listed after
  // margins arrived (the roll) starts with it until the risk desk's next poll prices it.
  static constexpr engine::MicroUsd kNoPriceMargin{INT64_MAX};

  static engine::EngineConfig ExchangeEngineConfig() {
    engine::EngineConfig c;
    c.client_ids_per_day = true;
    c.max_price = kMaxLimitPrice;
    return c;
  }
};

// Thread safety: one thread at a time (the matcher thread; recovery before it starts).
class EngineMatcher : public journal::Matcher<engine::Command, Outcome>,
                      private engine::PreTradeRisk {
 public:
  explicit EngineMatcher(MatcherOptions options);
  ~EngineMatcher() override;

  // The RiskCmds that make the matcher's risk settings those of `config` (the switch, every
  // account's collateral, an account it no longer names getting 0, and the open-order cap):
  // all of them when no RiskCmd was ever applied, else only the differences. Read before
  // the first input is offered after a start or a promotion (the matcher is idle then).
  std::vector<engine::RiskCmd> RiskCmdsFor(const MatcherOptions& config) const;

  // An input without a stamp (time_us 0): its outcomes carry the latest TimeCmd's time.
  void Apply(uint64_t seq, const engine::Command& command,
             journal::OutcomeSink<Outcome>& sink) override;
  // An input stamped by the sequencer (µs, SPEC §5): its outcomes (trades, reports, market
  // data, the trade store) carry that stamp, or the latest TimeCmd's time if it is later.
  // The engine's own clock (GTD expiry, closes) still moves only with TimeCmd inputs.
  void ApplyAt(uint64_t seq, int64_t time_us, const engine::Command& command,
               journal::OutcomeSink<Outcome>& sink) override;
  // input_time() in µs (the time every outcome of the input carries); 0 before any time.
  int64_t AppliedTimeUs(int64_t) const override {
    return input_time_ == engine::kNoTime || input_time_ <= 0 ? 0 : input_time_ / 1000;
  }
  void Prefetch(const engine::Command& command) const override { engine_->Prefetch(command); }
  // Engine snapshot + the matcher's own state (last time, positions, margins).
  std::string Snapshot() const override;
  absl::Status Restore(absl::string_view snapshot) override;

  const engine::Engine& engine() const { return *engine_; }
  uint64_t last_seq() const { return last_seq_; }
  // Position of an account in a contract, from trades (risk state).
  int64_t Position(engine::AccountId acct, engine::SymbolId sym) const;
  // Open (resting and pending-stop) quantity of an account in a contract, buy and sell.
  struct OpenQty {
    int64_t buy = 0;
    int64_t sell = 0;
  };
  OpenQty Open(engine::AccountId acct, engine::SymbolId sym) const;
  // Live orders (resting and pending stops) of an account, and the cap on them in force
  // (RiskCmd; 0: none).
  uint32_t OpenOrders(engine::AccountId acct) const {
    return acct < open_orders_.size() ? open_orders_[acct] : 0;
  }
  int64_t max_open_orders() const { return max_open_orders_; }
  bool close_day_orders() const { return close_day_orders_; }
  bool close_at_stamps() const { return close_at_stamps_; }
  bool clock_at_stamps() const { return clock_at_stamps_; }
  // Per-contract initial margin in force (micro-USD), 0 when none was set,
  // MatcherOptions::kNoPriceMargin when nothing prices it.
  int64_t Margin(engine::SymbolId sym) const;

  // Where each FIX session stands (the `fix_session` inputs); any thread.
  std::vector<FixSessionSeqs> FixSessions() const { return fix_sessions_.All(); }
  uint64_t ReportsSentThrough() const { return fix_sessions_.ReportsSentThrough(); }

  // For a run that ends before the next close (`cfx replay --data-dir`): the closing quote
  // of every contract for the business day whose trading window holds the latest time (the
  // first business day whose 16:00Z is after it), from the books as they stand. SPEC §9:
  // the book at the close is the book after the last input before it. Nothing before the
  // first TimeCmd, or with emit_closes off.
  void EmitOpenDayClose(journal::OutcomeSink<Outcome>& sink);

  // Optional: book snapshots published after each input (not owned; set before Start).
  void set_publisher(internal::BookPublisher* publisher) { publisher_ = publisher; }
  // Publishes every book (after recovery).
  void PublishAll();
  // The time of the input applied last (its outcomes' ts, see ApplyAt); matcher thread.
  engine::Timestamp input_time() const { return input_time_; }
  // The latest TimeCmd applied (kNoTime before any); any thread (relaxed).
  engine::Timestamp published_time() const {
    return published_time_.load(std::memory_order_relaxed);
  }

 private:
  // A contract's margin after a ProductCmd's initial_margin `sent` (-1: keep), from `now`;
  // `listed_now`: the command lists it (MatcherOptions::kNoPriceMargin's rules).
  int64_t NextMargin(int64_t now, int64_t sent, bool listed_now) const;
  struct Exposure {
    int64_t pos = 0;
    int64_t open_buy = 0;
    int64_t open_sell = 0;
  };
  engine::RejectReason CheckNewOrder(const engine::NewOrderCmd& cmd, engine::AccountId acct,
                                     const engine::OrderBook& book) override;
  engine::RejectReason CheckReplace(const engine::ReplaceCmd& cmd, engine::AccountId acct,
                                    const engine::Order& order, engine::Qty added,
                                    const engine::OrderBook& book) override;
  // The §4 margin rule for `acct` with `add` more open on `side` in `book`'s contract:
  // kInsufficientMargin when the requirement would pass the collateral.
  engine::RejectReason CheckMargin(engine::AccountId acct, std::string_view acct_name,
                                   const engine::OrderBook& book, engine::Side side, int64_t add);
  // The account's collateral (options_.collateral by name, looked up once an account).
  int64_t CollateralOf(engine::AccountId acct, std::string_view name);
  // Closing quotes at 16:00Z of each business day in (from, to] (none for an expired
  // contract); at the close of a contract's last trading day, after its quote, or at the
  // first close after it if time jumped over it, the contract expires (StateCmd kExpired:
  // its orders are canceled `expired`, new ones refused). Derived from the TimeCmd and the
  // calendar, so replaying the journal with the same holidays expires the same contracts
  // at the same input (docs/engine.md: do not change holidays of past dates).
  void CloseAtStamp(engine::Timestamp stamp, journal::OutcomeSink<Outcome>& sink);
  void EmitCloses(engine::Timestamp from, engine::Timestamp to,
                  journal::OutcomeSink<Outcome>& sink);
  // The closing quote of every contract not expired for business day `day`, stamped `ts`.
  void EmitQuotes(common::Date day, engine::Timestamp ts, journal::OutcomeSink<Outcome>& sink);
  // Emits the engine's events of the command just processed as outcomes.
  void EmitEvents(const engine::Command& command, engine::SessionId session,
                  journal::OutcomeSink<Outcome>& sink);
  // The last trading day (days since the epoch) of symbol `id`; INT32_MIN if its name is
  // not a contract symbol.
  int32_t LastTradingDay(engine::SymbolId id);
  void Track(const engine::Event& e);
  // Moves the open quantity of the order `info` describes from `before` (its leaves before
  // the event) to its leaves after it (0 once ended).
  void MoveLeaves(const engine::OrderInfo& info, engine::SymbolId sym, int64_t before);
  Exposure& ExposureOf(engine::AccountId acct, engine::SymbolId sym);
  const Exposure* FindExposure(engine::AccountId acct, engine::SymbolId sym) const;
  void RebuildLeaves();
  void CountOpen(engine::AccountId acct, int delta);
  void FillOutcome(const engine::Event& e, Outcome* out) const;

  MatcherOptions options_;
  std::unique_ptr<engine::Engine> engine_;
  uint64_t last_seq_ = 0;
  engine::Timestamp last_time_ = engine::kNoTime;
  // The time of the input being applied (its outcomes' ts): see ApplyAt. Not snapshotted:
  // set afresh by every input.
  engine::Timestamp input_time_ = engine::kNoTime;
  // Risk state: all derived from sequenced inputs (snapshotted: positions, margins).
  // By account id: the contracts it touched, in the order it first did. A scan of an
  // account's few contracts instead of a hash map by (account, contract): the map's lookups,
  // up to four an event, were a tenth of the matcher thread in `cfx bench pipeline --engine`.
  struct SymExposure {
    engine::SymbolId sym = 0;
    Exposure x;
  };
  std::vector<std::vector<SymExposure>> exposure_;
  std::vector<int64_t> margins_;           // by symbol id
  std::vector<int64_t> collateral_;        // by account id; kCollateralUnknown until looked up
  // Live orders by account id (events in Track; rebuilt from the engine after a restore),
  // and the cap RiskCmds set (snapshotted with the risk settings; 0: none).
  std::vector<uint32_t> open_orders_;
  int64_t max_open_orders_ = 0;
  // Day orders expire at the 16:00Z closes: set only by a RiskCmd (snapshotted when on), so a
  // journal written before the rule replays as it ran.
  bool close_day_orders_ = false;
  // Closes at the first input stamped past them (MatcherOptions::close_at_stamps), and the
  // first business-day close after last_time_ (kNoTime: to be found again).
  bool close_at_stamps_ = false;
  // The engine's clock at each order input's stamp (MatcherOptions::clock_at_stamps).
  bool clock_at_stamps_ = false;
  engine::Timestamp next_close_ = engine::kNoTime;
  FixSessionTable fix_sessions_;           // snapshotted (when not empty)
  // Whether a RiskCmd (or a snapshot holding its effect) set options_.pre_trade_risk and
  // options_.collateral; snapshotted with them when set.
  bool risk_recorded_ = false;
  // options_.pre_trade_risk and options_.collateral as constructed: Restore starts from them,
  // so that it replaces the whole state whatever came before (a refused Restore too).
  bool initial_pre_trade_risk_ = false;
  std::map<std::string, common::MicroUsd, std::less<>> initial_collateral_;
  std::vector<int32_t> last_trading_day_;  // by symbol id, filled as symbols appear
  internal::BookPublisher* publisher_ = nullptr;
  std::vector<engine::SymbolId> touched_;
  Outcome scratch_;
  std::atomic<engine::Timestamp> published_time_{engine::kNoTime};
};

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_ENGINE_MATCHER_H_
