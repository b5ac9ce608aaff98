// journal::ReplicationLog on a NATS JetStream stream (file storage, replicated over a
// cluster): one message per sequenced batch (batch_format.h). Appends are fenced by the
// stream's last sequence (JetStream's expected-last-sequence check), so of two writers only
// the one that has read the whole stream can append: a deposed primary that wakes up gets
// FailedPrecondition and acknowledges nothing. Design: docs/replication.md.
//
//   auto log = JetStreamLog::Open(options);   // connects; creates the stream if missing
//   ReplicatedBatch b;
//   while ((*log)->Read(next, 100, &b).ok()) { ... next = b.first_seq + b.payloads.size(); }
//   (*log)->Append(next, views);               // only after reading to EndSeq()
#ifndef CFX_REPLICATION_JETSTREAM_LOG_H_
#define CFX_REPLICATION_JETSTREAM_LOG_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cfx/journal/replication_log.h"
#include "cfx/replication/nats_options.h"

namespace cfx::replication {

class NatsConnection;

class JetStreamLog : public journal::ReplicationLog {
 public:
  // Connects and makes sure the stream exists (file storage, `replicas` copies, with its
  // genesis marker). Errors: no server reachable, the stream cannot be created.
  static absl::StatusOr<std::unique_ptr<JetStreamLog>> Open(const NatsOptions& options);
  ~JetStreamLog() override;

  absl::Status Append(uint64_t first_seq, absl::Span<const absl::string_view> payloads,
                      const journal::StateCheckpoint& checkpoint = {}) override;
  absl::Status Read(uint64_t next_seq, int64_t timeout_ms,
                    journal::ReplicatedBatch* out) override;
  absl::StatusOr<uint64_t> EndSeq() override;

  // Appends fail with FailedPrecondition once the steady clock passes this (µs since its
  // epoch; INT64_MAX: no limit): a primary whose lease lapsed stops acknowledging even
  // while the stream still takes its writes. Any thread (the lease keeper sets it).
  void SetLeaderDeadline(int64_t steady_us) {
    leader_deadline_us_.store(steady_us, std::memory_order_release);
  }
  // The stream sequence of the last message read or appended (0: none yet).
  uint64_t last_stream_seq() const { return last_stream_seq_; }

 private:
  JetStreamLog(const NatsOptions& options, std::unique_ptr<NatsConnection> conn);
  absl::Status EnsureStream();
  // Finds the first stream message that may hold input `seq` and subscribes from there.
  absl::Status Position(uint64_t seq);
  // The batch at stream sequence `stream_seq` (js_GetMsg): its first input and its count.
  absl::Status PeekBatch(uint64_t stream_seq, uint64_t* first_seq, uint64_t* count);
  void Unsubscribe();

  const NatsOptions options_;
  std::unique_ptr<NatsConnection> conn_;
  struct Subscription;
  std::unique_ptr<Subscription> sub_;
  uint64_t read_next_seq_ = 0;     // the input seq the subscription delivers next
  uint64_t last_stream_seq_ = 0;   // fencing: the stream's last sequence as this writer knows it
  std::string scratch_;
  static constexpr int64_t kStallCheckUs = 1000000;
  int64_t last_delivery_us_ = 0;  // when the subscription last delivered (or was checked)
  std::atomic<int64_t> leader_deadline_us_{INT64_MAX};
};

}  // namespace cfx::replication

#endif  // CFX_REPLICATION_JETSTREAM_LOG_H_
