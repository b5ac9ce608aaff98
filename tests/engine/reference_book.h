// A deliberately simple, obviously-correct model of one open contract (vectors and linear
// scans, no performance tricks), used by the differential test. It covers continuous
// trading: limit/market, day/gtc/ioc/fok, post-only, icebergs, STP, stops with cascades,
// cancel, replace and mass cancel, plus the reject reasons those can produce.
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
  ReferenceBook(PriceTicks ref, Qty max_qty) : ref_(ref), max_qty_(max_qty) {}
  void New(const NewOrderCmd& c);
  void Cancel(const CancelCmd& c);
  void Replace(const ReplaceCmd& c);
  void MassCancel(const std::string& acct);
  // Normalised events: "A cl", "J cl reason", "T px qty buy sell agg", "C cl qty reason",
  // "P cl orig px qty", "G cl", "X orig reason".
  std::vector<std::string>& out() { return out_; }
  // "px:qty:count" per level, best first.
  std::vector<std::string> Depth(Side side) const;

 private:
  struct O {
    std::string cl, acct, firm, stp;
    Side side;
    OrderType type;
    TimeInForce tif;
    StpAction act;
    PriceTicks px = 0, stop = 0;
    Qty qty = 0, cum = 0, display = 0, shown = 0;
    uint64_t prio = 0, accept = 0;
    bool post_only = false;
    Qty leaves() const { return qty - cum; }
  };
  int BestOpp(Side side) const;  // index into book_, -1 if none
  void Execute(O o);
  void Rest(O o);
  void Triggers(std::vector<PriceTicks> prints);
  int FindLive(const std::string& acct, const std::string& cl, bool* is_stop) const;
  void Emit(std::string s) { out_.push_back(std::move(s)); }

  PriceTicks ref_;
  Qty max_qty_;
  bool has_last_ = false;
  PriceTicks last_ = 0;
  uint64_t prio_ = 0, accept_ = 0;
  std::vector<O> book_, stops_;
  std::set<std::pair<std::string, std::string>> taken_;
  std::vector<PriceTicks> prints_;
  std::vector<std::string> out_;
};

}  // namespace cfx::engine::testing

#endif  // CFX_TESTS_ENGINE_REFERENCE_BOOK_H_
