// ExchangeConfig's lookups: an account, a session or a token by what names it.
#include <string>
#include <vector>

#include "cfx/common/config.h"
#include "cfx/common/credentials.h"

namespace cfx::common {

const AccountConfig* ExchangeConfig::FindAccount(absl::string_view id) const {
  for (const auto& a : accounts) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

const SessionConfig* ExchangeConfig::FindSession(absl::string_view id) const {
  for (const auto& s : sessions) {
    if (s.sender_comp_id == id) return &s;
  }
  return nullptr;
}

const TokenConfig* ExchangeConfig::FindToken(absl::string_view token) const {
  const std::string digest = TokenSha256Hex(std::string(token));
  for (const auto& t : tokens) {
    if (t.token_sha256 == digest) return &t;
  }
  return nullptr;
}

std::vector<std::string> ExchangeConfig::SessionsWithoutPassword() const {
  std::vector<std::string> out;
  for (const auto& s : sessions) {
    if (!s.password_hash) out.push_back(s.sender_comp_id);
  }
  return out;
}

}  // namespace cfx::common
