// A deliberately simple, obviously-correct model of one contract (vectors and linear scans,
// no performance tricks), written from SPEC §4/§4.2 and the choices recorded in
// docs/engine.md, used by the differential test. It covers:
//   - continuous trading: limit/market, day/gtc/ioc/fok/gtd, post-only, icebergs, STP, stops
//     with cascades, cancel, replace and mass cancel, with their reject reasons;
//   - trading states (`state`): pre_open (orders rest, no matching), open, halted (cancels
//     only), closed (nothing), and the rejects each gives to new orders, cancels, replaces;
//   - the opening auction on pre_open -> open (uncrossing price, allocation, STP, triggers);
//   - `time` (gtd expiry) and `close` (day orders expire, the contract closes);
//   - commands naming another symbol (`unknown_symbol`).
//
// Usage:
//   ReferenceBook ref("S", /*has_ref=*/true, 5000, 1000);
//   ref.New(cmd);                  // appends normalised events to ref.out()
#ifndef CFX_TESTS_ENGINE_REFERENCE_BOOK_H_
#define CFX_TESTS_ENGINE_REFERENCE_BOOK_H_

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cfx/engine/command.h"

namespace cfx::engine::testing {

class ReferenceBook {
 public:
  // The model keeps its own plain numbers (ticks, contracts); the engine's unit types meet
  // it only at the commands it reads.
  using Ticks = int64_t;
  using Lots = int64_t;
  // How often each path ran, so a test can check its random streams reach them.
  struct Stats {
    int auctions = 0;              // pre_open -> open transitions
    int auctions_with_trades = 0;
    int auction_trades = 0;
    int auction_stp_cancels = 0;
    int auction_triggers = 0;      // stops triggered by auction prints
    int auction_iceberg_refills = 0;
    int auction_uncross_trades = 0;  // trades of what STP left crossed after the pairing
    // Which step of the price rule decided among several max-quantity candidates.
    int auction_by_imbalance = 0, auction_by_ref = 0, auction_by_lower = 0;
    int gtd_expired = 0;           // canceled `expired` by a time command
    int gtd_invalid = 0;           // gtd rejected invalid_field (missing / already expired)
    int closes = 0;
    int day_expired = 0;           // canceled `expired` by close
    int state_rejects = 0;         // new -> halted / market_closed because of the state
    int pre_open_rejects = 0;      // market / ioc / fok in pre_open
    int pre_open_accepts = 0;      // orders (not stops) accepted in pre_open
    int cancel_state_rejects = 0;  // cancel -> cancel_rejected market_closed
    int replace_state_rejects = 0; // replace -> cancel_rejected halted / market_closed
    int unknown_symbol = 0;
  };

  ReferenceBook(std::string sym, bool has_ref, Ticks ref, Lots max_qty)
      : sym_(std::move(sym)), has_ref_(has_ref), ref_(ref), max_qty_(max_qty) {}
  // As EngineConfig::client_ids_per_day (default: ids stay taken for the whole run).
  void set_ids_per_day(bool v) { ids_per_day_ = v; }
  void New(const NewOrderCmd& c);
  void Cancel(const CancelCmd& c);
  void Replace(const ReplaceCmd& c);
  void MassCancel(const MassCancelCmd& c);
  void State(const StateCmd& c);
  void Time(const TimeCmd& c);
  void Close(const CloseCmd& c);

  // Normalised events: "A cl", "J cl reason", "T px qty buy sell agg", "C cl qty reason",
  // "P cl orig px qty", "G cl", "X orig reason".
  std::vector<std::string>& out() { return out_; }
  // "px:qty:count" per level, best first.
  std::vector<std::string> Depth(Side side) const;
  TradingState state() const { return state_; }
  size_t live_orders() const { return book_.size() + stops_.size(); }
  const Stats& stats() const { return stats_; }

 private:
  struct O {
    std::string cl, acct, firm, stp;
    Side side;
    OrderType type;
    TimeInForce tif;
    StpAction act;
    Ticks px = 0, stop = 0;
    Lots qty = 0, cum = 0, display = 0, shown = 0;
    uint64_t prio = 0, accept = 0;
    Timestamp expire = kNoTime;
    bool post_only = false;
    Lots leaves() const { return qty - cum; }
  };
  bool InBand(Ticks px) const { return !has_ref_ || (px * 10 >= ref_ * 9 && px * 10 <= ref_ * 11); }
  int BestOpp(Side side) const;  // index into book_, -1 if none
  static int BestOppIn(const std::vector<O>& book, Side side);
  bool FillsWhole(O o, Ticks limit) const;  // a FOK's fill, on a copy of the book
  void Execute(O o);
  void Rest(O o);
  // In pre-open rests `o` (no matching); otherwise matches it, then fires the stops its
  // prints trigger.
  void RestOrExecute(O o);
  void Auction();
  void Triggers(std::vector<Ticks> prints);
  // Cancels (reason) every resting order and pending stop matching `pred`, in acceptance order.
  template <typename Pred>
  int CancelWhere(Pred pred, const char* reason);
  int FindLive(const std::string& acct, const std::string& cl, bool* is_stop) const;
  void Emit(std::string s) { out_.push_back(std::move(s)); }

  std::string sym_;
  bool has_ref_;
  Ticks ref_;
  Lots max_qty_;
  TradingState state_ = TradingState::kOpen;
  bool has_last_ = false;
  Ticks last_ = 0;
  bool has_now_ = false;
  bool ids_per_day_ = false;
  Timestamp now_ = 0;
  uint64_t prio_ = 0, accept_ = 0;
  std::vector<O> book_, stops_;
  std::set<std::pair<std::string, std::string>> taken_;
  std::vector<Ticks> prints_;
  std::vector<std::string> out_;
  Stats stats_;
};

}  // namespace cfx::engine::testing

#endif  // CFX_TESTS_ENGINE_REFERENCE_BOOK_H_
