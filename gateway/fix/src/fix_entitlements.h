// Who may do what: session -> firm and role, account -> firm, firm -> drop-copy sessions.
// Built once from the config and read-only afterwards.
#ifndef CFX_GATEWAY_FIX_ENTITLEMENTS_H_
#define CFX_GATEWAY_FIX_ENTITLEMENTS_H_

#include <map>
#include <string>
#include <vector>

#include "cfx/gateway/fix_gateway.h"

namespace cfx {
namespace gateway {
namespace internal {

// Thread safety: immutable after construction; any thread may read.
class Entitlements {
 public:
  explicit Entitlements(const FixGatewayConfig& config);

  // nullptr if `sender_comp_id` is not a configured session.
  const FixSessionSpec* Session(const std::string& sender_comp_id) const;
  // True if `account` is configured and belongs to `firm`.
  bool AccountAllowed(const std::string& firm, const std::string& account) const;
  // The firm of `account`; empty if unknown.
  std::string FirmOfAccount(const std::string& account) const;
  // Drop-copy sessions of `firm` (their sender_comp_ids).
  const std::vector<std::string>& DropCopies(const std::string& firm) const;

 private:
  std::map<std::string, FixSessionSpec> sessions_;
  std::map<std::string, std::string> account_firm_;
  std::map<std::string, std::vector<std::string>> drop_copies_;
  std::vector<std::string> none_;
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_ENTITLEMENTS_H_
