#include "http_auth.h"

#include <cctype>

#include "cfx/common/credentials.h"

namespace cfx::gateway::internal {
namespace {

bool IEqualsPrefix(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

}  // namespace

Authenticator::Authenticator(const common::ExchangeConfig& config) : tokens_(config.tokens) {
  for (const common::AccountConfig& a : config.accounts) account_firm_[a.id] = a.firm;
}

std::optional<std::string> Authenticator::PresentedDigest(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer ";
  if (!IEqualsPrefix(authorization, kScheme)) return std::nullopt;
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
  if (token.empty()) return std::nullopt;
  return common::TokenSha256Hex(std::string(token));
}

std::optional<Principal> Authenticator::Authenticate(std::string_view authorization) const {
  const std::optional<std::string> presented = PresentedDigest(authorization);
  if (!presented) return std::nullopt;
  const std::string& digest = *presented;
  const common::TokenConfig* match = nullptr;
  for (const common::TokenConfig& t : tokens_) {
    if (common::ConstantTimeEquals(digest, t.token_sha256) && match == nullptr) match = &t;
  }
  if (match == nullptr) return std::nullopt;
  return Principal{match->token_sha256, match->role,
                   match->role == common::TokenRole::kFirm ? match->firm : std::string()};
}

AccountAccess Authenticator::CheckAccount(const Principal& principal,
                                          const std::string& account) const {
  auto it = account_firm_.find(account);
  if (principal.role == common::TokenRole::kRiskDesk) {
    return it == account_firm_.end() ? AccountAccess::kUnknownAccount : AccountAccess::kAllowed;
  }
  // Firm token: unknown and foreign accounts are indistinguishable on purpose.
  if (it == account_firm_.end() || it->second != principal.firm) return AccountAccess::kDenied;
  return AccountAccess::kAllowed;
}

std::vector<std::string> Authenticator::Tokens() const {
  std::vector<std::string> out;
  for (const common::TokenConfig& t : tokens_) out.push_back(t.token_sha256);
  return out;
}

}  // namespace cfx::gateway::internal
