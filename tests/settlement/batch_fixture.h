// A settlement fixture over in-memory trades and fixes and a temp data dir.
#ifndef CFX_TESTS_SETTLEMENT_BATCH_FIXTURE_H_
#define CFX_TESTS_SETTLEMENT_BATCH_FIXTURE_H_

#include <cstdlib>

#include "cfx/security_master/derive.h"
#include "test_util.h"

namespace cfx::settlement::testing {

// Initial margin: 100 USD per lot held, long or short.
class PerLotMargin : public MarginSource {
 public:
  absl::StatusOr<common::MicroUsd> InitialMargin(std::string_view,
                                                 const std::vector<SymQty>& positions,
                                                 const SettlePrices& prices) override {
    common::MicroUsd im(0);
    for (const SymQty& p : positions) {
      EXPECT_TRUE(prices.count(p.sym)) << p.sym;
      im += common::MicroUsd(std::llabs(p.qty.value()) * 100'000'000);
    }
    return im;
  }
};

class BatchFixture : public ::testing::Test {
 protected:
  std::string data() const { return dir_.Sub("data"); }
  std::string out() const { return dir_.Sub("out"); }
  absl::StatusOr<SettleReport> Settle(const char* date, FailPoint fail = nullptr) {
    SettleInputs inputs{&trades_, &fixes_, &margin_};
    SettleOptions options;
    options.data_dir = data();
    options.out_dir = out();
    options.fail = std::move(fail);
    return SettleDate(D(date), config_, inputs, options);
  }
  void AddTrade(const char* ts, const char* px, int64_t qty, const char* buy, const char* sell,
                const std::string& sym = "B200-GOLD-US-202703") {
    trades_.AddTrade(MakeTrade(++seq_, ts, sym, px, qty, buy, sell));
  }
  // Lists `sym` in the security master from `listed` (nullopt: from the beginning).
  void List(const std::string& sym, std::optional<common::Date> listed = std::nullopt) {
    security_master::Contract c;
    c.sym = sym;
    c.contract = *common::ParseSymbol(sym);
    c.last_trading_day = security_master::LastTradingDay(*c.contract, config_.calendar);
    c.listing_date = listed;
    trades_.List(std::move(c));
  }
  // The 12 months of `grade` from March 2027, as `cfx serve` lists them on 2027-03-01.
  void ListYear(const char* grade) {
    for (const common::ContractSymbol& s :
         security_master::ListingWindow(*common::ParseGrade(grade), D("2027-03-01"))) {
      List(s.Key(), D("2027-03-01"));
    }
  }
  std::string Statement(const char* date, const char* account, const char* ext = "json") {
    return ReadFile(out() + "/" + date + "/" + account + "." + ext);
  }

  TempDir dir_;
  MemoryTradeSource trades_;
  MemoryFixSource fixes_;
  PerLotMargin margin_;
  SettleConfig config_;
  int64_t seq_ = 0;
};

}  // namespace cfx::settlement::testing

#endif  // CFX_TESTS_SETTLEMENT_BATCH_FIXTURE_H_
