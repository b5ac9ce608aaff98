// TradeRecorder's writes to <data_dir>/trades: the transaction, the synchronous commit and
// the background committer thread (trade_recorder.cc builds the rows and the views).
#include <chrono>
#include <iterator>
#include <mutex>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "cfx/concurrency/thread_name.h"
#include "cfx/exchange/trade_recorder.h"
#include "cfx/storage/kv_store.h"

namespace cfx::exchange {

TradeRecorder::~TradeRecorder() {
  if (!committer_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(commit_mu_);
    stop_committer_ = true;
  }
  commit_cv_.notify_all();
  committer_.join();  // it writes what was handed over first (unless that failed)
}

absl::Status TradeRecorder::WriteTxn(const std::vector<Op>& ops, uint64_t seq) {
  if (store_) {
    auto txn = store_->BeginWrite();
    if (!txn.ok()) return txn.status();
    // Only the last op of a row counts: later ones overwrite, so earlier ones are skipped.
    absl::flat_hash_set<std::pair<absl::string_view, absl::string_view>> written;
    written.reserve(ops.size());
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      const Op& op = *it;
      if (!written.insert({op.table, op.key}).second) continue;
      const bool erase = std::holds_alternative<std::monostate>(op.value);
      absl::Status s = erase ? (*txn)->Delete(op.table, op.key)
                             : (*txn)->Put(op.table, op.key, RowText(op.value));
      if (!s.ok() && !(absl::IsNotFound(s) && erase)) return s;
    }
    if (absl::Status s = (*txn)->Put(kMetaTable, trade_store::kLastSeqKey, absl::StrCat(seq));
        !s.ok()) {
      return s;
    }
    if (absl::Status s = (*txn)->Commit(); !s.ok()) return s;
  }
  last_seq_.store(seq, std::memory_order_release);
  commits_.fetch_add(1, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::Status TradeRecorder::Commit() {
  std::vector<Op> batch;
  uint64_t seq = 0;
  bool have = false;
  {
    // Never two writers of the store: wait for a background transaction, then keep the
    // committer off it (`committing_`) while this thread writes.
    std::unique_lock<std::mutex> lock(commit_mu_);
    commit_cv_.wait(lock, [&] { return !committing_; });
    if (given_up_) {
      // Rows were dropped after the store's last_seq: a commit now would move last_seq past
      // them, and the next start's rebuild would skip them. Nothing more this run.
      ops_.clear();
      pending_inputs_ = 0;
      return absl::FailedPreconditionError(
          "the trade store gave up committing for this run; the next start rebuilds it from the "
          "journal");
    }
    if (handed_seq_ > last_seq()) {  // handed over but not written (or failed): goes first
      batch.swap(handed_);
      seq = handed_seq_;
      have = true;
    }
    if (!have && pending_inputs_ == 0) return absl::OkStatus();
    committing_ = true;
    commit_failed_ = false;
    commit_error_ = absl::OkStatus();
  }
  if (pending_inputs_ > 0) {
    batch.insert(batch.end(), std::make_move_iterator(ops_.begin()),
                 std::make_move_iterator(ops_.end()));
    seq = pending_seq_;
    ops_.clear();
    pending_inputs_ = 0;
  }
  absl::Status s = WriteTxn(batch, seq);
  {
    std::lock_guard<std::mutex> lock(commit_mu_);
    committing_ = false;
    if (!s.ok()) {  // keep the rows for the next commit, in input order
      handed_.swap(batch);
      handed_seq_ = seq;
      commit_failed_ = true;  // the caller has the error: not reported again
    }
  }
  commit_cv_.notify_all();
  return s;
}

absl::Status TradeRecorder::CommitInBackground() {
  if (!store_) return Commit();  // memory only: nothing slow to move off this thread
  absl::Status error;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(commit_mu_);
    if (given_up_) {  // the next start rebuilds the store from the journal
      ops_.clear();
      pending_inputs_ = 0;
      error = commit_error_;
      commit_error_ = absl::OkStatus();
      return error;
    }
    wake = committer_waiting_;
    if (pending_inputs_ > 0) {
      if (handed_.empty()) {
        handed_.swap(ops_);
      } else {
        handed_.insert(handed_.end(), std::make_move_iterator(ops_.begin()),
                       std::make_move_iterator(ops_.end()));
      }
      handed_seq_ = pending_seq_;
    }
    if (commit_failed_) {  // report once, then let the committer retry with this batch
      // (after giving up, the error of the give-up is reported by the branch above)
      error = commit_error_;
      commit_error_ = absl::OkStatus();
      commit_failed_ = false;
    }
    if (!committer_.joinable()) committer_ = concurrency::NamedThread("cfx-trade-store", [this] { RunCommitter(); });
  }
  ops_.clear();
  pending_inputs_ = 0;
  // In its gap the committer takes what was handed over when the gap ends; a new committer
  // looks before it waits.
  if (wake) commit_cv_.notify_all();
  return error;
}

void TradeRecorder::RunCommitter() {
  std::unique_lock<std::mutex> lock(commit_mu_);
  auto last_end = std::chrono::steady_clock::now() - kMinCommitInterval;
  for (;;) {
    committer_waiting_ = true;
    commit_cv_.wait(lock, [&] {
      return stop_committer_ || (!committing_ && !commit_failed_ && handed_seq_ > last_seq());
    });
    committer_waiting_ = false;
    if (committing_ || commit_failed_ || handed_seq_ <= last_seq()) return;  // stopping
    // Gather what arrives within the gap after the last transaction into this one.
    commit_cv_.wait_until(lock, last_end + kMinCommitInterval,
                          [&] { return stop_committer_ || commit_waiters_ > 0; });
    // The lock was let go: Commit() (which waits only for `committing_`) may have taken the
    // rows or be writing them now. Never two writers: look again.
    if (committing_ || commit_failed_ || handed_seq_ <= last_seq()) {
      if (stop_committer_) return;
      continue;
    }
    std::vector<Op> batch;
    batch.swap(handed_);
    const uint64_t seq = handed_seq_;
    committing_ = true;
    lock.unlock();
    absl::Status s = WriteTxn(batch, seq);  // the sync happens here, off the order path
    last_end = std::chrono::steady_clock::now();
    lock.lock();
    committing_ = false;
    if (!s.ok()) {
      // Rows handed over meanwhile go after the failed ones; the next hand-off retries.
      batch.insert(batch.end(), std::make_move_iterator(handed_.begin()),
                   std::make_move_iterator(handed_.end()));
      handed_.swap(batch);
      commit_failed_ = true;
      commit_error_ = s;
      if (handed_.size() > max_held_rows_) {
        // Held without bound, each retry re-serialising them all: given up for this run.
        // Nothing more is committed, so the store's last_seq stays before every row dropped,
        // and the next start's catch-up (RecordJournalTail) writes them from the journal.
        std::vector<Op>().swap(handed_);
        given_up_ = true;
        commit_error_ = absl::Status(
            s.code(),
            absl::StrCat(s.message(),
                         "; the trade store stops committing for this run "
                         "(more than ",
                         max_held_rows_,
                         " rows held) and is rebuilt from the journal at the next start"));
      }
    }
    commit_cv_.notify_all();
  }
}

bool TradeRecorder::given_up() const {
  std::lock_guard<std::mutex> lock(commit_mu_);
  return given_up_;
}

bool TradeRecorder::WaitCommitted(uint64_t seq, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(commit_mu_);
  ++commit_waiters_;
  commit_cv_.notify_all();  // the committer skips its gap for a waiter
  const bool done =
      commit_cv_.wait_for(lock, timeout, [&] { return last_seq() >= seq || commit_failed_; });
  --commit_waiters_;
  return done;
}

}  // namespace cfx::exchange
