// The demo's simulated firms and how each decides what to send in a time slot. A slot has
// two phases separated by barriers (demo_trading.cc): first every firm cancels or amends
// the orders it holds, from the state its own reports gave it after the last barrier
// (nothing can trade in this phase: cancels, quantity changes and price moves away from
// the market never cross), then every firm sends its new orders. So a firm never cancels
// an order that filled meanwhile, except the deliberate late cancel that shows the reject.
#ifndef CFX_GATEWAY_DEMO_FIRMS_H_
#define CFX_GATEWAY_DEMO_FIRMS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "demo_internal.h"
#include "demo_rng.h"
#include "demo_session.h"

namespace cfx::demo {

// A contract during the day: its band reference and a mid that drifts around the fair value.
struct LiveContract {
  std::string sym;
  int64_t band_ref = 0;
  int64_t fair = 0;
  int64_t mid = 0;
};

// Counts every request a firm sends (the report's trading section).
struct RequestCounts {
  int64_t orders = 0;
  int64_t quotes = 0;
  int64_t cancels = 0;
  int64_t replaces = 0;
  int64_t late_cancels = 0;
  std::map<std::string, int64_t> orders_by_type;
};

// A market maker: one two-sided quote per contract around the mid, shifted against its
// inventory, and no quote on the side that would take it past its limit.
struct MakerParams {
  int64_t half_spread = 3;  // ticks
  int64_t size = 8;         // contracts per quote
  int64_t limit = 60;       // net contracts per contract symbol
};

class Firm {
 public:
  Firm(DemoSession* session, std::string role, Rng* rng, RequestCounts* counts)
      : session_(session), role_(std::move(role)), rng_(rng), counts_(counts) {}
  virtual ~Firm() = default;
  DemoSession& session() { return *session_; }
  const std::string& role() const { return role_; }
  virtual std::string Params() const { return ""; }
  // Takes part in the barriers (false for a firm that comes and goes).
  virtual bool synced() const { return true; }
  // Pre-open: orders for the opening auction.
  virtual absl::Status PreOpen(std::vector<LiveContract>& contracts) = 0;
  // Phase 1 of a slot: cancels and amendments only.
  virtual absl::Status Amend(std::vector<LiveContract>& contracts) = 0;
  // Phase 2 of a slot: new orders; `budget` random requests for the takers.
  virtual absl::Status Send(std::vector<LiveContract>& contracts, int budget) = 0;

 protected:
  // Send without waiting: a firm's requests of one phase travel pipelined on its one
  // session, in order; the floor waits for all their answers before the next firm's phase,
  // so the sequence the engine sees is the same on every run.
  absl::Status SendOrder(FixOrder& o, const std::string& kind);
  absl::Status SendCancel(const std::string& orig, const std::string& sym);
  absl::Status SendReplace(FixReplace& r);
  const std::string& AccountFor(size_t index) const;

  DemoSession* session_;
  std::string role_;
  Rng* rng_;
  RequestCounts* counts_;
};

std::unique_ptr<Firm> NewMarketMaker(DemoSession* s, MakerParams p, Rng* rng, RequestCounts* c);
std::unique_ptr<Firm> NewTaker(DemoSession* s, Rng* rng, RequestCounts* c);

}  // namespace cfx::demo

#endif  // CFX_GATEWAY_DEMO_FIRMS_H_
