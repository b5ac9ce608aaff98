#include "cfx/reference/throughput.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <string_view>
#include <utility>

namespace cfx::reference {
namespace {

int64_t RowTpsE6(const ThroughputRow& r) { return r.tps_e6; }
int64_t RowTpsE6(const OperatorThroughput& r) { return TpsE6(r); }

// Indices of the rows kept by LatestPerOperator among those `keep` accepts, sorted by
// (gpu, operator): per (gpu, operator) the latest dated <= as_of, a later row winning a tie.
template <typename Row, typename Keep>
std::vector<size_t> LatestIndices(const std::vector<Row>& rows, std::optional<common::Date> as_of,
                                  Keep keep) {
  std::map<std::pair<std::string_view, std::string_view>, size_t> chosen;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if ((as_of.has_value() && r.date > *as_of) || !keep(r)) continue;
    auto [it, inserted] = chosen.try_emplace({r.gpu, r.operator_name}, i);
    if (!inserted && rows[it->second].date <= r.date) it->second = i;
  }
  std::vector<size_t> out;
  out.reserve(chosen.size());
  for (const auto& [key, index] : chosen) out.push_back(index);
  return out;
}

template <typename Row>
std::optional<Theta> GradeThetaOf(const std::vector<Row>& rows, const std::string& gpu,
                                  common::Tier tier, std::optional<common::Date> as_of) {
  const std::vector<size_t> latest =
      LatestIndices(rows, as_of, [&](const Row& r) { return r.gpu == gpu && r.tier == tier; });
  if (latest.empty()) return std::nullopt;
  std::vector<int64_t> values;
  values.reserve(latest.size());
  for (size_t i : latest) values.push_back(RowTpsE6(rows[i]));
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  Theta theta;
  theta.upper_e6 = values[mid];
  theta.lower_e6 = values.size() % 2 == 1 ? theta.upper_e6
                                          : *std::max_element(values.begin(), values.begin() + mid);
  return theta;
}

}  // namespace

OperatorThroughput ToOperatorThroughput(const ThroughputRow& row) {
  return {row.operator_name, row.tier, row.gpu, row.date, static_cast<double>(row.tps_e6) / 1e6};
}

std::vector<OperatorThroughput> ToOperatorThroughput(const std::vector<ThroughputRow>& rows) {
  std::vector<OperatorThroughput> out;
  out.reserve(rows.size());
  for (const ThroughputRow& r : rows) out.push_back(ToOperatorThroughput(r));
  return out;
}

int64_t TpsE6(const OperatorThroughput& row) {
  assert(row.output_tps_per_gpu > 0 && row.output_tps_per_gpu <= kMaxTps);
  // |error| of the double is below 2^-53 relative, so for tps <= 10^9 the product is within
  // 0.2 of the integer tps_e6 it was made from.
  return std::llround(row.output_tps_per_gpu * 1e6);
}

std::vector<OperatorThroughput> LatestPerOperator(const std::vector<OperatorThroughput>& rows,
                                                  std::optional<common::Date> as_of) {
  std::vector<OperatorThroughput> out;
  for (size_t i : LatestIndices(rows, as_of, [](const OperatorThroughput&) { return true; })) {
    out.push_back(rows[i]);
  }
  return out;
}

std::optional<Theta> GradeTheta(const std::vector<OperatorThroughput>& rows, const std::string& gpu,
                                common::Tier tier, std::optional<common::Date> as_of) {
  return GradeThetaOf(rows, gpu, tier, as_of);
}

std::optional<Theta> GradeTheta(const std::vector<ThroughputRow>& rows, const std::string& gpu,
                                common::Tier tier, std::optional<common::Date> as_of) {
  return GradeThetaOf(rows, gpu, tier, as_of);
}

}  // namespace cfx::reference
