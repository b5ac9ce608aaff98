// Transport-free request and response values: the Beast adapter (http_session.cc) converts
// to and from these, so routing, auth and handlers compile and test without Boost.
#ifndef CFX_GATEWAY_HTTP_MESSAGE_H_
#define CFX_GATEWAY_HTTP_MESSAGE_H_

#include <string>
#include <utility>
#include <vector>

namespace cfx::gateway::internal {

struct HttpRequest {
  std::string method;             // "GET", "POST", ...
  std::string target;             // "/v1/book/B200-GOLD-US-202703?depth=5"
  std::string authorization;      // the Authorization header's value, "" when absent
  int authorization_headers = 0;  // how many Authorization headers came (SPEC §7: > 1 is 400)
  std::string body;
  std::string content_encoding;  // the Content-Encoding header's value, "" when absent
  std::string
      peer;  // the client's IP address ("" when unknown); the 401 back-off counts PeerKey(peer)
  // The digest of the token this connection last authenticated with ("" none): the one
  // token still served on it during its address's 401 back-off (docs/http.md).
  std::string connection_token_sha256;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra (Retry-After, Allow)
};

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_HTTP_MESSAGE_H_
