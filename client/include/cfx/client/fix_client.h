// A FIX 4.4 initiator for one session: the client side of the gateway (SPEC §6), for
// `cfx demo`, tools and tests. It logs on (with a password when given), sends orders,
// cancels, replaces and market data requests, and hands every application message it
// receives to a callback and to a queue that callers wait on. QuickFIX stays hidden:
// this header is C++14-clean and names no QuickFIX type.
//
//   FixClientOptions opt;
//   opt.sender_comp_id = "ALPHA_T1"; opt.password = "alpha-secret";
//   opt.port = server.fix_port(); opt.store_dir = "/tmp/alpha";
//   FixClient client(opt);
//   if (absl::Status s = client.Logon(std::chrono::seconds(5)); !s.ok()) return s;
//   FixOrder o; o.cl_ord_id = "o1"; o.account = "ALPHA-1"; o.symbol = "B200-GOLD-US-202703";
//   o.side = Side::kBuy; o.price_ticks = 5400; o.qty = 10;
//   client.SendOrder(o);
//   FixMessage er;
//   client.WaitFor([](const FixMessage& m) { return m.IsExecReport("o1"); }, &er,
//                  std::chrono::seconds(2));
//   client.Logout();
#ifndef CFX_GATEWAY_FIX_CLIENT_H_
#define CFX_GATEWAY_FIX_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cfx/gateway/order_entry.h"

namespace cfx {
namespace client {

using gateway::OrdType;
using gateway::Side;
using gateway::TimeInForce;

struct FixClientOptions {
  std::string sender_comp_id;          // ours (tag 49)
  std::string target_comp_id = "CFX";  // the exchange's (tag 56)
  std::string host = "127.0.0.1";
  int port = 0;
  std::string password;  // sent as 554 at Logon when non-empty
  std::string username;  // sent as 553 when non-empty
  // Sequence store (and the dictionary, when dictionary_path is empty). Created if absent.
  std::string store_dir;
  // The FIX 4.4 data dictionary to validate with; empty: the gateway's embedded one,
  // written to store_dir.
  std::string dictionary_path;
  int heartbeat_secs = 30;
  bool reset_on_logon = true;  // start both sides at sequence number 1
};

// One received message, flattened: top-level fields of header and body, and the entries
// of its one repeating group (MDEntries 268, Symbols 146...) when it has one.
struct FixMessage {
  std::string msg_type;               // "8", "9", "W", "X", "Y", "y", "j", "r", "3"
  std::map<int, std::string> fields;  // header and body
  std::vector<std::map<int, std::string>> entries;

  // The value of `tag`, or "" when absent.
  std::string Get(int tag) const;
  bool Has(int tag) const { return fields.count(tag) != 0; }
  // An ExecutionReport (35=8) whose ClOrdID(11) is `cl_ord_id` (any when empty).
  bool IsExecReport(const std::string& cl_ord_id = "") const;
  // ExecType(150) of an ExecutionReport, 0 otherwise.
  char exec_type() const;
};

// A NewOrderSingle. Prices are int64 ticks of 0.001 USD (sent as 3-decimal strings); a
// price or stop of 0 means "not sent".
struct FixOrder {
  std::string cl_ord_id;
  std::string account;
  std::string symbol;
  Side side = Side::kBuy;
  OrdType ord_type = OrdType::kLimit;
  int64_t price_ticks = 0;
  int64_t stop_ticks = 0;
  int64_t qty = 0;
  TimeInForce tif = TimeInForce::kDay;
  std::string expire_time;  // gtd: "YYYYMMDD-HH:MM:SS"
  bool post_only = false;
  int64_t display_qty = 0;  // MaxFloor(111); 0: not an iceberg
  std::string stp_id;       // 7928 when non-empty
  // A raw price string instead of price_ticks (tests and deliberately bad input).
  std::string price_text;
};

// An OrderCancelReplaceRequest: 0 keeps the order's current price or quantity. Symbol, side
// and order type are the order's own, repeated (a replace cannot change them: docs/fix.md);
// a stop or stop-limit order keeps its stop price.
struct FixReplace {
  std::string cl_ord_id;
  std::string orig_cl_ord_id;
  std::string account;
  std::string symbol;
  Side side = Side::kBuy;
  int64_t price_ticks = 0;
  int64_t qty = 0;
  OrdType ord_type = OrdType::kLimit;
};

// Thread safety: every method may be called from any thread. The callback runs on
// QuickFIX's session thread, must not block for long and must not call Logon/Logout.
class FixClient {
 public:
  using Callback = std::function<void(const FixMessage&)>;

  explicit FixClient(FixClientOptions options);
  ~FixClient();  // logs out if still logged on
  FixClient(const FixClient&) = delete;
  FixClient& operator=(const FixClient&) = delete;

  // Set before Logon. Called for every application message, before it is queued.
  void SetCallback(Callback callback);
  // Keep received messages in the queue (default true). Off for high-volume sessions that
  // only use the callback.
  void SetQueueing(bool on);

  // Connects and waits for the Logon answer. Unavailable on timeout (wrong port, refused
  // credentials: the text of the gateway's Logout is in the message when one came).
  absl::Status Logon(std::chrono::milliseconds timeout);
  // Sends Logout and waits for the answer (or the timeout), then stops. Idempotent.
  void Logout(std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));
  bool logged_on() const;

  // Each returns FailedPrecondition when not logged on, InvalidArgument for a request the
  // client cannot encode, Unavailable when QuickFIX refuses to send.
  absl::Status SendOrder(const FixOrder& order);
  absl::Status SendCancel(const std::string& cl_ord_id, const std::string& orig_cl_ord_id,
                          const std::string& account, const std::string& symbol, Side side);
  absl::Status SendReplace(const FixReplace& replace);
  // OrderStatusRequest. The answer (an ExecutionReport with ExecType I, 790 echoed) comes
  // after every report the exchange sent this session before it: a barrier.
  absl::Status SendStatusRequest(const std::string& status_req_id, const std::string& cl_ord_id,
                                 const std::string& account, const std::string& symbol, Side side);
  // MarketDataRequest: 263=1 (snapshot + updates), `depth` levels, bids, offers, trades.
  absl::Status SubscribeMarketData(const std::string& md_req_id,
                                   const std::vector<std::string>& symbols, int depth);

  // Removes and returns (in *out, may be null) the oldest queued message matching `pred`;
  // false on timeout.
  bool WaitFor(const std::function<bool(const FixMessage&)>& pred, FixMessage* out,
               std::chrono::milliseconds timeout);
  // Removes and returns every queued message.
  std::vector<FixMessage> TakeAll();
  // Application messages received since Logon, by MsgType.
  int64_t ReceivedCount(const std::string& msg_type) const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// "5.400" for 5400 ticks (negative prices are not sent: SPEC §4.2 requires > 0).
std::string FormatPriceTicks(int64_t ticks);

}  // namespace client
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_CLIENT_H_
