// JSON text read strictly (RFC 8259) where nlohmann is lenient:
//   - a raw NUL byte: no JSON text holds one (control characters are escaped inside strings),
//     and nlohmann's reader takes one as the end of its input, so `{...}\0junk` was read as
//     `{...}` (audits found it in replay input, the HTTP API and stored records);
//   - a key repeated in one object: nlohmann keeps the last value and says nothing, so
//     `{"side":"buy","side":"sell"}` was read as a sell.
//
//   bool duplicate = false;
//   nlohmann::json doc = cfx::json::ParseStrict(body, &duplicate);
//   if (duplicate) return Error("duplicate key");         // the caller names it
//   if (doc.is_discarded()) return Error("not JSON");
//
//   nlohmann::json rec = cfx::json::ParseStored(value);   // a record the exchange wrote
#ifndef CFX_JSON_STRICT_JSON_H_
#define CFX_JSON_STRICT_JSON_H_

#include <string_view>

#include "nlohmann/json.hpp"

namespace cfx::json {

// The value of `text`, or a discarded value (is_discarded()) when it is not JSON or holds a
// raw NUL. A key repeated in an object sets *duplicate_key when given (the value is then
// parsed as nlohmann would, the last one kept); without it the result is discarded. Never
// throws.
nlohmann::json ParseStrict(std::string_view text, bool* duplicate_key = nullptr);

// A record the exchange wrote itself (a store's value, an audit line): discarded when it is
// not JSON or holds a raw NUL (damage), keys taken as written (its writers never repeat
// one), without ParseStrict's per-key bookkeeping. Never throws.
nlohmann::json ParseStored(std::string_view text);

}  // namespace cfx::json

#endif  // CFX_JSON_STRICT_JSON_H_
