// Scenario files (SPEC §10): the risk desk's own stress set, e.g. a historical episode.
#include <set>

#include "absl/strings/str_cat.h"
#include "cfx/common/csv.h"
#include "cfx/gpu_valuation/scenarios.h"

namespace cfx::gpu_valuation {
namespace {

constexpr absl::string_view kHeader =
    "scenario,weight,price_move,tput_PLAT,tput_GOLD,tput_SILV,tput_BRNZ";
// A move is a fraction: below -1 a price or a throughput would turn negative; above +10
// (an elevenfold rise) is taken to be a typo rather than a scenario.
constexpr double kMinMove = -1.0;
constexpr double kMaxMove = 10.0;

absl::Status ParseMove(const common::CsvReader& csv, size_t column, double* out) {
  absl::StatusOr<double> v = common::ParseDecimalDouble(csv.field(column));
  if (!v.ok()) return csv.Error(column, v.status().message());
  if (*v < kMinMove || *v > kMaxMove) {
    return csv.Error(column, absl::StrCat("move must be in [-1, 10], got ", *v));
  }
  *out = *v;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ScenarioSet> ParseScenarioCsv(absl::string_view text, absl::string_view file) {
  common::CsvReader csv(text, file, kHeader);
  ScenarioSet set;
  set.method = ScenarioMethod::kFile;
  set.rank = 1;
  set.default_tput_scale.fill(1.0);  // the file's moves apply to every gpu as written
  std::set<std::string, std::less<>> labels;
  while (csv.Next()) {
    if (set.scenarios.size() == static_cast<size_t>(kMaxScenarios)) {
      // Named at the row past the bound (SPEC §11: the file, the line and the field).
      return csv.Error(0, absl::StrCat("more than ", kMaxScenarios, " scenarios"));
    }
    Scenario s;
    s.label = std::string(csv.field(0));
    if (!common::IsPlainName(s.label))
      return csv.Error(0, absl::StrCat("label ", common::kPlainNameRule));
    if (!labels.insert(s.label).second) {
      return csv.Error(0, absl::StrCat("duplicate label \"", s.label, "\""));
    }
    absl::StatusOr<double> w = common::ParseDecimalDouble(csv.field(1));
    if (!w.ok()) return csv.Error(1, w.status().message());
    if (!(*w > 0.0 && *w <= 1.0)) {
      return csv.Error(1, absl::StrCat("weight must be in (0, 1], got ", *w));
    }
    s.weight = *w;
    if (absl::Status st = ParseMove(csv, 2, &s.price_move); !st.ok()) return st;
    for (int t = 0; t < common::kNumTiers; ++t) {
      if (absl::Status st = ParseMove(csv, 3 + t, &s.tput_factor[t]); !st.ok()) return st;
    }
    set.scenarios.push_back(std::move(s));
  }
  if (!csv.status().ok()) return csv.status();
  if (set.scenarios.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": no scenarios"));
  }
  return set;
}

absl::StatusOr<ScenarioSet> ReadScenarioFile(const std::string& path) {
  absl::StatusOr<std::string> text = common::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseScenarioCsv(*text, path);
}

}  // namespace cfx::gpu_valuation
