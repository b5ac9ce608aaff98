#include "listing_outcomes.h"

#include <variant>

namespace cfx::exchange::internal {

void ListingOutcomes::Apply(uint64_t seq, const engine::Command& command,
                            journal::OutcomeSink<Outcome>& sink) {
  ApplyAt(seq, 0, command, sink);
}

void ListingOutcomes::ApplyAt(uint64_t seq, int64_t time_us, const engine::Command& command,
                              journal::OutcomeSink<Outcome>& sink) {
  matcher_->ApplyAt(seq, time_us, command, sink);
  const auto* product = std::get_if<engine::ProductCmd>(&command);
  if (product == nullptr) return;
  const engine::Engine& eng = matcher_->engine();
  const std::optional<engine::SymbolId> id = eng.FindSymbol(product->sym.view());
  if (!id) return;  // refused (invalid_field): nothing was listed
  const engine::BookConfig& terms = eng.book(*id).config();
  scratch_ = Outcome{};
  scratch_.kind = OutcomeKind::kListing;
  scratch_.sym = product->sym;
  scratch_.ts = matcher_->input_time();  // the input's time, as its other outcomes
  scratch_.listing_has_ref = terms.has_ref;
  scratch_.listing_ref = terms.ref;
  scratch_.listing_max_order_qty = terms.max_order_qty;
  sink.Emit(scratch_);
}

}  // namespace cfx::exchange::internal
