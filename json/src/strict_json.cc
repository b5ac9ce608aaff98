#include "cfx/json/strict_json.h"

#include <string>
#include <unordered_set>
#include <vector>

namespace cfx::json {

nlohmann::json ParseStrict(std::string_view text, bool* duplicate_key) {
  using nlohmann::json;
  if (text.find('\0') != std::string_view::npos) return json(json::value_t::discarded);
  bool duplicate = false;
  std::vector<std::unordered_set<std::string>> open;  // the keys of each object being read
  json::parser_callback_t track = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        open.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!open.empty()) open.pop_back();
        break;
      case json::parse_event_t::key:
        if (!open.empty() && !open.back().insert(parsed.get_ref<const std::string&>()).second) {
          duplicate = true;
        }
        break;
      default:
        break;
    }
    return true;
  };
  json value = json::parse(text, track, /*allow_exceptions=*/false);
  if (duplicate_key != nullptr) {
    *duplicate_key = duplicate;
  } else if (duplicate) {
    return json(json::value_t::discarded);
  }
  return value;
}

nlohmann::json ParseStored(std::string_view text) {
  using nlohmann::json;
  if (text.find('\0') != std::string_view::npos) return json(json::value_t::discarded);
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace cfx::json
