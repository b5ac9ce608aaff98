// The checks a start makes on its data dir (data_dir_checks.h).
#include "data_dir_checks.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "cfx/storage/private_files.h"

namespace cfx::gateway::internal {

// The data dir as `mode` wants it (docs/serve.md, "A new data dir is a new exchange"): with
// kExisting (`cfx serve --existing`) a missing or empty data dir (a volume not mounted, a
// wrong path) is refused, never a new exchange reusing order ids and sequence numbers;
// kOpenOrNew (plain `cfx serve`) starts a new exchange there; only this user may write it.
absl::Status PrepareDataDir(const std::string& dir, DataDirMode mode) {
  if (dir.empty()) {
    return absl::InvalidArgumentError("no data dir: give [exchange] data_dir or --data-dir");
  }
  struct stat st;
  const bool exists = ::stat(dir.c_str(), &st) == 0;
  // What the folder is and who owns it first: a file, another user's folder or one this
  // user cannot read is said as such, not as "holds no journal".
  if (exists || errno != ENOENT) {
    if (absl::Status s = storage::CheckPrivateDir(dir); !s.ok()) return s;
  }
  const std::string journal = dir + "/journal/data.mdb";
  bool has_journal = ::stat(journal.c_str(), &st) == 0;
  if (!has_journal && errno != ENOENT) {
    return absl::PermissionDeniedError(absl::StrCat(
        journal, ": cannot tell whether the data dir holds a journal: ", std::strerror(errno)));
  }
  if (mode == DataDirMode::kExisting && !has_journal) {
    return absl::FailedPreconditionError(absl::StrCat(
        "data dir ", dir, exists ? " holds no journal" : " does not exist",
        ": refusing to start a new, empty exchange there with --existing (if it is new, start "
        "without --existing, or with --init; if it should hold the exchange's state, check the "
        "path and the volume)"));
  }
  // An empty journal file is no journal: LMDB would make a new one in it, and the exchange
  // would start empty (a copy or restore that wrote nothing, a full disk). Refused like a
  // missing one, naming the file; --init refuses it too, so it is removed on purpose.
  if (has_journal && st.st_size == 0 && mode != DataDirMode::kCreate) {
    return absl::FailedPreconditionError(absl::StrCat(
        journal, " is empty (0 bytes), not an exchange's journal: refusing to start ",
        mode == DataDirMode::kNew ? "on it with --init (remove it if it is a new exchange)"
                                  : "a new, empty exchange on it (check the volume and restore "
                                    "the journal; remove it if the exchange is new)"));
  }
  if (mode == DataDirMode::kNew && has_journal) {
    return absl::FailedPreconditionError(
        absl::StrCat("--init: data dir ", dir,
                     " already holds a journal (an exchange's state); start "
                     "without --init to recover it"));
  }
  // A trade store is derived from the journal beside it (its rows carry the journal's
  // sequence numbers), and a settlement ledger from those trades. Either without a journal
  // is another run's (a `cfx replay --data-dir` and its settlement, a journal removed): an
  // exchange started on it took its next inputs for recorded ones and served listings,
  // books and positions that disagreed (an audit: 14 contracts of 24), or band references
  // and margins from another run's settlement prices. Refused for every start that may
  // make a journal (plain `cfx serve`, --init, a standby, in process).
  if (mode != DataDirMode::kExisting && !has_journal) {
    for (const char* part : {"trades", "ledger"}) {
      const std::string file = absl::StrCat(dir, "/", part, "/data.mdb");
      if (::stat(file.c_str(), &st) != 0) continue;
      return absl::FailedPreconditionError(absl::StrCat(
          mode == DataDirMode::kNew ? "--init: " : "", "data dir ", dir, " holds ",
          std::string(part) == "trades" ? "a trade store (" : "a settlement ledger (", file,
          ") but no journal: another run's (a `cfx replay --data-dir` and its settlement, or a "
          "journal removed); start a new exchange on a data dir of its own"));
    }
  }
  return storage::PrepareDataDir(dir, /*create=*/mode != DataDirMode::kExisting);
}

// One `cfx serve` a data dir: an exclusive lock on <dir>/serve.lock, taken before anything
// is written there (the audit log, the settlement terms), held until the process ends.
// A second serve on the same dir used to rewrite the running one's settlement terms and
// audit its own config before the journal's lock refused it.
absl::StatusOr<int> LockDataDir(const std::string& dir) {
  const std::string path = dir + "/serve.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat(path, ": ", std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat("data dir ", dir, " is in use by another cfx serve (it holds ", path,
                       "); nothing was written"));
    }
    return absl::PermissionDeniedError(absl::StrCat(path, ": ", std::strerror(err)));
  }
  return fd;
}

}  // namespace cfx::gateway::internal
