// The output folder of `cfx demo` and `cfx demo --standby`: wiped when an earlier demo
// wrote it (it holds the marker file `.cfx-demo`), refused when it holds anything else.
#ifndef CFX_DEMO_SRC_DEMO_OUT_H_
#define CFX_DEMO_SRC_DEMO_OUT_H_

#include <string>

#include "absl/status/status.h"

namespace cfx::demo {

// Makes `out` an empty folder with the marker in it. FailedPrecondition when `out` is not a
// directory, or is not empty and has no marker (left untouched).
absl::Status PrepareOut(const std::string& out);

}  // namespace cfx::demo

#endif  // CFX_DEMO_SRC_DEMO_OUT_H_
