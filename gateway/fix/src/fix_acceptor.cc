// BoundAcceptor: listen on one address, accept, and run each connection through QuickFIX.
#include "fix_acceptor.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

namespace cfx {
namespace gateway {
namespace internal {

BoundAcceptor::BoundAcceptor(FIX::Application& app, FIX::MessageStoreFactory& store,
                             const FIX::SessionSettings& settings, std::string address, int port,
                             bool no_delay)
    : FIX::Acceptor(app, store, settings),
      address_(std::move(address)),
      port_(port),
      no_delay_(no_delay) {}

BoundAcceptor::BoundAcceptor(FIX::Application& app, FIX::MessageStoreFactory& store,
                             const FIX::SessionSettings& settings, FIX::LogFactory& log,
                             std::string address, int port, bool no_delay)
    : FIX::Acceptor(app, store, settings, log),
      address_(std::move(address)),
      port_(port),
      no_delay_(no_delay) {}

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
  int rc = ::getaddrinfo(address_.empty() ? nullptr : address_.c_str(), port.c_str(), &hints,
                         &found);
  if (rc != 0) {
    throw FIX::RuntimeError("cannot resolve listen address " + where + ": " +
                            ::gai_strerror(rc));
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

void BoundAcceptor::AcceptLoop() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
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
    // QuickFIX's connection waits with select(): a descriptor past FD_SETSIZE cannot be
    // served, so refuse the connection (the client retries) rather than corrupt memory.
    if (fd >= FD_SETSIZE) {
      ::close(fd);
      continue;
    }
    if (no_delay_) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    ReapFinished();
    // Our reference above FD_SETSIZE where the limit allows, leaving low numbers to QuickFIX.
    int own_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, FD_SETSIZE);
    if (own_fd < 0) own_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own_fd < 0) {  // out of descriptors: refuse this connection rather than lose track
      ::close(fd);
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    connections_.emplace_back(new Connection());
    Connection* c = connections_.back().get();
    c->own_fd = own_fd;
    try {
      StartConnection(c, fd);
    } catch (const std::system_error&) {  // no thread to be had: refuse this connection
      ::close(fd);
      ::close(own_fd);
      connections_.pop_back();
    }
  }
}

void BoundAcceptor::StartConnection(Connection* c, int fd) {
  c->thread = std::thread([this, c, fd] {
    // The connection finds its session from the Logon (any configured session).
    FIX::ThreadedSocketConnection* connection =
        new FIX::ThreadedSocketConnection(fd, getSessions(), getLog());
    while (connection->read()) {
    }
    delete connection;  // unregisters the session; read() has closed `fd`
    std::lock_guard<std::mutex> done_lock(mu_);
    if (c->own_fd >= 0) ::close(c->own_fd);  // the last reference: the peer sees the close
    c->own_fd = -1;
    c->done = true;
  });
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
