// The Boost.Beast adapter: accepts connections, reads requests with size limits and
// timeouts, hands them to HttpApi and writes the answers. Every Asio/Beast operation uses
// the error_code form; what Beast still throws from inside an operation (a chunked trailer
// field over its 64 KiB field limit throws std::length_error from the parser) is caught by
// the I/O loop, which drops only the connection whose operation threw (its handler, and so
// its session, is destroyed while the exception unwinds). This is the only file of the
// library that includes Beast.
#include "cfx/gateway/http_server.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/strand.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "cfx/concurrency/thread_name.h"
#include "http_api.h"
#include "http_json.h"
#include "http_valuation_queue.h"

namespace cfx::gateway {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = boost::asio::ip::tcp;

namespace internal {

class HttpSession;

// What a session needs from its server. Separate from HttpServer::Impl (private to
// HttpServer) so that HttpSession can name it. Thread safety: every method is thread-safe.
class HttpSessionHost {
 public:
  HttpSessionHost(const common::ExchangeConfig& config, HttpProviders providers,
                  HttpServerOptions options)
      : options_(options),
        api_(config, providers, options, &metrics_),
        valuation_(options.valuation_threads, options.valuation_waiting,
                   options.valuation_per_token) {}

  HttpApi& api() { return api_; }
  ValuationQueue& valuation() { return valuation_; }
  HttpMetrics& metrics() { return metrics_; }
  const HttpServerOptions& options() const { return options_; }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }

  void Register(uint64_t id, const std::shared_ptr<HttpSession>& s) {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    sessions_[id] = {s, s.get()};
  }
  // `evicted`: the session was closed by TakeSlot to make room (counted in evicting_).
  void Unregister(uint64_t id, const std::string& peer, bool evicted) {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    sessions_.erase(id);
    if (evicted) --evicting_;
    if (auto it = per_peer_.find(peer); it != per_peer_.end() && --it->second <= 0) {
      per_peer_.erase(it);
    }
    if (sessions_.empty()) sessions_cv_.notify_all();
  }
  // Takes a connection slot for `peer`; false (nothing taken) when the peer holds
  // max_connections_per_peer already, or the server is full and no connection is idle.
  // When full, the connection that has waited longest for a request is closed to make room
  // (a few addresses holding every slot with idle keep-alives must not lock every other
  // client out, SPEC §7); the new one is admitted at once, the evicted one's slot coming
  // back when it is gone.
  bool TakeSlot(const std::string& peer);

 protected:
  HttpServerOptions options_;
  HttpMetrics metrics_;
  HttpApi api_;
  // After api_, which its jobs use: stopped (its threads joined) before api_ goes.
  ValuationQueue valuation_;
  std::mutex sessions_mu_;
  std::condition_variable sessions_cv_;
  struct SessionEntry {
    std::weak_ptr<HttpSession> weak;
    // Alive while the entry is here: its destructor removes the entry (under the lock)
    // before any of its members goes.
    HttpSession* raw = nullptr;
  };
  std::map<uint64_t, SessionEntry> sessions_;  // guarded by sessions_mu_
  std::map<std::string, int> per_peer_;        // guarded by sessions_mu_
  size_t evicting_ = 0;  // evicted sessions not yet gone; guarded by sessions_mu_
  std::atomic<bool> stopping_{false};
};

// One connection. Thread safety: all its handlers run on its own strand; OnServerStop is
// posted to that strand.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  // REQUIRES: server->TakeSlot(peer) returned true; the session gives the slot back.
  HttpSession(tcp::socket&& socket, HttpSessionHost* server, uint64_t id, std::string peer)
      : stream_(std::move(socket)),
        buffer_(ReadBufferLimit(server->options())),
        server_(server),
        id_(id),
        peer_(std::move(peer)) {
    server_->metrics().ConnectionOpened();
  }
  ~HttpSession() {
    server_->metrics().ConnectionClosed();
    server_->Unregister(id_, peer_, evicted_.load(std::memory_order_relaxed));
  }

  // Steady-clock ns since when it has waited for a request (0: reading nothing yet is not
  // known, a request is being answered). Read under the host's lock by TakeSlot.
  int64_t idle_since_ns() const { return idle_since_ns_.load(std::memory_order_relaxed); }
  // TakeSlot chose it to make room (under the host's lock): closed on its strand.
  void MarkEvicted() { evicted_.store(true, std::memory_order_relaxed); }
  bool evicted() const { return evicted_.load(std::memory_order_relaxed); }
  void Evict() {
    if (reading_) {
      Close();
    } else {
      close_after_write_ = true;  // a request came in meanwhile: closed once answered
    }
  }

  void Run() {
    asio::dispatch(stream_.get_executor(),
                   beast::bind_front_handler(&HttpSession::DoRead, shared_from_this()));
  }

  // Closes the connection if it is waiting for a request; one being answered is closed
  // after its response is written (OnWrite checks stopping()).
  void OnServerStop() {
    if (reading_) Close();
  }

  asio::any_io_executor executor() { return stream_.get_executor(); }

 private:
  void DoRead() {
    if (server_->stopping()) return Close();
    const HttpServerOptions& o = server_->options();
    parser_.emplace();
    parser_->body_limit(o.max_body_bytes);
    parser_->header_limit(static_cast<uint32_t>(o.max_header_bytes));
    stream_.expires_after(o.read_timeout);
    reading_ = true;
    idle_since_ns_.store(NowNs(), std::memory_order_relaxed);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             beast::bind_front_handler(&HttpSession::OnHeader, shared_from_this()));
  }

  // The start line and headers are in. A client that sent `Expect: 100-continue` (curl does
  // for a body over 1 KiB) waits for a 100 before it sends its body, a second when nobody
  // answers (RFC 9110 §10.1.1): it gets the 100 once the headers have passed the size
  // checks (a declared Content-Length over the limit has already failed as body_limit, so
  // such a client hears 413 without sending its body). Another expectation is 417 and close.
  // The body is read under the same deadline as the headers.
  void OnHeader(beast::error_code ec, size_t bytes) {
    if (ec || parser_->is_done()) return OnRead(ec, bytes);
    const auto& header = parser_->get();
    const auto expect = header.find(bhttp::field::expect);
    if (expect == header.end() || header.version() < 11) return ReadBody();
    if (!beast::iequals(expect->value(), "100-continue")) {
      reading_ = false;
      idle_since_ns_.store(0, std::memory_order_relaxed);
      return TransportError(417, "expectation_failed",
                            absl::StrCat("Expect: ", std::string(expect->value()),
                                         " is not supported (only 100-continue)"));
    }
    continue_ = bhttp::response<bhttp::empty_body>(bhttp::status::continue_, header.version());
    bhttp::async_write(
        stream_, continue_,
        beast::bind_front_handler(&HttpSession::OnContinueWritten, shared_from_this()));
  }

  void OnContinueWritten(beast::error_code ec, size_t /*bytes*/) {
    if (ec) return OnRead(ec, 0);
    ReadBody();
  }

  void ReadBody() {
    bhttp::async_read(stream_, buffer_, *parser_,
                      beast::bind_front_handler(&HttpSession::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, size_t /*bytes*/) {
    reading_ = false;
    idle_since_ns_.store(0, std::memory_order_relaxed);
    if (ec == bhttp::error::end_of_stream || ec == asio::error::operation_aborted) return Close();
    if (ec == beast::error::timeout) {
      server_->metrics().ReadTimeout();
      return Close();  // the stream has closed the socket already
    }
    if (ec == bhttp::error::body_limit)
      return TransportError(
          413, "payload_too_large",
          absl::StrCat("body larger than ", server_->options().max_body_bytes, " bytes"));
    if (ec == bhttp::error::header_limit)
      return TransportError(431, "headers_too_large",
                            absl::StrCat("request headers larger than ",
                                         server_->options().max_header_bytes, " bytes"));
    if (ec && ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category()) {
      // Beast's own category: a malformed request.
      return TransportError(400, "bad_request", ec.message());
    }
    if (ec) return Close();  // a socket error: nobody to answer

    bhttp::request<bhttp::string_body> req = parser_->release();
    HttpRequest request;
    request.method = std::string(req.method_string());
    request.target = std::string(req.target());
    if (auto it = req.find(bhttp::field::authorization); it != req.end()) {
      request.authorization = std::string(it->value());
    }
    request.authorization_headers = static_cast<int>(req.count(bhttp::field::authorization));
    request.body = std::move(req.body());
    request.peer = peer_;
    const Reply reply{req.version(), req.keep_alive(), req.method() == bhttp::verb::head};
    Admission admission = server_->api().Admit(request);
    if (!admission.valuation) return Answer(server_->api().Serve(request, admission), reply);
    // Valuation runs on the valuation queue's threads; the answer is written back here.
    const std::string owner = admission.owner;
    auto self = shared_from_this();
    auto job = [self, request = std::move(request), admission, reply] {
      HttpResponse response = self->server_->api().Serve(request, admission);
      asio::post(self->executor(),
                 [self, response = std::move(response), reply] { self->Answer(response, reply); });
    };
    const ValuationQueue::Result queued = server_->valuation().Submit(owner, std::move(job));
    if (queued == ValuationQueue::Result::kQueued) return;
    HttpResponse refused =
        queued == ValuationQueue::Result::kOwnerBusy
            ? ErrorResponse(429, "rate_limited",
                            absl::StrCat("more than ", server_->options().valuation_per_token,
                                         " margin or what-if requests in hand for this token"))
            : ErrorResponse(503, "busy", "the valuation queue is full: retry later");
    refused.headers.emplace_back("Retry-After", "1");
    server_->api().RecordRefused(admission, refused);
    Answer(refused, reply);
  }

  // How a request is to be answered.
  struct Reply {
    unsigned version = 11;
    bool keep_alive = true;
    bool head = false;
  };
  void Answer(const HttpResponse& response, const Reply& reply) {
    Write(response, reply.version, reply.keep_alive && !server_->stopping(), reply.head);
  }

  void TransportError(int status, const char* error, const std::string& detail) {
    server_->api().RecordTransportError(status);
    HttpResponse r;
    r.status = status;
    r.body = ErrorJson(error, detail);
    // After a framing error the rest of the stream cannot be trusted: answer and close.
    Write(r, 11, /*keep_alive=*/false);
  }

  // `head`: the answer to a HEAD request, its Content-Length without the body (a body would
  // be read by the client as the start of its next response).
  void Write(const HttpResponse& r, unsigned version, bool keep_alive, bool head = false) {
    res_ = {};
    res_.version(version);
    res_.result(static_cast<unsigned>(r.status));
    res_.set(bhttp::field::server, "cfx");
    res_.set(bhttp::field::content_type, r.content_type);
    res_.set(bhttp::field::cache_control, "no-store");
    for (const auto& [name, value] : r.headers) res_.set(name, value);
    res_.body() = r.body;
    res_.keep_alive(keep_alive);
    res_.prepare_payload();
    if (head) res_.body().clear();
    close_after_write_ = !keep_alive;
    stream_.expires_after(server_->options().write_timeout);
    bhttp::async_write(stream_, res_,
                       beast::bind_front_handler(&HttpSession::OnWrite, shared_from_this()));
  }

  static int64_t NowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void OnWrite(beast::error_code ec, size_t /*bytes*/) {
    if (ec || close_after_write_ || server_->stopping()) return Close();
    DoRead();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  // The bytes read and not yet parsed. Beast's header_limit covers the start line and the
  // headers, body_limit the chunk sizes; a chunk extension or a trailer that never ends
  // counts against neither, and an unbounded buffer grew with it until the read timeout
  // (gigabytes a connection, before any token). Past this cap the read fails
  // (buffer_overflow: 400, closed).
  static size_t ReadBufferLimit(const HttpServerOptions& o) {
    return static_cast<size_t>(o.max_header_bytes) + static_cast<size_t>(o.max_body_bytes) +
           64 * 1024;
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::response<bhttp::string_body> res_;
  bhttp::response<bhttp::empty_body> continue_;  // the interim 100 Continue
  HttpSessionHost* server_;
  uint64_t id_;
  std::string peer_;
  bool reading_ = false;
  bool close_after_write_ = false;
  std::atomic<int64_t> idle_since_ns_{0};
  std::atomic<bool> evicted_{false};
};

bool HttpSessionHost::TakeSlot(const std::string& peer) {
  std::shared_ptr<HttpSession> victim;
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    int& n = per_peer_[peer];
    if (n >= options_.max_connections_per_peer) {
      if (n == 0) per_peer_.erase(peer);
      return false;
    }
    if (sessions_.size() - evicting_ >= static_cast<size_t>(options_.max_connections)) {
      const SessionEntry* oldest = nullptr;
      for (const auto& [id, e] : sessions_) {
        const int64_t since = e.raw->idle_since_ns();
        if (since == 0 || e.raw->evicted()) continue;
        if (oldest == nullptr || since < oldest->raw->idle_since_ns()) oldest = &e;
      }
      if (oldest != nullptr) victim = oldest->weak.lock();
      if (victim == nullptr) {
        if (n == 0) per_peer_.erase(peer);
        return false;
      }
      victim->MarkEvicted();
      ++evicting_;
    }
    ++n;
  }
  if (victim != nullptr) {
    metrics_.ConnectionEvicted();
    asio::post(victim->executor(), [victim] { victim->Evict(); });
  }
  return true;
}

}  // namespace internal

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
  // Accept errors (e.g. EMFILE) do not stop the listener.
  DoAccept();
}

void HttpServer::Impl::Stop() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  stopping_.store(true, std::memory_order_release);
  asio::post(acceptor_->get_executor(), [this] {
    beast::error_code ignored;
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
