// ListingOutcomes: the engine matcher as the pipeline sees it, plus one kListing outcome
// after every product input the engine applied, with the book's terms after it. The
// security master (cfx/security_master/) is derived from these outcomes by the
// TradeRecorder, so it follows the journaled inputs exactly like the books: the live
// pipeline, recovery's re-derivation and `cfx replay --data-dir` all apply inputs through
// this one wrapper.
//
//   EngineMatcher matcher(options);
//   ListingOutcomes listing(&matcher);
//   Pipeline<engine::Command, Outcome> p(opt, journal, &codec, &listing, &listener);
#ifndef CFX_EXCHANGE_LISTING_OUTCOMES_H_
#define CFX_EXCHANGE_LISTING_OUTCOMES_H_

#include "cfx/exchange/engine_matcher.h"
#include "cfx/exchange/outcome.h"
#include "cfx/journal/pipeline_interfaces.h"

namespace cfx::exchange::internal {

// Thread safety: as the wrapped matcher (one thread at a time).
class ListingOutcomes : public journal::Matcher<engine::Command, Outcome> {
 public:
  explicit ListingOutcomes(EngineMatcher* matcher) : matcher_(matcher) {}  // not owned

  void Apply(uint64_t seq, const engine::Command& command,
             journal::OutcomeSink<Outcome>& sink) override;
  void ApplyAt(uint64_t seq, int64_t time_us, const engine::Command& command,
               journal::OutcomeSink<Outcome>& sink) override;
  int64_t AppliedTimeUs(int64_t stamp_us) const override {
    return matcher_->AppliedTimeUs(stamp_us);
  }
  void Prefetch(const engine::Command& command) const override { matcher_->Prefetch(command); }
  std::string Snapshot() const override { return matcher_->Snapshot(); }
  absl::Status Restore(absl::string_view snapshot) override { return matcher_->Restore(snapshot); }

 private:
  EngineMatcher* matcher_;
  Outcome scratch_;
};

}  // namespace cfx::exchange::internal

#endif  // CFX_EXCHANGE_LISTING_OUTCOMES_H_
