// Strict CSV helpers shared by the input readers: no quoting (no field of these files may
// hold a comma or a quote), exact header, exact field count, CRLF tolerated, blank lines
// skipped but counted.
#ifndef CFX_GPU_VALUATION_SRC_CSV_UTIL_H_
#define CFX_GPU_VALUATION_SRC_CSV_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cfx::gpu_valuation::internal {

struct CsvLine {
  int number = 0;  // 1-based physical line; the header is line 1
  std::vector<std::string> fields;
};

// Checks the header and splits every data line into exactly as many fields as the header.
absl::StatusOr<std::vector<CsvLine>> SplitCsv(absl::string_view text, absl::string_view file,
                                              absl::string_view expected_header);

// "file:line: field 'name': message"
absl::Status FieldError(absl::string_view file, int line, absl::string_view field,
                        absl::string_view message);

// Strict decimal: -?digits(.digits)? , finite. InvalidArgument otherwise (message only).
absl::StatusOr<double> ParseDecimal(absl::string_view text);
// Strict signed integer: -?digits, in int64.
absl::StatusOr<int64_t> ParseInteger(absl::string_view text);

// Whole file; NotFound when it cannot be opened.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

}  // namespace cfx::gpu_valuation::internal

#endif  // CFX_GPU_VALUATION_SRC_CSV_UTIL_H_
