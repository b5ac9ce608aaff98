#include "demo_credentials.h"

#include <map>

namespace cfx::demo {

std::string DemoPassword(const std::string& sender_comp_id) {
  static const std::map<std::string, std::string> kPasswords = {
      {"ALPHA_T1", "alpha-secret"}, {"BETA_T1", "beta-secret"}, {"GAMMA_T1", "gamma-secret"},
      {"DELTA_T1", "delta-secret"}, {"ALPHA_DC", "alpha-dc"},
  };
  auto it = kPasswords.find(sender_comp_id);
  return it == kPasswords.end() ? std::string() : it->second;
}

std::string DemoToken(common::TokenRole role, const std::string& firm) {
  if (role == common::TokenRole::kRiskDesk) return "tok-risk";
  static const std::map<std::string, std::string> kTokens = {
      {"ALPHA", "tok-alpha"}, {"BETA", "tok-beta"}, {"GAMMA", "tok-gamma"}, {"DELTA", "tok-delta"}};
  auto it = kTokens.find(firm);
  return it == kTokens.end() ? std::string() : it->second;
}

}  // namespace cfx::demo
