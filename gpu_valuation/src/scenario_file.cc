// Scenario files (SPEC §10): the risk desk's own stress set, e.g. a historical episode.
#include <set>

#include "absl/strings/str_cat.h"
#include "cfx/gpu_valuation/scenarios.h"
#include "csv_util.h"

namespace cfx::gpu_valuation {
namespace {

constexpr absl::string_view kHeader =
    "scenario,weight,price_move,tput_PLAT,tput_GOLD,tput_SILV,tput_BRNZ";
// A move is a fraction: below -1 a price or a throughput would turn negative; above +10
// (an elevenfold rise) is taken to be a typo rather than a scenario.
constexpr double kMinMove = -1.0;
constexpr double kMaxMove = 10.0;
constexpr size_t kMaxLabelLength = 64;

absl::Status ParseMove(const internal::CsvLine& line, int index, absl::string_view name,
                       absl::string_view file, double* out) {
  absl::StatusOr<double> v = internal::ParseDecimal(line.fields[index]);
  if (!v.ok()) return internal::FieldError(file, line.number, name, v.status().message());
  if (*v < kMinMove || *v > kMaxMove) {
    return internal::FieldError(file, line.number, name,
                                absl::StrCat("move must be in [-1, 10], got ", *v));
  }
  *out = *v;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ScenarioSet> ParseScenarioCsv(absl::string_view text, absl::string_view file) {
  absl::StatusOr<std::vector<internal::CsvLine>> lines = internal::SplitCsv(text, file, kHeader);
  if (!lines.ok()) return lines.status();
  if (lines->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": no scenarios"));
  }
  if (lines->size() > static_cast<size_t>(kMaxScenarios)) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": more than ", kMaxScenarios, " scenarios"));
  }
  ScenarioSet set;
  set.method = ScenarioMethod::kFile;
  set.rank = 1;
  set.default_tput_scale.fill(1.0);  // the file's moves apply to every gpu as written
  std::set<std::string> labels;
  for (const internal::CsvLine& line : *lines) {
    Scenario s;
    s.label = line.fields[0];
    if (s.label.empty() || s.label.size() > kMaxLabelLength) {
      return internal::FieldError(file, line.number, "scenario", "label must be 1-64 characters");
    }
    for (char c : s.label) {
      if (c <= ' ' || c == 0x7f) {
        return internal::FieldError(file, line.number, "scenario",
                                    "label must not contain spaces or control characters");
      }
    }
    if (!labels.insert(s.label).second) {
      return internal::FieldError(file, line.number, "scenario",
                                  absl::StrCat("duplicate label \"", s.label, "\""));
    }
    absl::StatusOr<double> w = internal::ParseDecimal(line.fields[1]);
    if (!w.ok()) return internal::FieldError(file, line.number, "weight", w.status().message());
    if (!(*w > 0.0 && *w <= 1.0)) {
      return internal::FieldError(file, line.number, "weight",
                                  absl::StrCat("weight must be in (0, 1], got ", *w));
    }
    s.weight = *w;
    if (absl::Status st = ParseMove(line, 2, "price_move", file, &s.price_move); !st.ok()) {
      return st;
    }
    for (int t = 0; t < kNumTiers; ++t) {
      const std::string name = absl::StrCat("tput_", kTierNames[t]);
      if (absl::Status st = ParseMove(line, 3 + t, name, file, &s.tput_factor[t]); !st.ok()) {
        return st;
      }
    }
    set.scenarios.push_back(std::move(s));
  }
  return set;
}

absl::StatusOr<ScenarioSet> ReadScenarioFile(const std::string& path) {
  absl::StatusOr<std::string> text = internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseScenarioCsv(*text, path);
}

}  // namespace cfx::gpu_valuation
