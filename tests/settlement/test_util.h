// Shared helpers for the settlement tests: temp dirs, trades, dumps of the outputs.
#ifndef CFX_TESTS_SETTLEMENT_TEST_UTIL_H_
#define CFX_TESTS_SETTLEMENT_TEST_UTIL_H_

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "cfx/common/date.h"
#include "cfx/common/decimal.h"
#include "cfx/settlement/batch.h"
#include "cfx/settlement/ledger.h"
#include "cfx/settlement/memory_sources.h"
#include "cfx/settlement/trade_store.h"
#include "gtest/gtest.h"

namespace cfx::settlement::testing {

// The March 2027 contract most settlement tests trade.
inline constexpr char kMar[] = "B200-GOLD-US-202703";

inline common::Date D(const char* s) { return *common::ParseDate(s); }
inline common::TimestampUs Ts(const char* s) { return *common::ParseTimestamp(s); }
inline int64_t Px(const char* s) { return *common::ParseScaled(s, 3); }

inline Trade MakeTrade(int64_t seq, const std::string& ts, const std::string& sym, const char* px,
                       int64_t qty, const std::string& buy, const std::string& sell) {
  Trade t;
  t.seq = seq;
  t.ts = *common::ParseTimestamp(ts);
  t.sym = sym;
  t.px_ticks = common::PriceTicks(Px(px));
  t.qty = common::Qty(qty);
  t.buy_acct = buy;
  t.sell_acct = sell;
  t.buy_firm = "F-" + buy;
  t.sell_firm = "F-" + sell;
  return t;
}

// A fresh folder under the test temp dir, removed at destruction.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::path(::testing::TempDir()) /
            absl::StrCat("cfx_settle_", getpid(), "_", counter++);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string path() const { return path_.string(); }
  std::string Sub(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every file under `dir` (relative name -> contents).
inline std::map<std::string, std::string> ReadTree(const std::string& dir) {
  std::map<std::string, std::string> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) {
      out[std::filesystem::relative(e.path(), dir).string()] = ReadFile(e.path().string());
    }
  }
  return out;
}

// The whole ledger as text: settled dates, day records and every entry.
inline std::string DumpLedger(const std::string& data_dir) {
  auto ledger = Ledger::Open(data_dir);
  EXPECT_TRUE(ledger.ok()) << ledger.status();
  std::string out;
  auto first = (*ledger)->FirstSettledDate();
  auto last = (*ledger)->LastSettledDate();
  if (!first->has_value()) return "empty";
  common::BusinessCalendar cal;
  for (common::Date d = **first; d <= **last; d = common::Date{d.days + 1}) {
    auto day = (*ledger)->ReadDay(d);
    if (!day->has_value()) continue;
    absl::StrAppend(&out, common::FormatDate(d), " accounts=", (*day)->accounts,
                    " vm_paid=", (*day)->vm_paid.value(), "\n");
    for (const ContractDay& c : (*day)->contracts) {
      absl::StrAppend(&out, "  ", c.sym, " ", c.settle.value(), " ", PriceTierName(c.tier), " ",
                      c.expired, " ", c.fsp.value_or(common::PriceTicks(-1)).value(), "\n");
    }
    EXPECT_TRUE((*ledger)
                    ->ForEachAccount(d,
                                     [&](AccountDay&& a) {
                                       absl::StrAppend(&out, "  ", a.account, " ",
                                                       EncodeAccountDay(a), "\n");
                                       return absl::OkStatus();
                                     })
                    .ok());
  }
  return out;
}

}  // namespace cfx::settlement::testing

#endif  // CFX_TESTS_SETTLEMENT_TEST_UTIL_H_
