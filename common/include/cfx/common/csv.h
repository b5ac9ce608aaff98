// The one strict CSV reader of cfx's input files (observations.csv, throughput.csv, the
// positions, prices and scenario files of `cfx margin`), and the whole-file read they share.
//
//   CsvReader csv(text, "obs.csv", "ts,provider,gpu");
//   while (csv.Next()) {
//     if (!IsValidGpuName(csv.field(2))) return csv.Error(2, "unknown gpu: 'x'");
//   }
//   if (!csv.status().ok()) return csv.status();  // "obs.csv:3: column gpu: empty"
//
// Rules (an input is machine-written; anything else is a data-quality problem worth stopping
// for): line 1 is exactly the header, after an optional UTF-8 byte order mark (an artefact
// of spreadsheet exports); fields are separated by ',' with no quoting (no field may hold a
// '"'), no surrounding spaces or tabs and no empty field; every row has exactly as many
// fields as the header. CRLF line ends are accepted. Blank lines are skipped but counted, so
// line numbers are those an editor shows. Every error is InvalidArgument and names the file,
// the line and, where there is one, the column: "file:line: column NAME: reason".
#ifndef CFX_COMMON_CSV_H_
#define CFX_COMMON_CSV_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cfx::common {

// "file:line: column NAME: reason", or "file:line: reason" when `column` is empty.
// Text from outside (a file, a flag) as a message can show it: a control byte or one of 0x7F
// and up as \xNN (a bare CR as \r), so an error never carries raw bytes to a terminal or a
// log.
std::string Shown(absl::string_view text);
// Shown, of at most ~400 bytes of `text`: its two ends and how many bytes between are left out.
std::string Clipped(absl::string_view text);

absl::Status CsvError(absl::string_view file, int64_t line, absl::string_view column,
                      absl::string_view reason);

// Reads the data rows of one CSV text, checking the header on the first Next().
// `text`, `file` and `header` must outlive the reader; fields are views into `text`.
// Thread safety: not thread-safe; one reader per text.
class CsvReader {
 public:
  CsvReader(absl::string_view text, absl::string_view file, absl::string_view header);

  // Moves to the next data row. Returns false at the end of the text or at the first
  // malformed line (bad header, wrong field count, empty, quoted or space-padded field);
  // then status() says which.
  bool Next();
  // OK until Next() has met a malformed line.
  const absl::Status& status() const { return status_; }

  // The current row (REQUIRES: the last Next() returned true; i < column_count()).
  absl::string_view field(size_t i) const { return fields_[i]; }
  const std::vector<absl::string_view>& fields() const { return fields_; }
  // 1-based physical line of the current row; the header is line 1.
  int64_t line() const { return line_; }
  size_t column_count() const { return names_.size(); }
  absl::string_view column_name(size_t i) const { return names_[i]; }

  // An error about column i of the current row: "file:line: column NAME: reason".
  absl::Status Error(size_t column, absl::string_view reason) const;

 private:
  absl::Status CheckHeader();
  absl::Status SplitRow(absl::string_view line);
  // The next physical line without its '\n' or '\r\n'; false at the end of the text.
  bool NextLine(absl::string_view* line);

  absl::string_view text_;
  absl::string_view file_;
  absl::string_view header_;
  std::vector<absl::string_view> names_;
  std::vector<absl::string_view> fields_;
  size_t pos_ = 0;
  int64_t line_ = 0;  // a file of 2^31 blank lines is only 2 GiB
  bool header_checked_ = false;
  absl::Status status_;
};

// Field parsers for values a CSV field holds; the message names the value, not the place
// (wrap it with CsvReader::Error). InvalidArgument when malformed.
// A finite decimal -?digits(.digits)? as the nearest double (no exponent, no '+').
absl::StatusOr<double> ParseDecimalDouble(absl::string_view text);
// A signed integer -?digits within int64.
absl::StatusOr<int64_t> ParseInteger(absl::string_view text);
// A name used as a key (account, operator): 1-64 printable ASCII characters, no space, so
// it is safe in store keys and JSON output. kPlainNameRule says so in an error.
bool IsPlainName(absl::string_view text);
inline constexpr absl::string_view kPlainNameRule =
    "must be 1-64 printable ASCII characters without spaces";

// An account id (SPEC §9): `[A-Za-z0-9][A-Za-z0-9_-]*`, at most 64 characters, and not
// `settlement_prices` (reserved: `settlement_prices.json` sits beside the statements, SPEC
// §12). Account ids name statement files, so the settlement batch's own files (starting
// with `_`) and hidden or path-like names can never be one. kAccountIdRule says so.
bool IsValidAccountId(absl::string_view text);
inline constexpr absl::string_view kAccountIdRule =
    "must match [A-Za-z0-9][A-Za-z0-9_-]* (at most 64 characters), not settlement_prices";

// The whole file as bytes. NotFound "path: cannot open file" when it cannot be opened,
// DataLoss "path: read error" when reading fails.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

}  // namespace cfx::common

#endif  // CFX_COMMON_CSV_H_
