// The gateway's QuickFIX side: the Application callbacks (logon checks, roles, throttle,
// dispatch), translation of incoming messages into OrderEntry requests, and of exchange
// outcomes into ExecutionReports routed to the owning session and its firm's drop copies.
// Split over fix_gateway.cc (lifecycle), fix_application.cc (session events, dispatch),
// fix_inbound.cc (D F G H q) and fix_outbound.cc (8 9 r).
#ifndef CFX_GATEWAY_FIX_GATEWAY_IMPL_H_
#define CFX_GATEWAY_FIX_GATEWAY_IMPL_H_

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "cfx/gateway/fix_gateway.h"
#include "cfx/gateway/fix_quickfix.h"
#include "fix_acceptor.h"
#include "fix_entitlements.h"
#include "fix_logon_guard.h"
#include "fix_market_data.h"
#include "fix_throttle.h"

namespace cfx {
namespace gateway {
namespace internal {

// chmod 0600 every regular file in `dir` that its group or others may read or write
// (QuickFIX's file store creates its files with the process umask).
void MakeFilesPrivate(const std::string& dir);

// SPEC §5 (poison input): an id from outside is stored in the journal and the trade store
// and echoed in answers, so it must be printable ASCII without spaces (0x21-0x7E) and at
// most 64 characters (fix_inbound.cc). ClOrdID, OrigClOrdID, Account, the STP id and the
// request ids (OrdStatusReqID, MDReqID, SecurityReqID).
bool ValidId(const std::string& id);
// Free text from outside (Text 58): printable ASCII and spaces, at most kMaxTextLength.
constexpr size_t kMaxTextLength = 256;
bool ValidText(const std::string& text);

}  // namespace internal

// Thread safety: QuickFIX calls the Application methods from one thread per connection;
// the exchange calls the outcome methods from its own threads. `mu_` guards `sessions_` and
// is never held while calling QuickFIX or the exchange, so no lock cycle can form with
// QuickFIX's per-session locks. A session's HeldSends::mu is held while Send calls QuickFIX
// (it comes before the session's lock): so Send must never be called with a QuickFIX
// session's lock held (toApp, toAdmin, onLogout under disconnect: none of them sends).
class FixGateway::Impl : public FIX::Application {
 public:
  Impl(FixGatewayConfig config, OrderEntry* exchange);
  ~Impl() override;

  absl::Status Start();
  void Stop();
  bool SeqNums(const std::string& session, FixSeqNums* out) const;
  bool IsLoggedOn(const std::string& session) const;
  std::string DictionaryPath() const { return dictionary_path_; }

  // FIX::Application
  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID& id) override;
  void onLogout(const FIX::SessionID& id) override;
  // A Logout sent before the session logged on is a refused Logon: audited. After a
  // Logon or Logout the store's files are made private (MakeFilesPrivate).
  void toAdmin(FIX::Message& message, const FIX::SessionID& id) override;
  void toApp(FIX::Message& message, const FIX::SessionID& id) throw(FIX::DoNotSend) override;
  // The Logon's decision: the password (with its back-off), then the HeartBtInt bounds.
  internal::LogonVerdict DecideLogon(const FixSessionSpec& spec, const std::string& username,
                                     const std::string& password, const std::string& heartbeat);
  // Why a Logon's HeartBtInt (108) is refused (SPEC §6: 1 to max_heartbeat_secs), or "".
  std::string HeartbeatRefusal(const std::string& heartbeat) const;
  // argon2id verifications the logon guard has run (FixGateway::PasswordVerifications).
  uint64_t PasswordVerifications() const { return logon_guard_.verifications(); }
  // BoundAcceptor's LogonDecisionHook: decides a whole Logon before QuickFIX sees it, and
  // keeps the decision for the fromAdmin that follows on this thread.
  internal::BoundAcceptor::LogonAhead DecideLogonAhead(const std::string& logon);
  // After QuickFIX processed a Logon (LogonGate's end, the connection's thread): a Logon it
  // refused itself, before fromAdmin (a repeated or malformed tag), is audited and counted
  // as refused; it sent no Logout, so toAdmin did not.
  void AuditLogonLeftUnanswered(const std::string& session);
  void fromAdmin(const FIX::Message& message, const FIX::SessionID& id) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::RejectLogon) override;
  void fromApp(const FIX::Message& message, const FIX::SessionID& id) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::UnsupportedMessageType) override;

  // Sequence numbers of a replicated exchange (fix_sequences.cc).
  void ResumeSessions(std::vector<SessionSequences> sequences) { resume_ = std::move(sequences); }

  // Outcomes (fix_outbound.cc).
  void Accepted(const OrderState& order);
  void Rejected(const OrderState& order, const std::string& reason);
  // A NewOrderSingle the gateway refuses itself (a bad field, an account the session's firm
  // may not trade, the throttle): the sending session's own answer, copied to its firm's
  // drop copies; the account named may be anything, so it says nothing of whose it is.
  void RejectedAtGateway(const OrderState& order, const std::string& reason);
  void Filled(const OrderState& order, const Fill& fill);
  void Canceled(const OrderState& order, const std::string& reason);
  void Replaced(const OrderState& order);
  void CancelRejectedOut(const CancelRejected& reject);
  void Triggered(const OrderState& order);
  void StatusOut(const StatusAnswer& answer);
  void MassCancelOut(const MassCancelResult& result);
  internal::MarketData& market_data() { return market_data_; }
  // ExecutionListener::FlushStores and HoldsUnstored.
  bool FlushStores();
  bool HoldsUnstored();

 private:
  struct SessionState {
    bool logged_on = false;
    uint64_t generation = 0;  // bumped at every logon
    internal::TokenBucket throttle;
    // The throttled answers a session may get, kRefusalsPerThrottle times its throttle a
    // second: past them its connection is closed (TakeToken), so what its refusals store
    // and copy is bounded by its throttle, not by the connection's message rate.
    internal::TokenBucket refusals;
    std::string peer;  // of the connection that logged on last (the audit's logout line)
    uint64_t sender_limit = 0;  // recorded (record_sequences): no MsgSeqNum sent at or above
  };
  void Audit(const char* kind, const std::string& comp_id, const std::string& peer,
             const char* result, const std::string& reason) const;

  // fix_sequences.cc (record_sequences), with gateway::kSenderReserve.
  // Start: applies resume_ to the sessions the acceptor made.
  void ApplyResume();
  // onLogon: where the session stands now, and a limit kSenderReserve ahead.
  void RecordAtLogon(const FIX::SessionID& id);
  // toApp/toAdmin: a new limit when `message`'s MsgSeqNum has come within half of it.
  void ReserveSent(const FIX::Message& message, const FIX::SessionID& id);

  // fix_inbound.cc: each validates, checks entitlements and forwards to the exchange, or
  // answers the client itself with the same message the exchange's refusal would give.
  void OnNewOrder(const FixSessionSpec& spec, const FIX::Message& m);
  // The ids an F or G names (1, 11, 41, 55), and the reason to refuse it before the
  // exchange ("" if none): malformed ids, or another firm's account (as unknown_order).
  struct AmendIds {
    std::string account, cl_ord_id, orig_cl_ord_id, symbol;
  };
  std::string CheckAmend(const FixSessionSpec& spec, const FIX::Message& m, AmendIds* ids) const;
  // An OrderCancelReject(9) for the F (or G, `replace`) `m` of `spec`'s session: from the
  // exchange (with the order's state when it works) for an order of the firm's own, from
  // here otherwise.
  void RejectCancelOrReplace(const FixSessionSpec& spec, const FIX::Message& m, bool replace,
                             const std::string& reason);
  void OnCancel(const FixSessionSpec& spec, const FIX::Message& m);
  void OnReplace(const FixSessionSpec& spec, const FIX::Message& m);
  void OnStatusRequest(const FixSessionSpec& spec, const FIX::Message& m);
  void OnMassCancel(const FixSessionSpec& spec, const FIX::Message& m);
  void Throttled(const FixSessionSpec& spec, const std::string& msg_type,
                 const FIX::Message& m);
  void BusinessReject(const std::string& session, const FIX::Message& ref, int reason,
                      const std::string& text);
  // Answers request `m` of `session`, refused here, by `answer`: now, or (a replicated
  // exchange) once the exchange has recorded that the session sent it
  // (OrderEntry::AnswerWhenRecorded).
  void Refuse(const std::string& session, const FIX::Message& m,
              const std::function<void()>& answer);

  // fix_outbound.cc
  FIX::Message ExecReport(const OrderState& o, char exec_type, char ord_status);
  FIX::Message RejectReport(const OrderState& order, const std::string& reason);  // 150=8
  // Sends an ExecutionReport of the exchange to `order.session` and a 797=Y copy to every
  // drop-copy session of the account's firm (SPEC §6). Never crosses firms: the session
  // gets it only while it is of the account's firm (a config edited since the order was
  // entered may have moved or removed either); the firm's drop copies get it all the same.
  // An account no longer configured stays with the entering session's firm.
  void RouteExecReport(const OrderState& order, FIX::Message& report);
  // Sends to `session` and copies to the drop copies of `firm`.
  void SendWithCopies(const std::string& session, const std::string& firm, FIX::Message& report);

  // Sends to a configured session; false if it is unknown or QuickFIX refused. While the
  // session's Logon is being answered (LogonGate), the message is held and sent right after.
  bool Send(const std::string& session, FIX::Message& msg);
  // Send's work once the message may go.
  bool SendNow(const std::string& session, FIX::Message& msg);
  // The acceptor's LogonGateHook (docs/fix.md, "Messages numbered during a Logon"): from
  // `begins` on, Send holds the session's messages; at the end they are sent in order (on
  // the connection's thread) before Send sends directly again.
  void LogonGate(const std::string& session, bool begins);
  // SendNow for a held message, on the connection's thread: an exception ends no drain.
  void SendHeld(const std::string& session, FIX::Message& msg);
  FIX::SessionID IdOf(const std::string& session) const;
  std::string NextExecId();
  // An order or data message's throttle token: taken, or refused and answered `throttled`,
  // or refused past the session's throttled answers (its connection is closed, unanswered).
  enum class Token { kTaken, kThrottled, kOverThrottle };
  static constexpr int kRefusalsPerThrottle = 10;
  Token TakeToken(const std::string& session);
  uint64_t Generation(const std::string& session);
  bool SendIfCurrent(const std::string& session, uint64_t generation, FIX::Message& msg);

  FixGatewayConfig config_;
  OrderEntry* exchange_;
  internal::Entitlements entitlements_;
  internal::LogonGuard logon_guard_{config_};  // the Logon's password check and back-off
  internal::MarketData market_data_;
  std::string dictionary_path_;
  std::string exec_prefix_;
  std::atomic<uint64_t> exec_seq_{0};

  std::unique_ptr<FIX::SessionSettings> settings_;
  std::unique_ptr<FIX::MessageStoreFactory> store_;
  std::unique_ptr<FIX::LogFactory> log_;
  std::string store_dir_;  // <data_dir>/fix/store, set by Start
  std::unique_ptr<FIX::Acceptor> acceptor_;  // internal::BoundAcceptor
  // QuickFIX's sessions may be used from threads of ours (the publisher's reports, SeqNums)
  // only while they exist: Stop clears `sessions_alive_` under the exclusive lock, so it
  // waits for a send in flight, before it destroys them (a report sent into a destroyed
  // session wrote into freed memory). Shared: each such use. (C++14 here: QuickFIX headers.)
  void SetSessionsAlive(bool alive);
  mutable std::shared_timed_mutex sessions_alive_mu_;
  bool sessions_alive_ = false;

  std::vector<SessionSequences> resume_;  // ResumeSessions, applied by Start

  mutable std::mutex mu_;
  std::map<std::string, SessionState> sessions_;

  // Per configured session (made in the constructor, never added to or removed: read
  // without a lock). Send holds `mu` while it sends, so a Logon cannot begin in between
  // its look at `holding` and QuickFIX numbering the message.
  struct HeldSends {
    std::mutex mu;
    bool holding = false;           // under mu: a Logon is being answered, or held drain
    std::deque<FIX::Message> held;  // under mu
  };
  // Past this many held messages of one session (a Logon takes milliseconds), Send sends
  // directly, ahead of those held (the memory bound wins over the order; not reached in
  // practice), and the connection sends what QuickFIX numbered and did not send before
  // the next message.
  static constexpr size_t kMaxHeldSends = 65536;
  std::map<std::string, std::unique_ptr<HeldSends>> held_sends_;
};

}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_GATEWAY_IMPL_H_
