// Adapts a Matcher plus its CommandCodec to the payload-level StateMachine that Recover()
// drives: decodes each journal payload (its time stamp and command, DecodeInput) and applies
// it at its journaled time, dropping the outcomes (they were delivered before the restart).
//
//   MatcherStateMachine<Order, Event> machine(&codec, &engine);
//   auto result = Recover(*journal, machine);
#ifndef CFX_JOURNAL_MATCHER_STATE_MACHINE_H_
#define CFX_JOURNAL_MATCHER_STATE_MACHINE_H_

#include <string>

#include "cfx/journal/pipeline_interfaces.h"
#include "cfx/journal/recovery.h"

namespace cfx::journal {

// Thread safety: as the wrapped Matcher (one thread).
template <typename Command, typename Outcome>
class MatcherStateMachine : public StateMachine, private OutcomeSink<Outcome> {
 public:
  // Neither is owned.
  MatcherStateMachine(const CommandCodec<Command>* codec, Matcher<Command, Outcome>* matcher)
      : codec_(codec), matcher_(matcher) {}

  absl::Status Restore(absl::string_view snapshot) override { return matcher_->Restore(snapshot); }
  std::string Snapshot() const override { return matcher_->Snapshot(); }
  absl::Status Apply(uint64_t seq, absl::string_view payload) override {
    int64_t time_us = 0;
    absl::Status s = DecodeInput(payload, *codec_, &time_us, &command_);
    if (!s.ok()) return s;
    matcher_->ApplyAt(seq, time_us, command_, *this);
    last_time_us_ = time_us;
    return absl::OkStatus();
  }
  // The stamp of the last input applied (0 before any).
  int64_t last_time_us() const { return last_time_us_; }

 private:
  void Emit(const Outcome&) override {}

  const CommandCodec<Command>* codec_;
  Matcher<Command, Outcome>* matcher_;
  Command command_{};
  int64_t last_time_us_ = 0;
};

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_MATCHER_STATE_MACHINE_H_
