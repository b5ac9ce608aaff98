#include "cfx/common/csv.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cfx::common {
namespace {

constexpr absl::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool IsPadding(char c) { return c == ' ' || c == '\t'; }

bool IsDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// What differs between the expected header and the one given, column by column: the first
// column whose name is not the expected one, a missing one, or an extra one.
std::string HeaderDifference(const std::vector<absl::string_view>& expected,
                             absl::string_view got) {
  if (got.find('\r') != absl::string_view::npos) {
    return "its lines end in a bare CR (carriage return): use LF or CRLF line ends";
  }
  // Column by column, no further than one past the expected ones: a header line of a
  // gigabyte of commas holds no vector of its names.
  size_t i = 0;
  for (absl::string_view name : absl::StrSplit(got, ',')) {
    if (i >= expected.size()) {
      return absl::StrCat("column ", i + 1, " '", Clipped(name), "' is not one of them");
    }
    if (name != expected[i]) {
      return absl::StrCat("column ", i + 1, " is '", Clipped(name), "', expected '", expected[i],
                          "'");
    }
    ++i;
  }
  if (i < expected.size()) return absl::StrCat("column ", i + 1, " '", expected[i], "' is missing");
  return "";
}

}  // namespace

// Text from the file as a message can show it: a control byte or one of 0x7F and up as
// \xNN (a bare CR as \r), so an error never carries raw bytes to a terminal or a log.
std::string Shown(absl::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string Clipped(absl::string_view text) {
  constexpr size_t kHead = 160, kTail = 160;
  if (text.size() <= kHead + kTail + 64) return Shown(text);
  return absl::StrCat(Shown(text.substr(0, kHead)), "...(", text.size() - kHead - kTail,
                      " bytes not shown)...", Shown(text.substr(text.size() - kTail)));
}

absl::Status CsvError(absl::string_view file, int64_t line, absl::string_view column,
                      absl::string_view reason_in) {
  // The reason quotes what the file holds: raw bytes escaped, and a value of megabytes
  // shown by its two ends (the message's own words come last, so its end is kept). Cut
  // before escaping: an escaped copy of a gigabyte would be four.
  const std::string reason = Clipped(reason_in);
  if (column.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ":", line, ": ", reason));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(file, ":", line, ": column ", column, ": ", reason));
}

CsvReader::CsvReader(absl::string_view text, absl::string_view file, absl::string_view header)
    : text_(text), file_(file), header_(header), names_(absl::StrSplit(header, ',')) {}

bool CsvReader::NextLine(absl::string_view* line) {
  if (pos_ >= text_.size()) return false;
  size_t end = text_.find('\n', pos_);
  if (end == absl::string_view::npos) end = text_.size();
  *line = text_.substr(pos_, end - pos_);
  if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
  pos_ = end + 1;
  ++line_;
  return true;
}

absl::Status CsvReader::CheckHeader() {
  absl::string_view header;
  if (!NextLine(&header)) return CsvError(file_, 1, "", "empty file, expected a header");
  if (absl::StartsWith(header, kUtf8Bom)) header.remove_prefix(kUtf8Bom.size());
  if (header != header_) {
    return CsvError(file_, 1, "",
                    absl::StrCat("header must be '", header_, "', got '", Clipped(header),
                                 "': ", HeaderDifference(names_, header)));
  }
  return absl::OkStatus();
}

absl::Status CsvReader::SplitRow(absl::string_view line) {
  fields_.clear();  // keeps its capacity: no allocation per row
  for (size_t start = 0;;) {
    const size_t comma = line.find(',', start);
    fields_.push_back(line.substr(start, comma == absl::string_view::npos ? comma : comma - start));
    // One field past the header's is an error already: a line of a million commas holds no
    // million views.
    if (comma == absl::string_view::npos || fields_.size() > names_.size()) break;
    start = comma + 1;
  }
  if (fields_.size() < names_.size()) {
    return CsvError(
        file_, line_, names_[fields_.size()],
        absl::StrCat("missing (expected ", names_.size(), " fields, got ", fields_.size(), ")"));
  }
  if (fields_.size() > names_.size()) {
    // The extra field is named by its place and the column it follows (a value holding a
    // comma, or a column the header does not have).
    return CsvError(file_, line_, "",
                    absl::StrCat("expected ", names_.size(), " fields, got ",
                                 1 + std::count(line.begin(), line.end(), ','), ": field ",
                                 names_.size() + 1, " ('", Clipped(fields_[names_.size()]),
                                 "', after column ", names_.back(), ") is not in the header"));
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    absl::string_view f = fields_[i];
    if (f.empty()) return Error(i, "empty");
    if (IsPadding(f.front()) || IsPadding(f.back()) || f.find('"') != absl::string_view::npos) {
      return Error(i, absl::StrCat("unexpected space or quote: '", Clipped(f), "'"));
    }
  }
  return absl::OkStatus();
}

bool CsvReader::Next() {
  if (!status_.ok()) return false;
  if (!header_checked_) {
    header_checked_ = true;
    status_ = CheckHeader();
    if (!status_.ok()) return false;
  }
  absl::string_view line;
  while (NextLine(&line)) {
    if (line.empty()) continue;
    status_ = SplitRow(line);
    return status_.ok();
  }
  fields_.clear();
  return false;
}

absl::Status CsvReader::Error(size_t column, absl::string_view reason) const {
  return CsvError(file_, line_, names_[column], reason);
}

absl::StatusOr<double> ParseDecimalDouble(absl::string_view text) {
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

bool IsPlainName(absl::string_view text) {
  if (text.empty() || text.size() > 64) return false;
  for (char c : text) {
    if (c <= ' ' || c > '~') return false;  // char may be signed: bytes >= 0x80 fail too
  }
  return true;
}

// The same rule as the replay parser's (engine/src/replay_parse.cc, Fields::Account), which
// cannot call this (the engine depends on no other cfx module): change both together.
bool IsValidAccountId(absl::string_view text) {
  if (text.empty() || text.size() > 64 || text == "settlement_prices") return false;
  auto alnum = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  if (!alnum(text.front())) return false;
  for (char c : text) {
    if (!alnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  // A directory opens (and reads as nothing) on Linux: it would pass for an empty file, a
  // config of defaults or a replay of no lines.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;  // why: missing, not readable, ...
    const std::string why = absl::StrCat(path, ": cannot open file: ", std::strerror(err));
    if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(why);
    return absl::PermissionDeniedError(why);
  }
  // Read into one buffer sized from the file (a stream's doubling buffer and its copy took
  // three to nine times a large file's size); a file that does not fit in memory, or a
  // device that never ends, is an error naming it, not an abort.
  std::string text;
  try {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > 0) text.reserve(size);
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
      text.append(chunk, static_cast<size_t>(in.gcount()));
    }
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(path, ": too large to read into memory (",
                                                     text.size(), " bytes read so far)"));
  } catch (const std::length_error&) {
    return absl::ResourceExhaustedError(absl::StrCat(path, ": too large to read into memory"));
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return text;
}

}  // namespace cfx::common
