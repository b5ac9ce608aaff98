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

enum class FileSync {
  kSynced,    // the file and its name are flushed before WritePrivateFile returns
  kUnsynced,  // left to the caller, who flushes many files at once (statements: syncfs)
};

// Writes `contents` to `path` as a 0600 file, published in one step, so a reader sees the
// old file or the new one and a failed write leaves nothing behind. The file is written
// unnamed (O_TMPFILE) and flushed first, then linked in: a crash before that leaves nothing
// at all; with kReplace it is linked under a temporary name of its own beside `path`
// (`path`.tmp.XXXXXXXX, never one already there) and renamed over it at once. Where the
// file system has no unnamed files the file is written under that temporary name, which a
// crash during the write can leave behind. With kSynced (the default) the folder is flushed
// after the rename too, so the new file survives a power loss once this returns.
// Unavailable naming the file and the cause on error; with kNew, AlreadyExists when
// something is at `path`. kNew on a file system with neither unnamed files,
// RENAME_NOREPLACE nor hard links creates `path` (O_EXCL) and writes it in place: there a
// crash can leave it partial.
absl::Status WritePrivateFile(absl::string_view path, absl::string_view contents,
                              FileWrite mode = FileWrite::kReplace,
                              FileSync sync = FileSync::kSynced);

// fsync(2) of a folder: the names made or renamed in it survive a power loss. Unavailable
// naming the folder on error.
absl::Status SyncFolder(absl::string_view path);

// OK when `path` is a folder owned by this process's user that neither its group nor
// others may write; one they may read or list is made 0700 (said on stderr).
// PermissionDenied naming the path and what is wrong otherwise, NotFound when it does not
// exist.
absl::Status CheckPrivateDir(absl::string_view path);

// With `create`, makes `path` (0700) if it is missing; then CheckPrivateDir. Without it, a
// missing data dir is NotFound.
absl::Status PrepareDataDir(absl::string_view path, bool create);

}  // namespace cfx::storage

#endif  // CFX_STORAGE_PRIVATE_FILES_H_
