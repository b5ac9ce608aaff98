#include "cfx/common/grade.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace cfx::common {

std::optional<Tier> ParseTier(absl::string_view s) {
  for (int i = 0; i < kNumTiers; ++i) {
    if (s == kTierNames[i]) return static_cast<Tier>(i);
  }
  return std::nullopt;
}

const char* TierName(Tier t) { return kTierNames[static_cast<int>(t)]; }

bool IsKnownRegion(absl::string_view s) {
  for (const char* r : kRegionNames) {
    if (s == r) return true;
  }
  return false;
}

bool IsValidGpuName(absl::string_view s) {
  if (s.empty() || s.size() > kMaxGpuNameChars || s[0] < 'A' || s[0] > 'Z') return false;
  for (char c : s) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

std::string Grade::Key() const { return absl::StrCat(gpu, "-", TierName(tier), "-", region); }

absl::StatusOr<Grade> ParseGrade(absl::string_view key) {
  std::vector<absl::string_view> parts = absl::StrSplit(key, '-');
  if (parts.size() != 3) {
    return absl::InvalidArgumentError(absl::StrCat("not a grade (GPU-TIER-REGION): '", key, "'"));
  }
  Grade g;
  if (parts[0].size() > kMaxGpuNameChars) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gpu '", parts[0], "' in '", key, "' is longer than ", kMaxGpuNameChars, " characters"));
  }
  if (!IsValidGpuName(parts[0])) {
    return absl::InvalidArgumentError(absl::StrCat("unknown gpu '", parts[0], "' in '", key, "'"));
  }
  auto tier = ParseTier(parts[1]);
  if (!tier) {
    return absl::InvalidArgumentError(absl::StrCat("unknown tier '", parts[1], "' in '", key, "'"));
  }
  if (!IsKnownRegion(parts[2])) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown region '", parts[2], "' in '", key, "'"));
  }
  g.gpu = std::string(parts[0]);
  g.tier = *tier;
  g.region = std::string(parts[2]);
  return g;
}

std::string ContractSymbol::Key() const {
  return absl::StrFormat("%s-%04d%02d", grade.Key(), year, month);
}

absl::StatusOr<ContractSymbol> ParseSymbol(absl::string_view sym) {
  size_t dash = sym.rfind('-');
  if (dash == absl::string_view::npos || sym.size() - dash - 1 != 6) {
    return absl::InvalidArgumentError(absl::StrCat("not a contract symbol: '", sym, "'"));
  }
  auto grade = ParseGrade(sym.substr(0, dash));
  if (!grade.ok()) return grade.status();
  int ym = 0;
  for (char c : sym.substr(dash + 1)) {
    if (c < '0' || c > '9') {
      return absl::InvalidArgumentError(absl::StrCat("not a contract symbol: '", sym, "'"));
    }
    ym = ym * 10 + (c - '0');
  }
  ContractSymbol out{*grade, ym / 100, ym % 100};
  if (out.month < 1 || out.month > 12) {
    return absl::InvalidArgumentError(absl::StrCat("bad contract month in '", sym, "'"));
  }
  return out;
}

}  // namespace cfx::common
