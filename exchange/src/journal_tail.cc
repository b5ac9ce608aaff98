#include "journal_tail.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "cfx/exchange/engine_codec.h"
#include "listing_outcomes.h"

namespace cfx::exchange {
namespace {

// Hands each outcome of the input being applied to the visitor.
class VisitingSink : public journal::OutcomeSink<Outcome> {
 public:
  explicit VisitingSink(TailVisitor* v) : v_(v) {}
  void Emit(const Outcome& o) override { v_->OnOutcome(seq, o); }
  uint64_t seq = 0;

 private:
  TailVisitor* v_;
};

// The trade recorder's rows of the inputs after `from`.
class RecordingVisitor : public TailVisitor {
 public:
  RecordingVisitor(TradeRecorder* r, uint64_t from) : r_(r), from_(from) {}
  void OnOutcome(uint64_t seq, const Outcome& o) override { r_->Add(seq, o); }
  absl::Status OnInputEnd(uint64_t seq, int64_t) override {
    if (seq <= from_) return absl::OkStatus();
    r_->EndInput(seq);
    ++recorded;
    if (r_->pending_inputs() >= 65536) return r_->Commit();
    return absl::OkStatus();
  }
  uint64_t recorded = 0;

 private:
  TradeRecorder* r_;
  uint64_t from_;
};

}  // namespace

absl::StatusOr<uint64_t> ReplayJournalTail(const journal::Journal& journal,
                                           const MatcherOptions& options,
                                           uint64_t snapshot_at_most, uint64_t through,
                                           TailVisitor* visitor) {
  auto shadow = std::make_unique<EngineMatcher>(options);
  // Start from the newest snapshot at or before `snapshot_at_most`, not from record 1: the
  // matcher state at the snapshot is exactly what replaying the inputs up to it would give.
  uint64_t start = 1;
  auto snapshot = journal.LatestValidSnapshot(nullptr, snapshot_at_most);
  if (!snapshot.ok()) snapshot = std::optional<journal::Snapshot>();  // unreadable: from 1
  if (snapshot->has_value() && shadow->Restore((*snapshot)->state).ok()) {
    start = (*snapshot)->seq + 1;
  } else if (snapshot->has_value()) {
    shadow = std::make_unique<EngineMatcher>(options);  // drop a partly restored state
  }
  EngineCodec codec;
  VisitingSink sink(visitor);
  internal::ListingOutcomes listing(shadow.get());  // the security master's outcomes too
  engine::Command cmd;
  absl::Status error;
  absl::Status s = journal.ReadFrom(start, [&](uint64_t seq, absl::string_view payload) {
    if (through != 0 && seq > through) return false;
    int64_t time_us = 0;  // the input's journaled stamp: outcomes keep their live times
    error = journal::DecodeInput(payload, codec, &time_us, &cmd);
    if (!error.ok()) {
      error = absl::DataLossError(absl::StrCat("journal record ", seq, ": ", error.message()));
      return false;
    }
    visitor->OnInput(seq, cmd);
    sink.seq = seq;
    listing.ApplyAt(seq, time_us, cmd, sink);
    error = visitor->OnInputEnd(seq, listing.AppliedTimeUs(time_us));
    return error.ok();
  });
  if (!s.ok()) return s;
  if (!error.ok()) return error;
  return start;
}

absl::StatusOr<RecordedTail> RecordJournalTail(const journal::Journal& journal,
                                               const MatcherOptions& options,
                                               TradeRecorder* recorder) {
  // From the newest snapshot the trade store already covers: the inputs up to it have their
  // rows in the store.
  RecordingVisitor visitor(recorder, recorder->last_seq());
  auto start = ReplayJournalTail(journal, options, recorder->last_seq(), 0, &visitor);
  if (!start.ok()) return start.status();
  if (absl::Status c = recorder->Commit(); !c.ok()) return c;
  return RecordedTail{visitor.recorded, *start};
}

}  // namespace cfx::exchange
