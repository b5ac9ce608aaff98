// One HTTP connection (HttpSession) and what it needs from its server (HttpSessionHost):
// Beast reads each request with the server's size limits and deadline, HttpApi admits it,
// the valuation queue or the I/O thread serves it, and the answer is written back; slots
// for connections are taken and given back here. Private to the library (http_server.cc
// owns the accept loop); with http_session.cc and http_server.cc the only files that
// include Beast.
#ifndef CFX_GATEWAY_HTTP_SESSION_H_
#define CFX_GATEWAY_HTTP_SESSION_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "boost/asio/dispatch.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "cfx/common/config.h"
#include "cfx/gateway/http_providers.h"
#include "cfx/gateway/http_server.h"
#include "http_api.h"
#include "http_metrics.h"
#include "http_valuation_queue.h"

namespace cfx::gateway::internal {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = boost::asio::ip::tcp;

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
    if (auto it = per_peer_.find(PeerKey(peer)); it != per_peer_.end() && --it->second <= 0) {
      per_peer_.erase(it);
    }
    if (sessions_.empty()) sessions_cv_.notify_all();
  }
  // Takes a connection slot for `peer`; false (nothing taken) when the peer holds
  // max_connections_per_peer already, or the server is full and no connection is idle.
  // When full, the connection that has waited longest for a request is closed to make room
  // (a few addresses holding every slot with idle keep-alives must not lock every other
  // client out, SPEC §7), or, with none idle, the one whose client has left an answer
  // unread longest, past kStalledWriteNs; the new one is admitted at once, the evicted
  // one's slot coming back when it is gone.
  bool TakeSlot(const std::string& peer);
  // How long a client may leave an answer unread (the socket's buffers full) before its
  // connection may be closed to make room for another.
  static constexpr int64_t kStalledWriteNs = 1'000'000'000;

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
  std::map<std::string, int> per_peer_;        // by PeerKey; guarded by sessions_mu_
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
  // Steady-clock ns since when its response has been waiting for the client to take it (0: no
  // write in flight). Read under the host's lock by TakeSlot.
  int64_t writing_since_ns() const { return writing_since_ns_.load(std::memory_order_relaxed); }
  // TakeSlot chose it to make room (under the host's lock): closed on its strand.
  void MarkEvicted() { evicted_.store(true, std::memory_order_relaxed); }
  bool evicted() const { return evicted_.load(std::memory_order_relaxed); }
  void Evict() {
    const int64_t writing = writing_since_ns();
    if (reading_ || (writing != 0 && NowNs() - writing > HttpSessionHost::kStalledWriteNs)) {
      Close();  // waiting for a request, or for a client that does not read its answers
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
  static int64_t NowNs();  // the steady clock, as idle_since_ns and writing_since_ns read

 private:
  void DoRead();
  // The start line and headers are in. A client that sent `Expect: 100-continue` (curl does
  // for a body over 1 KiB) waits for a 100 before it sends its body, a second when nobody
  // answers (RFC 9110 §10.1.1): it gets the 100 once the headers have passed the size
  // checks (a declared Content-Length over the limit has already failed as body_limit, so
  // such a client hears 413 without sending its body). Another expectation is 417 and close.
  // The body is read under the same deadline as the headers.
  bool RefusedFraming();
  void OnHeader(beast::error_code ec, size_t bytes);
  void OnContinueWritten(beast::error_code ec, size_t bytes);
  void ReadBody();
  void OnRead(beast::error_code ec, size_t bytes);
  // How a request is to be answered.
  struct Reply {
    unsigned version = 11;
    bool keep_alive = true;
    bool head = false;
  };
  void Answer(const HttpResponse& response, const Reply& reply);
  void TransportError(int status, const char* error, const std::string& detail);
  // `head`: the answer to a HEAD request, its Content-Length without the body (a body would
  // be read by the client as the start of its next response).
  void Write(const HttpResponse& r, unsigned version, bool keep_alive, bool head = false);
  void OnWrite(beast::error_code ec, size_t bytes);
  void Close();
  // The bytes read and not yet parsed. Beast's header_limit covers the start line and the
  // headers, body_limit the chunk sizes; a chunk extension or a trailer that never ends
  // counts against neither, and an unbounded buffer grew with it until the read timeout
  // (gigabytes a connection, before any token). Past this cap the read fails
  // (buffer_overflow: 400, closed).
  static size_t ReadBufferLimit(const HttpServerOptions& o);

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::response<bhttp::string_body> res_;
  bhttp::response<bhttp::empty_body> continue_;  // the interim 100 Continue
  HttpSessionHost* server_;
  uint64_t id_;
  std::string peer_;
  // The digest of the token this connection last authenticated with (HttpRequest::
  // connection_token_sha256). Touched only on the session's strand.
  std::string token_sha256_;
  bool reading_ = false;
  // How many fields the request's header had (OnHeader): a chunked body's trailer adds its
  // fields to the same message, where they would pass for headers.
  size_t header_fields_ = 0;
  bool close_after_write_ = false;
  std::atomic<int64_t> idle_since_ns_{0};
  std::atomic<int64_t> writing_since_ns_{0};
  std::atomic<bool> evicted_{false};
};

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_HTTP_SESSION_H_
