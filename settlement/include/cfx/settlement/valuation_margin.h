// The production MarginSource (SPEC §9 step 4): span16 initial margin from
// `cfx::gpu_valuation::MarginEngine`, with operator throughput as stored by
// `cfx reference build` in the same data dir (`cfx::reference::FixStore::LatestThroughput`).
//
//   auto margin = OpenValuationMarginSource(data_dir, date, /*psr=*/0.15);
//   SettleInputs inputs{trades.get(), fixes.get(), margin.ok() ? margin->get() : nullptr};
//
// One margin engine per run: it is built on the first call from the day's settlement
// prices (the batch passes the same price map for every account) and reused. Built only
// when both cfx_reference and cfx_gpu_valuation exist; otherwise Unimplemented.
#ifndef CFX_SETTLEMENT_VALUATION_MARGIN_H_
#define CFX_SETTLEMENT_VALUATION_MARGIN_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/settlement/sources.h"

namespace cfx::settlement {

// Reads the throughput measurements dated <= `date` from `<data_dir>/reference` now (an
// error naming the store if it cannot be read; NotFound, nothing created, when it is not there).
// `psr` is the span16 price scan range. The result is used from one thread at a time, like the
// batch that calls it.
absl::StatusOr<std::unique_ptr<MarginSource>> OpenValuationMarginSource(const std::string& data_dir,
                                                                        common::Date date,
                                                                        double psr);

// The same span16 margin with no throughput measured (a data dir where `cfx reference
// build` never ran): every tier moves by the conservative TSR of docs/valuation.md and no
// grade has a θ. SPEC §9 step 4 asks for the span16 initial margin whatever the reference
// holds; until 2026-12-07 such a run took it as 0 (a review).
std::unique_ptr<MarginSource> ValuationMarginWithoutThroughput(common::Date date, double psr);

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_VALUATION_MARGIN_H_
