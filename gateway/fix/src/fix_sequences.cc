// The sequence numbers of a replicated exchange's FIX sessions (docs/replication.md, "FIX
// sessions"). QuickFIX's store lives in this node's data dir and does not travel; what
// travels in the stream is, per session, the next MsgSeqNum expected from the client (with
// each request: OrderEntry requests carry msg_seq) and a limit below which this node sends
// (recorded here). A node taking over starts each session at that target and limit: the
// client resends what the old primary never sequenced, and skips by gap fill what it sent
// but the stream cannot give back.
#include <climits>

#include "fix_gateway_impl.h"

namespace cfx {
namespace gateway {

namespace {

// An ExecutionReport or OrderCancelReject with OrderID NONE, or a rejected mass cancel's
// report (531=0): an answer about a request, carrying no order's state.
bool NamesNoOrder(const FIX::Message& message) {
  std::string type, order_id, response, copy;
  // A drop copy (797=Y) is another session's answer: never an echo of this session's own.
  if (internal::GetField(message, 797, &copy) && copy == "Y") return false;
  internal::GetField(message.getHeader(), 35, &type);
  if (type == "8" || type == "9")
    return internal::GetField(message, 37, &order_id) && order_id == "NONE";
  return type == "r" && internal::GetField(message, 531, &response) && response == "0";
}

}  // namespace

void FixGateway::Impl::toApp(FIX::Message& message, const FIX::SessionID& id) throw(
    FIX::DoNotSend) {
  // SPEC §6: no session ever receives another firm's execution reports. Reports go by their
  // account's firm, so only a resend (PossDupFlag, set by QuickFIX before this call) can carry
  // one: what the store kept for this session while the config put it in another firm. Such
  // a message, or one on an account no longer configured, is not sent again: QuickFIX
  // gap-fills it (docs/fix.md, "A session moved to another firm").
  // A refusal that names no order (the gateway's account_not_permitted, an unknown order's
  // status or cancel, a refused mass cancel) only echoes what the session itself sent: it is
  // sent again, else the client's order manager (and its firm's drop copy) kept a request
  // pending for good (a review, 2026-12-07).
  std::string poss_dup, account;
  if (internal::GetField(message.getHeader(), 43, &poss_dup) && poss_dup == "Y" &&
      internal::GetField(message, 1, &account)) {
    const FixSessionSpec* spec = entitlements_.Session(id.getTargetCompID().getValue());
    if ((spec == nullptr || entitlements_.FirmOfAccount(account) != spec->firm) &&
        !NamesNoOrder(message)) {
      throw FIX::DoNotSend();
    }
  }
  if (config_.record_sequences) ReserveSent(message, id);
}

void FixGateway::Impl::ApplyResume() {
  for (const SessionSequences& r : resume_) {
    if (!entitlements_.Session(r.session)) continue;
    FIX::Session* s = acceptor_->getSession(IdOf(r.session));
    if (s == nullptr) continue;
    // Numbers past what the store takes (journaled before it refused them) are left as the
    // store has them: setting them would fail the start (the client logs on with 141=Y).
    const uint64_t last = static_cast<uint64_t>(internal::kLastNextSeqNum);
    if (r.sender_limit > static_cast<uint64_t>(s->getExpectedSenderNum()) &&
        r.sender_limit <= last) {
      s->setNextSenderMsgSeqNum(static_cast<int>(r.sender_limit));
    }
    if (r.next_target > 0 && r.next_target <= last) {
      s->setNextTargetMsgSeqNum(static_cast<int>(r.next_target));
    }
  }
  resume_.clear();
}

void FixGateway::Impl::RecordAtLogon(const FIX::SessionID& id) {
  FIX::Session* s = FIX::Session::lookupSession(id);
  if (s == nullptr) return;
  const std::string name = id.getTargetCompID().getValue();
  SessionSequences seqs;
  seqs.session = name;
  seqs.next_target = static_cast<uint64_t>(s->getExpectedTargetNum());
  seqs.sender_limit = static_cast<uint64_t>(s->getExpectedSenderNum()) + kSenderReserve;
  const bool recorded = exchange_->RecordSequences(seqs);
  std::lock_guard<std::mutex> lock(mu_);
  // Not recorded (the exchange's ring stayed full): the next message sent tries again.
  sessions_[name].sender_limit = recorded ? seqs.sender_limit : 0;
}

void FixGateway::Impl::ReserveSent(const FIX::Message& message, const FIX::SessionID& id) {
  std::string text;
  if (!internal::GetField(message.getHeader(), 34, &text)) return;
  uint64_t seq = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return;
    seq = seq * 10 + static_cast<uint64_t>(c - '0');
    if (seq > static_cast<uint64_t>(INT_MAX)) return;
  }
  const std::string name = id.getTargetCompID().getValue();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (seq + kSenderReserve / 2 < sessions_[name].sender_limit) return;
  }
  SessionSequences seqs;
  seqs.session = name;
  seqs.sender_limit = seq + kSenderReserve;
  if (!exchange_->RecordSequences(seqs)) return;
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t& limit = sessions_[name].sender_limit;
  if (seqs.sender_limit > limit) limit = seqs.sender_limit;
}

}  // namespace gateway
}  // namespace cfx
