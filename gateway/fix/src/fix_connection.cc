// BoundAcceptor::Link (fix_connection.h): one client's connection, its session's Responder
// and the batched writes of the publisher's thread.
#include "fix_connection.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "fix_framing.h"

namespace cfx {
namespace gateway {
namespace internal {
namespace {

thread_local std::string current_peer;  // see CurrentPeer()

// A resend's next piece waits for the client to take the last one; a client that takes
// nothing for this long is closed as a slow consumer.
constexpr int64_t kResendStallMs = 30000;

// A MsgSeqNum-valued field: digits only, at most nine (no sign, no overflow).
bool ParseSeqNum(const std::string& text, int* out) {
  if (text.empty() || text.size() > 9) return false;
  int value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

// A MsgSeqNum-valued field as QuickFIX's own reading lets it through: an optional '-', then
// digits (leading zeros too); a value past INT_MAX reads as INT_MAX. False for anything else.
bool ParseSeqNumLoosely(const std::string& text, int* out) {
  size_t i = text.size() > 1 && text[0] == '-' ? 1 : 0;
  if (i == text.size()) return false;
  int64_t value = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = std::min<int64_t>(value * 10 + (text[i] - '0'), INT32_MAX);
  }
  *out = static_cast<int>(text[0] == '-' ? -value : value);
  return true;
}

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
  std::lock_guard<std::mutex> lock(out_mu_);
  if (closed_ || overflowed_ || store_failed_) return false;
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

bool BoundAcceptor::Link::Dispatch(const std::string& message) {
  if (session_ == nullptr && !AttachSession(message)) return false;
  std::string without_reset;
  const std::string* to_session = &message;
  if (acceptor_.decide_logon_ && !session_->isLoggedOn() && FieldValue(message, "35") == "A" &&
      !acceptor_.decide_logon_(message)) {
    without_reset = message;
    if (TakeOutResetRequest(&without_reset)) to_session = &without_reset;
  }
  if (to_session != &message || !session_->isLoggedOn()) return Next(*to_session);
  const std::string type = FieldValue(message, "35");
  // QuickFIX holds every message numbered past a gap (after asking for the gap once) until
  // the gap is filled: a client that never fills it would make the gateway hold all it
  // sends. At most max_messages_past_gap are held; one more closes the connection.
  int seq = 0;
  const bool held_past_gap =
      type != "2" && type != "5" && (type != "4" || FieldValue(message, "123") == "Y") &&
      ParseSeqNum(FieldValue(message, "34"), &seq) && seq > session_->getExpectedTargetNum();
  if (held_past_gap) {
    if (past_gap_ >= acceptor_.limits_.max_messages_past_gap) {
      acceptor_.counters_.past_gap.fetch_add(1, std::memory_order_relaxed);
      LogRefusal(peer_, "closed: more than " +
                            std::to_string(acceptor_.limits_.max_messages_past_gap) +
                            " messages past a gap in its MsgSeqNums (expected " +
                            std::to_string(session_->getExpectedTargetNum()) + ")");
      return false;
    }
    ++past_gap_;
    past_gap_last_ = std::max(past_gap_last_, seq);
  }
  const bool keep = type == "2" ? DispatchResend(message) : Next(message);
  // The gap filled, QuickFIX has processed what it held.
  if (past_gap_ > 0 && session_->getExpectedTargetNum() > past_gap_last_) {
    past_gap_ = 0;
    past_gap_last_ = 0;
  }
  return keep;
}

bool BoundAcceptor::Link::Next(const std::string& message) {
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

bool BoundAcceptor::Link::DispatchResend(const std::string& message) {
  // QuickFIX answers a ResendRequest by reading every stored message of its range into
  // memory and sending them all under the session's lock: a request from 1 to 0 (infinity)
  // late in a busy day would hold hundreds of megabytes and stall every thread that sends
  // to the session (the exchange's publisher among them) for seconds. So the range is
  // served piece by piece: each a ResendRequest for the next resend_piece_messages stored
  // messages, ending on a stored one (QuickFIX gap-fills the admin messages inside a piece
  // as it would in one), the client taking each piece's bytes before the next is read. The
  // first piece is the client's own message with its EndSeqNo (16) lowered; the others
  // carry the same MsgSeqNum (QuickFIX checks no sequence number on a ResendRequest and
  // counts one only when it is the next expected) and the time they are served at as their
  // SendingTime. What a connection has resent in a second is bounded too
  // (max_resent_per_sec): a few bytes of request cost the gateway microseconds a message
  // resent, so requests repeated without end would take a CPU from everyone else.
  std::shared_ptr<StoreFiles> store = store_;  // set by this thread
  const size_t piece = acceptor_.limits_.resend_piece_messages;
  int begin = 0;
  int end = 0;
  const std::string begin_text = FieldValue(message, "7");
  const std::string end_text = FieldValue(message, "16");
  if (store == nullptr || !ParseSeqNumLoosely(begin_text, &begin) ||
      !ParseSeqNumLoosely(end_text, &end)) {
    return Next(message);  // QuickFIX's own answer: a reject
  }
  // Written as a plain number from 1 on: the client's message itself can be the only piece.
  // Otherwise (0 or below, leading zeros) the range is served from 1 in rewritten pieces:
  // QuickFIX would read 0 or a negative BeginSeqNo as the whole history.
  int ignored = 0;
  const bool as_written = ParseSeqNum(begin_text, &ignored) && ParseSeqNum(end_text, &ignored) &&
                          begin_text[0] != '0' && (end_text == "0" || end_text[0] != '0');
  if (begin < 1) begin = 1;
  const int last_sent = session_->getExpectedSenderNum() - 1;
  if (end == 0 || end > last_sent) end = last_sent;  // as QuickFIX reads the range
  if (begin > end) return Next(message);
  size_t count = 0;
  int piece_end = store->PieceEnd(begin, end, piece, &count);
  if (piece_end >= end && as_written) {
    if (!PaceResend(count)) return false;
    return disconnect_requested_.load(std::memory_order_acquire) || Next(message);
  }
  FIX::Message request;
  try {
    request = FIX::Message(message, /*validate=*/false);
  } catch (const std::exception&) {
    return Next(message);  // QuickFIX parses it again and answers
  }
  std::string text = message;
  for (int from = begin;;) {
    request.setField(FIX::BeginSeqNo(from));
    request.setField(FIX::EndSeqNo(piece_end));
    if (from != begin) {
      request.getHeader().setField(FIX::SendingTime(FIX::UtcTimeStamp(), 3));
    }
    request.toString(text);
    if (!PaceResend(count)) return false;
    // The session ended the connection meanwhile: the connection's loop sends what it said.
    if (disconnect_requested_.load(std::memory_order_acquire)) return true;
    acceptor_.counters_.resend_pieces.fetch_add(1, std::memory_order_relaxed);
    if (!Next(text)) return false;
    if (piece_end >= end) return true;
    if (!session_->isLoggedOn() || disconnect_requested_.load(std::memory_order_acquire)) {
      return true;  // the piece was refused (a Logout went out): the connection's loop ends it
    }
    if (!AwaitDrained()) return false;
    from = piece_end + 1;
    piece_end = store->PieceEnd(from, end, piece, &count);
  }
}

bool BoundAcceptor::Link::PaceResend(size_t messages) {
  const int64_t limit = acceptor_.limits_.max_resent_per_sec;
  for (;;) {
    const int64_t now = NowMs();
    if (now - resend_window_start_ >= 1000) {
      resend_window_start_ = now;
      resent_in_window_ = 0;
    }
    // A piece larger than the limit still goes, alone in its second.
    if (resent_in_window_ == 0 || resent_in_window_ + static_cast<int64_t>(messages) <= limit) {
      resent_in_window_ += static_cast<int64_t>(messages);
      return true;
    }
    if (disconnect_requested_.load(std::memory_order_acquire)) return true;  // nothing to wait for
    pollfd p;
    p.fd = fd_;
    p.events = 0;  // POLLHUP and POLLERR only: the client gone while it waits
    p.revents = 0;
    if (::poll(&p, 1, static_cast<int>(resend_window_start_ + 1000 - now)) > 0) return false;
  }
}

bool BoundAcceptor::Link::AwaitDrained() {
  int64_t progress_at = NowMs();
  size_t last = static_cast<size_t>(-1);
  for (;;) {
    size_t queued = 0;
    {
      std::lock_guard<std::mutex> lock(out_mu_);
      if (closed_ || overflowed_ || store_failed_ || !WriteQueued()) return false;
      queued = to_client_.size();
    }
    if (queued == 0 || disconnect_requested_.load(std::memory_order_acquire)) return true;
    const int64_t now = NowMs();
    if (queued < last) {
      last = queued;
      progress_at = now;
    } else if (now - progress_at >= kResendStallMs) {
      acceptor_.counters_.slow_consumers.fetch_add(1, std::memory_order_relaxed);
      LogRefusal(peer_, "closed: took none of its resend for " +
                            std::to_string(kResendStallMs / 1000) + " s");
      return false;
    }
    pollfd p;
    p.fd = fd_;
    p.events = POLLOUT;
    p.revents = 0;
    if (::poll(&p, 1, 100) > 0 && (p.revents & (POLLERR | POLLHUP))) return false;
  }
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
  const AcceptorLimits& limits = acceptor_.limits_;
  AcceptorCounters& counters = acceptor_.counters_;
  FixFraming framing(limits.max_message_bytes);
  std::string whole;
  std::vector<size_t> ends;
  const int64_t logon_deadline = NowMs() + limits.logon_timeout_ms;
  int64_t last_tick = NowMs();
  // Messages in the current one-second window (SPEC §6: messages per second are bounded;
  // past the bound the connection is closed, whatever the messages are).
  int64_t window_start = NowMs();
  int64_t in_window = 0;
  char buf[16384];
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
    const bool awaiting_logon = framing.messages() == 0;
    pollfd fds[2];
    fds[0].fd = fd_;
    fds[0].events = static_cast<short>(POLLIN | (want_out ? POLLOUT : 0));
    fds[1].fd = wake_fd_;
    fds[1].events = POLLIN;
    const int64_t now = NowMs();
    // The session's timers (heartbeats, test requests, logout timeouts) run every second.
    int64_t timeout = std::max<int64_t>(0, last_tick + 1000 - now);
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
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) break;  // client gone
      if (n > 0) {
        const uint64_t garbled_before = framing.garbled();
        whole.clear();
        ends.clear();
        const FixFraming::Result r = framing.Consume(buf, static_cast<size_t>(n), &whole, &ends);
        if (r != FixFraming::Result::kOk) {
          (r == FixFraming::Result::kTooLarge ? counters.oversized : counters.malformed)
              .fetch_add(1, std::memory_order_relaxed);
          LogRefusal(peer_, "closed: " + framing.error());
          break;
        }
        if (framing.garbled() != garbled_before) {
          counters.garbled.fetch_add(framing.garbled() - garbled_before,
                                     std::memory_order_relaxed);
          // A few lines per connection: the count is in the counters.
          if (garbled_before < 3) LogRefusal(peer_, "ignored a garbled message: " + framing.error());
        }
        const int64_t at = NowMs();
        if (at - window_start >= 1000) {
          window_start = at;
          in_window = 0;
        }
        in_window += static_cast<int64_t>(ends.size());
        if (in_window > limits.max_messages_per_sec) {
          counters.flooded.fetch_add(1, std::memory_order_relaxed);
          LogRefusal(peer_, "closed: more than " + std::to_string(limits.max_messages_per_sec) +
                                " messages in a second");
          break;
        }
        bool keep = true;
        size_t begin = 0;
        for (const size_t end : ends) {
          const std::string message = whole.substr(begin, end - begin);
          begin = end;
          if (session_ == nullptr) acceptor_.CheckFirstMessage(message, peer_);
          if (!Dispatch(message)) {
            keep = false;
            break;
          }
          if (disconnect_requested_.load(std::memory_order_acquire)) break;
        }
        if (!keep) break;
      }
    }
    if (ready > 0 && (fds[0].revents & POLLOUT)) {
      std::lock_guard<std::mutex> lock(out_mu_);
      if (!WriteQueued()) break;
    }
    if (session_ != nullptr && NowMs() - last_tick >= 1000) {
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
