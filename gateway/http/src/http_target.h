// Parsing of a request target: path segments and query parameters, percent-decoded.
#ifndef CFX_GATEWAY_HTTP_TARGET_H_
#define CFX_GATEWAY_HTTP_TARGET_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace cfx::gateway::internal {

struct ParsedTarget {
  std::vector<std::string> segments;         // "/v1/book/X" -> {"v1", "book", "X"}
  std::map<std::string, std::string> query;  // last value wins for a repeated key
  bool duplicate_query_key = false;
};

// Splits an origin-form target. InvalidArgument when it does not start with '/', has a
// bad %-escape, an empty segment ("//") or a decoded NUL / '/' inside a segment.
absl::StatusOr<ParsedTarget> ParseTarget(std::string_view target);

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_HTTP_TARGET_H_
