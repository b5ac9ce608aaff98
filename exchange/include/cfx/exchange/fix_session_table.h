// FixSessionTable: where each FIX session stands, from the `fix_session` inputs a replicated
// exchange sequences (engine::FixSessionCmd): the next MsgSeqNum expected from the client
// and the limit below which the exchange sends. Part of the matcher's state (snapshotted,
// so in the state hash): every node of a replicated exchange holds the same table, and the
// one that takes over resumes each session there (docs/replication.md, "FIX sessions").
//
//   table.Apply(cmd);                      // matcher thread
//   std::vector<FixSessionSeqs> all = table.All();   // any thread
#ifndef CFX_EXCHANGE_FIX_SESSION_TABLE_H_
#define CFX_EXCHANGE_FIX_SESSION_TABLE_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "cfx/engine/command.h"

namespace cfx::exchange {

struct FixSessionSeqs {
  engine::SessionId session = 0;
  uint64_t next_target = 0;   // 0: not known
  uint64_t sender_limit = 0;  // 0: not known
  bool operator==(const FixSessionSeqs&) const = default;
};

// Thread safety: Apply, AppendTo and ReadFrom on one thread (the matcher's); All from any.
class FixSessionTable {
 public:
  // Sets the fields the command gives (non-zero); a session's first command adds it.
  void Apply(const engine::FixSessionCmd& cmd);
  // Every session, sorted by session id.
  std::vector<FixSessionSeqs> All() const;
  bool empty() const;
  // The snapshot section: u64 n, then n × (u32 session, u64 next_target, u64 sender_limit),
  // sorted by session.
  void AppendTo(std::string* out) const;
  // Replaces the table with the section at the front of `in` (consumed); DataLoss when
  // malformed.
  absl::Status ReadFrom(absl::string_view* in);
  void Clear();

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<engine::SessionId, FixSessionSeqs> sessions_;
};

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_FIX_SESSION_TABLE_H_
