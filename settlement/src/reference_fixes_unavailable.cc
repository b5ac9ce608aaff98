// Compiled when the cfx_reference target does not exist (a tree without reference/).
#include "cfx/settlement/reference_fixes.h"

namespace cfx::settlement {

absl::StatusOr<std::unique_ptr<FixSource>> OpenReferenceFixSource(const std::string& data_dir) {
  return absl::UnimplementedError("cfx was built without the reference module (no fix store)");
}

}  // namespace cfx::settlement
