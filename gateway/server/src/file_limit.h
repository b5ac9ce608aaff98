// The file descriptors `cfx serve` needs at its configured connection bounds, and the
// process's limit raised to them at start (docs/reliability.md, "File descriptors"): past
// the limit, accepting fails with EMFILE before any bound is reached, and the bounds (which
// keep one client from starving the others) never act. Internal to cfx_server.
#ifndef CFX_GATEWAY_SERVER_SRC_FILE_LIMIT_H_
#define CFX_GATEWAY_SERVER_SRC_FILE_LIMIT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "cfx/common/config.h"

namespace cfx::gateway::internal {

// Descriptors beyond the connections: the journal's and stores' LMDB environments, the
// audit log, QuickFIX's logs, the listening sockets, a settle's files, with room to spare.
inline constexpr uint64_t kFileReserve = 256;

struct FileLimitPlan {
  uint64_t needed = 0;  // at the configured bounds
  uint64_t soft = 0;    // the soft limit to run with: raised toward the hard one if short
  bool enough = false;  // soft >= needed
};

// HTTP connections (one descriptor each), FIX connections (two: the socket and the
// connection's own copy), each session's QuickFIX file store (four), plus kFileReserve;
// against the process's `soft` and `hard` limits.
FileLimitPlan PlanFileLimit(const common::ExchangeConfig& config, uint64_t soft, uint64_t hard);

// Raises RLIMIT_NOFILE's soft limit as PlanFileLimit says. InvalidArgument naming the
// [limits] keys and `config_name` when even the hard limit is short; the process's limit
// is left as it was then.
absl::Status RaiseFileLimit(const common::ExchangeConfig& config, const std::string& config_name);

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_SERVER_SRC_FILE_LIMIT_H_
