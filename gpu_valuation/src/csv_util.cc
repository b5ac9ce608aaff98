#include "csv_util.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cfx::gpu_valuation::internal {

absl::Status FieldError(absl::string_view file, int line, absl::string_view field,
                        absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat(file, ":", line, ": field '", field, "': ", message));
}

absl::StatusOr<std::vector<CsvLine>> SplitCsv(absl::string_view text, absl::string_view file,
                                              absl::string_view expected_header) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  // A final newline leaves one empty piece that is not a line.
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ":1: missing header, expected '", expected_header, "'"));
  }
  std::vector<std::string> header_fields = absl::StrSplit(expected_header, ',');
  std::vector<CsvLine> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const int number = static_cast<int>(i) + 1;
    if (i == 0) {
      if (line != expected_header) {
        return absl::InvalidArgumentError(absl::StrCat(file, ":1: bad header '", line,
                                                       "', expected '", expected_header, "'"));
      }
      continue;
    }
    if (line.empty()) continue;
    if (line.find('"') != absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", number, ": quoted fields are not supported"));
    }
    CsvLine parsed;
    parsed.number = number;
    parsed.fields = absl::StrSplit(line, ',');
    if (parsed.fields.size() != header_fields.size()) {
      const size_t k = std::min(parsed.fields.size(), header_fields.size());
      const std::string& name =
          parsed.fields.size() < header_fields.size() ? header_fields[k] : header_fields.back();
      return FieldError(file, number, name,
                        absl::StrCat("expected ", header_fields.size(), " fields, found ",
                                     parsed.fields.size()));
    }
    out.push_back(std::move(parsed));
  }
  return out;
}

namespace {
bool IsDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}
}  // namespace

absl::StatusOr<double> ParseDecimal(absl::string_view text) {
  absl::string_view body = text;
  if (!body.empty() && body.front() == '-') body.remove_prefix(1);
  const size_t dot = body.find('.');
  const bool ok = dot == absl::string_view::npos
                      ? IsDigits(body)
                      : IsDigits(body.substr(0, dot)) && IsDigits(body.substr(dot + 1));
  if (!ok) return absl::InvalidArgumentError(absl::StrCat("not a decimal number: \"", text, "\""));
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) {
    return absl::InvalidArgumentError(absl::StrCat("not a finite number: \"", text, "\""));
  }
  return value;
}

absl::StatusOr<int64_t> ParseInteger(absl::string_view text) {
  absl::string_view body = text;
  if (!body.empty() && body.front() == '-') body.remove_prefix(1);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!IsDigits(body) || ec != std::errc() || ptr != text.data() + text.size()) {
    return absl::InvalidArgumentError(absl::StrCat("not an integer: \"", text, "\""));
  }
  return value;
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return ss.str();
}

}  // namespace cfx::gpu_valuation::internal
