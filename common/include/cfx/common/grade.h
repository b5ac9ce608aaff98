// Compute grades (`B200-GOLD-US`) and contract symbols (`B200-GOLD-US-202703`), SPEC §3.
#ifndef CFX_COMMON_GRADE_H_
#define CFX_COMMON_GRADE_H_

#include <array>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cfx::common {

// Operator rating tiers, best first. The numeric order is the index used for per-tier
// arrays (scenario throughput moves, TSR tables).
enum class Tier { kPlat = 0, kGold = 1, kSilv = 2, kBrnz = 3 };
inline constexpr int kNumTiers = 4;
inline constexpr std::array<const char*, kNumTiers> kTierNames = {"PLAT", "GOLD", "SILV", "BRNZ"};
std::optional<Tier> ParseTier(absl::string_view s);
const char* TierName(Tier t);

inline constexpr std::array<const char*, 3> kRegionNames = {"US", "EU", "APAC"};
bool IsKnownRegion(absl::string_view s);
// GPU models: upper-case letters and digits, starting with a letter (B200, H100, B300...),
// at most kMaxGpuNameChars: the longest symbol (`<GPU>-BRNZ-APAC-YYYYMM`) then fits the
// engine's 32-byte names, so every grade the config or a file accepts can be listed.
inline constexpr size_t kMaxSymbolChars = 32;
inline constexpr size_t kMaxGpuNameChars = kMaxSymbolChars - sizeof("-BRNZ-APAC-YYYYMM") + 1;
bool IsValidGpuName(absl::string_view s);

struct Grade {
  std::string gpu;  // "B200"
  Tier tier = Tier::kGold;
  std::string region;       // "US"
  std::string Key() const;  // "B200-GOLD-US"
  friend bool operator==(const Grade&, const Grade&) = default;
};
absl::StatusOr<Grade> ParseGrade(absl::string_view key);

struct ContractSymbol {
  Grade grade;
  int year = 0;
  int month = 0;            // 1..12
  std::string Key() const;  // "B200-GOLD-US-202703"
};
absl::StatusOr<ContractSymbol> ParseSymbol(absl::string_view sym);

}  // namespace cfx::common

#endif  // CFX_COMMON_GRADE_H_
