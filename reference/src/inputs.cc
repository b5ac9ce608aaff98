#include "cfx/reference/inputs.h"

#include <array>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cfx/common/decimal.h"
#include "internal/text.h"

namespace cfx::reference {
namespace {

constexpr std::array<const char*, 5> kLeaseNames = {"on_demand", "reserved_1m", "reserved_3m",
                                                    "reserved_1y", "spot"};

// Iterates the physical lines of a CSV text, numbering them from 1 and dropping a trailing
// '\r'.
class LineReader {
 public:
  explicit LineReader(absl::string_view text) : text_(text) {}
  bool Next(absl::string_view* line) {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == absl::string_view::npos) end = text_.size();
    *line = text_.substr(pos_, end - pos_);
    if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
    pos_ = end + 1;
    ++number_;
    return true;
  }
  int number() const { return number_; }

 private:
  absl::string_view text_;
  size_t pos_ = 0;
  int number_ = 0;
};

absl::Status RowError(absl::string_view file, int line, absl::string_view column,
                      absl::string_view reason) {
  if (column.empty())
    return absl::InvalidArgumentError(absl::StrCat(file, ":", line, ": ", reason));
  return absl::InvalidArgumentError(
      absl::StrCat(file, ":", line, ": column ", column, ": ", reason));
}

// Splits a data line into exactly `names.size()` fields or explains why not.
absl::Status SplitFields(absl::string_view line, const std::vector<absl::string_view>& names,
                         absl::string_view file, int line_no,
                         std::vector<absl::string_view>* fields) {
  *fields = absl::StrSplit(line, ',');
  if (fields->size() != names.size()) {
    return RowError(file, line_no, "",
                    absl::StrCat("expected ", names.size(), " fields, got ", fields->size()));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    absl::string_view f = (*fields)[i];
    if (f.empty()) return RowError(file, line_no, names[i], "empty");
    if (f.front() == ' ' || f.back() == ' ' || f.front() == '"') {
      return RowError(file, line_no, names[i],
                      absl::StrCat("unexpected space or quote: '", f, "'"));
    }
  }
  return absl::OkStatus();
}

// Values above 10^9 (USD per GPU-hour, GPU-hours, tokens/s) are data errors; the bound also
// keeps every weight and product of the methodology far inside 64/128-bit integers.
constexpr int64_t kMaxInputE6 = 1'000'000'000LL * 1'000'000;

absl::StatusOr<int64_t> PositiveScaled(absl::string_view f) {
  absl::StatusOr<int64_t> v = ParseScaled(f, kInputScale);
  if (!v.ok()) return v.status();
  if (*v <= 0) return absl::InvalidArgumentError(absl::StrCat("must be > 0: '", f, "'"));
  if (*v > kMaxInputE6) {
    return absl::InvalidArgumentError(absl::StrCat("must be <= 1000000000: '", f, "'"));
  }
  return v;
}

absl::StatusOr<int64_t> PositiveInteger(absl::string_view f) {
  absl::StatusOr<int64_t> v = ParseScaled(f, 0);
  if (!v.ok() || f.find('.') != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("not an integer: '", f, "'"));
  }
  if (*v <= 0) return absl::InvalidArgumentError(absl::StrCat("must be > 0: '", f, "'"));
  return v;
}

absl::Status CheckHeader(LineReader& reader, absl::string_view expected, absl::string_view file) {
  absl::string_view header;
  if (!reader.Next(&header)) return RowError(file, 1, "", "empty file, expected a header");
  // A UTF-8 byte order mark is an artefact of spreadsheet exports, not data.
  if (header.substr(0, 3) == "\xEF\xBB\xBF") header.remove_prefix(3);
  if (header != expected) {
    return RowError(file, 1, "",
                    absl::StrCat("header must be '", expected, "', got '", header, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::optional<Lease> ParseLease(absl::string_view s) {
  for (size_t i = 0; i < kLeaseNames.size(); ++i) {
    if (s == kLeaseNames[i]) return static_cast<Lease>(i);
  }
  return std::nullopt;
}
const char* LeaseName(Lease l) { return kLeaseNames[static_cast<int>(l)]; }

std::optional<Kind> ParseKind(absl::string_view s) {
  if (s == "trade") return Kind::kTrade;
  if (s == "quote") return Kind::kQuote;
  return std::nullopt;
}
const char* KindName(Kind k) { return k == Kind::kTrade ? "trade" : "quote"; }

std::string Observation::GradeKey() const {
  return absl::StrCat(gpu, "-", TierName(tier), "-", region);
}

absl::StatusOr<std::vector<Observation>> ParseObservationsCsv(absl::string_view text,
                                                              absl::string_view file) {
  static const std::vector<absl::string_view> kNames = absl::StrSplit(kObservationsHeader, ',');
  LineReader reader(text);
  if (absl::Status s = CheckHeader(reader, kObservationsHeader, file); !s.ok()) return s;
  std::vector<Observation> out;
  out.reserve(text.size() / 64);
  absl::string_view line;
  std::vector<absl::string_view> f;
  while (reader.Next(&line)) {
    if (line.empty()) continue;
    const int n = reader.number();
    if (absl::Status s = SplitFields(line, kNames, file, n, &f); !s.ok()) return s;
    Observation o;
    absl::StatusOr<TimestampUs> ts = ParseTimestamp(f[0]);
    if (!ts.ok()) return RowError(file, n, "ts", ts.status().message());
    o.ts = *ts;
    o.provider = std::string(f[1]);
    if (!IsValidGpuName(f[2])) {
      return RowError(file, n, "gpu", absl::StrCat("unknown gpu: '", f[2], "'"));
    }
    o.gpu = std::string(f[2]);
    std::optional<Tier> tier = ParseTier(f[3]);
    if (!tier) return RowError(file, n, "tier", absl::StrCat("unknown tier: '", f[3], "'"));
    o.tier = *tier;
    if (!IsKnownRegion(f[4])) {
      return RowError(file, n, "region", absl::StrCat("unknown region: '", f[4], "'"));
    }
    o.region = std::string(f[4]);
    std::optional<Lease> lease = ParseLease(f[5]);
    if (!lease) return RowError(file, n, "lease", absl::StrCat("unknown lease: '", f[5], "'"));
    o.lease = *lease;
    std::optional<Kind> kind = ParseKind(f[6]);
    if (!kind) return RowError(file, n, "kind", absl::StrCat("unknown kind: '", f[6], "'"));
    o.kind = *kind;
    absl::StatusOr<int64_t> price = PositiveScaled(f[7]);
    if (!price.ok()) return RowError(file, n, "price", price.status().message());
    o.price_e6 = *price;
    absl::StatusOr<int64_t> hours = PositiveScaled(f[8]);
    if (!hours.ok()) return RowError(file, n, "gpu_hours", hours.status().message());
    o.gpu_hours_e6 = *hours;
    out.push_back(std::move(o));
  }
  return out;
}

absl::StatusOr<std::vector<ThroughputRow>> ParseThroughputCsv(absl::string_view text,
                                                              absl::string_view file) {
  static const std::vector<absl::string_view> kNames = absl::StrSplit(kThroughputHeader, ',');
  LineReader reader(text);
  if (absl::Status s = CheckHeader(reader, kThroughputHeader, file); !s.ok()) return s;
  std::vector<ThroughputRow> out;
  std::map<std::string, std::pair<Tier, int>, std::less<>> operator_tier;  // tier, first line
  absl::string_view line;
  std::vector<absl::string_view> f;
  while (reader.Next(&line)) {
    if (line.empty()) continue;
    const int n = reader.number();
    if (absl::Status s = SplitFields(line, kNames, file, n, &f); !s.ok()) return s;
    ThroughputRow r;
    absl::StatusOr<Date> date = ParseDate(f[0]);
    if (!date.ok()) return RowError(file, n, "date", date.status().message());
    r.date = *date;
    r.operator_name = std::string(f[1]);
    std::optional<Tier> tier = ParseTier(f[2]);
    if (!tier) return RowError(file, n, "tier", absl::StrCat("unknown tier: '", f[2], "'"));
    r.tier = *tier;
    if (!IsValidGpuName(f[3])) {
      return RowError(file, n, "gpu", absl::StrCat("unknown gpu: '", f[3], "'"));
    }
    r.gpu = std::string(f[3]);
    r.model = std::string(f[4]);
    absl::StatusOr<int64_t> isl = PositiveInteger(f[5]);
    if (!isl.ok()) return RowError(file, n, "isl", isl.status().message());
    r.isl = *isl;
    absl::StatusOr<int64_t> osl = PositiveInteger(f[6]);
    if (!osl.ok()) return RowError(file, n, "osl", osl.status().message());
    r.osl = *osl;
    absl::StatusOr<int64_t> tps = PositiveScaled(f[7]);
    if (!tps.ok()) return RowError(file, n, "output_tps_per_gpu", tps.status().message());
    r.tps_e6 = *tps;
    auto [it, inserted] = operator_tier.try_emplace(r.operator_name, r.tier, n);
    if (!inserted && it->second.first != r.tier) {
      return RowError(file, n, "tier",
                      absl::StrCat("operator '", r.operator_name, "' is listed under ",
                                   TierName(r.tier), " here and under ", TierName(it->second.first),
                                   " on line ", it->second.second));
    }
    out.push_back(std::move(r));
  }
  return out;
}

absl::StatusOr<std::vector<Observation>> ReadObservationsFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseObservationsCsv(*text, path);
}

absl::StatusOr<std::vector<ThroughputRow>> ReadThroughputFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseThroughputCsv(*text, path);
}

std::string ObservationsToCsv(const std::vector<Observation>& rows) {
  std::string out = absl::StrCat(kObservationsHeader, "\n");
  for (const Observation& o : rows) {
    absl::StrAppend(&out, FormatTimestamp(o.ts), ",", o.provider, ",", o.gpu, ",", TierName(o.tier),
                    ",", o.region, ",", LeaseName(o.lease), ",", KindName(o.kind), ",",
                    internal::FormatTrimmed(o.price_e6, kInputScale), ",",
                    internal::FormatTrimmed(o.gpu_hours_e6, kInputScale), "\n");
  }
  return out;
}

std::string ThroughputToCsv(const std::vector<ThroughputRow>& rows) {
  std::string out = absl::StrCat(kThroughputHeader, "\n");
  for (const ThroughputRow& r : rows) {
    absl::StrAppend(&out, FormatDate(r.date), ",", r.operator_name, ",", TierName(r.tier), ",",
                    r.gpu, ",", r.model, ",", r.isl, ",", r.osl, ",",
                    internal::FormatTrimmed(r.tps_e6, kInputScale), "\n");
  }
  return out;
}

}  // namespace cfx::reference
