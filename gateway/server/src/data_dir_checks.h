// Private to cfx_server: the checks a start makes on its data dir before anything is
// written there (docs/serve.md, "Data dir").
#ifndef CFX_GATEWAY_SERVER_SRC_DATA_DIR_CHECKS_H_
#define CFX_GATEWAY_SERVER_SRC_DATA_DIR_CHECKS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cfx/gateway/exchange_server.h"

namespace cfx::gateway::internal {

// The data dir as `mode` wants it: kExisting refuses a missing or empty one, kOpenOrNew and
// kCreate start a new exchange there, kNew refuses one holding a journal; a trade store or
// ledger without a journal is another run's; only this user may write it.
// FailedPrecondition or PermissionDenied naming the path otherwise.
absl::Status PrepareDataDir(const std::string& dir, DataDirMode mode);

// An exclusive lock on <dir>/serve.lock (the fd, held until the process ends);
// FailedPrecondition when another cfx serve holds it.
absl::StatusOr<int> LockDataDir(const std::string& dir);

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_SERVER_SRC_DATA_DIR_CHECKS_H_
