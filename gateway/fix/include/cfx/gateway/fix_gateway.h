// The FIX 4.4 order-entry, drop-copy and market-data gateway (SPEC §6), a QuickFIX
// acceptor hidden behind this header. C++14-clean: no QuickFIX, no C++17 types.
//
//   FixGatewayConfig config = FixGatewayConfigFromExchange(exchange_config);  // fix_config.h
//   FixGateway gateway(config, &order_entry);
//   order_entry.SetListener(&gateway);
//   absl::Status status = gateway.Start();   // listens on config.port
//   ...
//   gateway.Stop();                          // logs sessions out; COD fires
#ifndef CFX_GATEWAY_FIX_GATEWAY_H_
#define CFX_GATEWAY_FIX_GATEWAY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cfx/common/failure_backoff.h"
#include "cfx/gateway/order_entry.h"

namespace cfx {
namespace gateway {

struct FixSessionSpec {
  std::string sender_comp_id;  // the client's CompID (tag 49 on what it sends)
  std::string firm;
  bool drop_copy = false;      // drop-copy sessions receive copies, may not trade
  bool has_password = false;   // checked at Logon (554, and 553 when username is set)
  std::string password_hash;   // argon2id PHC string (cfx/common/credentials.h)
  std::string username;
  bool cancel_on_disconnect = true;
  int throttle_msgs_per_sec = 500;
  bool reset_on_logon = false;
};

struct FixAccountSpec {
  std::string id;
  std::string firm;
};

// A session-security event for the audit log (docs/audit.md).
struct FixSessionEvent {
  std::string kind;     // "fix_logon" or "fix_logout"
  std::string comp_id;  // the client's SenderCompID as it sent it
  std::string peer;     // the client's IP address
  std::string result;   // fix_logon: "accepted" or "refused"
  std::string reason;   // fix_logon refused: why (the Logout's 58)
};

struct FixGatewayConfig {
  std::string listen_address = "127.0.0.1";
  int port = 9878;
  std::string target_comp_id = "CFX";  // our CompID (tag 56 on what clients send)
  std::string data_dir = "./cfx-data";  // sequence store and dictionary under data_dir/fix
  int heartbeat_secs = 30;             // the client's HeartBtInt wins at Logon
  bool message_log = false;            // QuickFIX file log of every message (debugging)
  // Benchmarks only (A/B): the sessions' messages and sequence numbers in QuickFIX's own
  // FileStore, which writes each at once, instead of the BatchedFileStore (the same files,
  // written before the connection's next bytes go out: docs/fix.md, "The message store").
  bool quickfix_file_store = false;
  // A replicated exchange (docs/replication.md, "FIX sessions"): at each Logon, and before
  // the MsgSeqNums sent reach the limit recorded last, OrderEntry::RecordSequences is given
  // where the session stands, so that a standby taking over resumes it.
  bool record_sequences = false;
  // Bounds on what clients can make the gateway hold (SPEC §6, docs/reliability.md). Past a
  // bound the connection is refused or closed; other sessions are not affected.
  int max_connections = 256;              // connections in all
  int max_connections_per_peer = 16;      // connections from one peer IP address
  int logon_timeout_ms = 10000;           // connect -> the Logon has arrived
  int max_message_bytes = 16384;          // largest BodyLength (9); larger closes the connection
  // Messages of any kind (admin ones too) per second on one connection; more closes it.
  // The session's throttle (rejects, the session kept) applies below it.
  int max_messages_per_sec = 20000;
  int64_t max_outbound_bytes = 8 << 20;   // unread output per client; beyond: disconnected
  // A ResendRequest is answered in pieces of at most this many stored messages, each read,
  // sent and written to the client before the next is read (docs/fix.md, "Resend").
  int resend_piece_messages = 256;
  // Stored messages one connection's resends may send in a second; more wait their turn.
  int max_resent_per_sec = 50000;
  // Bytes of messages numbered past a gap in a client's MsgSeqNums, held until the gap is
  // filled; more close the connection (docs/fix.md, "Sequence gaps").
  int64_t max_bytes_past_gap = 4 << 20;
  int max_latency_secs = 120;             // SendingTime (52) accuracy; 0 turns the check off
  // Largest HeartBtInt (108) a Logon may ask for. A connection that goes silent is dropped
  // 2.4 intervals after its last message, so this bounds how long a dead one holds its
  // session and resting orders. A Logon outside 1..max_heartbeat_secs is refused (0 would
  // turn QuickFIX's heartbeat and timeout off, so a half-open connection would stay forever).
  int max_heartbeat_secs = 60;
  // Failed logons (docs/fix.md, "Logon"): per CompID and per peer address, a logon during
  // the back-off is refused without verifying its password. The wait doubles from
  // logon_backoff.initial_ms up to max_ms; a successful logon resets it.
  common::BackoffOptions logon_backoff;
  // argon2id verifications running at once (each holds its hash's memory, 64 MiB at the
  // interactive limits); more Logons wait their turn on their own connection threads.
  int max_concurrent_verifications = 2;
  std::vector<FixSessionSpec> sessions;
  std::vector<FixAccountSpec> accounts;
  // Every Logon accepted or refused (an unknown CompID included) and every logout of a
  // logged-on session. Called on the connection's thread: quick and thread-safe. Empty:
  // nothing is recorded.
  std::function<void(const FixSessionEvent&)> audit;
};

struct FixSeqNums {
  int next_sender = 0;  // next MsgSeqNum the gateway will send
  int next_target = 0;  // next MsgSeqNum expected from the client
};

// Thread safety: Start/Stop from one owning thread. The ExecutionListener methods may be
// called from any thread, also concurrently with QuickFIX's session threads.
class FixGateway : public ExecutionListener {
 public:
  // `exchange` must outlive the gateway.
  FixGateway(FixGatewayConfig config, OrderEntry* exchange);
  ~FixGateway() override;
  FixGateway(const FixGateway&) = delete;
  FixGateway& operator=(const FixGateway&) = delete;

  // Writes the data dictionary, opens the sequence store and listens. Returns
  // InvalidArgument for a bad config, Unavailable if the port cannot be bound.
  absl::Status Start();
  // Logs every session out (cancel-on-disconnect applies) and stops listening. Idempotent.
  void Stop();
  // Before Start: where sessions resume (a node taking over a replicated exchange). Start
  // sets each named session's next MsgSeqNum expected from the client to `next_target`
  // (when non-zero), and the next it sends to `sender_limit` when that is above its own
  // store's: the client sees a gap in what it receives and asks for a resend, which is
  // answered with a SequenceReset-GapFill (docs/replication.md, "FIX sessions").
  void ResumeSessions(std::vector<SessionSequences> sequences);

  // Sequence numbers of a configured session; false if `sender_comp_id` is not configured.
  bool SeqNums(const std::string& sender_comp_id, FixSeqNums* out) const;
  bool IsLoggedOn(const std::string& sender_comp_id) const;
  // Password verifications (argon2id) run since Start: each costs a CPU for a while.
  uint64_t PasswordVerifications() const;
  // Path of the FIX 4.4 data dictionary the gateway validates against (after Start).
  std::string DictionaryPath() const;

  void OnAccepted(const OrderState& order) override;
  void OnRejected(const OrderState& order, const std::string& reason) override;
  void OnFill(const OrderState& order, const Fill& fill) override;
  void OnCanceled(const OrderState& order, const std::string& reason) override;
  void OnReplaced(const OrderState& order) override;
  void OnCancelRejected(const CancelRejected& reject) override;
  void OnTriggered(const OrderState& order) override;
  void OnStatus(const StatusAnswer& answer) override;
  void OnMassCancelResult(const MassCancelResult& result) override;
  void OnBookUpdate(const BookUpdate& book) override;
  void OnPublicTrade(const PublicTrade& trade) override;
  void OnSecurityList(const std::vector<ListedContract>& contracts) override;
  // Sends what the calls above held back on this thread; see ExecutionListener::OnIdle.
  void OnIdle() override;
  bool FlushStores() override;
  bool HoldsUnstored() override;

  class Impl;
  // The QuickFIX-side application (fix_gateway_impl.h), for the FIX fuzz target, which
  // feeds it messages without sockets. Not for production code.
  Impl& impl_for_fuzzing() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Writes the embedded FIX 4.4 data dictionary (CFX-FIX44.xml) to `path`. For clients and
// tests that validate with the same dictionary as the gateway.
absl::Status WriteFixDictionary(const std::string& path);

}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_GATEWAY_H_
