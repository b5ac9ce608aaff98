// BoundAcceptor: a QuickFIX acceptor that listens on one address and port and bounds what a
// client can make the exchange hold (SPEC §6). QuickFIX's own ThreadedSocketAcceptor binds
// every interface and bounds nothing, so the gateway runs its own accept loop:
//   - connections in all and per peer address are capped (past the per-peer cap: accepted
//     and closed; at the total cap, the connection that has waited longest without sending
//     its Logon is closed to make room, and only when none is waiting is the new one closed);
//   - each connection is served on a thread of its own, which frames the client's bytes
//     (FixFraming) and hands each whole message straight to its QuickFIX session
//     (Session::next, as QuickFIX's own connection does): a BodyLength over the limit, or a
//     stream that is not FIX, closes the connection before QuickFIX buffers anything; a
//     garbled message inside a session is dropped (QuickFIX then asks for it again, as the
//     FIX session layer requires); a client whose first whole message (its Logon) has not
//     arrived within the logon timeout is closed;
//   - what a session sends goes to the client's socket at once, on the sending thread,
//     without blocking; what the socket does not take is queued and written by the
//     connection's thread as the client reads. QuickFIX never blocks on a client that stops
//     reading (a blocked send would stall the publisher and so every other session); past
//     max_outbound_bytes unread, the client is disconnected.
//
//   BoundAcceptor acceptor(app, store, settings, "127.0.0.1", 9878, AcceptorLimits{});
//   acceptor.start();   // FIX::RuntimeError if the address cannot be bound
//   acceptor.stop();    // logs sessions out, closes every connection, joins its threads
//
// C++14 (QuickFIX headers): only the gateway's QuickFIX object library includes this.
#ifndef CFX_GATEWAY_SRC_FIX_ACCEPTOR_H_
#define CFX_GATEWAY_SRC_FIX_ACCEPTOR_H_

#include <atomic>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cfx/gateway/fix_quickfix.h"
#include "fix_store.h"

namespace cfx {
namespace gateway {
namespace internal {

struct AcceptorLimits {
  bool no_delay = true;
  int max_connections = 256;            // in all
  int max_connections_per_peer = 16;    // per peer (an IPv4 address, an IPv6 /64)
  int logon_timeout_ms = 10000;         // connect -> first whole message
  size_t max_message_bytes = 16384;     // largest BodyLength accepted
  int max_messages_per_sec = 20000;     // whole messages in one second; more closes
  size_t max_outbound_bytes = 8 << 20;  // unread output queued for one client
  // Stored messages one piece of a resend reads and sends (docs/fix.md, "Resend"): what a
  // ResendRequest makes the gateway hold, and how long it holds the session, is bounded by
  // this, however long the range asked for.
  size_t resend_piece_messages = 256;
  // Stored messages one connection's resends may send in a second; past it the next piece
  // waits for the next second.
  int64_t max_resent_per_sec = 50000;
  // Bytes of messages numbered past a gap in the client's MsgSeqNums that QuickFIX may
  // hold until the gap is filled; more close the connection (docs/fix.md, "Sequence gaps").
  size_t max_bytes_past_gap = 4 << 20;
};

// Counters of what the limits refused, for logs and tests. Thread-safe.
struct AcceptorCounters {
  std::atomic<uint64_t> refused{0};  // over max_connections(_per_peer)
  // Connections without a Logon yet closed to make room for a new one at max_connections.
  std::atomic<uint64_t> evicted{0};
  std::atomic<uint64_t> logon_timeouts{0};
  std::atomic<uint64_t> oversized{0};       // BodyLength over the limit
  std::atomic<uint64_t> flooded{0};         // over max_messages_per_sec (closed)
  std::atomic<uint64_t> malformed{0};       // not a FIX stream (closed)
  std::atomic<uint64_t> garbled{0};         // garbled messages dropped, the session kept
  std::atomic<uint64_t> slow_consumers{0};  // over max_outbound_bytes unread, or a resend stalled
  std::atomic<uint64_t> past_gap{0};        // over max_bytes_past_gap (closed)
  // Pieces served of ResendRequests answered in more than one (docs/fix.md, "Resend").
  std::atomic<uint64_t> resend_pieces{0};
};

// The peer address (IP) of the connection whose thread calls this, "" on any other thread.
// QuickFIX calls the Application's logon and logout callbacks of a connection on its thread,
// which is how they learn who connected (the session itself does not know the socket).
const std::string& CurrentPeer();
// Closes the connection whose thread calls this (a stderr line names its peer and `why`),
// as the connection's own bounds do; the session is logged out when it ends (cancel on
// disconnect). Nothing on any other thread.
void CloseCurrentConnection(const std::string& why);

// Batched writes (docs/fix.md, "Batched writes"). Once a thread has called this, what the
// sessions send on that thread is held on each connection and written by its next call:
// one write per connection for a burst of reports instead of one per report (a connection
// holding 64 KiB writes at once). The exchange's publisher calls it at the end of each
// burst (ExecutionListener::OnIdle); other threads' sends are written at once, as before.
void BatchWritesOnThisThread();

// Why a first Logon names no configured session (the refused-logon hook's `why`).
constexpr char kUnknownCompIdsReason[] = "unknown SenderCompID or TargetCompID";
constexpr char kMalformedLogonReason[] =
    "malformed Logon: a tag not in plain form or given twice, closed unread";

class BoundAcceptor : public FIX::Acceptor {
 public:
  BoundAcceptor(FIX::Application& app, FIX::MessageStoreFactory& store,
                const FIX::SessionSettings& settings, std::string address, int port,
                AcceptorLimits limits);
  BoundAcceptor(FIX::Application& app, FIX::MessageStoreFactory& store,
                const FIX::SessionSettings& settings, FIX::LogFactory& log, std::string address,
                int port, AcceptorLimits limits);
  ~BoundAcceptor() override;

  const AcceptorCounters& counters() const { return counters_; }

  // Called (on the connection's thread) with every connection's first message's
  // SenderCompID (at most 64 characters) and the peer, and why it is no Logon for a
  // configured session ("" when it is one), for the audit of what QuickFIX drops without
  // telling the application. REQUIRES: set before start().
  // `why`: kUnknownCompIdsReason, "first message is not a Logon", or "" (a known session's
  // Logon, refused by QuickFIX when that session is logged on already).
  // Also kMalformedLogonReason: a Logon closed unread (PlainLogonTags).
  using RefusedLogonHook = std::function<void(const std::string& comp_id, const std::string& peer,
                                              const std::string& reason)>;
  void SetRefusedLogonHook(RefusedLogonHook hook) { refused_logon_ = std::move(hook); }

  // Decides, on the connection's thread, a Logon (the whole message) for a session not
  // logged on, before QuickFIX sees it: true when the application will accept it. A Logon it
  // will refuse has its ResetSeqNumFlag taken out (TakeOutResetRequest), because QuickFIX
  // resets the session's sequence numbers and empties its store before the application's
  // fromAdmin runs: a refused Logon must change nothing. The hook may keep its decision
  // for that fromAdmin, which follows on the same thread. REQUIRES: set before start().
  // kDrop: refused and closed without an answer (nothing reaches the session).
  enum class LogonAhead { kAccept, kRefuse, kDrop };
  using LogonDecisionHook = std::function<LogonAhead(const std::string& logon)>;
  void SetLogonDecisionHook(LogonDecisionHook hook) { decide_logon_ = std::move(hook); }

  // Called on the connection's thread around QuickFIX's processing of a Logon (the first,
  // or one that resets a session logged on): `begins` true just before (the session's CompID: its
  // TargetCompID here), false just after, also when it threw. QuickFIX numbers what another thread
  // sends to the session meanwhile without sending it (docs/fix.md, "Messages numbered during a
  // Logon"): the application holds its sends to the session in between. REQUIRES: set
  // before start().
  using LogonGateHook = std::function<void(const std::string& comp_id, bool begins)>;
  void SetLogonGateHook(LogonGateHook hook) { logon_gate_ = std::move(hook); }

 private:
  struct Connection {
    // A duplicate of the client's socket, closed (under mu_) only after the connection is done
    // with its own: stopping can always shut the socket down through it, and never hits a
    // descriptor number that was closed and reused meanwhile.
    int own_fd = -1;
    std::string peer;
    std::string peer_key;  // common::PeerKey(peer): what per_peer_ counts it under
    std::thread thread;
    bool done = false;  // under mu_
    // No whole message (the Logon) has arrived yet: the connection may be evicted to make
    // room at max_connections. Cleared by the connection's thread.
    std::atomic<bool> awaiting_logon{true};
    bool evicted = false;  // under mu_: shut down to make room, its thread ending
  };

  // One client's connection and its session's Responder (fix_connection.h).
  class Link;
  friend void BatchWritesOnThisThread();
  // The connections with writes held on this thread (BatchWritesOnThisThread).
  static thread_local std::vector<std::shared_ptr<Link>> held_writes_;
  static thread_local bool batching_writes_;

  // Serves the client on `fd` (connection `c`) until either it or its session ends; see
  // above.
  void Serve(int fd, Connection* c);

  void onInitialize(const FIX::SessionSettings&) throw(FIX::RuntimeError) override;
  void onStart() override {}  // the accept loop starts in onInitialize
  bool onPoll(double) override { return false; }
  void onStop() override;

  void AcceptLoop();
  // Runs connection `c` (socket `fd`) on a thread of its own; mu_ held. Throws
  // std::system_error when no thread can be started.
  void StartConnection(Connection* c, int fd);
  void ReapFinished();  // joins the threads of closed connections; takes mu_
  // At max_connections: closes the connection that has waited longest for its Logon; false
  // when every connection has sent one (or too many evicted ones are still ending). mu_ held.
  bool MakeRoom();
  void CloseAll();      // stops accepting, closes every connection, joins; idempotent

  // The first message of a connection, checked for a configured session (see the hook).
  void CheckFirstMessage(const std::string& message, const std::string& peer) const;

  RefusedLogonHook refused_logon_;
  LogonDecisionHook decide_logon_;
  LogonGateHook logon_gate_;
  // The sessions' stores when they are BatchedFileStores (flushed before a connection
  // writes to its client); nullptr for a store that writes at once.
  BatchedFileStoreFactory* const batched_store_;
  const std::string address_;
  const int port_;
  const AcceptorLimits limits_;
  AcceptorCounters counters_;
  int listen_fd_ = -1;
  std::atomic<bool> stopping_{false};  // set before the listening socket is shut down
  std::thread accept_thread_;
  std::mutex mu_;
  std::list<std::unique_ptr<Connection>> connections_;  // under mu_
  std::map<std::string, int> per_peer_;                 // live connections by PeerKey; under mu_
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_SRC_FIX_ACCEPTOR_H_
