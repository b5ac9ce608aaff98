// Adapts a Matcher plus its CommandCodec to the payload-level StateMachine that Recover()
// drives: decodes each journal payload and applies it, dropping the outcomes (they were
// delivered before the restart).
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
    absl::Status s = codec_->Decode(payload, &command_);
    if (!s.ok()) return s;
    matcher_->Apply(seq, command_, *this);
    return absl::OkStatus();
  }

 private:
  void Emit(const Outcome&) override {}

  const CommandCodec<Command>* codec_;
  Matcher<Command, Outcome>* matcher_;
  Command command_{};
};

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_MATCHER_STATE_MACHINE_H_
