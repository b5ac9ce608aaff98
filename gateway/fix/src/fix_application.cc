// Session events and dispatch: Logon authentication, roles, the throttle, and routing of
// each supported message type to its translator. QuickFIX exceptions thrown here are the
// ones QuickFIX expects (RejectLogon, UnsupportedMessageType); nothing else escapes.
#include <cstdlib>
#include <ctime>
#include <string>

#include "fix_acceptor.h"
#include "fix_framing.h"
#include "fix_gateway_impl.h"

namespace cfx {
namespace gateway {
namespace {

// Digits only, at most 9 (no sign, no overflow): a HeartBtInt in seconds.
bool ParseSeconds(const std::string& text, int* out) {
  if (text.empty() || text.size() > 9) return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

// Seconds since the epoch of a FIX UTCTimestamp "YYYYMMDD-HH:MM:SS[.sss...]"; false when it
// is not one.
bool FixTimeSeconds(const std::string& t, int64_t* out) {
  if (t.size() < 17 || t[8] != '-' || t[11] != ':' || t[14] != ':') return false;
  for (size_t i : {0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 12, 13, 15, 16}) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  auto num = [&](size_t at, size_t n) { return std::stoi(t.substr(at, n)); };
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(4, 2) - 1;
  tm.tm_mday = num(6, 2);
  tm.tm_hour = num(9, 2);
  tm.tm_min = num(12, 2);
  tm.tm_sec = num(15, 2);
  if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60) {
    return false;
  }
  *out = static_cast<int64_t>(::timegm(&tm));
  return true;
}

// The decision DecideLogonAhead took for the Logon this connection's thread is handing
// QuickFIX: fromAdmin, which QuickFIX calls next on the same thread, takes it instead of
// verifying the password (and counting a failure) a second time.
struct DecidedLogon {
  bool set = false;
  std::string comp_id;
  internal::LogonVerdict verdict;
  bool audited = false;  // refused and audited ahead: QuickFIX's own answer is not audited again
};
thread_local DecidedLogon decided_logon;

}  // namespace

internal::LogonVerdict FixGateway::Impl::DecideLogon(const FixSessionSpec& spec,
                                                     const std::string& username,
                                                     const std::string& password,
                                                     const std::string& heartbeat) {
  // The password: verified on this connection's own thread (no other session waits for
  // it), refused unverified during a back-off (fix_logon_guard.h).
  internal::LogonVerdict verdict =
      logon_guard_.Check(spec, internal::CurrentPeer(), username, password);
  if (!verdict.accepted) return verdict;
  const std::string refused = HeartbeatRefusal(heartbeat);
  if (!refused.empty()) {
    verdict.accepted = false;
    verdict.reason = refused;
  }
  return verdict;
}

std::string FixGateway::Impl::HeartbeatRefusal(const std::string& heartbeat) const {
  // SPEC §6 bounds: the client's HeartBtInt becomes the session's, and QuickFIX drops a
  // silent connection only 2.4 intervals after its last message (never, for 0).
  int secs = 0;
  if (!ParseSeconds(heartbeat, &secs) || secs < 1 || secs > config_.max_heartbeat_secs) {
    return "HeartBtInt must be 1 to " + std::to_string(config_.max_heartbeat_secs) + " seconds";
  }
  return "";
}

internal::BoundAcceptor::LogonAhead FixGateway::Impl::DecideLogonAhead(const std::string& logon) {
  using Ahead = internal::BoundAcceptor::LogonAhead;
  decided_logon = DecidedLogon{};
  const std::string comp_id = internal::FieldValue(logon, "49");
  const FixSessionSpec* spec = entitlements_.Session(comp_id);
  if (!spec) return Ahead::kRefuse;
  // SPEC §6: a Logon dated more than max_latency_secs from the exchange clock is refused.
  // QuickFIX checks it too, but only after it has acted on a ResetSeqNumFlag (sequence
  // numbers reset, the store emptied) and without telling the application: decided here,
  // a stale Logon has its 141 taken out like any refused one, and is audited and counted.
  int64_t sent = 0;
  if (config_.max_latency_secs > 0 &&
      (!FixTimeSeconds(internal::FieldValue(logon, "52"), &sent) ||
       std::llabs(sent - static_cast<int64_t>(std::time(nullptr))) > config_.max_latency_secs)) {
    // A failed Logon like a wrong password (SPEC §6): counted and slowed per CompID and
    // peer, only the first refusal of a wait answered. Until 2026-12-07 stale Logons were
    // audited only, and each took a Logout (one of the session's MsgSeqNums) at the
    // connection rate (a review).
    decided_logon.verdict =
        logon_guard_.Refuse(comp_id, internal::CurrentPeer(), "SendingTime accuracy problem");
    const std::string stale = "SendingTime more than " + std::to_string(config_.max_latency_secs) +
                              " s from the exchange clock";
    if (decided_logon.verdict.silent) {
      Audit("fix_logon", comp_id, internal::CurrentPeer(), "refused",
            decided_logon.verdict.reason + " (closed without an answer)");
      decided_logon = DecidedLogon{};
      return Ahead::kDrop;
    }
    decided_logon.set = true;
    decided_logon.comp_id = comp_id;
    decided_logon.audited = true;
    Audit("fix_logon", comp_id, internal::CurrentPeer(), "refused",
          decided_logon.verdict.reason == "SendingTime accuracy problem"
              ? stale
              : decided_logon.verdict.reason + " (" + stale + ")");
    return Ahead::kRefuse;
  }
  decided_logon.verdict =
      DecideLogon(*spec, internal::FieldValue(logon, "553"), internal::FieldValue(logon, "554"),
                  internal::FieldValue(logon, "108"));
  if (decided_logon.verdict.silent) {
    // This wait's refusal was answered already: closed without a Logout, which would take
    // one of the session's MsgSeqNums and a place in its store (fix_logon_guard.h).
    Audit("fix_logon", comp_id, internal::CurrentPeer(), "refused",
          decided_logon.verdict.reason + " (closed without an answer)");
    decided_logon = DecidedLogon{};
    return Ahead::kDrop;
  }
  decided_logon.set = true;
  decided_logon.comp_id = comp_id;
  return decided_logon.verdict.accepted ? Ahead::kAccept : Ahead::kRefuse;
}

void FixGateway::Impl::AuditLogonLeftUnanswered(const std::string& session) {
  // fromAdmin clears DecideLogonAhead's verdict: one still set for this session means QuickFIX
  // never got that far.
  if (!decided_logon.set || decided_logon.comp_id != session) return;
  const DecidedLogon left = decided_logon;
  decided_logon = DecidedLogon{};
  if (left.audited || IsLoggedOn(session)) return;
  Audit("fix_logon", session, internal::CurrentPeer(), "refused",
        left.verdict.accepted ? "malformed Logon, refused by the session layer"
                              : left.verdict.reason);
}

void FixGateway::Impl::onLogon(const FIX::SessionID& id) {
  const std::string session = id.getTargetCompID().getValue();
  {
    std::lock_guard<std::mutex> lock(mu_);
    SessionState& s = sessions_[session];
    s.logged_on = true;
    ++s.generation;
    // The throttle's bucket is the session's, across its Logons: a Logon that refilled it
    // let a session send its rate again at every Logout and Logon (SPEC §6).
    s.peer = internal::CurrentPeer();
  }
  if (config_.record_sequences) RecordAtLogon(id);
  Audit("fix_logon", session, internal::CurrentPeer(), "accepted", "");
}

void FixGateway::Impl::onLogout(const FIX::SessionID& id) {
  const std::string session = id.getTargetCompID().getValue();
  bool was_logged_on = false;
  std::string peer;
  {
    std::lock_guard<std::mutex> lock(mu_);
    SessionState& s = sessions_[session];
    was_logged_on = s.logged_on;
    s.logged_on = false;
    peer = s.peer;
  }
  if (was_logged_on) Audit("fix_logout", session, peer, "", "");
  const FixSessionSpec* spec = entitlements_.Session(session);
  // Cancel-on-disconnect covers a clean Logout and a dropped connection alike: QuickFIX
  // calls onLogout for both. The exchange delivers the cancels asynchronously.
  if (was_logged_on && spec && !spec->drop_copy && spec->cancel_on_disconnect) {
    exchange_->Disconnected(SessionDisconnected{session});
  }
}

void FixGateway::Impl::toAdmin(FIX::Message& message, const FIX::SessionID& id) {
  if (config_.record_sequences) ReserveSent(message, id);
  const std::string type = message.getHeader().getField(35);
  if (type != "A" && type != "5") return;
  // A Logon with 141=Y (accepted or not) has reset the sequence numbers, and QuickFIX's
  // file store re-created its files with the umask's mode: our answer is the moment to
  // make them private again (`cfx` runs with umask 077, so there is no window there).
  internal::MakeFilesPrivate(store_dir_);
  if (type != "5" || !config_.audit) return;
  const std::string session = id.getTargetCompID().getValue();
  if (decided_logon.set && decided_logon.audited && decided_logon.comp_id == session) {
    decided_logon = DecidedLogon{};  // the refusal DecideLogonAhead recorded
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(session);
    if (it != sessions_.end() && it->second.logged_on) return;  // an ordinary logout
  }
  std::string reason;
  if (!internal::GetField(message, 58, &reason)) reason = "refused by the session layer";
  Audit("fix_logon", session, internal::CurrentPeer(), "refused", reason);
  // Audited: AuditLogonLeftUnanswered, at the Logon's end, must not count it again.
  if (decided_logon.set && decided_logon.comp_id == session) decided_logon = DecidedLogon{};
}

void FixGateway::Impl::Audit(const char* kind, const std::string& comp_id,
                             const std::string& peer, const char* result,
                             const std::string& reason) const {
  if (config_.audit) config_.audit(FixSessionEvent{kind, comp_id, peer, result, reason});
}

void FixGateway::Impl::fromAdmin(const FIX::Message& message, const FIX::SessionID& id) throw(
    FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue, FIX::RejectLogon) {
  const std::string type = message.getHeader().getField(35);
  if (type == "1") {
    // TestReqID (112) comes back in the Heartbeat, which the session's store keeps: an id
    // from outside like the request ids (SPEC §5). One that is not printable ASCII of at
    // most 64 characters is refused (session Reject, 371=112), never echoed or stored.
    std::string test_id;
    if (internal::GetField(message, 112, &test_id) && !internal::ValidId(test_id)) {
      throw FIX::IncorrectTagValue(112);
    }
    return;
  }
  if (type != "A") return;
  const FixSessionSpec* spec = entitlements_.Session(id.getTargetCompID().getValue());
  if (!spec) throw FIX::RejectLogon("unknown session");
  // A Logon while logged on (a sequence reset in mid-session, 141=Y) comes from the
  // connection that authenticated: only one connection serves a session, and its first
  // message was the Logon verified. Its password is not verified again: until 2026-12-07
  // each such Logon ran the whole argon2id check, so a client repeating them held the
  // check's slots and a CPU, and other firms' Logons waited. Its HeartBtInt is checked as
  // at any Logon.
  if (FIX::Session* s = FIX::Session::lookupSession(id); s != nullptr && s->isLoggedOn()) {
    std::string heartbeat;
    internal::GetField(message, 108, &heartbeat);
    const std::string refused = HeartbeatRefusal(heartbeat);
    if (!refused.empty()) throw FIX::RejectLogon(refused);
    return;
  }
  internal::LogonVerdict verdict;
  if (decided_logon.set && decided_logon.comp_id == id.getTargetCompID().getValue()) {
    verdict = decided_logon.verdict;  // DecideLogonAhead's, for this very Logon
  } else {
    std::string password, username, heartbeat;
    internal::GetField(message, 554, &password);
    internal::GetField(message, 553, &username);
    internal::GetField(message, 108, &heartbeat);
    verdict = DecideLogon(*spec, username, password, heartbeat);
  }
  decided_logon = DecidedLogon{};
  if (!verdict.accepted) throw FIX::RejectLogon(verdict.reason);
}

void FixGateway::Impl::fromApp(const FIX::Message& message, const FIX::SessionID& id) throw(
    FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
    FIX::UnsupportedMessageType) {
  const std::string session = id.getTargetCompID().getValue();
  const FixSessionSpec* spec = entitlements_.Session(session);
  if (!spec) throw FIX::UnsupportedMessageType();  // cannot happen: sessions are static
  const std::string type = message.getHeader().getField(35);
  const bool order_message =
      type == "D" || type == "F" || type == "G" || type == "H" || type == "q";
  const bool data_message = type == "V" || type == "x";
  if (!order_message && !data_message) {
    // Known to the dictionary but not accepted from clients (8, 9, r, W, X, Y, y, j).
    throw FIX::UnsupportedMessageType();
  }
  if (order_message && spec->drop_copy) {
    BusinessReject(session, message, 6, "drop-copy session may not send orders");
    return;
  }
  switch (TakeToken(session)) {
    case Token::kTaken:
      break;
    case Token::kThrottled:
      Throttled(*spec, type, message);
      return;
    case Token::kOverThrottle:
      // Answered `throttled` ten times its throttle a second already: each refusal is stored
      // for the session's resend and copied to its firm's drop copies, so answering them all
      // let a client grow the stores at its connection's message rate (until 2026-12-07). A
      // client this far over its throttle is misbehaving: the connection is closed, as past
      // the message rate.
      internal::CloseCurrentConnection(
          session + " sent more than " + std::to_string(kRefusalsPerThrottle + 1) +
          " times its throttle (" + std::to_string(spec->throttle_msgs_per_sec) +
          " messages a second)");
      return;
  }
  // The request ids an answer echoes (OrdStatusReqID 790, MDReqID 262, SecurityReqID 320)
  // are ids from outside like ClOrdID (SPEC §5): one that is not printable ASCII of at most
  // 64 characters is a value the tag cannot take (session Reject 35=3, 373=5, 371 the
  // tag), never echoed or stored. The dictionary admits each only in its own message.
  for (int tag : {790, 262, 320}) {
    std::string id;
    if (internal::GetField(message, tag, &id) && !internal::ValidId(id)) {
      throw FIX::IncorrectTagValue(tag);
    }
  }
  // Text (58) is free text from outside (SPEC §5): printable ASCII and spaces, at most
  // internal::kMaxTextLength characters, or the same session Reject. The exchange keeps no
  // request's Text, but a value it cannot take is refused, not accepted (until 2026-12-07
  // any bytes were, a review).
  std::string text;
  if (internal::GetField(message, 58, &text) && !internal::ValidText(text)) {
    throw FIX::IncorrectTagValue(58);
  }
  if (type == "D") {
    OnNewOrder(*spec, message);
  } else if (type == "F") {
    OnCancel(*spec, message);
  } else if (type == "G") {
    OnReplace(*spec, message);
  } else if (type == "H") {
    OnStatusRequest(*spec, message);
  } else if (type == "q") {
    OnMassCancel(*spec, message);
  } else if (type == "V") {
    market_data_.OnRequest(session, Generation(session), message);
  } else {
    market_data_.OnSecurityListRequest(session, Generation(session), message);
  }
}

void FixGateway::Impl::BusinessReject(const std::string& session, const FIX::Message& ref,
                                      int reason, const std::string& text) {
  FIX::Message j = internal::NewMessage("j");
  std::string seq;
  if (internal::GetField(ref.getHeader(), 34, &seq)) j.setField(45, seq);
  j.setField(372, ref.getHeader().getField(35));
  j.setField(380, std::to_string(reason));
  j.setField(58, text);
  Send(session, j);
}

}  // namespace gateway
}  // namespace cfx
