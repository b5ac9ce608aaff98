#include "config_rules.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "absl/strings/ascii.h"

namespace cfx::common::internal {

bool IsValidCompId(absl::string_view s) {
  if (s.empty() || s.size() > 64 || !absl::ascii_isalnum(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  for (char ch : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' &&
        ch != '.') {
      return false;
    }
  }
  return true;
}

bool IsNumericAddress(const std::string& s) {
  unsigned char buf[sizeof(in6_addr)];
  return ::inet_pton(s.find(':') != std::string::npos ? AF_INET6 : AF_INET, s.c_str(), buf) == 1;
}

}  // namespace cfx::common::internal
