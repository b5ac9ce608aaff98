// Journal's snapshot half: opaque state blobs keyed by the seq they include, in their own
// LMDB environment so that writing one never waits for (or delays) a record commit.
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/journal/journal.h"
#include "journal_impl.h"
#include "record_format.h"

namespace cfx::journal {

// The record format's helpers are named internal::... here; storage's types plainly.
using storage::Cursor;
using storage::Txn;
using storage::View;

void Journal::StopSnapshots() { impl_->snapshots_stopped.store(true); }

absl::Status Journal::WriteSnapshot(uint64_t seq, absl::string_view state) {
  if (impl_->snapshots == nullptr || impl_->options.read_only) {
    return absl::FailedPreconditionError(absl::StrCat(impl_->path, ": opened read-only"));
  }
  if (impl_->snapshots_stopped.load()) {
    return absl::FailedPreconditionError(
        absl::StrCat(impl_->path, "/snapshots: cannot be read; no snapshot is written into it"));
  }
  if (state.size() > UINT32_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat("snapshot ", seq, ": ", state.size(), " bytes is too large"));
  }
  const storage::LmdbEnv& env = *impl_->snapshots;
  Txn txn;
  int rc = txn.Begin(env, /*read_only=*/false);
  if (rc != 0) return env.Error(rc, "begin snapshot");
  char key[internal::kKeySize];
  internal::EncodeKey(seq, key);
  MDB_val k{internal::kKeySize, key};
  MDB_val v{internal::kHeaderSize + state.size(), nullptr};
  if ((rc = mdb_put(txn.get(), env.dbi(), &k, &v, MDB_RESERVE)) != 0) {
    return env.Error(rc, absl::StrCat("write snapshot ", seq));
  }
  internal::EncodeValue(internal::kSnapshotMagic, seq, state, static_cast<char*>(v.mv_data));

  // Keep the newest keep_snapshots (at least one: the one just written).
  {
    Cursor cursor;
    if ((rc = cursor.Open(txn, env.dbi())) != 0) return env.Error(rc, "open cursor");
    std::vector<std::string> old_keys;
    int seen = 0;
    const int keep = std::max(1, impl_->options.keep_snapshots);
    MDB_val ck, cv;
    for (rc = mdb_cursor_get(cursor.get(), &ck, &cv, MDB_LAST); rc == 0;
         rc = mdb_cursor_get(cursor.get(), &ck, &cv, MDB_PREV)) {
      if (++seen > keep) old_keys.emplace_back(View(ck));
    }
    for (const std::string& old : old_keys) {
      MDB_val dk{old.size(), const_cast<char*>(old.data())};
      if ((rc = mdb_del(txn.get(), env.dbi(), &dk, nullptr)) != 0) {
        return env.Error(rc, "delete old snapshot");
      }
    }
  }
  if ((rc = txn.Commit()) != 0) return env.Error(rc, absl::StrCat("commit snapshot ", seq));
  return absl::OkStatus();
}

absl::StatusOr<std::optional<Snapshot>> Journal::LatestValidSnapshot(int* skipped_corrupt,
                                                                     uint64_t at_most) const {
  if (skipped_corrupt != nullptr) *skipped_corrupt = 0;
  if (impl_->snapshots == nullptr) return std::optional<Snapshot>();
  const storage::LmdbEnv& env = *impl_->snapshots;
  const uint64_t last_seq = LastSeq();
  Txn txn;
  int rc = txn.Begin(env, /*read_only=*/true);
  if (rc != 0) return env.Error(rc, "begin read");
  Cursor cursor;
  if ((rc = cursor.Open(txn, env.dbi())) != 0) return env.Error(rc, "open cursor");
  MDB_val k, v;
  for (rc = mdb_cursor_get(cursor.get(), &k, &v, MDB_LAST); rc == 0;
       rc = mdb_cursor_get(cursor.get(), &k, &v, MDB_PREV)) {
    uint64_t seq;
    absl::string_view state;
    // A snapshot past the journal's end cannot be trusted: its inputs are not durable here
    // (a writer's open deletes such; a reader beside a writer can see one written after it
    // read the journal's end). Passed over, not counted as corrupt.
    if (internal::DecodeKey(View(k), &seq) && (seq > at_most || seq > last_seq)) continue;
    if (internal::DecodeKey(View(k), &seq) &&
        internal::DecodeValue(internal::kSnapshotMagic, "snapshot", seq, View(v), &state).ok()) {
      return std::optional<Snapshot>(Snapshot{seq, std::string(state)});
    }
    if (skipped_corrupt != nullptr) ++*skipped_corrupt;
  }
  if (rc != MDB_NOTFOUND) return env.Error(rc, "read snapshots");
  return std::optional<Snapshot>();
}

namespace internal {

absl::Status DeleteSnapshotsPastEnd(Journal::Impl& impl, uint64_t end) {
  if (impl.snapshots == nullptr) return absl::OkStatus();
  // Read first: almost always there is none, and a store LMDB cannot read (a damaged page,
  // which a write can abort on) is left to recovery, which replays around it.
  bool past_end = false;
  {
    Txn txn;
    Cursor cursor;
    MDB_val k, v;
    uint64_t seq = 0;
    if (txn.Begin(*impl.snapshots, /*read_only=*/true) != 0 ||
        cursor.Open(txn, impl.snapshots->dbi()) != 0 ||
        mdb_cursor_get(cursor.get(), &k, &v, MDB_LAST) != 0) {
      return absl::OkStatus();
    }
    past_end = internal::DecodeKey(View(k), &seq) && seq > end;
  }
  return past_end ? DeleteSnapshotsAfter(impl, end) : absl::OkStatus();
}

absl::Status DeleteSnapshotsAfter(Journal::Impl& impl, uint64_t seq) {
  if (impl.snapshots == nullptr) return absl::OkStatus();
  char key[internal::kKeySize];
  internal::EncodeKey(seq + 1, key);
  return DeleteFromKey(*impl.snapshots, absl::string_view(key, internal::kKeySize),
                       "delete snapshot");
}

}  // namespace internal
}  // namespace cfx::journal
