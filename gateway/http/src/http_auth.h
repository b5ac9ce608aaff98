// Bearer-token authentication and account authorisation (SPEC §7, docs/http.md).
//
// Rules: a firm token sees only its firm's accounts; a risk_desk token sees every account.
// For a firm token, another firm's account and an account that does not exist give the
// same answer (kDenied -> 403, identical body), so a firm cannot probe which accounts
// exist. For the risk desk, an unknown account is kUnknownAccount (-> 404).
#ifndef CFX_GATEWAY_HTTP_AUTH_H_
#define CFX_GATEWAY_HTTP_AUTH_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cfx/common/config.h"

namespace cfx::gateway::internal {

struct Principal {
  std::string token_sha256;  // the token's digest: the bucket key for rate limiting
  common::TokenRole role = common::TokenRole::kFirm;
  std::string firm;  // empty for the risk desk
};

enum class AccountAccess { kAllowed, kDenied, kUnknownAccount };

// Thread safety: immutable after construction; all methods are const and thread-safe.
class Authenticator {
 public:
  explicit Authenticator(const common::ExchangeConfig& config);

  // The principal of an Authorization header value ("Bearer <token>", scheme
  // case-insensitive), or nullopt when absent, malformed or unknown. The config holds only
  // SHA-256 digests: the presented token's digest (one SHA-256, ~1 us: tokens are long
  // random secrets, so a slow hash would buy nothing and make every request costly) is
  // compared in constant time against every configured one.
  std::optional<Principal> Authenticate(std::string_view authorization) const;
  // The SHA-256 (hex) of the bearer token an Authorization value presents, known or not;
  // nullopt when absent or malformed. Compares with nothing.
  static std::optional<std::string> PresentedDigest(std::string_view authorization);

  AccountAccess CheckAccount(const Principal& principal, const std::string& account) const;

  // Every configured token's digest (the rate limiter's buckets).
  std::vector<std::string> Tokens() const;

 private:
  std::vector<common::TokenConfig> tokens_;
  std::map<std::string, std::string, std::less<>> account_firm_;  // account -> firm
};

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_HTTP_AUTH_H_
