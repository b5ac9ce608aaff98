// BoundAcceptor: listen on one address, accept within the limits, and serve each connection
// to its QuickFIX session (see fix_acceptor.h).
#include "fix_acceptor.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
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

#include "cfx/common/failure_backoff.h"
#include "cfx/concurrency/thread_name.h"
#include "fix_connection.h"

namespace cfx {
namespace gateway {
namespace internal {

BoundAcceptor::BoundAcceptor(FIX::Application& app, FIX::MessageStoreFactory& store,
                             const FIX::SessionSettings& settings, std::string address, int port,
                             AcceptorLimits limits)
    : FIX::Acceptor(app, store, settings),
      batched_store_(dynamic_cast<BatchedFileStoreFactory*>(&store)),
      address_(std::move(address)),
      port_(port),
      limits_(limits) {}

BoundAcceptor::BoundAcceptor(FIX::Application& app, FIX::MessageStoreFactory& store,
                             const FIX::SessionSettings& settings, FIX::LogFactory& log,
                             std::string address, int port, AcceptorLimits limits)
    : FIX::Acceptor(app, store, settings, log),
      batched_store_(dynamic_cast<BatchedFileStoreFactory*>(&store)),
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
  accept_thread_ = concurrency::NamedThread("cfx-fix-accept", [this] { AcceptLoop(); });
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

}  // namespace

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
    // Counted by its /64 when IPv6 (until 2026-12-07 by the whole address: one host drawing
    // addresses from its prefix had no bound).
    const std::string key = common::PeerKey(peer);
    std::lock_guard<std::mutex> lock(mu_);
    int& from_peer = per_peer_[key];
    const bool peer_full = from_peer >= limits_.max_connections_per_peer;
    int held = 0;
    for (const auto& c : connections_) held += c->evicted || c->done ? 0 : 1;
    const bool full = !peer_full && held >= limits_.max_connections && !MakeRoom();
    if (full || peer_full) {
      if (from_peer == 0) per_peer_.erase(key);
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
    c->peer_key = key;
    try {
      StartConnection(c, fd);
    } catch (const std::system_error&) {  // no thread to be had: refuse this connection
      ::close(fd);
      ::close(own_fd);
      connections_.pop_back();
      if (--per_peer_[key] <= 0) per_peer_.erase(key);
    }
  }
}

bool BoundAcceptor::MakeRoom() {
  // Connections that hold no session and have sent nothing whole: idle sockets, or a Logon
  // dribbled byte by byte. The oldest goes first, so a client that connects and logs on at
  // once is not the one closed while connections held open to fill the cap are. Evicted
  // connections end at once (their thread wakes on the shutdown); while as many as the cap
  // are still ending, nothing more is evicted, which bounds the threads alive at twice it.
  // A Logon that arrives just as its connection is picked is lost with it (the flag is read
  // a moment before the connection's thread clears it): accepted, the client reconnects.
  Connection* oldest = nullptr;
  int ending = 0;
  for (const auto& c : connections_) {
    if (c->evicted && !c->done) ++ending;
    if (oldest == nullptr && !c->evicted && !c->done && c->own_fd >= 0 &&
        c->awaiting_logon.load(std::memory_order_acquire)) {
      oldest = c.get();
    }
  }
  if (oldest == nullptr || ending >= limits_.max_connections) return false;
  ::shutdown(oldest->own_fd, SHUT_RDWR);
  oldest->evicted = true;
  counters_.evicted.fetch_add(1, std::memory_order_relaxed);
  LogRefusal(oldest->peer,
             "closed: max_connections reached, and this connection had sent no Logon; it made "
             "room for a new one");
  return true;
}

void BoundAcceptor::StartConnection(Connection* c, int fd) {
  c->thread = std::thread([this, c, fd] {
    concurrency::NameThisThread("cfx-fix-conn");
    Serve(fd, c);
    std::lock_guard<std::mutex> done_lock(mu_);
    if (c->own_fd >= 0) ::close(c->own_fd);  // the last reference: the peer sees the close
    c->own_fd = -1;
    c->done = true;
    auto it = per_peer_.find(c->peer_key);
    if (it != per_peer_.end() && --it->second <= 0) per_peer_.erase(it);
  });
}

void BoundAcceptor::Serve(int fd, Connection* c) {
  if (SetNonBlocking(fd)) {
    // Shared: a batching thread may hold it until its next flush (it then writes nothing:
    // the connection is closed by then).
    const auto link = std::make_shared<Link>(*this, fd, c->peer, &c->awaiting_logon);
    if (link->Open()) link->Run();
  }
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

namespace {

// The value of `tag` in the FIX message at the start of `text` ("" if absent), its first field
// (8) too, which fix_framing.h's FieldValue (it looks for SOH tag=) does not find.
std::string LeadingFieldValue(const std::string& text, const std::string& tag) {
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
  const std::string comp_id = LeadingFieldValue(first, "49").substr(0, 64);
  const FIX::SessionID id(LeadingFieldValue(first, "8"), LeadingFieldValue(first, "56"), comp_id);
  if (LeadingFieldValue(first, "35") != "A") {
    refused_logon_(comp_id, peer, "first message is not a Logon");
  } else if (getSessions().count(id) == 0) {
    refused_logon_(comp_id, peer, kUnknownCompIdsReason);
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
