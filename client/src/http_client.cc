#include "cfx/client/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace cfx::client {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

}  // namespace

std::string HttpClientResponse::Header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return "";
}

absl::StatusOr<HttpClient> HttpClient::Connect(const std::string& host, int port,
                                               std::chrono::milliseconds timeout) {
  sockaddr_storage addr{};
  socklen_t len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    len = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    len = sizeof(sockaddr_in6);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("not a numeric address: ", host));
  }
  int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::UnavailableError(absl::StrCat("socket: ", std::strerror(errno)));
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    int err = errno;
    close(fd);
    return absl::UnavailableError(
        absl::StrCat("connect ", host, ":", port, ": ", std::strerror(err)));
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return HttpClient(fd, timeout);
}

HttpClient::HttpClient(HttpClient&& other) noexcept
    : fd_(other.fd_), timeout_(other.timeout_), buffer_(std::move(other.buffer_)) {
  other.fd_ = -1;
}

HttpClient& HttpClient::operator=(HttpClient&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    timeout_ = other.timeout_;
    buffer_ = std::move(other.buffer_);
    other.fd_ = -1;
  }
  return *this;
}

HttpClient::~HttpClient() {
  if (fd_ >= 0) close(fd_);
}

absl::Status HttpClient::SendRaw(const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat("send: ", std::strerror(errno)));
    }
    sent += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status HttpClient::ReadMore() {
  pollfd p{fd_, POLLIN, 0};
  int r = poll(&p, 1, static_cast<int>(timeout_.count()));
  if (r == 0) return absl::UnavailableError("read timed out");
  if (r < 0) return absl::UnavailableError(absl::StrCat("poll: ", std::strerror(errno)));
  char buf[16384];
  ssize_t n = recv(fd_, buf, sizeof(buf), 0);
  if (n == 0) return absl::UnavailableError("connection closed by the server");
  if (n < 0) return absl::UnavailableError(absl::StrCat("recv: ", std::strerror(errno)));
  buffer_.append(buf, static_cast<size_t>(n));
  return absl::OkStatus();
}

absl::StatusOr<HttpClientResponse> HttpClient::ReadResponse() {
  size_t header_end;
  while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (absl::Status s = ReadMore(); !s.ok()) return s;
  }
  HttpClientResponse response;
  std::string head = buffer_.substr(0, header_end);
  size_t line_end = head.find("\r\n");
  std::string status_line = head.substr(0, line_end);
  // "HTTP/1.1 200 OK"
  size_t sp = status_line.find(' ');
  if (sp == std::string::npos || status_line.size() < sp + 4) {
    return absl::DataLossError("bad status line: " + status_line);
  }
  response.status = std::atoi(status_line.c_str() + sp + 1);
  size_t content_length = 0;
  size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    size_t e = head.find("\r\n", pos);
    if (e == std::string::npos) e = head.size();
    std::string line = head.substr(pos, e - pos);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = Lower(line.substr(0, colon));
      std::string value = Trim(line.substr(colon + 1));
      if (name == "content-length") content_length = std::strtoull(value.c_str(), nullptr, 10);
      response.headers.emplace_back(std::move(name), std::move(value));
    }
    pos = e + 2;
  }
  size_t body_start = header_end + 4;
  while (buffer_.size() < body_start + content_length) {
    if (absl::Status s = ReadMore(); !s.ok()) return s;
  }
  response.body = buffer_.substr(body_start, content_length);
  buffer_.erase(0, body_start + content_length);
  return response;
}

absl::StatusOr<HttpClientResponse> HttpClient::Request(const std::string& method,
                                                       const std::string& target,
                                                       const std::string& token,
                                                       const std::string& body) {
  std::string req = absl::StrCat(method, " ", target, " HTTP/1.1\r\nHost: localhost\r\n");
  if (!token.empty()) absl::StrAppend(&req, "Authorization: Bearer ", token, "\r\n");
  if (!body.empty() || method == "POST") {
    absl::StrAppend(&req, "Content-Type: application/json\r\nContent-Length: ", body.size(),
                    "\r\n");
  }
  absl::StrAppend(&req, "\r\n", body);
  if (absl::Status s = SendRaw(req); !s.ok()) return s;
  return ReadResponse();
}

bool HttpClient::WaitForClose(std::chrono::milliseconds wait) {
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd_, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::max<int64_t>(1, left.count())));
    if (r <= 0) continue;
    char buf[4096];
    ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n <= 0) return true;  // end of stream or reset
  }
  return false;
}

}  // namespace cfx::client
