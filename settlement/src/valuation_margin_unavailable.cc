// Compiled when cfx_reference or cfx_gpu_valuation is not in the tree.
#include "cfx/settlement/valuation_margin.h"

namespace cfx::settlement {

absl::StatusOr<std::unique_ptr<MarginSource>> OpenValuationMarginSource(const std::string&,
                                                                         Date, double) {
  return absl::UnimplementedError(
      "cfx was built without the valuation or reference module (no margin engine)");
}

}  // namespace cfx::settlement
