// The state hashes a replicated pipeline keeps (docs/replication.md, "Checking the
// standby"): this machine's hash at each snapshot seq, the primary's hashes read from the
// log, and their comparison. Written once per snapshot, so a mutex is fine.
//
// Thread safety: RecordOwn on the matcher thread; TakeToSend, AddPrimary and Compare on the
// sequencer thread; Latest/Checks from any thread.
#ifndef CFX_JOURNAL_STATE_CHECKS_H_
#define CFX_JOURNAL_STATE_CHECKS_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "cfx/journal/crc32c.h"
#include "cfx/journal/replication_log.h"

namespace cfx::journal {

// The state hash of a matcher at a seq: a digest of its Snapshot() blob, which is the whole
// state and byte-identical for equal histories (two CRC-32Cs with different seeds).
inline uint64_t StateDigest(absl::string_view snapshot) {
  const uint64_t hi = Crc32c(snapshot.data(), snapshot.size());
  const uint64_t lo = Crc32cExtend(0x9E3779B9u, snapshot.data(), snapshot.size());
  return hi << 32 | lo;
}

class StateChecks {
 public:
  // This machine's hash after `seq`; kept for comparison when `compare` (a follower).
  void RecordOwn(uint64_t seq, uint64_t hash, bool compare) {
    std::lock_guard<std::mutex> lock(mu_);
    latest_ = {seq, hash};
    version_.fetch_add(1, std::memory_order_release);
    if (!compare) return;
    own_[seq] = hash;
    if (own_.size() > kKept) own_.erase(own_.begin());
  }
  // Whether a hash was recorded since the last TakeToSend.
  bool HasNew() const { return version_.load(std::memory_order_acquire) != sent_version_; }
  // The latest hash, once (seq 0 when there is nothing new).
  StateCheckpoint TakeToSend() {
    const uint64_t v = version_.load(std::memory_order_acquire);
    if (v == sent_version_) return {};
    sent_version_ = v;
    std::lock_guard<std::mutex> lock(mu_);
    return latest_;
  }
  // A hash the primary sent with a batch.
  void AddPrimary(const StateCheckpoint& cp) {
    if (cp.seq == 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    primary_[cp.seq] = cp.hash;
    if (primary_.size() > kKept) primary_.erase(primary_.begin());
  }
  // Compares the primary's hashes with this machine's at the same seqs. DataLoss on the
  // first difference: a standby that diverged must never take over.
  absl::Status Compare() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = primary_.begin(); it != primary_.end();) {
      auto own = own_.find(it->first);
      if (own == own_.end()) {
        ++it;
        continue;
      }
      if (own->second != it->second) {
        return absl::DataLossError(absl::StrCat(
            "replication: the state hash after input ", it->first, " is ", own->second,
            " here and ", it->second, " on the primary: this standby diverged"));
      }
      ++checks_;
      checked_seq_ = std::max(checked_seq_, it->first);
      own_.erase(own);
      it = primary_.erase(it);
    }
    return absl::OkStatus();
  }
  struct Counts {
    StateCheckpoint latest;
    uint64_t checks = 0;
    uint64_t checked_seq = 0;
  };
  Counts Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {latest_, checks_, checked_seq_};
  }

 private:
  static constexpr size_t kKept = 64;
  mutable std::mutex mu_;
  StateCheckpoint latest_;                // mu_
  std::map<uint64_t, uint64_t> own_;      // mu_: seq -> hash
  std::map<uint64_t, uint64_t> primary_;  // mu_
  uint64_t checks_ = 0;                   // mu_
  uint64_t checked_seq_ = 0;              // mu_
  std::atomic<uint64_t> version_{0};
  uint64_t sent_version_ = 0;  // sequencer thread
};

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_STATE_CHECKS_H_
