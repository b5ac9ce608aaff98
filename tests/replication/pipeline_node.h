// A node of a replicated pipeline for the tests: its own data dir, journal, log connection,
// counter machine and pipeline, and a recorder of what it acknowledged.
#ifndef CFX_TESTS_REPLICATION_PIPELINE_NODE_H_
#define CFX_TESTS_REPLICATION_PIPELINE_NODE_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "cfx/journal/counter_machine.h"
#include "cfx/journal/journal.h"
#include "cfx/journal/pipeline.h"
#include "cfx/replication/jetstream_log.h"
#include "nats_test_cluster.h"

namespace cfx::replication {

using journal::CounterCodec;
using journal::CounterCommand;
using journal::CounterMachine;
using journal::CounterOutcome;
using journal::OfferResult;

class Recorder : public journal::PipelineListener<CounterOutcome> {
 public:
  void OnOutcome(uint64_t, uint64_t, const CounterOutcome&) override {}
  void OnAck(uint64_t seq, uint64_t tag, int64_t) override {
    std::lock_guard<std::mutex> l(mu_);
    if (tag != 0) acked_.insert(tag);
    acks_.fetch_add(1);
    last_ack_ = std::chrono::steady_clock::now();
  }
  // When the latest ack came (the epoch of steady_clock before any).
  std::chrono::steady_clock::time_point last_ack() const {
    std::lock_guard<std::mutex> l(mu_);
    return last_ack_;
  }
  void OnJournalError(const absl::Status& s) override {
    std::lock_guard<std::mutex> l(mu_);
    error_ = s;
  }
  size_t acks() const { return acks_.load(); }
  std::set<uint64_t> acked() const {
    std::lock_guard<std::mutex> l(mu_);
    return acked_;
  }
  absl::Status error() const {
    std::lock_guard<std::mutex> l(mu_);
    return error_;
  }

 private:
  mutable std::mutex mu_;
  std::set<uint64_t> acked_;
  std::atomic<size_t> acks_{0};
  std::chrono::steady_clock::time_point last_ack_{};
  absl::Status error_;
};

// A machine with a bug: input 777 is applied with a different delta.
class SkewedMachine : public CounterMachine {
 public:
  void Apply(uint64_t seq, const CounterCommand& c,
             journal::OutcomeSink<CounterOutcome>& sink) override {
    CounterCommand skewed = c;
    if (seq == 777) skewed.delta += 1;
    CounterMachine::Apply(seq, skewed, sink);
  }
};

// SkewedMachine whose Apply of input `held_at` waits until Release (or 30 s): a standby
// whose matcher is behind the log.
class HeldSkewedMachine : public SkewedMachine {
 public:
  explicit HeldSkewedMachine(uint64_t held_at) : held_at_(held_at) {}
  void Apply(uint64_t seq, const CounterCommand& c,
             journal::OutcomeSink<CounterOutcome>& sink) override {
    if (seq == held_at_) {
      reached_.store(true, std::memory_order_release);
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (held_.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    SkewedMachine::Apply(seq, c, sink);
  }
  bool reached() const { return reached_.load(std::memory_order_acquire); }
  void Release() { held_.store(false, std::memory_order_release); }

 private:
  const uint64_t held_at_;
  std::atomic<bool> held_{true};
  std::atomic<bool> reached_{false};
};

// The node's log, passed through; `after_end` (set before Promote) runs once on the
// sequencer thread right after the log's end was read while promoting, before the fence:
// whatever it appends lands in that window.
class InterposedLog : public journal::ReplicationLog {
 public:
  explicit InterposedLog(journal::ReplicationLog* inner) : inner_(inner) {}
  absl::Status Append(uint64_t first_seq, absl::Span<const absl::string_view> payloads,
                      const journal::StateCheckpoint& checkpoint) override {
    return inner_->Append(first_seq, payloads, checkpoint);
  }
  absl::Status Read(uint64_t next_seq, int64_t timeout_ms,
                    journal::ReplicatedBatch* out) override {
    return inner_->Read(next_seq, timeout_ms, out);
  }
  absl::StatusOr<uint64_t> EndSeq() override {
    absl::StatusOr<uint64_t> end = inner_->EndSeq();
    if (after_end) {
      std::function<void()> run = std::move(after_end);
      after_end = nullptr;
      run();
    }
    return end;
  }
  std::function<void()> after_end;

 private:
  journal::ReplicationLog* inner_;
};

// One exchange node: its own data dir, journal, log connection, machine and pipeline.
struct Node {
  explicit Node(const NatsOptions& o, const std::string& dir, bool skewed = false)
      : Node(o, dir,
             skewed ? std::make_unique<SkewedMachine>() : std::make_unique<CounterMachine>()) {}
  Node(const NatsOptions& o, const std::string& dir, std::unique_ptr<CounterMachine> m)
      : machine_owned(std::move(m)), machine(*machine_owned) {
    auto j = journal::Journal::Open({.data_dir = dir});
    EXPECT_TRUE(j.ok()) << j.status();
    journal = std::move(*j);
    auto l = JetStreamLog::Open(o);
    EXPECT_TRUE(l.ok()) << l.status();
    log = std::move(*l);
    interposed = std::make_unique<InterposedLog>(log.get());
    journal::PipelineOptions po;
    po.replication = interposed.get();
    po.follow_poll_ms = 20;
    po.snapshot_every = 500;
    pipeline = std::make_unique<journal::Pipeline<CounterCommand, CounterOutcome>>(
        po, journal.get(), &codec, &machine, &recorder);
    auto r = pipeline->Start();
    EXPECT_TRUE(r.ok()) << r.status();
  }
  bool Lead() {
    pipeline->Promote();
    for (int i = 0; i < 500 && !pipeline->leading(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pipeline->leading();
  }
  // Offers ids [first, first + n); returns how many were accepted.
  size_t Offer(uint64_t first, size_t n, std::mt19937_64& rng) {
    size_t accepted = 0;
    for (uint64_t id = first; id < first + n; ++id) {
      CounterCommand c{id, rng() % 64, static_cast<int64_t>(rng() % 2001) - 1000};
      OfferResult r;
      while ((r = pipeline->TryOffer(id, c)) == OfferResult::kFull) std::this_thread::yield();
      if (r == OfferResult::kAccepted) ++accepted;
    }
    return accepted;
  }
  bool WaitFor(const std::function<bool()>& done, int64_t ms = 30000) {
    return replication::WaitFor(done, ms);
  }
  uint64_t StopAndHash() {
    (void)pipeline->Stop();
    return machine.StateHash();
  }

  CounterCodec codec;
  std::unique_ptr<CounterMachine> machine_owned;
  CounterMachine& machine;
  Recorder recorder;
  std::unique_ptr<journal::Journal> journal;
  std::unique_ptr<JetStreamLog> log;
  std::unique_ptr<InterposedLog> interposed;  // what the pipeline writes and reads through
  std::unique_ptr<journal::Pipeline<CounterCommand, CounterOutcome>> pipeline;
};

}  // namespace cfx::replication

#endif  // CFX_TESTS_REPLICATION_PIPELINE_NODE_H_
