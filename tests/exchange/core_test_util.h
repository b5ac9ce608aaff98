// Shared helpers for the ExchangeCore tests and the crash child.
#ifndef CFX_TESTS_EXCHANGE_CORE_TEST_UTIL_H_
#define CFX_TESTS_EXCHANGE_CORE_TEST_UTIL_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "cfx/common/config.h"
#include "cfx/exchange/exchange_core.h"
#include "random_commands.h"
#include "temp_dir.h"

namespace cfx::exchange::testing {

inline common::ExchangeConfig TestConfig(int accounts = 4) {
  common::ExchangeConfig c;
  common::ProductConfig p;
  p.grade = common::Grade{"B200", common::Tier::kGold, "US"};
  p.ref_ticks = 5000;
  c.products.push_back(p);
  for (int i = 0; i < accounts; ++i) {
    c.accounts.push_back(
        common::AccountConfig{absl::StrCat("A", i), "F1", common::MicroUsd(5'000'000'000)});
  }
  return c;
}

inline ExchangeOptions TestOptions(const std::string& dir) {
  ExchangeOptions o;
  o.data_dir = dir;
  o.clock = ClockMode::kManual;
  o.start_time = kMarch2027 + 9 * 3600 * kNsPerSec;
  o.snapshot_every = 500;
  o.ring_capacity = 1 << 12;
  return o;
}

// A fresh $TMPDIR/cfx_exchange_test_XXXXXX, removed afterwards.
class TempDir : public testsupport::TempDir {
 public:
  TempDir() : testsupport::TempDir("cfx_exchange_test") {}
};

}  // namespace cfx::exchange::testing

#endif  // CFX_TESTS_EXCHANGE_CORE_TEST_UTIL_H_
