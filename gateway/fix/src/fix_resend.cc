// BoundAcceptor::Link (fix_connection.h), its resends: a ResendRequest served in pieces,
// paced, each drained to the client before the next, the client served meanwhile
// (docs/fix.md, "Resend").
#include <poll.h>

#include <memory>
#include <string>

#include "fix_connection.h"  // the class whose members these are
#include "fix_framing.h"
#include "fix_store.h"

namespace cfx {
namespace gateway {
namespace internal {
namespace {

// A resend's next piece waits for the client to take the last one; a client that takes
// nothing for this long is closed as a slow consumer.
constexpr int64_t kResendStallMs = 30000;

// Whether a whole message's CheckSum (10) is the sum of the bytes before it, modulo 256. The
// framing checks only its form; QuickFIX checks the value and ignores a message that fails.
// A message the connection rewrites (a resend's pieces) gets a new CheckSum, so it checks
// the client's first.
bool ChecksumRight(const std::string& message) {
  const size_t trailer = message.rfind(
      "\x01"
      "10=");
  if (trailer == std::string::npos || message.size() < trailer + 8) return false;
  unsigned sum = 0;
  for (size_t i = 0; i <= trailer; ++i) sum += static_cast<unsigned char>(message[i]);
  int stated = 0;
  return ReadSeqNum(message.substr(trailer + 4, 3), &stated) &&
         stated == static_cast<int>(sum % 256);
}

}  // namespace

bool BoundAcceptor::Link::ReadWhileWaiting(short revents) {
  if (revents & POLLIN) return ReadInbound();  // a hang-up reads as 0 bytes
  return (revents & (POLLHUP | POLLERR)) == 0;
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
  if (store == nullptr || !ReadSeqNum(FieldValue(message, "7"), &begin) ||
      !ReadSeqNum(FieldValue(message, "16"), &end) || !ChecksumRight(message)) {
    return Next(message);  // QuickFIX's own answer: a reject, or a garbled message ignored
  }
  // The range as QuickFIX reads it, from 1 (it would read 0 or below as the whole history):
  // every piece, the only one too, names its numbers, so none grows while it waits its turn.
  if (begin < 1) begin = 1;
  const int last_sent = session_->getExpectedSenderNum() - 1;
  if (begin > last_sent + 1 || (end != 0 && end < begin)) {
    // Nothing was sent in the range: it starts past the last number sent, or ends before
    // it starts. QuickFIX would answer with a SequenceReset-GapFill numbered BeginSeqNo
    // (up to 2^31 - 1, a number never sent) and a NewSeqNo below it, which a client takes
    // for a gap of its own. It is served as the empty range at the next number instead: a
    // GapFill from that number to itself, which moves nothing at the client.
    begin = last_sent + 1;
    end = 0;
  }
  if (end == 0 || end > last_sent) end = last_sent;
  FIX::Message request;
  try {
    request = FIX::Message(message, /*validate=*/false);
  } catch (const std::exception&) {
    return Next(message);  // QuickFIX parses it again and answers
  }
  std::string text = message;
  if (begin > end) {  // nothing stored to read: QuickFIX gap-fills from begin to itself
    request.setField(FIX::BeginSeqNo(begin));
    request.setField(FIX::EndSeqNo(0));
    return Next(request.toString(text));
  }
  size_t count = 0;
  int piece_end = store->PieceEnd(begin, end, piece, &count);
  // Once QuickFIX has the request (its first piece), the connection goes on reading the
  // client while it waits (pacing, the client draining a piece) and hands its messages to
  // the session, up to a ResendRequest, which waits for this resend to end. Not before: a
  // message after the request would reach QuickFIX ahead of it, numbered past a gap.
  struct Serving {
    bool& flag;
    ~Serving() { flag = false; }
  } serving{in_resend_};
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
    // What the client sent during the waits may have ended the resend: a message refused
    // with a Logout (QuickFIX would serve pieces after it), a Logon resetting the numbers
    // the range names.
    if (from != begin && (!session_->isLoggedOn() || session_->sentLogout() ||
                          session_->getExpectedSenderNum() - 1 < end)) {
      return true;
    }
    acceptor_.counters_.resend_pieces.fetch_add(1, std::memory_order_relaxed);
    if (from != begin) {
      session_->getLog()->onEvent("ResendRequest " + FieldValue(message, "34") +
                                  " served in pieces: the next is " + std::to_string(from) +
                                  " to " + std::to_string(piece_end));
    }
    serving_piece = true;
    piece_refused = false;
    const bool kept = Next(text);
    serving_piece = false;
    ReleasePending();
    in_resend_ = true;
    if (!kept) return false;
    if (piece_end >= end) return true;
    // Refused (a Reject, a Logout: a stale SendingTime, a foreign CompID...): the next
    // pieces would be too, or would be served after a Logout.
    if (piece_refused || !session_->isLoggedOn() || session_->sentLogout() ||
        disconnect_requested_.load(std::memory_order_acquire)) {
      return true;
    }
    if (!AwaitDrained()) return false;
    from = piece_end + 1;
    piece_end = store->PieceEnd(from, end, piece, &count);
  }
}

bool BoundAcceptor::Link::PaceResend(size_t messages) {
  const int64_t limit = acceptor_.limits_.max_resent_per_sec;
  for (;;) {
    if (in_resend_ && !DispatchInbound()) return false;
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
    // The client's messages (once the resend has begun, unless one already waits for it to
    // end); POLLHUP and POLLERR: the client gone while it waits.
    p.events = static_cast<short>(in_resend_ && inbound_.empty() ? POLLIN : 0);
    p.revents = 0;
    if (::poll(&p, 1, static_cast<int>(resend_window_start_ + 1000 - now)) > 0 &&
        !ReadWhileWaiting(p.revents)) {
      return false;
    }
  }
}

bool BoundAcceptor::Link::AwaitDrained() {
  int64_t progress_at = NowMs();
  for (;;) {
    if (in_resend_ && !DispatchInbound()) return false;
    size_t queued = 0;
    size_t written = 0;
    {
      std::lock_guard<std::mutex> lock(out_mu_);
      if (closed_ || overflowed_ || store_failed_) return false;
      const size_t before = to_client_.size();
      if (!WriteQueued()) return false;
      queued = to_client_.size();
      written = before - queued;  // only the socket takes bytes from the queue
    }
    if (queued == 0 || disconnect_requested_.load(std::memory_order_acquire)) return true;
    const int64_t now = NowMs();
    if (written > 0) {
      progress_at = now;
    } else if (now - progress_at >= kResendStallMs) {
      acceptor_.counters_.slow_consumers.fetch_add(1, std::memory_order_relaxed);
      LogRefusal(peer_, "closed: took none of its resend for " +
                            std::to_string(kResendStallMs / 1000) + " s");
      return false;
    }
    pollfd p;
    p.fd = fd_;
    p.events = static_cast<short>(POLLOUT | (in_resend_ && inbound_.empty() ? POLLIN : 0));
    p.revents = 0;
    if (::poll(&p, 1, 100) > 0 && !ReadWhileWaiting(p.revents)) return false;
  }
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
