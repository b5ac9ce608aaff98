// JSON rendering of the provider structs (the wire format is documented in docs/http.md).
// Money is rendered in USD with 2 decimals (micro-USD rounded half to even, SPEC §10),
// with the exact micro-USD integer beside it.
#ifndef CFX_GATEWAY_HTTP_JSON_H_
#define CFX_GATEWAY_HTTP_JSON_H_

#include <optional>
#include <string>
#include <vector>

#include "cfx/gateway/http_providers.h"

namespace cfx::gateway::internal {

// {"error":"<code>","detail":"<text>"}
std::string ErrorJson(const std::string& error, const std::string& detail);
// "1234.57" from 1234565000 micro-USD (half to even on the cent).
std::string UsdFromMicro(int64_t micro_usd);

// `account` is nullopt for a what-if.
std::string MarginJson(const std::optional<std::string>& account, MarginMethod method,
                       const MarginResult& result);
std::string PositionsJson(const std::string& account, const std::vector<PositionLine>& lines);
std::string BookJson(const BookSnapshot& book);
// With `revisions`, each fix also carries its `revision` and `reason` (every stored revision).
std::string FixesJson(const std::string& grade, const std::string& from, const std::string& to,
                      const std::vector<FixRecord>& records, bool revisions);

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_HTTP_JSON_H_
