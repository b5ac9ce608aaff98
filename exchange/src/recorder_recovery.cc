#include "recorder_recovery.h"

#include <memory>

#include "cfx/exchange/engine_codec.h"
#include "listing_outcomes.h"

namespace cfx::exchange {
namespace {

class RecordingSink : public journal::OutcomeSink<Outcome> {
 public:
  explicit RecordingSink(TradeRecorder* r) : r_(r) {}
  void Emit(const Outcome& o) override { r_->Add(seq, o); }
  uint64_t seq = 0;

 private:
  TradeRecorder* r_;
};

}  // namespace

absl::StatusOr<RecordedTail> RecordJournalTail(const journal::Journal& journal,
                                           const MatcherOptions& options,
                                           TradeRecorder* recorder) {
  const uint64_t from = recorder->last_seq();
  auto shadow = std::make_unique<EngineMatcher>(options);
  // Start from the newest snapshot the trade store already covers, not from record 1: the
  // inputs up to the snapshot have their rows in the store, and the matcher state at the
  // snapshot is exactly what replaying them would give.
  uint64_t start = 1;
  auto snapshot = journal.LatestValidSnapshot(nullptr, from);
  if (!snapshot.ok()) return snapshot.status();
  if (snapshot->has_value() && shadow->Restore((*snapshot)->state).ok()) {
    start = (*snapshot)->seq + 1;
  } else if (snapshot->has_value()) {
    shadow = std::make_unique<EngineMatcher>(options);  // drop a partly restored state
  }
  EngineCodec codec;
  RecordingSink sink(recorder);
  internal::ListingOutcomes listing(shadow.get());  // the security master's outcomes too
  engine::Command cmd;
  absl::Status error;
  uint64_t recorded = 0;
  absl::Status s = journal.ReadFrom(start, [&](uint64_t seq, absl::string_view payload) {
    int64_t time_us = 0;  // the input's journaled stamp: rebuilt rows keep their live times
    error = journal::DecodeInput(payload, codec, &time_us, &cmd);
    if (!error.ok()) {
      error = absl::DataLossError(absl::StrCat("journal record ", seq, ": ", error.message()));
      return false;
    }
    sink.seq = seq;
    listing.ApplyAt(seq, time_us, cmd, sink);
    if (seq > from) {
      recorder->EndInput(seq);
      ++recorded;
      if (recorder->pending_inputs() >= 65536) {
        error = recorder->Commit();
        if (!error.ok()) return false;
      }
    }
    return true;
  });
  if (!s.ok()) return s;
  if (!error.ok()) return error;
  if (absl::Status c = recorder->Commit(); !c.ok()) return c;
  return RecordedTail{recorded, start};
}

}  // namespace cfx::exchange
