// BoundAcceptor::Link (fix_connection.h): one client's connection, its session's Responder
// and the batched writes of the publisher's thread; its resends are fix_resend.cc's.
#include "fix_connection.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <utility>
#include <vector>

#include "fix_framing.h"

namespace cfx {
namespace gateway {
namespace internal {
namespace {

thread_local std::string current_peer;  // see CurrentPeer()
thread_local FIX::Responder* current_link = nullptr;  // see CloseCurrentConnection()

// How often a connection runs its session's timers (Session::next()).
constexpr int64_t kSessionTickMs = 250;

// Sends what `fd` takes now of *pending (non-blocking) and drops it from *pending; false
// when the connection failed.
bool SendSome(int fd, std::string* pending) {
  if (pending->empty()) return true;
  const ssize_t n = ::send(fd, pending->data(), pending->size(), MSG_NOSIGNAL);
  if (n > 0) pending->erase(0, static_cast<size_t>(n));
  return n >= 0 || errno == EAGAIN || errno == EINTR;
}

// After QuickFIX ended the session: the Logout or reject it wrote last gets a moment (1 s)
// to reach the client.
void FlushToClient(int fd, std::string* to_client) {
  const int64_t deadline = NowMs() + 1000;
  while (!to_client->empty() && NowMs() < deadline) {
    pollfd p;
    p.fd = fd;
    p.events = POLLOUT;
    if (::poll(&p, 1, 50) <= 0) continue;
    if (!SendSome(fd, to_client)) break;
  }
}

}  // namespace

const std::string& CurrentPeer() { return current_peer; }

void CloseCurrentConnection(const std::string& why) {
  if (current_link == nullptr) return;
  LogRefusal(current_peer, "closed: " + why);
  current_link->disconnect();
}

thread_local bool serving_piece = false;
thread_local bool piece_refused = false;

thread_local std::vector<std::shared_ptr<BoundAcceptor::Link>> BoundAcceptor::held_writes_;
thread_local bool BoundAcceptor::batching_writes_ = false;

namespace {
constexpr size_t kWriteAtOnce = 64 << 10;  // a batching thread holds at most this per client

}  // namespace

bool BoundAcceptor::Link::Open() {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  return wake_fd_ >= 0;
}

void BatchWritesOnThisThread() {
  BoundAcceptor::batching_writes_ = true;
  if (BoundAcceptor::held_writes_.empty()) return;
  std::vector<std::shared_ptr<BoundAcceptor::Link>> held;
  held.swap(BoundAcceptor::held_writes_);
  for (const auto& link : held) link->WriteHeld();
}

bool BoundAcceptor::Link::Queue(const std::string& message, size_t from) {
  to_client_.append(message, from, std::string::npos);
  if (to_client_.size() <= acceptor_.limits_.max_outbound_bytes) return true;
  overflowed_ = true;
  to_client_.clear();
  acceptor_.counters_.slow_consumers.fetch_add(1, std::memory_order_relaxed);
  LogRefusal(peer_, "closed: more than " + std::to_string(acceptor_.limits_.max_outbound_bytes) +
                        " bytes unread (the client stopped reading)");
  Wake();  // the connection's thread closes the connection
  return false;
}

bool BoundAcceptor::Link::StoreWritten() {
  if (store_failed_) return false;
  if (store_ == nullptr) return true;
  try {
    store_->Flush();
    return true;
  } catch (const std::exception& e) {
    store_failed_ = true;
    LogRefusal(peer_, std::string("closed: the session's message store: ") + e.what());
    Wake();  // the connection's thread closes the connection
    return false;
  }
}

bool BoundAcceptor::Link::WriteQueued() {
  if (to_client_.empty()) return true;
  return StoreWritten() && SendSome(fd_, &to_client_);
}

void BoundAcceptor::Link::WriteHeld() {
  std::lock_guard<std::mutex> lock(out_mu_);
  held_ = false;
  if (closed_ || overflowed_) return;
  // A failed connection is the connection thread's to see; what the socket leaves is its too.
  if (WriteQueued() && !to_client_.empty()) Wake();
}

bool BoundAcceptor::Link::send(const std::string& message) {
  if (serving_piece) {
    const std::string type = FieldValue(message, "35");
    if (type == "3" || type == "5") piece_refused = true;
  }
  std::lock_guard<std::mutex> lock(out_mu_);
  if (closed_ || overflowed_ || store_failed_) return false;
  if (!SendSkipped(message)) return false;
  return SendNow(message);
}

bool BoundAcceptor::Link::SendNow(const std::string& message) {
  if (batching_writes_) {
    if (!Queue(message, 0)) return false;
    if (!held_) {
      held_ = true;
      held_writes_.push_back(shared_from_this());
    }
    if (to_client_.size() >= kWriteAtOnce && WriteQueued() && !to_client_.empty()) Wake();
    return true;
  }
  size_t sent = 0;
  if (to_client_.empty()) {  // in order: only when nothing waits before it
    if (!StoreWritten()) return false;
    const ssize_t n = ::send(fd_, message.data(), message.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return false;  // the connection failed: its thread sees it too
    }
    sent = n > 0 ? static_cast<size_t>(n) : 0;
    if (sent == message.size()) return true;
  }
  if (!Queue(message, sent)) return false;
  Wake();  // the connection's thread writes the rest as the client reads
  return true;
}

bool BoundAcceptor::Link::SendSkipped(const std::string& message) {
  const SentHeader h = ReadSentHeader(message);
  if (!h.has_seq) return true;  // QuickFIX's to have written: sent as it is
  if (h.poss_dup) {
    // A resent message or a GapFill covers numbers already used: [34, 34 + 1) or
    // [34, NewSeqNo). When that takes in the next fresh number, those numbers have reached
    // the client (a stored-unsent one resent on its request) and are never sent fresh.
    const int end = h.sequence_reset ? h.new_seq_no : h.seq + 1;
    if (next_fresh_ != 0 && h.seq <= next_fresh_ && end > next_fresh_) next_fresh_ = end;
    return true;
  }
  if (h.logon) {  // the Logon answer: the numbers start from it
    next_fresh_ = h.seq + 1;
    return true;
  }
  // The session numbers and sends under its lock, so a fresh message reaches this
  // connection after every lower number that will: what it jumps over was stored unsent.
  if (next_fresh_ != 0 && h.seq > next_fresh_ && !SendStored(next_fresh_, h.seq - 1)) {
    return false;
  }
  if (next_fresh_ != 0) next_fresh_ = h.seq + 1;
  return true;
}

bool BoundAcceptor::Link::SendStored(int from, int to) {
  if (store_ == nullptr) return true;  // QuickFIX's own FileStore: the client asks for them
  std::vector<std::string> stored;
  try {
    store_->Get(from, to, &stored);
  } catch (const std::exception& e) {
    store_failed_ = true;
    LogRefusal(peer_, std::string("closed: the session's message store: ") + e.what());
    Wake();
    return false;
  }
  for (const std::string& m : stored) {
    if (!SendNow(m)) return false;
  }
  return true;
}

bool BoundAcceptor::Link::AttachSession(const std::string& logon) {
  FIX::Session* found = nullptr;
  try {
    found = FIX::Session::lookupSession(logon, /*reverse=*/true);
  } catch (const std::exception&) {
    found = nullptr;
  }
  if (found == nullptr || acceptor_.getSessions().count(found->getSessionID()) == 0) {
    // Not the message itself: a Logon carries the password.
    acceptor_.getLog()->onEvent("Session not found for a connection from " + peer_);
    return false;
  }
  const FIX::SessionID id = found->getSessionID();
  // A session still held by a connection that is closing may free up: wait up to 5 s, as
  // QuickFIX's own connection does, unless this client hangs up meanwhile.
  for (int i = 0; i < 5; ++i) {
    if (!FIX::Session::isSessionRegistered(id)) session_ = FIX::Session::registerSession(id);
    if (session_ != nullptr) break;
    pollfd p;
    p.fd = fd_;
    p.events = 0;  // POLLHUP and POLLERR only
    if (::poll(&p, 1, 1000) > 0) return false;
  }
  if (session_ == nullptr) return false;
  if (acceptor_.batched_store_ != nullptr) {
    std::shared_ptr<StoreFiles> files = acceptor_.batched_store_->FilesOf(id);
    if (files == nullptr) {  // a session without its store: nothing it sent could be kept
      LogRefusal(peer_, "closed: no message store for the session");
      FIX::Session::unregisterSession(id);
      session_ = nullptr;
      return false;
    }
    files->Attach();
    std::lock_guard<std::mutex> lock(out_mu_);
    store_ = std::move(files);
  }
  session_->setResponder(this);
  return true;
}

bool BoundAcceptor::Link::ReadInbound() {
  const AcceptorLimits& limits = acceptor_.limits_;
  AcceptorCounters& counters = acceptor_.counters_;
  char buf[16384];
  const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return false;  // client gone
  if (n < 0) return true;
  const uint64_t garbled_before = framing_.garbled();
  std::string whole;
  std::vector<size_t> ends;
  const FixFraming::Result r = framing_.Consume(buf, static_cast<size_t>(n), &whole, &ends);
  if (r != FixFraming::Result::kOk) {
    (r == FixFraming::Result::kTooLarge ? counters.oversized : counters.malformed)
        .fetch_add(1, std::memory_order_relaxed);
    LogRefusal(peer_, "closed: " + framing_.error());
    return false;
  }
  if (framing_.garbled() != garbled_before) {
    counters.garbled.fetch_add(framing_.garbled() - garbled_before, std::memory_order_relaxed);
    // A few lines per connection: the count is in the counters.
    if (garbled_before < 3) LogRefusal(peer_, "ignored a garbled message: " + framing_.error());
  }
  const int64_t at = NowMs();
  if (at - window_start_ >= 1000) {
    window_start_ = at;
    in_window_ = 0;
  }
  in_window_ += static_cast<int64_t>(ends.size());
  if (in_window_ > limits.max_messages_per_sec) {
    counters.flooded.fetch_add(1, std::memory_order_relaxed);
    LogRefusal(peer_, "closed: more than " + std::to_string(limits.max_messages_per_sec) +
                          " messages in a second");
    return false;
  }
  size_t begin = 0;
  for (const size_t end : ends) {
    inbound_.push_back(whole.substr(begin, end - begin));
    begin = end;
  }
  return true;
}

bool BoundAcceptor::Link::DispatchInbound() {
  while (!inbound_.empty()) {
    if (disconnect_requested_.load(std::memory_order_acquire)) return true;
    // A ResendRequest during a resend waits for it to end: resends are served one at a time.
    if (in_resend_ && FieldValue(inbound_.front(), "35") == "2") return true;
    const std::string message = std::move(inbound_.front());
    inbound_.pop_front();
    if (session_ == nullptr) acceptor_.CheckFirstMessage(message, peer_);
    if (!Dispatch(message)) return false;
  }
  return true;
}

bool BoundAcceptor::Link::Dispatch(const std::string& message) {
  if (session_ == nullptr) {
    // As QuickFIX's own acceptor: only a Logon opens a session. Any other first message
    // (a SequenceReset with a session's CompIDs) would reach the session unauthenticated,
    // move its sequence numbers and hold it (the Logon timeout ends at the first message).
    if (FieldValue(message, "35") != "A") {
      LogRefusal(peer_, "closed: its first message is not a Logon");
      return false;
    }
  }
  // A Logon the gateway and QuickFIX could read differently (`0141=Y`, a second 49): closed
  // before any session sees it. Until 2026-12-07 a refused Logon written so still reset the
  // session it named and emptied its store (the gateway took out `141=Y` only as written),
  // so a firm knowing another's CompID could wipe that session's reports (a review).
  if ((session_ == nullptr || !session_->isLoggedOn()) && FieldValue(message, "35") == "A" &&
      !PlainLogonTags(message)) {
    LogRefusal(peer_, "closed: a Logon with a tag not in plain form or given twice");
    // A failed Logon (SPEC §6): audited, counted and slowed as the others.
    if (acceptor_.refused_logon_) {
      acceptor_.refused_logon_(FieldValue(message, "49").substr(0, 64), peer_,
                               std::string(kMalformedLogonReason));
    }
    return false;
  }
  if (session_ == nullptr && !AttachSession(message)) return false;
  std::string without_reset;
  const std::string* to_session = &message;
  if (acceptor_.decide_logon_ && !session_->isLoggedOn() && FieldValue(message, "35") == "A") {
    const LogonAhead ahead = acceptor_.decide_logon_(message);
    if (ahead == LogonAhead::kDrop) return false;  // closed: the session sees nothing
    if (ahead == LogonAhead::kRefuse) {
      without_reset = message;
      if (TakeOutResetRequest(&without_reset)) to_session = &without_reset;
    }
  }
  if (to_session != &message || !session_->isLoggedOn()) {
    return FieldValue(message, "35") == "A" ? NextLogon(*to_session) : Next(*to_session);
  }
  const std::string type = FieldValue(message, "35");
  int seq = 0;
  const bool has_seq = ReadSeqNum(FieldValue(message, "34"), &seq);
  const int expected = session_->getExpectedTargetNum();
  // QuickFIX holds every message numbered past a gap (after asking for the gap once) until
  // the gap is filled, and a held message the expected number jumps over (a SequenceReset)
  // until the connection ends: without a bound, a client could make the gateway hold all it
  // sends. The connection keeps the account of what QuickFIX holds (past_gap_); past
  // max_bytes_past_gap the connection is closed.
  int new_seq_no = 0;
  const bool has_new_seq_no = type == "4" && ReadSeqNum(FieldValue(message, "36"), &new_seq_no);
  const bool gap_fill = type == "4" && FieldValue(message, "123") == "Y";
  const bool held =
      has_seq && seq > expected && type != "2" && type != "5" && (type != "4" || gap_fill);
  if (held) {
    auto it = past_gap_.find(seq);  // QuickFIX keeps the last one of a number
    const size_t before = it == past_gap_.end() ? 0 : it->second.bytes;
    if (past_gap_bytes_ - before + message.size() > acceptor_.limits_.max_bytes_past_gap) {
      acceptor_.counters_.past_gap.fetch_add(1, std::memory_order_relaxed);
      LogRefusal(peer_, "closed: more than " +
                            std::to_string(acceptor_.limits_.max_bytes_past_gap) +
                            " bytes of messages past a gap in its MsgSeqNums (expected " +
                            std::to_string(expected) + ")");
      return false;
    }
    Held h;
    h.bytes = message.size();
    h.next = gap_fill && has_new_seq_no ? std::max(new_seq_no, seq) : seq + 1;
    past_gap_bytes_ += h.bytes - before;
    past_gap_[seq] = h;
  }
  // Where QuickFIX goes on from after this message, if it does not hold it: a
  // SequenceReset-Reset to its NewSeqNo whatever its number; the expected message to the
  // next (a GapFill to its NewSeqNo).
  int from = expected;
  if (type == "4" && !gap_fill) {
    if (has_new_seq_no && new_seq_no > expected) from = new_seq_no;
  } else if (has_seq && seq == expected) {
    from =
        gap_fill ? (has_new_seq_no && new_seq_no > expected ? new_seq_no : expected) : expected + 1;
  }
  if (type != "2") {
    // A Logon while logged on (a reset in mid-session) is gated too.
    const bool keep = type == "A" ? NextLogon(message) : Next(message);
    if (!held && !past_gap_.empty()) ReleaseHeld(from);
    return keep;
  }
  // A ResendRequest releases right after QuickFIX has it (its first piece), before the
  // client's later messages are served during the resend's waits: from then on `expected`
  // would be stale.
  release_from_ = from;
  const bool keep = DispatchResend(message);
  ReleasePending();  // when DispatchResend handed QuickFIX nothing, or only in one go
  return keep;
}

void BoundAcceptor::Link::ReleasePending() {
  if (release_from_ == kNoRelease) return;
  const int from = release_from_;
  release_from_ = kNoRelease;
  if (!past_gap_.empty()) ReleaseHeld(from);
}

void BoundAcceptor::Link::ReleaseHeld(int from) {
  // QuickFIX then processed what it held from there on, one number after another, each
  // held GapFill moving on to its NewSeqNo. Where that walk ends must be where the session
  // now expects; otherwise the account is kept as it is (it can only be too high).
  std::vector<int> walked;
  int at = from;
  for (auto it = past_gap_.find(at); it != past_gap_.end(); it = past_gap_.find(at)) {
    walked.push_back(at);
    if (it->second.next == at) break;  // a GapFill to its own number: QuickFIX stays
    at = it->second.next;
  }
  if (at != session_->getExpectedTargetNum()) return;
  for (const int n : walked) {
    past_gap_bytes_ -= past_gap_[n].bytes;
    past_gap_.erase(n);
  }
}

bool BoundAcceptor::Link::Next(const std::string& message) {
  // A MsgSeqNum at or past the last next number the store takes (internal::kLastNextSeqNum):
  // refused before QuickFIX acts on the message (docs/fix.md, "Sequence numbers past what
  // the store holds").
  int seq = 0;
  if (internal::QuickFixMsgSeqNum(message, &seq) && seq >= internal::kLastNextSeqNum) {
    LogRefusal(peer_, "closed: MsgSeqNum " + std::to_string(seq) +
                          " is past the last the session's store takes (" +
                          std::to_string(internal::kLastNextSeqNum - 1) +
                          "); log on again with ResetSeqNumFlag (141=Y)");
    return false;
  }
  try {
    session_->next(message, FIX::UtcTimeStamp());
  } catch (const FIX::InvalidMessage&) {
    if (!session_->isLoggedOn()) return false;  // as QuickFIX's own connection does
  } catch (const std::exception& e) {  // a library error ends this connection only
    LogRefusal(peer_, std::string("closed: ") + e.what());
    return false;
  }
  return true;
}

bool BoundAcceptor::Link::NextLogon(const std::string& message) {
  if (!acceptor_.logon_gate_) return Next(message);
  // The application holds its sends to the session while QuickFIX processes the Logon.
  struct Gate {
    const BoundAcceptor::LogonGateHook& hook;
    const std::string comp_id;
    ~Gate() { hook(comp_id, false); }
  } gate{acceptor_.logon_gate_, session_->getSessionID().getTargetCompID().getValue()};
  gate.hook(gate.comp_id, true);
  return Next(message);
}

void BoundAcceptor::Link::Detach() {
  {
    std::lock_guard<std::mutex> lock(out_mu_);
    closed_ = true;
  }
  if (session_ == nullptr) return;
  // Nothing goes out on this connection any more: what the session stored so far is written
  // now, and from here on, until a connection attaches again, the store writes each change
  // at once. Before the disconnect, whose logout offers the cancel-on-disconnect: its
  // reports, delivered on another thread as soon as the cancel is durable, must reach the
  // files without waiting for this thread (they did wait, when the store was detached
  // after the disconnect; a crash in between would have lost them from the resend).
  if (store_ != nullptr) {
    try {
      store_->Detach();
    } catch (const std::exception& e) {
      LogRefusal(peer_, std::string("the session's message store: ") + e.what());
    }
  }
  try {
    // Under the session's lock: once it returns, no thread is in send() or will enter it.
    session_->disconnect();
  } catch (const std::exception& e) {
    LogRefusal(peer_, std::string("while disconnecting: ") + e.what());
  }
  FIX::Session::unregisterSession(session_->getSessionID());
  session_ = nullptr;
}

void BoundAcceptor::Link::Run() {
  current_peer = peer_;
  current_link = this;
  struct Unset {
    ~Unset() { current_link = nullptr; }
  } unset;
  const AcceptorLimits& limits = acceptor_.limits_;
  AcceptorCounters& counters = acceptor_.counters_;
  const int64_t logon_deadline = NowMs() + limits.logon_timeout_ms;
  int64_t last_tick = NowMs();
  window_start_ = NowMs();
  bool ended_by_session = false;
  for (;;) {
    if (disconnect_requested_.load(std::memory_order_acquire)) {
      ended_by_session = true;
      break;
    }
    bool want_out = false;
    {
      std::lock_guard<std::mutex> lock(out_mu_);
      if (overflowed_ || store_failed_) break;
      want_out = !to_client_.empty();
    }
    const bool awaiting_logon = framing_.messages() == 0;
    pollfd fds[2];
    fds[0].fd = fd_;
    fds[0].events = static_cast<short>(POLLIN | (want_out ? POLLOUT : 0));
    fds[1].fd = wake_fd_;
    fds[1].events = POLLIN;
    const int64_t now = NowMs();
    // The session's timers (heartbeats, test requests, logout timeouts) run every 250 ms.
    // QuickFIX's own acceptor ticks once a second; with a HeartBtInt of 1 s that let the
    // 2.4 s timeout fall on the same tick as the 1.5 s TestRequest (a silence starting
    // 0.4-0.5 s before a tick), and the connection was dropped without one.
    int64_t timeout = std::max<int64_t>(0, last_tick + kSessionTickMs - now);
    if (awaiting_logon) timeout = std::max<int64_t>(0, logon_deadline - now);
    const int ready = ::poll(fds, 2, static_cast<int>(timeout));
    if (ready < 0 && errno != EINTR) break;
    if (awaiting_logon && NowMs() >= logon_deadline) {
      counters.logon_timeouts.fetch_add(1, std::memory_order_relaxed);
      LogRefusal(peer_, "closed: no Logon within " + std::to_string(limits.logon_timeout_ms) +
                            " ms of connecting");
      break;
    }
    if (ready > 0 && (fds[1].revents & POLLIN)) {
      uint64_t drained = 0;
      ssize_t ignored = ::read(wake_fd_, &drained, sizeof drained);
      (void)ignored;
    }
    if (ready > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      if (!ReadInbound()) break;
      if (awaiting_logon_ != nullptr && framing_.messages() > 0) {
        // Its Logon is here (checked next, a password taking tens of ms): no longer a
        // connection that may be closed to make room (BoundAcceptor::MakeRoom).
        awaiting_logon_->store(false, std::memory_order_release);
        awaiting_logon_ = nullptr;
      }
      if (!DispatchInbound()) break;
    }
    if (ready > 0 && (fds[0].revents & POLLOUT)) {
      std::lock_guard<std::mutex> lock(out_mu_);
      if (!WriteQueued()) break;
    }
    if (session_ != nullptr && NowMs() - last_tick >= kSessionTickMs) {
      last_tick = NowMs();
      try {
        session_->next(FIX::UtcTimeStamp());
      } catch (const std::exception& e) {
        LogRefusal(peer_, std::string("closed: ") + e.what());
        break;
      }
    }
  }
  if (ended_by_session) {
    // What the session sent last (its Logout, a reject) gets a moment to reach the client;
    // it sends nothing more (it has let go of this connection).
    std::string rest;
    {
      std::lock_guard<std::mutex> lock(out_mu_);
      if (StoreWritten()) rest.swap(to_client_);
    }
    FlushToClient(fd_, &rest);
  }
  Detach();
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
