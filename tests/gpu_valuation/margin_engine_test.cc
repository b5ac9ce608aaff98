// Hand-checked margins. Both grades have one operator, so TSR = 5% (the floor) and
//   U = S x ((1 + a)(1 + b) - 1) x 1000 x weight USD per contract.
// GOLD S = 5.000: scenario 14 (a -15%, b -5%): 5 x (0.85 x 0.95 - 1) = -0.9625 -> -962.50;
// scenario 11 (+15%, +5%): +1.0375 -> +1037.50; scenario 16: -2.25 x 0.35 -> -787.50.
#include "cfx/gpu_valuation/margin_engine.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "cfx/gpu_valuation/margin_json.h"
#include "cfx/reference/methodology.h"
#include "gtest/gtest.h"

namespace cfx::gpu_valuation {
namespace {

constexpr char kGold[] = "B200-GOLD-US-202703";
constexpr char kPlat[] = "B200-PLAT-US-202703";

std::unique_ptr<MarginEngine> Engine(MarginOptions options = {}) {
  std::vector<ContractPrice> prices = {{kGold, 5000}, {kPlat, 6000}};
  const common::Date d = *common::ParseDate("2027-03-01");
  std::vector<ThroughputRow> rows = {{"g1", common::Tier::kGold, "B200", d, 1000},
                                     {"p1", common::Tier::kPlat, "B200", d, 2000}};
  auto engine = MarginEngine::Create(prices, rows, options);
  EXPECT_TRUE(engine.ok()) << engine.status();
  return std::move(*engine);
}

TEST(MarginEngineTest, LongLosesInTheDownScenario) {
  auto r = Engine()->ComputeAccount("A", {{kGold, 2}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->margin_micro, 1'925'000'000);
  EXPECT_EQ(r->margin_cents, 192'500);
  EXPECT_EQ(r->worst_scenario, "14");
  EXPECT_DOUBLE_EQ(r->price_move, -0.15);
  ASSERT_EQ(r->tput_moves.size(), 1u);
  EXPECT_EQ(r->tput_moves[0].first, "B200");
  EXPECT_DOUBLE_EQ(r->tput_moves[0].second[static_cast<int>(common::Tier::kGold)], -0.05);
  ASSERT_EQ(r->positions.size(), 1u);
  EXPECT_EQ(r->positions[0].worst_loss_micro, 1'925'000'000);
  EXPECT_DOUBLE_EQ(*r->positions[0].theta, 1000);
  EXPECT_EQ(*r->positions[0].price_per_mtok_e4, 13889);  // 5 / 3.6 = 1.38888...
}

TEST(MarginEngineTest, DuplicateRowsAreSummed) {
  auto engine = Engine();
  auto split = engine->ComputeAccount("B", {{kGold, -1}, {kGold, -1}});
  auto whole = engine->ComputeAccount("B", {{kGold, -2}});
  ASSERT_TRUE(split.ok() && whole.ok());
  EXPECT_EQ(split->margin_micro, 2'075'000'000);
  EXPECT_EQ(split->worst_scenario, "11");
  EXPECT_EQ(split->margin_micro, whole->margin_micro);
  ASSERT_EQ(split->positions.size(), 1u);
  EXPECT_EQ(split->positions[0].qty, -2);
}

TEST(MarginEngineTest, SpreadNetsAcrossGrades) {
  // Long GOLD, short PLAT: L = (6 - 5) x ((1 + a)(1 + b) - 1) x 1000: worst is 11, 207.50.
  auto r = Engine()->ComputeAccount("C", {{kPlat, -1}, {kGold, 1}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->margin_micro, 207'500'000);
  EXPECT_EQ(r->worst_scenario, "11");
  ASSERT_EQ(r->positions.size(), 2u);
  EXPECT_EQ(r->positions[0].sym, kGold);  // sorted by symbol
  EXPECT_EQ(r->positions[0].worst_loss_micro, -1'037'500'000);
  EXPECT_EQ(r->positions[1].worst_loss_micro, 1'245'000'000);
}

TEST(MarginEngineTest, EmptyAndFlatAccountsAreZeroAtScenarioOne) {
  auto engine = Engine();
  for (const std::vector<Position>& p :
       {std::vector<Position>{}, std::vector<Position>{{kGold, 3}, {kGold, -3}}}) {
    auto r = engine->ComputeAccount("D", p);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->margin_micro, 0);
    EXPECT_EQ(r->worst_scenario, "1");
    EXPECT_EQ(r->worst_scenario_index, 0);
  }
}

TEST(MarginEngineTest, MarginIsFlooredAtZeroButTheWorstScenarioIsKept) {
  // A file where every scenario is a gain for a long position.
  ScenarioSet file;
  file.method = ScenarioMethod::kFile;
  file.scenarios = {{"up1", 1.0, 0.1, {}}, {"up2", 1.0, 0.05, {}}};
  MarginOptions o;
  o.method = ScenarioMethod::kFile;
  o.file_scenarios = file;
  auto r = Engine(o)->ComputeAccount("E", {{kGold, 1}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->margin_micro, 0);
  EXPECT_EQ(r->loss_micro, -250'000'000);
  EXPECT_EQ(r->worst_scenario, "up2");
}

TEST(MarginEngineTest, FileScenarioTiesGoToTheFirstRow) {
  ScenarioSet file;
  file.method = ScenarioMethod::kFile;
  file.scenarios = {{"a", 1.0, 0.0, {}}, {"b", 0.5, 0.2, {}}, {"c", 1.0, 0.1, {}}};
  MarginOptions o;
  o.method = ScenarioMethod::kFile;
  o.file_scenarios = file;
  auto r = Engine(o)->ComputeAccount("F", {{kGold, -1}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->margin_micro, 500'000'000);  // b and c both lose 500.00
  EXPECT_EQ(r->worst_scenario, "b");
}

TEST(MarginEngineTest, PerContractInitialMarginIsTheWorseOneLotSide) {
  auto engine = Engine();
  EXPECT_EQ(*engine->PerContractInitialMargin(kGold), 1'037'500'000);
  EXPECT_EQ(engine->PerContractInitialMargin("B200-SILV-US-202703").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(MarginEngineTest, UnknownSymbolIsNotFound) {
  auto r = Engine()->ComputeAccount("G", {{"B200-BRNZ-EU-202703", 1}});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
}

TEST(MarginEngineTest, PortfoliosBeyondExactInt64AreRejected) {
  auto engine = Engine();
  // 4e12 lots x ~1.04e9 micro-USD exceeds int64: refused instead of wrapping around.
  auto r = engine->ComputeAccount("H", {{kGold, 4'000'000'000'000}});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  r = engine->ComputeAccount("H", {{kGold, INT64_MAX}, {kGold, INT64_MAX}});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(engine->ComputeAccount("H", {{kGold, 1'000'000'000}}).ok());
}

// The exactness bound is the account's own: Σ |q_c| × the largest |U| of each contract it
// holds. Until 2026-12-07 it took the largest |U| of every contract priced, so one contract at
// the price cap refused accounts that did not hold it (and with them a day's settlement).
TEST(MarginEngineTest, AnExpensiveContractDoesNotRefuseAccountsThatDoNotHoldIt) {
  const common::Date d = *common::ParseDate("2027-03-01");
  auto engine = MarginEngine::Create({{kGold, kMaxSettleTicks}, {"H100-GOLD-US-202703", 2'000}},
                                     {{"h1", common::Tier::kGold, "H100", d, 1000.0}},
                                     {});  // no B200 rows: its TSR is 0.50
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto cheap = (*engine)->ComputeAccount("A", {{"H100-GOLD-US-202703", 13'000}});
  EXPECT_TRUE(cheap.ok()) << cheap.status();
  // Holding the expensive one at that size is still refused, not wrapped.
  auto dear = (*engine)->ComputeAccount("B", {{kGold, 13'000}});
  EXPECT_EQ(dear.status().code(), absl::StatusCode::kInvalidArgument) << dear.status();
}

TEST(MarginEngineTest, ComputeManyMatchesOneByOne) {
  auto engine = Engine();
  std::vector<AccountPositions> accounts = {
      {"A", {{kGold, 2}}}, {"B", {{kGold, -2}}}, {"C", {{kPlat, 7}, {kGold, -3}}}, {"D", {}}};
  auto many = engine->ComputeMany(accounts);
  ASSERT_TRUE(many.ok());
  for (size_t i = 0; i < accounts.size(); ++i) {
    auto one = engine->ComputeAccount(accounts[i].account, accounts[i].positions);
    EXPECT_EQ((*many)[i].margin_micro, one->margin_micro);
    EXPECT_EQ((*many)[i].worst_scenario, one->worst_scenario);
  }
}

// The large-book path with a small batch: same answers as one ComputeMany, in order,
// whatever the batch size, and never more than one batch handed over at a time.
TEST(MarginEngineTest, ComputeStreamMatchesComputeManyInBatches) {
  MarginOptions o;
  o.method = ScenarioMethod::kMonteCarlo;
  o.mc_scenarios = 500;
  auto engine = Engine(o);
  std::vector<AccountPositions> book;
  for (int i = 0; i < 11; ++i) {
    book.push_back({"A" + std::to_string(i), {{kGold, 3 - i}, {kPlat, i % 4 - 1}}});
  }
  book.push_back({"EMPTY", {}});
  auto many = engine->ComputeMany(book);
  ASSERT_TRUE(many.ok()) << many.status();
  for (size_t batch : {size_t{1}, size_t{3}, size_t{12}, size_t{100}}) {
    SCOPED_TRACE(batch);
    size_t read = 0;
    std::vector<MarginResult> streamed;
    absl::Status s = engine->ComputeStream(
        [&](AccountPositions* a) {
          if (read == book.size()) return false;
          *a = book[read++];
          return true;
        },
        batch,
        [&](std::vector<MarginResult> results) {
          EXPECT_LE(results.size(), batch);
          EXPECT_EQ(streamed.size() + results.size(), std::min(read, book.size()));
          for (MarginResult& r : results) streamed.push_back(std::move(r));
          return absl::OkStatus();
        });
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(streamed.size(), many->size());
    for (size_t i = 0; i < streamed.size(); ++i) {
      EXPECT_EQ(streamed[i].account, (*many)[i].account);
      EXPECT_EQ(streamed[i].loss_micro, (*many)[i].loss_micro);
      EXPECT_EQ(streamed[i].worst_scenario_index, (*many)[i].worst_scenario_index);
    }
  }
}

TEST(MarginEngineTest, ComputeStreamStopsAtTheFirstError) {
  auto engine = Engine();
  int read = 0;
  auto next = [&](AccountPositions* a) {
    *a = {"A", {{read == 3 ? "B200-GOLD-US-209912" : kGold, 1}}};  // the 4th is unpriced
    return ++read <= 6;
  };
  int batches = 0;
  auto sink = [&](std::vector<MarginResult>) {
    ++batches;
    return absl::OkStatus();
  };
  absl::Status s = engine->ComputeStream(next, 2, sink);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_EQ(batches, 1);  // the first batch went out; the second failed
  read = 0;
  s = engine->ComputeStream(next, 2, [](std::vector<MarginResult>) {
    return absl::DataLossError("sink full");
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(engine->ComputeStream(next, 0, sink).code(), absl::StatusCode::kInvalidArgument);
}

TEST(MarginEngineTest, MonteCarloIsReproducibleAndTakesTheOnePercentLoss) {
  MarginOptions o;
  o.method = ScenarioMethod::kMonteCarlo;
  o.mc_scenarios = 1000;
  o.mc_seed = 5;
  auto e1 = Engine(o);
  auto e2 = Engine(o);
  EXPECT_EQ(e1->scenarios().rank, 10);
  auto r1 = e1->ComputeAccount("M", {{kGold, 4}, {kPlat, -1}});
  auto r2 = e2->ComputeAccount("M", {{kGold, 4}, {kPlat, -1}});
  ASSERT_TRUE(r1.ok() && r2.ok());
  EXPECT_EQ(r1->margin_micro, r2->margin_micro);
  EXPECT_EQ(r1->worst_scenario, r2->worst_scenario);
  // The 10th largest loss, recomputed from the U table.
  const UTable& u = e1->table();
  const int32_t g = e1->ContractIndex(kGold), p = e1->ContractIndex(kPlat);
  std::vector<int64_t> losses;
  for (int32_t s = 0; s < u.num_scenarios; ++s) {
    losses.push_back(-4 * u.At(g, s) + u.At(p, s));
  }
  std::sort(losses.rbegin(), losses.rend());
  EXPECT_EQ(r1->loss_micro, losses[9]);
  EXPECT_GT(r1->margin_micro, 0);
}

// SPEC §10: "ties between scenarios go to the lowest number (an empty account: margin 0.00,
// scenario 1)", under mc too: a flat account's losses are all 0, and the k-th largest (k =
// 10 of 1000) is scenario 1's, not the tenth scenario's (as it was until 2026-12-04).
TEST(MarginEngineTest, MonteCarloTiesGoToTheLowestScenarioNumber) {
  MarginOptions o;
  o.method = ScenarioMethod::kMonteCarlo;
  o.mc_scenarios = 1000;
  o.mc_seed = 5;
  auto e = Engine(o);
  ASSERT_EQ(e->scenarios().rank, 10);
  for (const auto& positions :
       std::vector<std::vector<Position>>{{{kGold, 0}}, {{kGold, 3}, {kGold, -3}}}) {
    auto r = e->ComputeAccount("Z", positions);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->margin_micro, 0);
    EXPECT_EQ(r->worst_scenario_index, 0);
    EXPECT_EQ(r->worst_scenario, "1");
  }
}

// A table past kMaxTableBytes (contracts × scenarios × 8 bytes) is refused naming both
// counts: a prices file of 1,100 contracts with 1,000,000 Monte Carlo scenarios used to ask
// for 8.8 GB at once, and a failed allocation ended the process (cfx margin, no message).
TEST(MarginEngineTest, AScenarioTablePastItsBoundIsRefusedNotAnAbort) {
  std::vector<ContractPrice> prices;
  for (int m = 0; m < 1100; ++m) {
    prices.push_back(
        {absl::StrCat("B200-GOLD-US-", 2027 + m / 12, m % 12 < 9 ? "0" : "", m % 12 + 1), 5000});
  }
  MarginOptions o;
  o.method = ScenarioMethod::kMonteCarlo;
  o.mc_scenarios = 1'000'000;
  auto e = MarginEngine::Create(prices, {}, o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kResourceExhausted) << e.status();
  EXPECT_NE(e.status().message().find("1100 contracts x 1000000 scenarios"), std::string::npos)
      << e.status();
}

TEST(MarginEngineTest, RejectsBadInputs) {
  MarginOptions o;
  EXPECT_FALSE(MarginEngine::Create({{"B200-GOLD-US-202703", 0}}, {}, o).ok());
  EXPECT_FALSE(MarginEngine::Create({{"nope", 1}}, {}, o).ok());
  EXPECT_FALSE(MarginEngine::Create({{kGold, 1}, {kGold, 2}}, {}, o).ok());
  o.psr = 0.5;
  EXPECT_FALSE(MarginEngine::Create({{kGold, 1}}, {}, o).ok());
  o = {};
  o.method = ScenarioMethod::kFile;
  EXPECT_FALSE(MarginEngine::Create({{kGold, 1}}, {}, o).ok());
  // Throughput outside what the input files can state (1 to 10^9 tokens/s, 6 decimals;
  // docs/methodology.md §11: below 1 a price per 1M tokens could wrap past int64).
  const common::Date d = *common::ParseDate("2027-03-01");
  for (double tps : {0.0, -1.0, 1e-7, 1e-6, 0.999999, 2e9}) {
    EXPECT_FALSE(
        MarginEngine::Create({{kGold, 1}}, {{"g1", common::Tier::kGold, "B200", d, tps}}, {}).ok())
        << tps;
  }
  // The extremes: the highest settlement price at the least throughput is priced exactly.
  auto e = MarginEngine::Create({{kGold, kMaxSettleTicks}},
                                {{"g1", common::Tier::kGold, "B200", d, 1.0}}, {});
  ASSERT_TRUE(e.ok()) << e.status();
  auto r = (*e)->ComputeAccount("a", {{kGold, 1}});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->positions.size(), 1u);
  // 10^6 USD / (1 × 3600) × 10^6 = 277,777,777.7778 USD per 1M tokens
  EXPECT_EQ(r->positions[0].price_per_mtok_e4, 2'777'777'777'778);
}

TEST(MarginEngineTest, ThetaAndPricePerMtokAreThoseTheFixRecordPublishes) {
  // An even count: θ is the reference's median of 260.3 and 261.1, exactly 260.7 as `cfx
  // reference build` publishes it (SPEC §8), and the price per million tokens is the
  // record's integer formula on it. The margin used to print the interpolated double
  // 260.70000000000005.
  const common::Date d = *common::ParseDate("2027-03-01");
  std::vector<ThroughputRow> rows = {{"g1", common::Tier::kGold, "B200", d, 260.3},
                                     {"g2", common::Tier::kGold, "B200", d, 261.1}};
  auto engine = MarginEngine::Create({{kGold, 5000}}, rows, {});
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto r = (*engine)->ComputeAccount("A", {{kGold, 1}});
  ASSERT_TRUE(r.ok()) << r.status();
  const std::optional<reference::Theta> theta =
      reference::GradeTheta(rows, "B200", common::Tier::kGold, d);
  ASSERT_TRUE(theta.has_value());
  EXPECT_EQ(*r->positions[0].theta, 260.7);
  EXPECT_EQ(*r->positions[0].theta, theta->Value());
  EXPECT_EQ(*r->positions[0].price_per_mtok_e4,
            reference::PricePerMtokE4(5000 * 10, theta->two_theta_e6()));
  EXPECT_EQ(*r->positions[0].price_per_mtok_e4, 53275);  // 5 / (260.7 × 3600) × 10^6
  EXPECT_NE(MarginResultToJson(*r).find(R"("theta":260.7,)"), std::string::npos)
      << MarginResultToJson(*r);
}

}  // namespace
}  // namespace cfx::gpu_valuation
