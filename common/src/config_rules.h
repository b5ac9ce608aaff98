// What a config value must be beyond its TOML type, where no other module owns the rule
// (account ids follow csv.h's IsValidAccountId). Private to cfx_common's config parser.
#ifndef CFX_COMMON_SRC_CONFIG_RULES_H_
#define CFX_COMMON_SRC_CONFIG_RULES_H_

#include <string>

#include "absl/strings/string_view.h"

namespace cfx::common::internal {

// A FIX CompID goes in every message and names the session's files under <data_dir>/fix
// (QuickFIX's store): an empty one, a separator or a control byte would break one or the
// other, so the config holds it to this.
inline constexpr absl::string_view kCompIdRule =
    "1 to 64 of A-Z a-z 0-9 _ - . starting with a letter or a digit";
bool IsValidCompId(absl::string_view s);

// listen_address is bound as given: a numeric IPv4 or IPv6 address, not a host name.
bool IsNumericAddress(const std::string& s);

}  // namespace cfx::common::internal

#endif  // CFX_COMMON_SRC_CONFIG_RULES_H_
