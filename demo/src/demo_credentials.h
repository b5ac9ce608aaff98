// What the demo's simulated clients know: config/demo.toml stores only hashes of the
// sessions' passwords and the bearer tokens (password_hash, token_sha256; docs/config.md),
// and the clients, like any real client, hold the secrets themselves.
#ifndef CFX_DEMO_DEMO_CREDENTIALS_H_
#define CFX_DEMO_DEMO_CREDENTIALS_H_

#include <string>

#include "cfx/common/config.h"

namespace cfx::demo {

// The password (554) the demo's client of `sender_comp_id` logs on with; "" if it has none.
std::string DemoPassword(const std::string& sender_comp_id);

// The bearer token of `firm` (role kFirm) or of the risk desk; "" if the demo has none.
std::string DemoToken(common::TokenRole role, const std::string& firm);

}  // namespace cfx::demo

#endif  // CFX_DEMO_DEMO_CREDENTIALS_H_
