// The demo configuration (config/demo.toml), embedded at build time so that `cfx demo`, the
// HTTP bench and the tests run with no file around. Target cfx_demo_config.
//
//   absl::StatusOr<ExchangeConfig> c = ParseConfig(demo::DemoConfigText(), "demo.toml");
#ifndef CFX_DEMO_DEMO_CONFIG_H_
#define CFX_DEMO_DEMO_CONFIG_H_

#include "absl/strings/string_view.h"

namespace cfx::demo {

// The text of config/demo.toml as it was when the binary was built.
absl::string_view DemoConfigText();

}  // namespace cfx::demo

#endif  // CFX_DEMO_DEMO_CONFIG_H_
