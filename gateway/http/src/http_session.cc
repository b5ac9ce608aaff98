#include "http_session.h"

#include <chrono>
#include <iterator>
#include <string_view>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "http_json.h"

namespace cfx::gateway::internal {
namespace {

// Whether the request line in `buffer` (the bytes read, Beast consumes none of a line it
// refuses) ends in a well-formed version, "HTTP/" digit "." digit: one Beast refuses is then
// another version than 1.0 and 1.1, not garbage.
bool NamesAnotherVersion(const beast::flat_buffer& buffer) {
  const auto data = buffer.data();
  const std::string_view bytes(static_cast<const char*>(data.data()), data.size());
  const size_t eol = bytes.find("\r\n");
  if (eol == std::string_view::npos || eol < 9) return false;
  const std::string_view v = bytes.substr(eol - 9, 9);  // " HTTP/d.d"
  return v.substr(0, 6) == " HTTP/" && absl::ascii_isdigit(static_cast<unsigned char>(v[6])) &&
         v[7] == '.' && absl::ascii_isdigit(static_cast<unsigned char>(v[8]));
}

}  // namespace

void HttpSession::DoRead() {
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

// What the header says about the request's framing and origin that HTTP/1.1 requires a
// server to refuse (RFC 9112): a Transfer-Encoding whose last coding is not chunked (the
// body's end is unknown: until 2026-12-06 it was read as empty and the body parsed as the
// next request, a desync behind a proxy) or that has a coding besides chunked (501: cfx
// decodes none); no Host in HTTP/1.1, or more than one. Answered, then closed.
bool HttpSession::RefusedFraming() {
  const auto& header = parser_->get();
  int status = 0;
  const char* error = nullptr;
  std::string detail;
  if (auto te = header.find(bhttp::field::transfer_encoding); te != header.end()) {
    std::string codings;
    for (auto it = te; it != header.end() && it->name() == bhttp::field::transfer_encoding; ++it) {
      absl::StrAppend(&codings, codings.empty() ? "" : ", ", std::string(it->value()));
    }
    if (header.version() < 11) {
      // RFC 9112 §6.1: faulty framing in HTTP/1.0, which has no Transfer-Encoding; a proxy
      // in front that ignores it reads another request boundary. Until 2026-12-07 the
      // chunked body was decoded and the connection kept.
      status = 400, error = "bad_request";
      detail = "Transfer-Encoding in an HTTP/1.0 request";
    } else if (!parser_->chunked()) {
      status = 400, error = "bad_request";
      detail = absl::StrCat("Transfer-Encoding: ", codings,
                            ": the last transfer coding of a request must be chunked");
    } else if (!beast::iequals(std::string(absl::StripAsciiWhitespace(codings)), "chunked")) {
      status = 501, error = "not_implemented";
      detail = absl::StrCat("Transfer-Encoding: ", codings, ": only chunked is supported");
    }
  }
  if (status == 0 && header.version() >= 11) {
    const size_t hosts = header.count(bhttp::field::host);
    if (hosts != 1) {
      status = 400, error = "bad_request";
      detail = hosts == 0 ? "an HTTP/1.1 request needs a Host header" : "more than one Host header";
    }
  }
  if (status == 0) return false;
  reading_ = false;
  idle_since_ns_.store(0, std::memory_order_relaxed);
  TransportError(status, error, detail);
  return true;
}

void HttpSession::OnHeader(beast::error_code ec, size_t bytes) {
  if (!ec && RefusedFraming()) return;
  if (!ec) {
    const auto& fields = parser_->get().base();
    header_fields_ = static_cast<size_t>(std::distance(fields.begin(), fields.end()));
  }
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

void HttpSession::OnContinueWritten(beast::error_code ec, size_t /*bytes*/) {
  if (ec) return OnRead(ec, 0);
  ReadBody();
}

void HttpSession::ReadBody() {
  bhttp::async_read(stream_, buffer_, *parser_,
                    beast::bind_front_handler(&HttpSession::OnRead, shared_from_this()));
}

void HttpSession::OnRead(beast::error_code ec, size_t /*bytes*/) {
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
  // A well-formed request line in another version than HTTP/1.0 and 1.1 (Beast's parser
  // takes no other): RFC 9110 §15.6.6's 505. Until 2026-12-07 it was a 400 "bad version",
  // as a version that is not one ("THIS IS NOT HTTP") still is.
  if (ec == bhttp::error::bad_version && NamesAnotherVersion(buffer_)) {
    return TransportError(505, "http_version_not_supported",
                          "only HTTP/1.0 and HTTP/1.1 are served");
  }
  if (ec && ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category()) {
    // Beast's own category: a malformed request.
    return TransportError(400, "bad_request", ec.message());
  }
  if (ec) return Close();  // a socket error: nobody to answer
  // Fields in a chunked body's trailer: Beast adds them to the header's, where an
  // Authorization (or a second Host, a Content-Encoding) would be taken as sent in the
  // header, past whatever checked the header on the way in. RFC 9110 §6.5.1: never merged
  // with the header. Refused: no request of this API needs a trailer.
  if (const auto& fields = parser_->get().base();
      static_cast<size_t>(std::distance(fields.begin(), fields.end())) != header_fields_) {
    return TransportError(400, "bad_request",
                          "fields in a chunked body's trailer are not accepted");
  }

  bhttp::request<bhttp::string_body> req = parser_->release();
  HttpRequest request;
  request.method = std::string(req.method_string());
  request.target = std::string(req.target());
  if (auto it = req.find(bhttp::field::authorization); it != req.end()) {
    request.authorization = std::string(it->value());
  }
  request.authorization_headers = static_cast<int>(req.count(bhttp::field::authorization));
  request.body = std::move(req.body());
  if (auto it = req.find(bhttp::field::content_encoding); it != req.end()) {
    request.content_encoding = std::string(it->value());
  }
  request.peer = peer_;
  request.connection_token_sha256 = token_sha256_;
  const Reply reply{req.version(), req.keep_alive(), req.method() == bhttp::verb::head};
  Admission admission = server_->api().Admit(request);
  if (admission.who) token_sha256_ = admission.who->token_sha256;
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

void HttpSession::Answer(const HttpResponse& response, const Reply& reply) {
  // Chosen to make room while this request was in hand: the answer says the connection
  // closes, and it does (OnWrite).
  Write(response, reply.version, reply.keep_alive && !server_->stopping() && !evicted(),
        reply.head);
}

void HttpSession::TransportError(int status, const char* error, const std::string& detail) {
  server_->api().RecordTransportError(status);
  HttpResponse r;
  r.status = status;
  r.body = ErrorJson(error, detail);
  // After a framing error the rest of the stream cannot be trusted: answer and close.
  Write(r, 11, /*keep_alive=*/false);
}

void HttpSession::Write(const HttpResponse& r, unsigned version, bool keep_alive, bool head) {
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
  // Never clears an Evict() that came while the request was in hand (a margin request is
  // answered from the valuation queue): the connection would stay open, one over the bound.
  close_after_write_ = close_after_write_ || !keep_alive;
  stream_.expires_after(server_->options().write_timeout);
  writing_since_ns_.store(NowNs(), std::memory_order_relaxed);
  bhttp::async_write(stream_, res_,
                     beast::bind_front_handler(&HttpSession::OnWrite, shared_from_this()));
}

int64_t HttpSession::NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void HttpSession::OnWrite(beast::error_code ec, size_t /*bytes*/) {
  writing_since_ns_.store(0, std::memory_order_relaxed);
  if (ec || close_after_write_ || evicted() || server_->stopping()) return Close();
  DoRead();
}

void HttpSession::Close() {
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.socket().close(ignored);
}

size_t HttpSession::ReadBufferLimit(const HttpServerOptions& o) {
  return static_cast<size_t>(o.max_header_bytes) + static_cast<size_t>(o.max_body_bytes) +
         64 * 1024;
}
bool HttpSessionHost::TakeSlot(const std::string& address) {
  const std::string peer = PeerKey(address);
  std::shared_ptr<HttpSession> victim;
  {
    std::lock_guard<std::mutex> lock(sessions_mu_);
    int& n = per_peer_[peer];
    if (n >= options_.max_connections_per_peer) {
      if (n == 0) per_peer_.erase(peer);
      return false;
    }
    if (sessions_.size() - evicting_ >= static_cast<size_t>(options_.max_connections)) {
      // The connection idle longest; else the one whose answer its client has left unread
      // longest, past kStalledWriteNs. Until 2026-12-07 only idle ones were taken: clients
      // that pipelined requests and never read the answers held every slot, each for its
      // write timeout (15 s), and every new connection was refused.
      const SessionEntry* oldest = nullptr;
      const SessionEntry* stalled = nullptr;
      const int64_t stalled_before = HttpSession::NowNs() - kStalledWriteNs;
      for (const auto& [id, e] : sessions_) {
        if (e.raw->evicted()) continue;
        const int64_t since = e.raw->idle_since_ns();
        if (since != 0) {
          if (oldest == nullptr || since < oldest->raw->idle_since_ns()) oldest = &e;
          continue;
        }
        const int64_t writing = e.raw->writing_since_ns();
        if (writing != 0 && writing < stalled_before &&
            (stalled == nullptr || writing < stalled->raw->writing_since_ns())) {
          stalled = &e;
        }
      }
      if (oldest == nullptr) oldest = stalled;
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

}  // namespace cfx::gateway::internal
