// One trading firm's FIX session in the demo: the FixClient, the firm's live orders as
// its ExecutionReports describe them, the requests still waiting for a first answer, and
// the counts the report shows. Used by demo_trading.cc.
#ifndef CFX_GATEWAY_DEMO_SESSION_H_
#define CFX_GATEWAY_DEMO_SESSION_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cfx/client/fix_client.h"
#include "demo_internal.h"

namespace cfx::demo {

struct LiveOrder {
  std::string account;
  std::string symbol;
  Side side = Side::kBuy;
  int64_t price_ticks = 0;  // 0 for a pending stop
  int64_t leaves = 0;
};

// Counts shared by every session (the report's totals). Guarded by DemoSession's caller:
// each session updates its own copy; RunTradingDays adds them up.
struct SessionCounts {
  int64_t exec_reports = 0;
  int64_t fills = 0;
  int64_t fill_qty = 0;
  int64_t closing_fills = 0;
  std::map<std::string, int64_t> rejects;
  std::map<std::string, int64_t> md_rejects;  // MarketDataRequestReject (Y) by text
  std::map<std::string, int64_t> cancel_rejects;
  std::map<std::string, int64_t> cancels_by_reason;
  std::map<std::string, int64_t> fills_by_symbol;
  std::map<std::string, int64_t> qty_by_symbol;
};

// Thread safety: the FIX callback (QuickFIX's thread) and the driving thread share state
// under mu_. `in_closing_window` is read by the callback to attribute fills.
class DemoSession {
 public:
  DemoSession(const common::SessionConfig& session, std::vector<std::string> accounts, int port,
              const std::string& store_dir, const std::atomic<bool>* in_closing_window);

  absl::Status Logon();
  void Logout();
  const std::string& name() const { return name_; }
  const std::string& firm() const { return firm_; }
  const std::vector<std::string>& accounts() const { return accounts_; }
  FixClient& client() { return *client_; }

  // Sends and registers the request as pending (its first answer ends the wait).
  absl::Status Order(const FixOrder& order);
  // `symbol` is sent when `orig` is not a live order of this session.
  absl::Status Cancel(const std::string& cl, const std::string& orig, const std::string& symbol);
  absl::Status Replace(const FixReplace& replace);
  // Sends a status request for a never-used id and waits for all pending answers and for
  // the status answer: afterwards every report caused by earlier requests has arrived.
  absl::Status Barrier(std::chrono::milliseconds timeout);
  // Waits until nothing is pending. DeadlineExceeded names how many are still open.
  absl::Status WaitIdle(std::chrono::milliseconds timeout);

  // A new client order id: "<session>-<n>".
  std::string NextId();
  // Snapshot of the live orders, in id order (deterministic after a Barrier).
  std::vector<std::pair<std::string, LiveOrder>> LiveOrders();
  SessionCounts Counts();

 private:
  void OnMessage(const FixMessage& m);
  void OnExecReport(const FixMessage& m);

  const std::string name_;
  const std::string firm_;
  const std::vector<std::string> accounts_;
  const std::atomic<bool>* in_closing_window_;
  std::unique_ptr<FixClient> client_;
  int64_t next_id_ = 0;
  int64_t barrier_n_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> pending_;  // request ids (11, or 790 for barriers)
  std::map<std::string, LiveOrder> live_;
  std::map<std::string, LiveOrder> sent_;  // order ids sent but not yet acknowledged
  SessionCounts counts_;
  std::string last_session_reject_;  // text of the latest 35=3, for error messages
};

}  // namespace cfx::demo

#endif  // CFX_GATEWAY_DEMO_SESSION_H_
