// The production FixSource: fixes published by `cfx reference build` in the same data dir
// (`cfx::reference::FixStore`). Built only when the cfx_reference target exists; otherwise
// OpenReferenceFixSource returns Unimplemented and callers fall back (cfx settle runs
// without fixes and says so).
#ifndef CFX_SETTLEMENT_REFERENCE_FIXES_H_
#define CFX_SETTLEMENT_REFERENCE_FIXES_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cfx/settlement/sources.h"

namespace cfx::settlement {

// Opens `<data_dir>/reference`; NotFound (and nothing created) when no fix was stored
// there. Unimplemented when built without cfx_reference.
absl::StatusOr<std::unique_ptr<FixSource>> OpenReferenceFixSource(const std::string& data_dir);

}  // namespace cfx::settlement

#endif  // CFX_SETTLEMENT_REFERENCE_FIXES_H_
