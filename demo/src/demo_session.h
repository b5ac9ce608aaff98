// One simulated firm's FIX session in the demo: the FixClient (a new one per connection:
// the exchange restarts every night), the firm's live orders and net positions as its
// ExecutionReports describe them, the requests still waiting for a first answer, and the
// counts the report shows. The session outlives its connections, so client order ids and
// counts run on across days. Used by demo_trading.cc.
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
  int64_t price_ticks = 0;  // 0 for a pending stop or a market order
  int64_t leaves = 0;
  bool stop = false;  // a stop or stop-limit (its limit in price_ticks)
};

// What one session's reports said. Each session updates its own copy under its lock;
// RunTradingDay adds them up.
struct SessionCounts {
  int64_t exec_reports = 0;
  int64_t fills = 0;
  int64_t fill_qty = 0;
  int64_t closing_fills = 0;
  std::map<std::string, int64_t> received;  // application messages by MsgType (35)
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
  DemoSession(const common::SessionConfig& session, std::vector<std::string> accounts,
              const std::string& store_dir, const std::atomic<bool>* in_closing_window);

  // A new connection to `port` and its Logon. `keep_sequence`: the session continues its
  // sequence numbers (no 141=Y), so reports the exchange sent while it was away are
  // resent at the Logon.
  absl::Status Connect(int port, bool keep_sequence);
  void Logout();
  bool connected() const { return client_ && client_->logged_on(); }
  const std::string& name() const { return name_; }
  const std::string& firm() const { return firm_; }
  const std::vector<std::string>& accounts() const { return accounts_; }
  FixClient& client() { return *client_; }

  // Sends and registers the request as pending (its first answer ends the wait).
  absl::Status Order(const FixOrder& order);
  // Cancels a live order of this session (its account, symbol and side from the report).
  absl::Status Cancel(const std::string& cl, const std::string& orig, const std::string& symbol);
  absl::Status Replace(const FixReplace& replace);
  // Sends a status request for a never-used id and waits for all pending answers and for
  // the status answer: afterwards every report caused by earlier requests has arrived.
  absl::Status Barrier(std::chrono::milliseconds timeout);
  // The barrier's status request alone; WaitIdle waits for its answer.
  absl::Status StartBarrier();
  // Waits until nothing is pending. DeadlineExceeded names how many are still open.
  absl::Status WaitIdle(std::chrono::milliseconds timeout);

  // A new client order id: "<session>-<n>".
  std::string NextId();
  // Snapshot of the live orders, in id order (deterministic after a Barrier).
  std::vector<std::pair<std::string, LiveOrder>> LiveOrders();
  // Net position per symbol from this session's fills (deterministic after a Barrier).
  std::map<std::string, int64_t> Positions();
  // The latest order of this session that filled completely ("" if none).
  std::string LastFilled();
  SessionCounts Counts();

 private:
  void OnMessage(const FixMessage& m);
  void OnExecReport(const FixMessage& m);

  const common::SessionConfig config_;
  const std::string name_;
  const std::string firm_;
  const std::vector<std::string> accounts_;
  const std::string store_dir_;
  const std::atomic<bool>* in_closing_window_;
  std::unique_ptr<FixClient> client_;
  int64_t next_id_ = 0;
  int64_t barrier_n_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> pending_;  // request ids (11, or 790 for barriers)
  std::map<std::string, LiveOrder> live_;
  std::map<std::string, LiveOrder> sent_;  // order ids sent but not yet acknowledged
  std::map<std::string, int64_t> positions_;
  std::string last_filled_;
  SessionCounts counts_;
  std::string last_session_reject_;  // text of the latest 35=3, for error messages
};

}  // namespace cfx::demo

#endif  // CFX_GATEWAY_DEMO_SESSION_H_
