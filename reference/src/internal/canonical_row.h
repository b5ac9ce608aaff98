// The canonical observations.csv row (inputs.h ObservationCsvRow), written without temporary
// strings: `cfx reference build` writes one for every eligible observation of a run (the rows
// behind inputs_sha256), a million of them for a busy day.
#ifndef CFX_REFERENCE_INTERNAL_CANONICAL_ROW_H_
#define CFX_REFERENCE_INTERNAL_CANONICAL_ROW_H_

#include <cstdint>
#include <string>

#include "cfx/common/date.h"
#include "cfx/reference/inputs.h"

namespace cfx::reference::internal {

// Thread safety: one per thread (it caches the last date's text).
class CanonicalRowWriter {
 public:
  // Appends the row of `o` to `out`, without a line end.
  void Append(const Observation& o, std::string* out);

 private:
  // Appends value / 10^6 without trailing zeros (FormatTrimmed(value, 6)). REQUIRES: >= 0.
  static void AppendE6(int64_t value, std::string* out);
  static void Append2(int v, std::string* out);
  int64_t day_ = INT64_MIN;
  std::string date_;  // "YYYY-MM-DD" of day_
};

}  // namespace cfx::reference::internal

#endif  // CFX_REFERENCE_INTERNAL_CANONICAL_ROW_H_
