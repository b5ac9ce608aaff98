// The data dir is the exchange's alone (docs/serve.md, "Privacy"): every folder cfx makes
// under it is 0700 and every file 0600, whatever the process umask, and a data dir that
// others could write or that another user owns is refused before anything is read from it.
//
//   if (absl::Status s = PrepareDataDir(dir, /*create=*/true); !s.ok()) return s;
//   if (absl::Status s = WritePrivateFile(dir + "/fix/CFX-FIX44.xml", text); !s.ok()) ...
#ifndef CFX_STORAGE_PRIVATE_FILES_H_
#define CFX_STORAGE_PRIVATE_FILES_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace cfx::storage {

inline constexpr unsigned kPrivateDirMode = 0700;
inline constexpr unsigned kPrivateFileMode = 0600;

// mkdir -p: every folder it creates is 0700 (folders that exist are left as they are).
// Unavailable naming the folder on error (or when `path` exists and is not a folder).
absl::Status MakePrivateDirs(absl::string_view path);

enum class FileWrite {
  kReplace,  // a file already at `path` is replaced (in one step: readers see old or new)
  kNew,      // anything already at `path` is left as it is: AlreadyExists naming it
};

// Writes `contents` to `path` as a 0600 file, through a temporary file of its own beside it
// (`path`.tmp.XXXXXX, never one already there) and a rename, so a reader sees the old file
// or the new one and a failed write leaves nothing behind (a crash can leave the temporary
// file). Unavailable naming the file and the cause on error; with kNew, AlreadyExists when
// something is at `path`. kNew on a file system with neither RENAME_NOREPLACE nor hard
// links creates `path` (O_EXCL) and writes it in place: there a crash can leave it partial.
absl::Status WritePrivateFile(absl::string_view path, absl::string_view contents,
                              FileWrite mode = FileWrite::kReplace);

// OK when `path` is a folder owned by this process's user that neither its group nor
// others may write. PermissionDenied naming the path and what is wrong otherwise, NotFound
// when it does not exist.
absl::Status CheckPrivateDir(absl::string_view path);

// With `create`, makes `path` (0700) if it is missing; then CheckPrivateDir. Without it, a
// missing data dir is NotFound.
absl::Status PrepareDataDir(absl::string_view path, bool create);

}  // namespace cfx::storage

#endif  // CFX_STORAGE_PRIVATE_FILES_H_
