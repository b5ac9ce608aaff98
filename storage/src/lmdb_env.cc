#include "cfx/storage/lmdb_env.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "cfx/storage/private_files.h"

namespace cfx::storage {

namespace {
constexpr absl::string_view kMapFullPayload = "cfx.storage/lmdb_map_full";
}  // namespace

bool IsMapFull(const absl::Status& status) {
  return status.GetPayload(kMapFullPayload).has_value();
}

namespace {

// LMDB checks its pages' types with mdb_assert, which calls abort() after this hook: a
// damaged page found while reading stops the process, and nothing in cfx can go on safely
// from inside LMDB's frames. The hook only says, before the abort, which file it was and
// what to do (docs/durability.md, "Corruption and the explicit truncate").
void SayDamagedPage(MDB_env* env, const char* what) {
  const char* path = nullptr;
  if (mdb_env_get_path(env, &path) != 0 || path == nullptr) path = "(unknown)";
  std::fprintf(stderr,
               "cfx: %s/data.mdb: LMDB found a damaged page (%s); the process stops. Restore the "
               "file from a replica or a backup; `cfx journal verify` reports the damage\n",
               path, what);
  std::fflush(stderr);
}

}  // namespace

absl::StatusOr<std::unique_ptr<LmdbEnv>> LmdbEnv::Open(const EnvOptions& options) {
  namespace fs = std::filesystem;
  const std::string& path = options.path;
  std::error_code ec;
  if (options.read_only) {
    if (!fs::is_directory(path, ec)) {
      return absl::NotFoundError(absl::StrCat(path, ": no journal here (not a directory)"));
    }
  } else {
    if (absl::Status made = MakePrivateDirs(path); !made.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat(path, ": cannot create the data directory: ", made.message()));
    }
  }

  // A data.mdb of 0 bytes is no LMDB file (a copy or restore that wrote nothing, a file
  // truncated): readers and writers alike refuse it (LMDB's own word to a reader is "Bad file
  // descriptor", and a writer would make a new, empty store over it: a trade store, ledger or
  // set of fixes that silently starts again). A new store is made only where there is none.
  if (struct stat empty;
      ::stat(absl::StrCat(path, "/data.mdb").c_str(), &empty) == 0 && empty.st_size == 0) {
    return absl::DataLossError(absl::StrCat(
        path,
        "/data.mdb: the file is empty (0 bytes), not an LMDB file; restore it from a backup "
        "(or, if it is a store a first run never finished making, remove it)"));
  }
  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc != 0) return absl::InternalError(absl::StrCat(path, ": mdb_env_create: ", mdb_strerror(rc)));
  auto fail = [&](absl::Status s) {
    mdb_env_close(env);
    return s;
  };
  mdb_env_set_assert(env, &SayDamagedPage);
  mdb_env_set_mapsize(env, options.map_size_bytes);
  if (options.max_tables > 0) mdb_env_set_maxdbs(env, options.max_tables);
  unsigned flags = MDB_NOTLS;
  if (options.no_sync) flags |= MDB_NOSYNC;
  if (options.no_meta_sync) flags |= MDB_NOMETASYNC;
  if (options.read_only) flags |= MDB_RDONLY;
  // data.mdb and lock.mdb are created 0600 (the umask can only take bits away).
  rc = mdb_env_open(env, path.c_str(), flags, kPrivateFileMode);
  if (rc != 0) {
    if (rc == EACCES || rc == EROFS || rc == EPERM) {
      return fail(absl::PermissionDeniedError(
          absl::StrCat(path, ": cannot open the LMDB environment: ", mdb_strerror(rc))));
    }
    if (rc == MDB_INVALID || rc == MDB_CORRUPTED || rc == MDB_VERSION_MISMATCH) {
      return fail(absl::DataLossError(
          absl::StrCat(path, "/data.mdb: not a valid LMDB file: ", mdb_strerror(rc))));
    }
    if (rc == ENOMEM) {
      return fail(absl::ResourceExhaustedError(
          absl::StrCat(path, ": cannot map ", options.map_size_bytes, " bytes of address space (",
                       mdb_strerror(rc), "); lower ",
                       options.map_size_setting.empty() ? "the map size" : options.map_size_setting,
                       " or raise the process's limit (ulimit -v)")));
    }
    return fail(absl::UnavailableError(
        absl::StrCat(path, ": cannot open the LMDB environment: ", mdb_strerror(rc))));
  }

  // LMDB maps the file and trusts its meta page; a file cut short (a truncated copy, a bad
  // restore) would fault (SIGBUS) on the first read of a missing page. Check the size first.
  MDB_envinfo info;
  MDB_stat stat;
  mdb_env_info(env, &info);
  mdb_env_stat(env, &stat);
  struct stat st;
  const std::string data_file = absl::StrCat(path, "/data.mdb");
  if (::stat(data_file.c_str(), &st) == 0) {
    const uint64_t needed = (static_cast<uint64_t>(info.me_last_pgno) + 1) * stat.ms_psize;
    if (static_cast<uint64_t>(st.st_size) < needed) {
      return fail(absl::DataLossError(absl::StrCat(data_file, ": file is truncated (",
                                                   st.st_size, " bytes; LMDB needs ", needed,
                                                   ")")));
    }
  }

  MDB_txn* txn = nullptr;
  rc = mdb_txn_begin(env, nullptr, options.read_only ? MDB_RDONLY : 0, &txn);
  if (rc != 0) {
    return fail(absl::UnavailableError(absl::StrCat(path, ": begin: ", mdb_strerror(rc))));
  }
  MDB_dbi dbi;
  rc = mdb_dbi_open(txn, nullptr, 0, &dbi);
  if (rc == 0) rc = mdb_txn_commit(txn);
  else mdb_txn_abort(txn);
  if (rc != 0) {
    return fail(absl::UnavailableError(absl::StrCat(path, ": open database: ", mdb_strerror(rc))));
  }
  // LMDB keeps the larger of the size asked for and what the file already holds.
  mdb_env_info(env, &info);
  return std::unique_ptr<LmdbEnv>(
      new LmdbEnv(env, dbi, path, info.me_mapsize, options.map_size_setting,
                  options.no_meta_sync && !options.read_only && !options.no_sync));
}

LmdbEnv::~LmdbEnv() {
  if (sync_at_close_) (void)mdb_env_sync(env_, 1);  // best effort: nobody is left to tell
  mdb_env_close(env_);
}

absl::Status LmdbEnv::Error(int rc, absl::string_view what) const {
  if (rc == MDB_MAP_RESIZED) {
    // A reader beside the writer (cfx settle, cfx journal verify) whose map the writer's
    // data has outgrown (a map size raised in the config).
    return absl::UnavailableError(
        absl::StrCat(path_, ": ", what, ": the writer grew the file past this reader's map (",
                     map_size_, " bytes); run it again"));
  }
  if (rc == MDB_MAP_FULL) {
    absl::Status full = absl::ResourceExhaustedError(
        absl::StrCat(path_, ": ", what, ": LMDB map full (map size ", map_size_, " bytes); raise ",
                     map_size_setting_.empty() ? "the map size" : map_size_setting_,
                     " and start again (what is written stays)"));
    full.SetPayload(kMapFullPayload, absl::Cord("1"));
    return full;
  }
  if (rc == ENOSPC || rc == EDQUOT || rc == EFBIG) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path_, ": ", what, ": disk full: ", mdb_strerror(rc),
                     rc == EFBIG ? " (the process's file size limit, ulimit -f)" : ""));
  }
  // LMDB reports a write cut short as EIO ("short write, filesystem full?"), which is how a
  // disk that fills up in the middle of a commit usually shows.
  if (rc == EIO) {
    return absl::UnavailableError(
        absl::StrCat(path_, ": ", what, ": write failed or cut short (", mdb_strerror(rc),
                     "): a full disk, a file size limit or a failing device"));
  }
  if (rc == EACCES || rc == EROFS || rc == EPERM) {
    return absl::PermissionDeniedError(absl::StrCat(path_, ": ", what, ": ", mdb_strerror(rc)));
  }
  if (rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND) {
    return absl::DataLossError(absl::StrCat(path_, ": ", what, ": ", mdb_strerror(rc)));
  }
  return absl::InternalError(absl::StrCat(path_, ": ", what, ": ", mdb_strerror(rc)));
}

absl::Status DeleteFromKey(const LmdbEnv& env, absl::string_view first_key,
                           absl::string_view what) {
  Txn txn;
  int rc = txn.Begin(env, /*read_only=*/false);
  if (rc != 0) return env.Error(rc, absl::StrCat("begin ", what));
  {
    Cursor cursor;
    if ((rc = cursor.Open(txn, env.dbi())) != 0) return env.Error(rc, "open cursor");
    for (;;) {
      // Re-seek each time: where a cursor points after a delete is not worth relying on.
      MDB_val k{first_key.size(), const_cast<char*>(first_key.data())}, v;
      rc = mdb_cursor_get(cursor.get(), &k, &v, MDB_SET_RANGE);
      if (rc == MDB_NOTFOUND) break;
      if (rc != 0) return env.Error(rc, what);
      if ((rc = mdb_cursor_del(cursor.get(), 0)) != 0) return env.Error(rc, what);
    }
  }
  if ((rc = txn.Commit()) != 0) return env.Error(rc, absl::StrCat("commit ", what));
  return absl::OkStatus();
}

}  // namespace cfx::storage
