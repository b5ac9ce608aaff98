// Reading fix records back from JSON exactly; private to cfx_reference (record_format.cc and
// fix_store.cc). nlohmann::json keeps a fraction only as a double, which loses the last digits
// of a large volume, so the number's text is read beside the parsed value.
#ifndef CFX_REFERENCE_INTERNAL_RECORD_JSON_H_
#define CFX_REFERENCE_INTERNAL_RECORD_JSON_H_

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cfx/reference/fix_store.h"
#include "nlohmann/json.hpp"

namespace cfx::reference::internal {

// The text of the number at `path` (object keys from the top down) as written in `json`;
// nullopt when absent, not a number, or `json` is not JSON.
std::optional<std::string> NumberText(absl::string_view json,
                                      std::initializer_list<std::string_view> path);

// RecordFromJson on a parsed object; `volume_text` is the text of its "volume" (NumberText).
absl::StatusOr<FixRecord> RecordFromJsonValue(const nlohmann::json& j,
                                              const std::optional<std::string>& volume_text);

}  // namespace cfx::reference::internal

#endif  // CFX_REFERENCE_INTERNAL_RECORD_JSON_H_
