#include "fix_entitlements.h"

namespace cfx {
namespace gateway {
namespace internal {

Entitlements::Entitlements(const FixGatewayConfig& config) {
  for (const FixSessionSpec& s : config.sessions) {
    sessions_[s.sender_comp_id] = s;
    if (s.drop_copy) drop_copies_[s.firm].push_back(s.sender_comp_id);
  }
  for (const FixAccountSpec& a : config.accounts) account_firm_[a.id] = a.firm;
}

const FixSessionSpec* Entitlements::Session(const std::string& sender_comp_id) const {
  auto it = sessions_.find(sender_comp_id);
  return it == sessions_.end() ? nullptr : &it->second;
}

bool Entitlements::AccountAllowed(const std::string& firm, const std::string& account) const {
  auto it = account_firm_.find(account);
  return it != account_firm_.end() && it->second == firm;
}

std::string Entitlements::FirmOfAccount(const std::string& account) const {
  auto it = account_firm_.find(account);
  return it == account_firm_.end() ? std::string() : it->second;
}

const std::vector<std::string>& Entitlements::DropCopies(const std::string& firm) const {
  auto it = drop_copies_.find(firm);
  return it == drop_copies_.end() ? none_ : it->second;
}

}  // namespace internal
}  // namespace gateway
}  // namespace cfx
