// Builders for test inputs.
#ifndef CFX_TESTS_REFERENCE_TEST_UTIL_H_
#define CFX_TESTS_REFERENCE_TEST_UTIL_H_

#include <filesystem>
#include <string>

#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/reference/inputs.h"
#include "remove_on_exit.h"

namespace cfx::reference::testing {

// Monday 2027-03-01, the first business day most reference tests build.
inline const common::Date kMon = common::DateFromYmd(2027, 3, 1);

inline Observation Ob(const std::string& ts, const std::string& provider, const std::string& grade,
                      Kind kind, int64_t cents, int64_t hours, Lease lease = Lease::kOnDemand) {
  common::Grade g = *common::ParseGrade(grade);
  Observation o;
  o.ts = *common::ParseTimestamp(ts);
  o.provider = provider;
  o.gpu = g.gpu;
  o.tier = g.tier;
  o.region = g.region;
  o.lease = lease;
  o.kind = kind;
  o.price_e6 = cents * 10'000;
  o.gpu_hours_e6 = hours * 1'000'000;
  return o;
}

inline ThroughputRow Tp(const std::string& date, const std::string& op, common::Tier tier,
                        int64_t tps_tenths, const std::string& gpu = "B200") {
  return ThroughputRow{*common::ParseDate(date), op, tier, gpu, "m", 8000, 1000,
                       tps_tenths * 100'000};
}

// A fresh, empty folder under the test's temp dir.
inline std::string TempDir(const std::string& name) {
  std::string dir = std::string(::testing::TempDir()) + "/cfx_reference_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  testsupport::RemoveAtProgramExit(dir);
  return dir;
}

}  // namespace cfx::reference::testing

#endif  // CFX_TESTS_REFERENCE_TEST_UTIL_H_
