// A toy deterministic state machine (a keyed counter map) for the journal's tests, the
// crash test and the benchmarks, standing in for the matching engine: 64-byte encoded
// commands (the size of an encoded order), one outcome per command, snapshots, and a state
// hash that depends on the whole applied history.
//
//   CounterMachine machine;
//   CounterCodec codec;
//   Pipeline<CounterCommand, CounterOutcome> p(options, journal, &codec, &machine, &listener);
#ifndef CFX_JOURNAL_COUNTER_MACHINE_H_
#define CFX_JOURNAL_COUNTER_MACHINE_H_

#include <cstdint>
#include <map>
#include <string>

#include "cfx/journal/pipeline_interfaces.h"

namespace cfx::journal {

struct CounterCommand {
  uint64_t id = 0;  // the client's input id (unique per run)
  uint64_t key = 0;
  int64_t delta = 0;
};

struct CounterOutcome {
  uint64_t id = 0;
  int64_t value = 0;  // the key's counter after the command
};

// Encoding: id, key, delta as little-endian u64, then 40 filler bytes derived from id, so
// that the record is 64 bytes like an encoded order. Thread safety: stateless.
class CounterCodec : public CommandCodec<CounterCommand> {
 public:
  static constexpr size_t kEncodedSize = 64;
  void Encode(const CounterCommand& command, std::string* out) const override;
  absl::Status Decode(absl::string_view bytes, CounterCommand* command) const override;
};

// Thread safety: one thread at a time (the matcher thread).
class CounterMachine : public Matcher<CounterCommand, CounterOutcome> {
 public:
  // REQUIRES: seq > last_seq() (asserted: a replayed or reordered input is a bug).
  void Apply(uint64_t seq, const CounterCommand& command,
             OutcomeSink<CounterOutcome>& sink) override;
  std::string Snapshot() const override;
  absl::Status Restore(absl::string_view snapshot) override;

  // Equal for two machines that applied the same (seq, command) history.
  uint64_t StateHash() const;
  uint64_t last_seq() const { return last_seq_; }
  uint64_t applied() const { return applied_; }
  const std::map<uint64_t, int64_t>& counters() const { return counters_; }

 private:
  std::map<uint64_t, int64_t> counters_;  // ordered: snapshots are byte-identical
  uint64_t last_seq_ = 0;
  uint64_t applied_ = 0;
  uint64_t history_hash_ = 0x9E3779B97F4A7C15ull;
};

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_COUNTER_MACHINE_H_
