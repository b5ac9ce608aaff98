// The Boost.Beast server: listens, accepts connections within the limits (HttpSessionHost,
// http_session.h), runs the I/O threads and stops gracefully. Every Asio/Beast operation
// uses the error_code form; what Beast still throws from inside an operation (a chunked
// trailer field over its 64 KiB field limit throws std::length_error from the parser) is
// caught by the I/O loop, which drops only the connection whose operation threw (its
// handler, and so its session, is destroyed while the exception unwinds).
#include "cfx/gateway/http_server.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "cfx/concurrency/thread_name.h"
#include "http_session.h"

namespace cfx::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = boost::asio::ip::tcp;

class HttpServer::Impl : public internal::HttpSessionHost {
 public:
  Impl(const common::ExchangeConfig& config, HttpProviders providers, HttpServerOptions options)
      : HttpSessionHost(config, providers, options),
        address_(config.listen_address),
        configured_port_(config.http_port) {}

  ~Impl() { Stop(); }

  absl::Status Start();
  void Stop();
  int port() const { return port_.load(std::memory_order_acquire); }

 private:
  void DoAccept();
  void OnAccept(beast::error_code ec, tcp::socket socket);
  // ioc_.run() until stopped. An exception out of a handler ends only that handler's
  // connection (see the file comment); the loop goes on serving the others.
  void RunLoop();

  std::string address_;
  int configured_port_;
  uint64_t next_session_id_ = 0;  // accept strand only
  std::atomic<int> port_{0};
  bool started_ = false;  // controlling thread only
  bool stopped_ = false;  // controlling thread only

  // Declared after the HttpSessionHost base's state and destroyed before it: queued handlers
  // hold sessions, whose destructors call Unregister on the base.
  asio::io_context ioc_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::optional<tcp::acceptor> acceptor_;
  std::optional<asio::steady_timer> accept_retry_;  // on the acceptor's strand
  std::vector<std::thread> threads_;
};

absl::Status HttpServer::Impl::Start() {
  if (started_) return absl::FailedPreconditionError("HTTP server already started");
  beast::error_code ec;
  asio::ip::address addr = asio::ip::make_address(address_, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("http listen_address '", address_, "': ", ec.message()));
  }
  if (configured_port_ < 0 || configured_port_ > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("http_port ", configured_port_, " out of range"));
  }
  tcp::endpoint endpoint(addr, static_cast<uint16_t>(configured_port_));
  acceptor_.emplace(asio::make_strand(ioc_));
  accept_retry_.emplace(acceptor_->get_executor());
  auto fail = [&](const char* what) {
    return absl::UnavailableError(
        absl::StrCat("http ", what, " ", address_, ":", configured_port_, ": ", ec.message()));
  };
  if (acceptor_->open(endpoint.protocol(), ec); ec) return fail("open");
  if (acceptor_->set_option(asio::socket_base::reuse_address(true), ec); ec) return fail("option");
  if (acceptor_->bind(endpoint, ec); ec) return fail("bind");
  if (acceptor_->listen(asio::socket_base::max_listen_connections, ec); ec) return fail("listen");
  port_.store(acceptor_->local_endpoint(ec).port(), std::memory_order_release);
  started_ = true;
  work_.emplace(ioc_.get_executor());
  DoAccept();
  int n = options_.threads > 0 ? options_.threads : 1;
  for (int i = 0; i < n; ++i) {
    threads_.push_back(concurrency::NamedThread("cfx-http", [this] { RunLoop(); }));
  }
  return absl::OkStatus();
}

void HttpServer::Impl::RunLoop() {
  for (;;) {
    try {
      ioc_.run();
      return;
    } catch (const std::exception& e) {
      metrics_.HandlerException();
      std::cerr << "cfx http: connection dropped: " << e.what() << "\n";
    } catch (...) {
      metrics_.HandlerException();
      std::cerr << "cfx http: connection dropped: unknown exception\n";
    }
  }
}

void HttpServer::Impl::DoAccept() {
  acceptor_->async_accept(asio::make_strand(ioc_),
                          beast::bind_front_handler(&Impl::OnAccept, this));
}

void HttpServer::Impl::OnAccept(beast::error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_->is_open()) return;  // stopping
  if (!ec) {
    beast::error_code peer_ec;
    const tcp::endpoint remote = socket.remote_endpoint(peer_ec);
    const std::string peer = peer_ec ? std::string("?") : remote.address().to_string();
    if (stopping() || peer_ec || !TakeSlot(peer)) {
      metrics_.ConnectionRefused();
      beast::error_code ignored;
      socket.close(ignored);
    } else {
      socket.set_option(tcp::no_delay(true), ec);
      const uint64_t id = next_session_id_++;
      auto session = std::make_shared<internal::HttpSession>(std::move(socket), this, id, peer);
      Register(id, session);
      session->Run();
    }
  }
  // Accept errors do not stop the listener. Out of descriptors or memory, the pending
  // connection stays queued and an accept at once fails again: until 2026-12-07 that spun
  // an I/O thread at 100% while the process was out of descriptors (a review). Now it
  // waits 50 ms, as the FIX acceptor does.
  if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
      ec == asio::error::no_memory || ec.value() == ENFILE) {
    metrics_.ConnectionRefused();
    accept_retry_->expires_after(std::chrono::milliseconds(50));
    accept_retry_->async_wait([this](beast::error_code wait_ec) {
      if (wait_ec || !acceptor_->is_open()) return;  // stopping
      DoAccept();
    });
    return;
  }
  DoAccept();
}

void HttpServer::Impl::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  stopping_.store(true, std::memory_order_release);
  asio::post(acceptor_->get_executor(), [this] {
    beast::error_code ignored;
    accept_retry_->cancel();
    acceptor_->close(ignored);
  });
  std::vector<std::shared_ptr<internal::HttpSession>> live;
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    for (auto& [id, entry] : sessions_) {
      if (auto s = entry.weak.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) {
    asio::post(s->executor(), [s] { s->OnServerStop(); });
  }
  live.clear();
  {
    std::unique_lock<std::mutex> lock(sessions_mu_);
    sessions_cv_.wait_for(lock, options_.stop_drain_timeout, [this] { return sessions_.empty(); });
  }
  valuation_.Stop();  // a valuation still running finishes; one waiting is dropped
  work_.reset();
  ioc_.stop();  // drops connections still open after the drain timeout
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

HttpServerOptions HttpServerOptionsFromConfig(const common::ExchangeConfig& config) {
  HttpServerOptions o;
  const common::LimitsConfig& l = config.limits;
  o.max_connections = l.http_max_connections;
  o.max_connections_per_peer = l.http_max_connections_per_peer;
  o.max_body_bytes = static_cast<size_t>(l.http_max_body_bytes);
  o.max_header_bytes = static_cast<size_t>(l.http_max_header_bytes);
  o.read_timeout = std::chrono::milliseconds(l.http_read_timeout_ms);
  o.unauthorized_backoff.initial_ms = l.http_unauthorized_backoff_ms;
  o.unauthorized_backoff.free_failures = l.http_unauthorized_free;
  o.rate_limit_per_sec = l.http_requests_per_sec;
  o.rate_limit_burst = l.http_request_burst;
  o.valuation_threads = l.http_valuation_threads;
  o.valuation_waiting = static_cast<size_t>(l.http_valuation_waiting);
  o.valuation_per_token = static_cast<size_t>(l.http_valuation_per_token);
  return o;
}

HttpServer::HttpServer(const common::ExchangeConfig& config, HttpProviders providers,
                       HttpServerOptions options)
    : impl_(std::make_unique<Impl>(config, providers, std::move(options))) {}

HttpServer::~HttpServer() = default;

absl::Status HttpServer::Start() { return impl_->Start(); }
int HttpServer::port() const { return impl_->port(); }
void HttpServer::Stop() { impl_->Stop(); }

}  // namespace cfx::gateway
