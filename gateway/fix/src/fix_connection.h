// BoundAcceptor::Link: one client's FIX connection, served on a thread of its own: the
// client's bytes framed (FixFraming) and each whole message handed to its QuickFIX session
// (Session::next); the connection is the session's Responder, whose sends never block
// (fix_acceptor.h). Also what the accept loop and the connections share.
// C++14 (QuickFIX headers): only the gateway's QuickFIX object library includes this.
#ifndef CFX_GATEWAY_SRC_FIX_CONNECTION_H_
#define CFX_GATEWAY_SRC_FIX_CONNECTION_H_

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "fix_acceptor.h"
#include "fix_framing.h"
#include "fix_sent_header.h"

namespace cfx {
namespace gateway {
namespace internal {

inline int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Whether the connection's thread is handing QuickFIX a piece of a resend (fix_resend.cc),
// and whether QuickFIX answered it with a Reject or a Logout (send() notes it): the piece
// refused.
extern thread_local bool serving_piece;
extern thread_local bool piece_refused;

// One line on stderr: what the limits refused or closed, and why.
inline void LogRefusal(const std::string& peer, const std::string& why) {
  std::cerr << "cfx fix: " << peer << ": " << why << "\n";
}

// One client's connection: its socket, what waits to be written to it, and the QuickFIX
// session its Logon named. The connection's thread runs Run(); QuickFIX calls send() and
// disconnect() from any thread, under the session's lock.
class BoundAcceptor::Link : public FIX::Responder,
                            public std::enable_shared_from_this<BoundAcceptor::Link> {
 public:
  // `awaiting_logon` (may be null) is cleared once the client's first whole message has
  // arrived; it must outlive Run().
  Link(BoundAcceptor& acceptor, int fd, std::string peer,
       std::atomic<bool>* awaiting_logon = nullptr)
      : acceptor_(acceptor),
        fd_(fd),
        peer_(std::move(peer)),
        awaiting_logon_(awaiting_logon),
        framing_(acceptor.limits_.max_message_bytes) {}
  ~Link() override {
    if (wake_fd_ >= 0) ::close(wake_fd_);
  }
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  // False when no wake-up descriptor is to be had.
  bool Open();

  // Serves the client until it, its session or the limits end the connection, then detaches
  // the session (QuickFIX logs it out: cancel on disconnect and all). Sends nothing after.
  void Run();

  // FIX::Responder: never blocks. What the socket does not take now is queued for the
  // connection's thread; false once the connection is closing or over max_outbound_bytes.
  // On a thread that batches its writes, the message is held for its next flush.
  bool send(const std::string& message) override;
  // Writes what a batching thread held (BatchWritesOnThisThread).
  void WriteHeld();
  // FIX::Responder: the session ends the connection (after a Logout, a refused Logon...):
  // what it sent last is still written, for up to a second.
  void disconnect() override {
    disconnect_requested_.store(true, std::memory_order_release);
    Wake();
  }

 private:
  void Wake() {
    const uint64_t one = 1;
    ssize_t ignored = ::write(wake_fd_, &one, sizeof one);  // the counter saturates: fine
    (void)ignored;
  }
  // Reads what the socket holds (one recv) and frames it: the whole messages join inbound_.
  // False (close) when the client is gone, or the framing or the message-rate bound closed
  // the connection (logged).
  bool ReadInbound();
  // Hands inbound_'s messages to the session in order. While a resend is served (in_resend_)
  // it stops at a ResendRequest, which waits in inbound_ for that resend to end. False: close.
  bool DispatchInbound();
  // Hands one whole message to the session (the first one finds it); false: close.
  bool Dispatch(const std::string& message);
  // Session::next on one message; false (close) when QuickFIX threw what ends a connection.
  bool Next(const std::string& message);
  // Next on a Logon, inside the acceptor's LogonGateHook (the application holds its sends
  // to the session meanwhile: docs/fix.md, "Messages numbered during a Logon").
  bool NextLogon(const std::string& message);
  // After a message QuickFIX did not hold, from which it went on at `from`: drops from past_gap_
  // what QuickFIX has processed.
  void ReleaseHeld(int from);
  // ReleaseHeld(release_from_) once, for the ResendRequest being served: right after QuickFIX
  // has its first piece (or its whole answer), before anything else the client sent.
  void ReleasePending();
  // A ResendRequest whose range holds more stored messages than a piece: served as pieces,
  // each a ResendRequest for the next stored messages, the client taking each piece's
  // bytes before the next is read (docs/fix.md, "Resend"). False: close.
  bool DispatchResend(const std::string& message);
  // Writes what waits for the client until nothing does; false (close) when the connection
  // failed or the client took nothing for kResendStallMs. Meanwhile, once the resend has
  // begun (in_resend_), the client's messages are read and handed to the session.
  bool AwaitDrained();
  // Before `messages` stored messages are resent: waits, if need be, for the second in
  // which they keep the connection's resends within max_resent_per_sec, or until the session
  // ends the connection (the caller checks), reading the client meanwhile. False (close):
  // the client hung up or was closed meanwhile.
  bool PaceResend(size_t messages);
  // Within a resend's wait, after a poll of the client's socket that returned `revents`:
  // reads what arrived into inbound_ (POLLIN), which the wait's next turn dispatches. False
  // (close): the client hung up, or the framing or the rate bound closed it.
  bool ReadWhileWaiting(short revents);
  bool AttachSession(const std::string& logon);
  void Detach();
  // Queues message[from..] after what waits; false (and the client to be closed) past
  // max_outbound_bytes. out_mu_ held.
  bool Queue(const std::string& message, size_t from);
  // Writes what the session's store holds for what is about to go to the client (a
  // message's bytes never reach the client before the store has them). False, and the
  // connection to be closed, when the store cannot be written. out_mu_ held.
  bool StoreWritten();
  // StoreWritten, then what the socket takes of to_client_; false when either failed.
  // out_mu_ held.
  bool WriteQueued();
  // send's work once the message may go: to the socket at once when nothing waits before
  // it, else queued. out_mu_ held.
  bool SendNow(const std::string& message);
  // Messages the session numbered and stored but never sent on this connection (docs/fix.md,
  // "Messages numbered during a Logon"): QuickFIX numbers and stores a message sent while
  // the session does not count as logged on, and does not send it; the gateway holds its
  // own sends while a Logon is processed, and this is the connection's check behind that.
  // Accounts for a message about to go out: a fresh one (not PossDup) numbered past the
  // next expected one has the stored messages it jumps over sent first; a resent message
  // or GapFill that covers the next expected number moves it on. False when the store
  // failed (store_failed_, the connection to be closed). out_mu_ held.
  bool SendSkipped(const std::string& message);
  // out_mu_ held: the messages stored under [from, to], sent in order (none with QuickFIX's
  // own FileStore, which the connection cannot read); false when the store could not be
  // read (store_failed_, the connection to be closed).
  bool SendStored(int from, int to);

  BoundAcceptor& acceptor_;
  const int fd_;
  const std::string peer_;
  std::atomic<bool>* awaiting_logon_;  // the connection's thread only; null once cleared
  int wake_fd_ = -1;
  FIX::Session* session_ = nullptr;  // the connection's thread only
  // What QuickFIX holds of this connection's messages numbered past a gap: by MsgSeqNum, its
  // size and the number QuickFIX goes on from after processing it (the connection's thread
  // only; a new connection starts with none, as QuickFIX clears its queue on disconnect).
  struct Held {
    size_t bytes = 0;
    int next = 0;
  };
  std::map<int, Held> past_gap_;
  size_t past_gap_bytes_ = 0;
  // The client's bytes (the connection's thread only): their framing; whole messages not yet
  // handed to the session, in order; the one-second window of messages received (SPEC §6:
  // past max_messages_per_sec the connection is closed, whatever the messages are).
  FixFraming framing_;
  std::deque<std::string> inbound_;
  int64_t window_start_ = 0;
  int64_t in_window_ = 0;
  bool in_resend_ = false;  // DispatchResend is serving pieces (it may wait)
  static constexpr int kNoRelease = INT32_MIN;
  int release_from_ = kNoRelease;  // ReleasePending's argument, until it runs
  // Messages resent in the one-second window that started at resend_window_start_ (ms).
  int64_t resend_window_start_ = 0;
  int64_t resent_in_window_ = 0;
  std::atomic<bool> disconnect_requested_{false};
  std::mutex out_mu_;
  std::string to_client_;    // under out_mu_
  bool closed_ = false;      // under out_mu_: no more sends
  bool overflowed_ = false;  // under out_mu_: over max_outbound_bytes
  bool held_ = false;        // under out_mu_: in a batching thread's held_writes_
  bool store_failed_ = false;  // under out_mu_: the session's store could not be written
  // Under out_mu_ (set by the connection's thread, which may read it without): null for a
  // store that writes at once.
  std::shared_ptr<StoreFiles> store_;
  // Under out_mu_ (SendSkipped): the number the next fresh message sent should carry, 0
  // until this connection's Logon answer.
  int next_fresh_ = 0;
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_SRC_FIX_CONNECTION_H_
