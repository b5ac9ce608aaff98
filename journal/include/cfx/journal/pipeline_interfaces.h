// The seams through which a state machine (the matching engine) plugs into Pipeline:
// how a command becomes journal bytes, how it is applied, and where outcomes go.
#ifndef CFX_JOURNAL_PIPELINE_INTERFACES_H_
#define CFX_JOURNAL_PIPELINE_INTERFACES_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace cfx::journal {

// Where Matcher::Apply reports the outcomes of one input (fills, rejects, ...), in order.
// Thread safety: matcher thread only; valid only during Apply.
template <typename Outcome>
class OutcomeSink {
 public:
  virtual void Emit(const Outcome& outcome) = 0;
  // The same, written in place: Claim() gives the next outcome's storage (its contents left
  // from before: the caller writes every field), EmitClaimed() sends what was written there.
  // Pipeline's sink hands out the output ring's slot itself, so a large outcome is written
  // once instead of built and then copied. The default is a scratch outcome and Emit().
  virtual Outcome& Claim() { return scratch_; }
  virtual void EmitClaimed() { Emit(scratch_); }

 protected:
  ~OutcomeSink() = default;

 private:
  Outcome scratch_{};
};

// The single-writer state machine. Thread safety: every method runs on the matcher thread
// (or the thread calling Pipeline::Start, for recovery, before the matcher thread exists).
template <typename Command, typename Outcome>
class Matcher {
 public:
  virtual ~Matcher() = default;
  // Applies one sequenced, durable input. Deterministic: same (seq, command) stream, same
  // state and outcomes. Business failures are outcomes (reject reasons), never errors.
  virtual void Apply(uint64_t seq, const Command& command, OutcomeSink<Outcome>& sink) = 0;
  // The same, with the exchange clock's stamp of the input (µs since the Unix epoch, UTC;
  // 0 when the pipeline runs without a clock). The pipeline and recovery call this one; a
  // machine that keeps no time need not override it.
  virtual void ApplyAt(uint64_t seq, int64_t time_us, const Command& command,
                       OutcomeSink<Outcome>& sink) {
    (void)time_us;
    Apply(seq, command, sink);
  }
  // The exchange time (µs since the epoch) at which the input just applied took effect,
  // given its stamp `stamp_us`: by default the stamp. A machine that keeps a clock of its
  // own (a manual clock's time inputs, a stamp behind them) says which time its outcomes
  // carry, so that an input without outcomes is reported at that time too.
  virtual int64_t AppliedTimeUs(int64_t stamp_us) const { return stamp_us; }
  // A hint, no effect on state: `command` is due a few inputs from now (Pipeline's
  // kPrefetchAhead), so a machine may bring into the cache what applying it will touch.
  virtual void Prefetch(const Command& command) const { (void)command; }
  // The whole state as an opaque blob (taken every PipelineOptions::snapshot_every inputs).
  virtual std::string Snapshot() const = 0;
  // Replaces the whole state by a Snapshot() blob. Error: the blob is unusable.
  virtual absl::Status Restore(absl::string_view snapshot) = 0;
};

// Journal encoding of a command. Thread safety: Encode runs on the sequencer thread, Decode
// on the recovering thread; implementations hold no mutable state.
template <typename Command>
class CommandCodec {
 public:
  virtual ~CommandCodec() = default;
  // Appends the bytes of `command` to *out.
  virtual void Encode(const Command& command, std::string* out) const = 0;
  // Parses bytes made by Encode. Error: not a valid encoding (recovery stops on it).
  virtual absl::Status Decode(absl::string_view bytes, Command* command) const = 0;
};

// Where the sequencer reads the exchange clock (SPEC §5: every input is stamped when it is
// sequenced). Thread safety: called on the sequencer thread only.
class InputClock {
 public:
  virtual ~InputClock() = default;
  virtual int64_t NowMicros() = 0;  // µs since the Unix epoch, UTC
};

// The journal payload of one sequenced input: its stamp (8 bytes little-endian, µs; 0: no
// clock) followed by the command's codec bytes. Written by the sequencer, read by recovery.
inline constexpr size_t kInputStampSize = 8;

template <typename Command>
void EncodeInput(int64_t time_us, const CommandCodec<Command>& codec, const Command& command,
                 std::string* out) {
  char b[kInputStampSize];
  uint64_t v = static_cast<uint64_t>(time_us);
  for (size_t i = 0; i < kInputStampSize; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out->append(b, kInputStampSize);
  codec.Encode(command, out);
}

// The stamp of a payload of at least kInputStampSize bytes.
inline int64_t InputStampOf(absl::string_view payload) {
  uint64_t v = 0;
  for (size_t i = 0; i < kInputStampSize; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(payload[i])) << (8 * i);
  }
  return static_cast<int64_t>(v);
}

template <typename Command>
absl::Status DecodeInput(absl::string_view payload, const CommandCodec<Command>& codec,
                         int64_t* time_us, Command* command) {
  if (payload.size() < kInputStampSize) {
    return absl::DataLossError("input shorter than its time stamp");
  }
  *time_us = InputStampOf(payload);
  return codec.Decode(payload.substr(kInputStampSize), command);
}

// Receives results on one thread, in seq order: the matcher's (PipelineOptions::
// publish_on_matcher, the default) or the publisher's. Either way no call may wait for the
// pipeline itself. `tag` is the producer's correlation value given to Pipeline::TryOffer.
template <typename Outcome>
class PipelineListener {
 public:
  virtual ~PipelineListener() = default;
  virtual void OnOutcome(uint64_t seq, uint64_t tag, const Outcome& outcome) = 0;
  // After all outcomes of the input. With a journal the input is durable (synced) by now.
  // `time_us`: the exchange time it took effect at (Matcher::AppliedTimeUs: by default the
  // input's sequencing stamp, µs since the epoch; 0 without a clock).
  virtual void OnAck(uint64_t seq, uint64_t tag, int64_t time_us) = 0;
  // The journal failed (disk full, map full, I/O error): the pipeline stopped accepting;
  // inputs not acknowledged were not applied. Called once.
  virtual void OnJournalError(const absl::Status& status) {}
  // Every output waiting has been delivered and the delivering thread is about to wait
  // for more (called once per burst): a listener that holds its own output back to send it
  // in batches sends it now.
  virtual void OnIdle() {}
};

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_PIPELINE_INTERFACES_H_
