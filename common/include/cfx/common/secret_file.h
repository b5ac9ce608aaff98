// A secret the exchange must present in clear to another system (the NATS password the
// replicating nodes connect with, docs/replication.md), kept in a file of its own rather
// than in the config: the config names the file, the file holds the secret.
//
//   absl::StatusOr<std::string> password = ReadSecretFile("/etc/cfx/nats.password");
//
// Thread safety: thread-safe (reads the file each call).
#ifndef CFX_COMMON_SECRET_FILE_H_
#define CFX_COMMON_SECRET_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace cfx::common {

// The secret in `path`: a regular file (not a link) owned by this user that its group and
// others can neither read nor write, of at most 1 KiB, holding printable ASCII without
// spaces and at most one trailing newline. Otherwise an error naming the file and what is
// wrong (never the file's content); PermissionDenied for a file others may read.
absl::StatusOr<std::string> ReadSecretFile(const std::string& path);

}  // namespace cfx::common

#endif  // CFX_COMMON_SECRET_FILE_H_
