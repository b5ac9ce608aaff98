// A minimal blocking HTTP/1.1 client over a POSIX socket, for tests, `cfx bench http` and
// `cfx demo` (querying margin on loopback). Keep-alive: one client, many requests. It
// understands only what HttpServer sends (Content-Length bodies, no chunked encoding).
//
//   absl::StatusOr<HttpClient> c = HttpClient::Connect("127.0.0.1", server.port());
//   absl::StatusOr<HttpClientResponse> r = c->Get("/v1/book/B200-GOLD-US-202703", "tok-risk");
#ifndef CFX_GATEWAY_HTTP_CLIENT_H_
#define CFX_GATEWAY_HTTP_CLIENT_H_

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace cfx::client {

struct HttpClientResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  // The first value of header `name` (lower case), or "" when absent.
  std::string Header(const std::string& name) const;
};

// Thread safety: none; one client per thread. Movable, not copyable; closes on destruction.
class HttpClient {
 public:
  // Connects to host:port (numeric IPv4/IPv6 address). `timeout` bounds each read/write.
  static absl::StatusOr<HttpClient> Connect(
      const std::string& host, int port,
      std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));
  HttpClient(HttpClient&& other) noexcept;
  HttpClient& operator=(HttpClient&& other) noexcept;
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;
  ~HttpClient();

  // Sends one request and reads its response. An empty `token` sends no Authorization.
  // Returns Unavailable when the connection is closed or times out.
  absl::StatusOr<HttpClientResponse> Request(const std::string& method, const std::string& target,
                                             const std::string& token,
                                             const std::string& body = "");
  absl::StatusOr<HttpClientResponse> Get(const std::string& target, const std::string& token) {
    return Request("GET", target, token);
  }
  // Writes raw bytes (malformed requests, slow clients in tests).
  absl::Status SendRaw(const std::string& bytes);
  // Reads one response.
  absl::StatusOr<HttpClientResponse> ReadResponse();
  // True when the server closed the connection (a read returns end of stream) within
  // `wait`; reads and discards anything else that arrives.
  bool WaitForClose(std::chrono::milliseconds wait);

 private:
  explicit HttpClient(int fd, std::chrono::milliseconds timeout) : fd_(fd), timeout_(timeout) {}
  absl::Status ReadMore();

  int fd_ = -1;
  std::chrono::milliseconds timeout_;
  std::string buffer_;  // received, not yet consumed
};

}  // namespace cfx::client

#endif  // CFX_GATEWAY_HTTP_CLIENT_H_
