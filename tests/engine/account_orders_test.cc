// AccountOrders against a model: random accepts and releases over a few accounts, with
// every account's walk checked (live orders only, acceptance order) after each step, so
// that compaction at every fill level is covered.
#include "cfx/engine/account_orders.h"

#include <algorithm>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace cfx::engine {
namespace {

TEST(AccountOrdersTest, WalksEachAccountsLiveOrdersInAcceptanceOrder) {
  constexpr size_t kSlots = 64;
  constexpr AccountId kAccounts = 3;
  AccountOrders lists(/*order_capacity=*/8);  // small: blocks run out and the pool grows
  lists.ReserveAccounts(kAccounts);
  std::vector<OrderId> slot_oid(kSlots, 0);
  std::vector<AccountId> slot_acct(kSlots, 0);
  std::vector<std::vector<uint32_t>> model(kAccounts);  // live slots in acceptance order
  std::mt19937_64 rng(17);
  OrderId next_oid = 1;
  for (int step = 0; step < 20000; ++step) {
    const auto slot = static_cast<uint32_t>(rng() % kSlots);
    if (slot_oid[slot] == 0) {  // accept an order into a free slot
      const auto acct = static_cast<AccountId>(rng() % kAccounts);
      slot_oid[slot] = next_oid++;
      slot_acct[slot] = acct;
      lists.Add(acct, slot, slot_oid[slot], slot_oid);
      model[acct].push_back(slot);
    } else {  // release it
      const AccountId acct = slot_acct[slot];
      slot_oid[slot] = 0;
      lists.Remove(acct);
      std::erase(model[acct], slot);
    }
    for (AccountId a = 0; a < kAccounts; ++a) {
      std::vector<uint32_t> walked;
      lists.ForEach(a, slot_oid, [&](uint32_t s) { walked.push_back(s); });
      ASSERT_EQ(walked, model[a]) << "step " << step << " account " << a;
    }
  }
}

TEST(AccountOrdersTest, ReleasingDuringTheWalkSkipsTheReleased) {
  AccountOrders lists(16);
  lists.ReserveAccounts(1);
  std::vector<OrderId> slot_oid(16, 0);
  for (uint32_t s = 0; s < 10; ++s) {
    slot_oid[s] = 100 + s;
    lists.Add(0, s, slot_oid[s], slot_oid);
  }
  std::vector<uint32_t> walked;
  lists.ForEach(0, slot_oid, [&](uint32_t s) {
    walked.push_back(s);
    slot_oid[s] = 0;  // the mass cancel releases this one ...
    lists.Remove(0);
    if (s + 1 < 10 && s % 2 == 0) {  // ... and, every other time, the next
      slot_oid[s + 1] = 0;
      lists.Remove(0);
    }
  });
  EXPECT_EQ(walked, (std::vector<uint32_t>{0, 2, 4, 6, 8}));
}

TEST(AccountOrdersTest, AnUnknownAccountHasNoOrders) {
  AccountOrders lists(16);
  std::vector<OrderId> slot_oid(16, 0);
  int calls = 0;
  lists.ForEach(5, slot_oid, [&](uint32_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace cfx::engine
