// `cfx bench journal`: the durable order path — every input group-committed to the LMDB
// journal and synced before it is matched and acknowledged. RunHarness
// (journal_bench_harness.h) over a journal in a data dir.
//
//   JournalBenchOptions options;  // 3,000,000 inputs at 1,000,000/s, a fresh temp dir
//   absl::StatusOr<nlohmann::json> figures = RunJournalBench(options);
#ifndef CFX_PERF_JOURNAL_BENCH_H_
#define CFX_PERF_JOURNAL_BENCH_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "cfx/perf/journal_bench_harness.h"
#include "nlohmann/json.hpp"

namespace cfx::perf {

// The default load: 3,000,000 inputs offered at 1,000,000 a second.
inline HarnessConfig DefaultJournalLoad() {
  HarnessConfig config;
  config.messages = 3'000'000;
  config.rate = 1'000'000;
  config.pipeline.trace_stages = true;  // a few clock reads an input beside a synced commit
  return config;
}

struct JournalBenchOptions {
  std::string data_dir;         // empty: a fresh temp dir, removed afterwards
  bool unsafe_no_sync = false;  // commits not synced (a power loss may lose acked inputs)
  // One flush per commit, acks from DurableSeq (the exchange's setting); false: LMDB's own
  // two flushes per commit, each commit durable on return (--two-flush-commits).
  bool defer_commit_sync = true;
  // The journal's commit log, as the exchange runs it (false: --no-commit-log, A/B).
  bool commit_log = true;
  int commit_log_copy_every_ms = 10;  // JournalOptions::commit_log_copy_every_ms
  uint64_t map_size_gib = 16;   // LMDB map size
  // The load; `journal` is set by RunJournalBench.
  HarnessConfig harness = DefaultJournalLoad();
  // --replicated: the same load unreplicated, then through a JetStream stream (R3) with the
  // run as the primary, then the raw publish-ack yardstick, in one run. With no servers a
  // three-server cluster is started on loopback for the run (nats-server must be installed).
  bool replicated = false;
  std::vector<std::string> nats_servers;
};

// Runs the harness on the journal in `data_dir`. Returns the figures as JSON, with "error"
// set when the pipeline failed; FailedPrecondition when the journal already holds records,
// Unavailable when no temp dir can be made, or the journal's error when it cannot open.
absl::StatusOr<nlohmann::json> RunJournalBench(const JournalBenchOptions& options);

// The disk's yardstick: `commits` synced LMDB commits of `records` 64-byte records each in
// a fresh journal under `dir` (which must exist and be empty), timed one by one. JSON:
// records_per_commit, commits, records_per_sec, p50_us, p99_us. `cfx bench journal` and
// `cfx bench fix` print it beside their figures.
absl::StatusOr<nlohmann::json> RawSyncedCommits(const std::string& dir, int commits,
                                                int records);

// The disk's share of a one-at-a-time ack with several clients: `clients` threads, each
// asking for one ~1 KiB record to be made durable, waiting for it, "thinking" `think_us`
// (a client's round trip without the disk) and asking again, `acks` times in all; one
// flusher thread makes all that is waiting durable with one `pwrite` and one `fdatasync`
// of a file whose blocks exist (the commit log's flush, with nothing else). An ask that
// lands during a flush waits for it and then its own: what any design that flushes before
// it acks must wait on this disk. `dir` must exist. JSON: clients, think_us, acks,
// flushes, p50_us, p99_us (ask to durable).
absl::StatusOr<nlohmann::json> GroupFlushClients(const std::string& dir, int clients, int acks,
                                                 double think_us);

// The flusher of GroupFlushClients on its own: one thread that makes everything asked for
// durable with one `pwrite` of a ~1 KiB record and one `fdatasync` of `dir/group_flush.dat`
// (8 MiB written and synced at Open, so no flush allocates), the commit log's flush with
// nothing else. MakeDurable, from any thread, returns once a flush that began after the
// call has ended: a call during a flush waits for it and then for its own. The file is
// removed by the destructor.
class GroupFlusher {
 public:
  static absl::StatusOr<std::unique_ptr<GroupFlusher>> Open(const std::string& dir);
  ~GroupFlusher();
  GroupFlusher(const GroupFlusher&) = delete;
  GroupFlusher& operator=(const GroupFlusher&) = delete;

  void MakeDurable();
  uint64_t flushes() const;        // ended
  uint64_t flushes_begun() const;  // begun (one at a time: ended, or ended + 1)
  // The first write or flush error (0: none). A failed flush still releases its callers.
  int error() const;

 private:
  GroupFlusher(int fd, std::string path);
  void Run();

  const int fd_;
  const std::string path_;
  mutable std::mutex mu_;
  std::condition_variable asked_, flushed_;
  uint64_t asks_ = 0, durable_ = 0, flushes_ = 0, begun_ = 0;
  bool done_ = false;
  int error_ = 0;
  std::thread thread_;
};

}  // namespace cfx::perf

#endif  // CFX_PERF_JOURNAL_BENCH_H_
