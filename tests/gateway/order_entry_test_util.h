// What the tests of ExchangeOrderEntry over a real core share: the clock, the one product
// they list, a config of firms and accounts, and a limit order as the FIX gateway would hand
// it over.
#ifndef CFX_TESTS_GATEWAY_ORDER_ENTRY_TEST_UTIL_H_
#define CFX_TESTS_GATEWAY_ORDER_ENTRY_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cfx/common/config.h"
#include "cfx/gateway/order_entry.h"

namespace cfx::gateway::order_entry_test {

inline constexpr int64_t kNsPerSec = 1'000'000'000;
inline constexpr int64_t kMarch2027 = 1803859200LL * kNsPerSec;  // Mon 2027-03-01 00:00Z
inline constexpr char kSymbol[] = "B200-GOLD-US-202703";

// B200 gold US (reference 5.000) and, for each (account, firm), the account with 5,000 USD
// of collateral and its firm.
inline common::ExchangeConfig OneGradeConfig(
    const std::vector<std::pair<std::string, std::string>>& accounts) {
  common::ExchangeConfig c;
  common::ProductConfig p;
  p.grade = common::Grade{"B200", common::Tier::kGold, "US"};
  p.ref_ticks = 5000;
  c.products.push_back(p);
  for (const auto& [account, firm] : accounts) {
    bool known = false;
    for (const common::FirmConfig& f : c.firms) known = known || f.id == firm;
    if (!known) c.firms.push_back({firm, firm});
    c.accounts.push_back(common::AccountConfig{account, firm, common::MicroUsd(5'000'000'000)});
  }
  return c;
}

inline NewOrder LimitOrder(const std::string& session, const std::string& account,
                           const std::string& firm, const std::string& id, Side side,
                           int64_t price_ticks, int64_t qty, TimeInForce tif) {
  NewOrder o;
  o.session = session;
  o.account = account;
  o.firm = firm;
  o.cl_ord_id = id;
  o.symbol = kSymbol;
  o.side = side;
  o.ord_type = OrdType::kLimit;
  o.has_price = true;
  o.price_ticks = price_ticks;
  o.qty = qty;
  o.tif = tif;
  return o;
}

}  // namespace cfx::gateway::order_entry_test

#endif  // CFX_TESTS_GATEWAY_ORDER_ENTRY_TEST_UTIL_H_
