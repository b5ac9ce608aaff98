#include <algorithm>
#include <map>

#include "cfx/reference/fix_store.h"

namespace cfx::reference {

std::optional<double> ComputeTheta(const std::vector<OperatorThroughput>& rows,
                                   const std::string& gpu, cfx::Tier tier, cfx::Date date) {
  // Latest by date; among rows of the same date the later one wins (>=).
  std::map<std::string, const OperatorThroughput*> latest;
  for (const OperatorThroughput& r : rows) {
    if (r.gpu != gpu || r.tier != tier || r.date > date) continue;
    const OperatorThroughput*& slot = latest[r.operator_name];
    if (slot == nullptr || r.date >= slot->date) slot = &r;
  }
  if (latest.empty()) return std::nullopt;
  std::vector<double> v;
  for (const auto& [name, row] : latest) v.push_back(row->output_tps_per_gpu);
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace cfx::reference
