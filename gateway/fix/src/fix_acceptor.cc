// BoundAcceptor: listen on one address, accept within the limits, and serve each connection
// to its QuickFIX session (see fix_acceptor.h).
#include "fix_acceptor.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <system_error>
#include <utility>
#include <vector>

#include "fix_framing.h"

namespace cfx {
namespace gateway {
namespace internal {

BoundAcceptor::BoundAcceptor(FIX::Application& app, FIX::MessageStoreFactory& store,
                             const FIX::SessionSettings& settings, std::string address, int port,
                             AcceptorLimits limits)
    : FIX::Acceptor(app, store, settings),
      address_(std::move(address)),
      port_(port),
      limits_(limits) {}

BoundAcceptor::BoundAcceptor(FIX::Application& app, FIX::MessageStoreFactory& store,
                             const FIX::SessionSettings& settings, FIX::LogFactory& log,
                             std::string address, int port, AcceptorLimits limits)
    : FIX::Acceptor(app, store, settings, log),
      address_(std::move(address)),
      port_(port),
      limits_(limits) {}

BoundAcceptor::~BoundAcceptor() { CloseAll(); }

void BoundAcceptor::onInitialize(const FIX::SessionSettings&) throw(FIX::RuntimeError) {
  addrinfo hints;
  std::memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV | AI_NUMERICHOST;  // an address, no DNS
  addrinfo* found = nullptr;
  const std::string port = std::to_string(port_);
  const std::string where = (address_.empty() ? std::string("*") : address_) + ":" + port;
  int rc =
      ::getaddrinfo(address_.empty() ? nullptr : address_.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) {
    throw FIX::RuntimeError("cannot resolve listen address " + where + ": " + ::gai_strerror(rc));
  }
  std::string error = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      listen_fd_ = fd;
      break;
    }
    error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0) throw FIX::RuntimeError("cannot listen on " + where + ": " + error);
  // Started here, on the caller's thread, not in onStart: Acceptor::start runs onStart on
  // a thread of its own, which a prompt stop() could overtake.
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

namespace {

std::string PeerAddress(const sockaddr_storage& ss) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (ss.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(ss).sin_addr, text, sizeof text);
  } else if (ss.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(ss).sin6_addr, text, sizeof text);
  }
  return text;
}

bool SetNonBlocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

thread_local std::string current_peer;  // see CurrentPeer()

void LogRefusal(const std::string& peer, const std::string& why) {
  std::cerr << "cfx fix: " << peer << ": " << why << "\n";
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

void BoundAcceptor::AcceptLoop() {
  for (;;) {
    sockaddr_storage ss;
    socklen_t ss_len = sizeof ss;
    std::memset(&ss, 0, sizeof ss);
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &ss_len, SOCK_CLOEXEC);
    if (stopping_.load(std::memory_order_acquire)) {
      if (fd >= 0) ::close(fd);
      return;
    }
    if (fd < 0) {
      if (errno == EINVAL || errno == EBADF) return;  // the listening socket is gone
      if (errno == EINTR) continue;
      // Out of descriptors or memory, or a network error of one pending connection
      // (accept(2) passes those on): back off briefly and keep serving.
      std::this_thread::sleep_for(std::chrono::milliseconds(
          errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM ? 50 : 1));
      continue;
    }
    if (limits_.no_delay) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    ReapFinished();
    const std::string peer = PeerAddress(ss);
    int own_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own_fd < 0) {  // out of descriptors: refuse this connection rather than lose track
      ::close(fd);
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    int& from_peer = per_peer_[peer];
    const bool full = static_cast<int>(connections_.size()) >= limits_.max_connections;
    if (full || from_peer >= limits_.max_connections_per_peer) {
      if (from_peer == 0) per_peer_.erase(peer);
      counters_.refused.fetch_add(1, std::memory_order_relaxed);
      LogRefusal(peer, full ? "refused: max_connections reached"
                            : "refused: max_connections_per_peer reached");
      ::close(fd);
      ::close(own_fd);
      continue;
    }
    ++from_peer;
    connections_.emplace_back(new Connection());
    Connection* c = connections_.back().get();
    c->own_fd = own_fd;
    c->peer = peer;
    try {
      StartConnection(c, fd);
    } catch (const std::system_error&) {  // no thread to be had: refuse this connection
      ::close(fd);
      ::close(own_fd);
      connections_.pop_back();
      if (--per_peer_[peer] <= 0) per_peer_.erase(peer);
    }
  }
}

void BoundAcceptor::StartConnection(Connection* c, int fd) {
  c->thread = std::thread([this, c, fd] {
    Serve(fd, c->peer);
    std::lock_guard<std::mutex> done_lock(mu_);
    if (c->own_fd >= 0) ::close(c->own_fd);  // the last reference: the peer sees the close
    c->own_fd = -1;
    c->done = true;
    auto it = per_peer_.find(c->peer);
    if (it != per_peer_.end() && --it->second <= 0) per_peer_.erase(it);
  });
}

// One client's connection: its socket, what waits to be written to it, and the QuickFIX
// session its Logon named. The connection's thread runs Run(); QuickFIX calls send() and
// disconnect() from any thread, under the session's lock.
class BoundAcceptor::Link : public FIX::Responder,
                            public std::enable_shared_from_this<BoundAcceptor::Link> {
 public:
  Link(BoundAcceptor& acceptor, int fd, std::string peer)
      : acceptor_(acceptor), fd_(fd), peer_(std::move(peer)) {}
  ~Link() override {
    if (wake_fd_ >= 0) ::close(wake_fd_);
  }
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  // False when no wake-up descriptor is to be had.
  bool Open() {
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return wake_fd_ >= 0;
  }

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
  // Hands one whole message to the session (the first one finds it); false: close.
  bool Dispatch(const std::string& message);
  bool AttachSession(const std::string& logon);
  void Detach();
  // Queues message[from..] after what waits; false (and the client to be closed) past
  // max_outbound_bytes. out_mu_ held.
  bool Queue(const std::string& message, size_t from);

  BoundAcceptor& acceptor_;
  const int fd_;
  const std::string peer_;
  int wake_fd_ = -1;
  FIX::Session* session_ = nullptr;  // the connection's thread only
  std::atomic<bool> disconnect_requested_{false};
  std::mutex out_mu_;
  std::string to_client_;    // under out_mu_
  bool closed_ = false;      // under out_mu_: no more sends
  bool overflowed_ = false;  // under out_mu_: over max_outbound_bytes
  bool held_ = false;        // under out_mu_: in a batching thread's held_writes_
};

thread_local std::vector<std::shared_ptr<BoundAcceptor::Link>> BoundAcceptor::held_writes_;
thread_local bool BoundAcceptor::batching_writes_ = false;

namespace {
constexpr size_t kWriteAtOnce = 64 << 10;  // a batching thread holds at most this per client
}  // namespace

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

void BoundAcceptor::Link::WriteHeld() {
  std::lock_guard<std::mutex> lock(out_mu_);
  held_ = false;
  if (closed_ || overflowed_) return;
  // A failed connection is the connection thread's to see; what the socket leaves is its too.
  if (SendSome(fd_, &to_client_) && !to_client_.empty()) Wake();
}

bool BoundAcceptor::Link::send(const std::string& message) {
  std::lock_guard<std::mutex> lock(out_mu_);
  if (closed_ || overflowed_) return false;
  if (batching_writes_) {
    if (!Queue(message, 0)) return false;
    if (!held_) {
      held_ = true;
      held_writes_.push_back(shared_from_this());
    }
    if (to_client_.size() >= kWriteAtOnce && SendSome(fd_, &to_client_) && !to_client_.empty()) {
      Wake();
    }
    return true;
  }
  size_t sent = 0;
  if (to_client_.empty()) {  // in order: only when nothing waits before it
    const ssize_t n =
        ::send(fd_, message.data(), message.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
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
  session_->setResponder(this);
  return true;
}

bool BoundAcceptor::Link::Dispatch(const std::string& message) {
  if (session_ == nullptr && !AttachSession(message)) return false;
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

void BoundAcceptor::Link::Detach() {
  {
    std::lock_guard<std::mutex> lock(out_mu_);
    closed_ = true;
  }
  if (session_ == nullptr) return;
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
      if (overflowed_) break;
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
      if (!SendSome(fd_, &to_client_)) break;
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
      rest.swap(to_client_);
    }
    FlushToClient(fd_, &rest);
  }
  Detach();
}

void BoundAcceptor::Serve(int fd, const std::string& peer) {
  if (SetNonBlocking(fd)) {
    // Shared: a batching thread may hold it until its next flush (it then writes nothing:
    // the connection is closed by then).
    const auto link = std::make_shared<Link>(*this, fd, peer);
    if (link->Open()) link->Run();
  }
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

namespace {

// The value of `tag` in the FIX message at the start of `text` ("" if absent).
std::string FieldValue(const std::string& text, const std::string& tag) {
  const std::string key = tag + "=";
  size_t at = text.compare(0, key.size(), key) == 0 ? 0 : text.find("\x01" + key);
  if (at == std::string::npos) return "";
  at += at == 0 ? key.size() : key.size() + 1;
  const size_t end = text.find('\x01', at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

void BoundAcceptor::CheckFirstMessage(const std::string& message, const std::string& peer) const {
  if (!refused_logon_) return;
  const size_t end = message.find("\x01" "10=");
  const std::string first = message.substr(0, end);  // the header and body of the first one
  const std::string comp_id = FieldValue(first, "49").substr(0, 64);
  const FIX::SessionID id(FieldValue(first, "8"), FieldValue(first, "56"), comp_id);
  if (FieldValue(first, "35") != "A") {
    refused_logon_(comp_id, peer, "first message is not a Logon");
  } else if (getSessions().count(id) == 0) {
    refused_logon_(comp_id, peer, "unknown SenderCompID or TargetCompID");
  } else {
    refused_logon_(comp_id, peer, "");
  }
}

void BoundAcceptor::ReapFinished() {
  std::list<std::unique_ptr<Connection>> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = connections_.begin(); it != connections_.end();) {
      if ((*it)->done) {
        finished.push_back(std::move(*it));
        it = connections_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& c : finished) c->thread.join();
}

void BoundAcceptor::onStop() {
  // Acceptor::stop has sent the Logouts: give clients a moment to answer, as QuickFIX does.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (isLoggedOn() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CloseAll();
}

void BoundAcceptor::CloseAll() {
  stopping_.store(true, std::memory_order_release);
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  if (accept_thread_.joinable()) accept_thread_.join();
  std::list<std::unique_ptr<Connection>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // A connection still reading is woken by the shutdown (its read fails, it closes).
    for (auto& c : connections_) {
      if (c->own_fd >= 0) ::shutdown(c->own_fd, SHUT_RDWR);
    }
    all.swap(connections_);
  }
  for (auto& c : all) c->thread.join();
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
  }
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
