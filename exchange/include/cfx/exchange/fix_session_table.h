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

// Thread safety: Apply, AppendTo and ReadFrom on one thread (the matcher's); All and
// ReportsSentThrough from any.
class FixSessionTable {
 public:
  // Session id 0 is no FIX session (ids hash session names, never to 0): its entry is the
  // exchange's own, where a replicated primary records how far the reports went out
  // (docs/replication.md, "Reports after a failover"): its next_target is the first input
  // whose reports may not have reached a session. In the snapshot like any entry.
  static constexpr engine::SessionId kReportsEntry = 0;
  // The input recording that the reports of every input up to `through` reached the
  // sessions (sent, or in their stores).
  static engine::FixSessionCmd ReportsSentMark(uint64_t through) {
    return engine::FixSessionCmd{kReportsEntry, through + 1, 0};
  }
  // The last input the latest such mark covers; 0 when none was recorded.
  uint64_t ReportsSentThrough() const;
  // Sets the fields the command gives (non-zero); a session's first command adds it.
  void Apply(const engine::FixSessionCmd& cmd);
  // Every FIX session, sorted by session id (not the reports entry).
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
  std::vector<FixSessionSeqs> Entries() const;  // All() and the reports entry, sorted

  mutable std::mutex mu_;
  absl::flat_hash_map<engine::SessionId, FixSessionSeqs> sessions_;
};

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_FIX_SESSION_TABLE_H_
