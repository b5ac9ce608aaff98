#include "cfx/reference/inputs.h"

#include <array>
#include <map>

#include "absl/strings/str_cat.h"
#include "cfx/common/csv.h"
#include "cfx/common/decimal.h"
#include "cfx/reference/throughput.h"
#include "internal/canonical_row.h"
#include "internal/text.h"

namespace cfx::reference {
namespace {

constexpr std::array<const char*, 5> kLeaseNames = {"on_demand", "reserved_1m", "reserved_3m",
                                                    "reserved_1y", "spot"};

// Values above 10^9 (USD per GPU-hour, GPU-hours, tokens/s) are data errors; the bound also
// keeps every weight and product of the methodology far inside 64/128-bit integers.
constexpr int64_t kMaxInputE6 = 1'000'000'000LL * 1'000'000;
// The GPU-hours of one observations file together (a day's market trades far fewer): a
// fix's volume, the sum of the hours it used, fits int64 micro-hours with room to spare.
// Until 2026-12-07 about 9,300 rows of 10^9 hours wrapped the volume negative, and the
// stored record was then refused on reading.
constexpr int64_t kMaxTotalHoursE6 = 1'000'000'000'000LL * 1'000'000;

absl::StatusOr<int64_t> PositiveScaled(absl::string_view f) {
  absl::StatusOr<int64_t> v = common::ParseScaled(f, kInputScale);
  if (!v.ok()) return v.status();
  if (*v <= 0) return absl::InvalidArgumentError(absl::StrCat("must be > 0: '", f, "'"));
  if (*v > kMaxInputE6) {
    return absl::InvalidArgumentError(absl::StrCat("must be <= 1000000000: '", f, "'"));
  }
  return v;
}

absl::StatusOr<int64_t> PositiveInteger(absl::string_view f) {
  absl::StatusOr<int64_t> v = common::ParseScaled(f, 0);
  if (!v.ok() || f.find('.') != absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("not an integer: '", f, "'"));
  }
  if (*v <= 0) return absl::InvalidArgumentError(absl::StrCat("must be > 0: '", f, "'"));
  return v;
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
  return absl::StrCat(gpu, "-", common::TierName(tier), "-", region);
}

namespace {

// A provider's name: 1-128 bytes of UTF-8 text without control characters. Names go into
// the store, the inputs hash and JSON output (invalid UTF-8 there aborted `reference build
// --data-dir`), and are compared byte for byte (a NUL made a provider of its own).
bool IsValidProviderName(absl::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  size_t i = 0;
  while (i < name.size()) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) return false;
      ++i;
      continue;
    }
    const size_t extra = (c & 0xE0) == 0xC0   ? 1
                         : (c & 0xF0) == 0xE0 ? 2
                         : (c & 0xF8) == 0xF0 ? 3
                                              : 0;
    if (extra == 0 || i + extra > name.size() - 1) return false;  // a sequence cut short
    uint32_t cp = c & (0x3Fu >> extra);
    for (size_t k = 1; k <= extra; ++k) {
      const unsigned char cc = static_cast<unsigned char>(name[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    // No overlong forms, no surrogates, nothing past U+10FFFF, no C1 controls.
    if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF || (cp >= 0x80 && cp <= 0x9F)) {
      return false;
    }
    // Nothing that shows as nothing or as a plain space: "Acme", "Acme" + U+200B and
    // "Acme" + U+00A0 looked alike and counted as three providers, each with its own vote
    // in step 3 and its own cap (until 2026-12-07, a review). Refused: the no-break and
    // other spaces (U+00A0, U+1680, U+2000..U+200A, U+202F, U+205F, U+3000), the format
    // characters (U+00AD, U+061C, U+180E, U+200B..U+200F, U+202A..U+202E, U+2060..U+206F,
    // U+FEFF, U+FFF9..U+FFFB) and the line and paragraph separators (U+2028, U+2029).
    const bool invisible = cp == 0xA0 || cp == 0xAD || cp == 0x61C || cp == 0x1680 ||
                           cp == 0x180E || (cp >= 0x2000 && cp <= 0x200F) ||
                           (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) ||
                           cp == 0x3000 || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB);
    if (invisible) return false;
    i += 1 + extra;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<Observation>> ParseObservationsCsv(absl::string_view text,
                                                              absl::string_view file) {
  common::CsvReader csv(text, file, kObservationsHeader);
  std::vector<Observation> out;
  out.reserve(text.size() / 64);
  int64_t total_hours_e6 = 0;  // a fix's volume sums a subset of them: it fits when this does
  while (csv.Next()) {
    const std::vector<absl::string_view>& f = csv.fields();
    Observation o;
    absl::StatusOr<common::TimestampUs> ts = common::ParseTimestamp(f[0]);
    // ISO 8601 with its `T` (the common parser also takes a space, for other callers).
    if (ts.ok() && (f[0].size() < 11 || f[0][10] != 'T')) {
      ts = absl::InvalidArgumentError(
          absl::StrCat("not an ISO 8601 UTC time (YYYY-MM-DDTHH:MM:SSZ): '", f[0], "'"));
    }
    if (!ts.ok()) return csv.Error(0, ts.status().message());
    o.ts = *ts;
    if (!IsValidProviderName(f[1])) {
      return csv.Error(1,
                       "provider must be 1-128 bytes of UTF-8 text without control, format or "
                       "space characters other than a plain space");
    }
    o.provider = std::string(f[1]);
    if (!common::IsValidGpuName(f[2]))
      return csv.Error(2, absl::StrCat("unknown gpu: '", f[2], "'"));
    o.gpu = std::string(f[2]);
    std::optional<common::Tier> tier = common::ParseTier(f[3]);
    if (!tier) return csv.Error(3, absl::StrCat("unknown tier: '", f[3], "'"));
    o.tier = *tier;
    if (!common::IsKnownRegion(f[4]))
      return csv.Error(4, absl::StrCat("unknown region: '", f[4], "'"));
    o.region = std::string(f[4]);
    std::optional<Lease> lease = ParseLease(f[5]);
    if (!lease) return csv.Error(5, absl::StrCat("unknown lease: '", f[5], "'"));
    o.lease = *lease;
    std::optional<Kind> kind = ParseKind(f[6]);
    if (!kind) return csv.Error(6, absl::StrCat("unknown kind: '", f[6], "'"));
    o.kind = *kind;
    absl::StatusOr<int64_t> price = PositiveScaled(f[7]);
    if (!price.ok()) return csv.Error(7, price.status().message());
    o.price_e6 = *price;
    absl::StatusOr<int64_t> hours = PositiveScaled(f[8]);
    if (!hours.ok()) return csv.Error(8, hours.status().message());
    o.gpu_hours_e6 = *hours;
    if (*hours > kMaxTotalHoursE6 - total_hours_e6) {
      return csv.Error(8, "the file's gpu_hours add up to more than 10^12");
    }
    total_hours_e6 += *hours;
    out.push_back(std::move(o));
  }
  if (!csv.status().ok()) return csv.status();
  return out;
}

absl::StatusOr<std::vector<ThroughputRow>> ParseThroughputCsv(absl::string_view text,
                                                              absl::string_view file) {
  common::CsvReader csv(text, file, kThroughputHeader);
  std::vector<ThroughputRow> out;
  std::map<std::string, std::pair<common::Tier, int64_t>, std::less<>>
      operator_tier;  // tier, first line
  while (csv.Next()) {
    const std::vector<absl::string_view>& f = csv.fields();
    ThroughputRow r;
    r.line = csv.line();
    absl::StatusOr<common::Date> date = common::ParseDate(f[0]);
    if (!date.ok()) return csv.Error(0, date.status().message());
    r.date = *date;
    if (!common::IsPlainName(f[1]))
      return csv.Error(1, absl::StrCat(common::kPlainNameRule, ": '", f[1], "'"));
    r.operator_name = std::string(f[1]);
    std::optional<common::Tier> tier = common::ParseTier(f[2]);
    if (!tier) return csv.Error(2, absl::StrCat("unknown tier: '", f[2], "'"));
    r.tier = *tier;
    if (!common::IsValidGpuName(f[3]))
      return csv.Error(3, absl::StrCat("unknown gpu: '", f[3], "'"));
    r.gpu = std::string(f[3]);
    // Recorded (not used): text from outside all the same, refused unless printable.
    if (!IsValidProviderName(f[4])) {
      return csv.Error(4, "model must be 1-128 bytes of UTF-8 text without control characters");
    }
    r.model = std::string(f[4]);
    absl::StatusOr<int64_t> isl = PositiveInteger(f[5]);
    if (!isl.ok()) return csv.Error(5, isl.status().message());
    r.isl = *isl;
    absl::StatusOr<int64_t> osl = PositiveInteger(f[6]);
    if (!osl.ok()) return csv.Error(6, osl.status().message());
    r.osl = *osl;
    absl::StatusOr<int64_t> tps = PositiveScaled(f[7]);
    if (!tps.ok()) return csv.Error(7, tps.status().message());
    if (static_cast<double>(*tps) < kMinTps * 1e6) {
      return csv.Error(7, absl::StrCat("must be >= 1 (tokens/s per GPU): '", f[7], "'"));
    }
    r.tps_e6 = *tps;
    auto [it, inserted] = operator_tier.try_emplace(r.operator_name, r.tier, csv.line());
    if (!inserted && it->second.first != r.tier) {
      return csv.Error(
          2, absl::StrCat("operator '", r.operator_name, "' is listed under ",
                          common::TierName(r.tier), " here and under ",
                          common::TierName(it->second.first), " on line ", it->second.second));
    }
    out.push_back(std::move(r));
  }
  if (!csv.status().ok()) return csv.status();
  return out;
}

absl::StatusOr<std::vector<Observation>> ReadObservationsFile(const std::string& path) {
  absl::StatusOr<std::string> text = common::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseObservationsCsv(*text, path);
}

absl::StatusOr<std::vector<ThroughputRow>> ReadThroughputFile(const std::string& path) {
  absl::StatusOr<std::string> text = common::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseThroughputCsv(*text, path);
}

namespace internal {

void CanonicalRowWriter::Append2(int v, std::string* out) {
  out->push_back(static_cast<char>('0' + v / 10));
  out->push_back(static_cast<char>('0' + v % 10));
}

void CanonicalRowWriter::AppendE6(int64_t value, std::string* out) {
  char buf[32];
  int n = 0;
  int64_t whole = value / 1'000'000, frac = value % 1'000'000;
  do {
    buf[n++] = static_cast<char>('0' + whole % 10);
    whole /= 10;
  } while (whole != 0);
  while (n > 0) out->push_back(buf[--n]);
  if (frac == 0) return;
  int digits = 6;
  while (frac % 10 == 0) {
    frac /= 10;
    --digits;
  }
  out->push_back('.');
  for (int i = digits - 1; i >= 0; --i) buf[i] = static_cast<char>('0' + frac % 10), frac /= 10;
  out->append(buf, digits);
}

void CanonicalRowWriter::Append(const Observation& o, std::string* out) {
  // FormatTimestamp's text: the date, THH:MM:SS, .ffffff only when not zero, Z.
  const int64_t day = o.ts >= 0 ? o.ts / common::kUsPerDay
                                : -((-o.ts + common::kUsPerDay - 1) / common::kUsPerDay);
  if (day != day_) {
    day_ = day;
    date_ = common::FormatDate(common::Date{static_cast<int32_t>(day)});
  }
  const int64_t rem = o.ts - day * common::kUsPerDay;
  const int64_t secs = rem / 1'000'000;
  int64_t micros = rem % 1'000'000;
  out->append(date_);
  out->push_back('T');
  Append2(static_cast<int>(secs / 3600), out);
  out->push_back(':');
  Append2(static_cast<int>(secs / 60 % 60), out);
  out->push_back(':');
  Append2(static_cast<int>(secs % 60), out);
  if (micros != 0) {
    char buf[7];
    for (int i = 5; i >= 0; --i) buf[i] = static_cast<char>('0' + micros % 10), micros /= 10;
    out->push_back('.');
    out->append(buf, 6);
  }
  out->push_back('Z');
  for (std::string_view field : {std::string_view(o.provider), std::string_view(o.gpu),
                                 std::string_view(common::TierName(o.tier)),
                                 std::string_view(o.region), std::string_view(LeaseName(o.lease)),
                                 std::string_view(KindName(o.kind))}) {
    out->push_back(',');
    out->append(field);
  }
  out->push_back(',');
  AppendE6(o.price_e6, out);
  out->push_back(',');
  AppendE6(o.gpu_hours_e6, out);
}

}  // namespace internal

std::string ObservationCsvRow(const Observation& o) {
  internal::CanonicalRowWriter writer;
  std::string out;
  writer.Append(o, &out);
  return out;
}

std::string ObservationsToCsv(const std::vector<Observation>& rows) {
  std::string out = absl::StrCat(kObservationsHeader, "\n");
  for (const Observation& o : rows) absl::StrAppend(&out, ObservationCsvRow(o), "\n");
  return out;
}

std::string ThroughputToCsv(const std::vector<ThroughputRow>& rows) {
  std::string out = absl::StrCat(kThroughputHeader, "\n");
  for (const ThroughputRow& r : rows) {
    absl::StrAppend(&out, common::FormatDate(r.date), ",", r.operator_name, ",",
                    common::TierName(r.tier), ",", r.gpu, ",", r.model, ",", r.isl, ",", r.osl, ",",
                    internal::FormatTrimmed(r.tps_e6, kInputScale), "\n");
  }
  return out;
}

}  // namespace cfx::reference
