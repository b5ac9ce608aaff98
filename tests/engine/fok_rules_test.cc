// SPEC §4's fill-or-kill rule, driven through the replay interface: an order that fills
// whole on arrival or is canceled whole, STP and icebergs included.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace cfx::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(OrderBookTest, FokThatCannotFillIsCanceledWholeAndBookUnchanged) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 2),
                       Limit("b1", "A1", "buy", "5.000", 3, R"(,"tif":"fok")")});
  EXPECT_THAT(Grep(out, "trade"), IsEmpty());
  EXPECT_EQ(Grep(out, "canceled")[0], Canceled("b1", "A1", 3, "fok"));
  EXPECT_EQ(out.back(), BookLine("[]", R"([["5.000",2,1]])"));
}

TEST(OrderBookTest, FokCountsHiddenIcebergQuantity) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "B1", "sell", "5.000", 10, R"(,"display":2)"),
                       Limit("b1", "A1", "buy", "5.000", 7, R"(,"tif":"fok")")});
  EXPECT_EQ(Grep(out, "trade").size(), 4u);  // slices 2+2+2+1
  EXPECT_THAT(Grep(out, "canceled"), IsEmpty());
  EXPECT_EQ(out.back(), BookLine("[]", R"([["5.000",1,1]])"));
}

TEST(OrderBookTest, FokLeavesOutOrdersStpWouldPrevent) {
  auto out = RunNoSeq({ProductLine(), Limit("s1", "A1", "sell", "5.000", 5),
                       Limit("s2", "B1", "sell", "5.000", 2),
                       Limit("b1", "A1", "buy", "5.000", 3, R"(,"tif":"fok")")});
  EXPECT_THAT(Grep(out, "canceled"), ElementsAre(Canceled("b1", "A1", 3, "fok")));
  EXPECT_EQ(out.back(), BookLine("[]", R"([["5.000",7,2]])"));
}

// SPEC §4: a FOK fills completely on arrival or is canceled whole. With cancel_aggressor or
// cancel_both, an own order behind an iceberg ends matching when it comes to the head, and
// the iceberg goes behind it after its shown slice: only that slice counts. Until
// 2026-12-07 the whole iceberg counted, so this FOK traded 2 and was canceled `stp` for 8.
TEST(OrderBookTest, FokCountsOnlyTheIcebergSliceAheadOfAnOwnOrderThatStopsIt) {
  for (const char* action : {"cancel_aggressor", "cancel_both"}) {
    SCOPED_TRACE(action);
    auto out = RunNoSeq({ProductLine(), Limit("i1", "B1", "sell", "5.000", 10, R"(,"display":2)"),
                         Limit("s1", "A1", "sell", "5.000", 5),
                         Limit("f1", "A1", "buy", "5.000", 10,
                               absl::StrCat(R"(,"tif":"fok","stp_action":")", action, R"(")"))});
    EXPECT_THAT(Grep(out, "trade"), IsEmpty());
    EXPECT_THAT(Grep(out, "canceled"), ElementsAre(Canceled("f1", "A1", 10, "fok")));
    EXPECT_EQ(out.back(), BookLine("[]", R"([["5.000",7,2]])"));
    // What the slice ahead of the own order holds is reached: a FOK of 2 fills.
    auto fits = RunNoSeq({ProductLine(), Limit("i1", "B1", "sell", "5.000", 10, R"(,"display":2)"),
                          Limit("s1", "A1", "sell", "5.000", 5),
                          Limit("f1", "A1", "buy", "5.000", 2,
                                absl::StrCat(R"(,"tif":"fok","stp_action":")", action, R"(")"))});
    EXPECT_EQ(Grep(fits, "trade").size(), 1u);
    EXPECT_THAT(Grep(fits, "canceled"), IsEmpty());
  }
}

// The rule above as a property: on random books (icebergs, own orders, three levels), a FOK
// with any STP action either trades its whole quantity or trades nothing and is canceled
// `fok`, never part of it.
TEST(OrderBookTest, AFokIsNeverPartFilledWhateverTheBookAndTheStpAction) {
  std::mt19937 rng(20261207);
  const char* actions[] = {"cancel_resting", "cancel_aggressor", "cancel_both"};
  const char* accounts[] = {"A1", "B1", "C1"};
  const char* prices[] = {"5.000", "5.001", "5.002"};
  for (int round = 0; round < 400; ++round) {
    std::vector<std::string> lines = {ProductLine()};
    const int resting = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < resting; ++i) {
      const int qty = 1 + static_cast<int>(rng() % 6);
      const std::string display =
          rng() % 3 == 0 ? absl::StrCat(R"(,"display":)", 1 + rng() % 2) : "";
      lines.push_back(Limit(absl::StrCat("s", i), accounts[rng() % 3], "sell", prices[rng() % 3],
                            qty, display));
    }
    const int qty = 1 + static_cast<int>(rng() % 20);
    lines.push_back(
        Limit("f", "A1", "buy", prices[rng() % 3], qty,
              absl::StrCat(R"(,"tif":"fok","stp_action":")", actions[rng() % 3], R"(")")));
    const std::vector<std::string> out = RunNoSeq(lines);
    int traded = 0;
    bool fok_canceled = false, other_cancel = false;
    for (const std::string& line : out) {
      auto j = nlohmann::json::parse(line);
      if (j["ev"] == "trade" && j["buy_cl"] == "f") traded += j["qty"].get<int>();
      if (j["ev"] == "canceled" && j["cl"] == "f") {
        if (j["reason"] == "fok") {
          fok_canceled = true;
        } else {
          other_cancel = true;
        }
      }
    }
    const std::string trace = absl::StrJoin(lines, "\n");
    if (fok_canceled) {
      EXPECT_EQ(traded, 0) << trace;
    } else {
      EXPECT_EQ(traded, qty) << trace;
    }
    EXPECT_FALSE(other_cancel) << trace;
  }
}

}  // namespace
}  // namespace cfx::engine::testing
