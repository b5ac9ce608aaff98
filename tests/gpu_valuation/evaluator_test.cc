// The CPU evaluator against an obviously correct implementation, and the CUDA evaluator
// against the CPU (skipped, with the reason, where no device is usable).
#include "cfx/gpu_valuation/evaluator.h"

#include <algorithm>
#include <cstdlib>
#include <random>

#include "gtest/gtest.h"

namespace cfx::gpu_valuation {
namespace {

UTable RandomTable(int32_t contracts, int32_t scenarios, int64_t spread, std::mt19937_64* rng) {
  UTable u;
  u.num_contracts = contracts;
  u.num_scenarios = scenarios;
  u.values.resize(static_cast<size_t>(contracts) * scenarios);
  for (int64_t& v : u.values) v = static_cast<int64_t>((*rng)() % (2 * spread + 1)) - spread;
  return u;
}

PortfolioBatch RandomBatch(int32_t contracts, int portfolios, std::mt19937_64* rng) {
  PortfolioBatch b;
  for (int i = 0; i < portfolios; ++i) {
    const int n = static_cast<int>((*rng)() % 12);  // 0..11 entries, repeats allowed
    for (int k = 0; k < n; ++k) {
      b.AddEntry(static_cast<int32_t>((*rng)() % contracts),
                 static_cast<int64_t>((*rng)() % 2001) - 1000);
    }
    b.EndPortfolio();
  }
  return b;
}

// Sort every scenario by (loss desc, index asc); the rank-th's loss, with the lowest index
// that has it (SPEC §10: ties go to the lowest number).
std::vector<RankedLoss> Naive(const UTable& u, const PortfolioBatch& b, int32_t rank) {
  std::vector<RankedLoss> out;
  for (size_t i = 0; i < b.size(); ++i) {
    std::vector<RankedLoss> all;
    for (int32_t s = 0; s < u.num_scenarios; ++s) {
      int64_t loss = 0;
      for (int64_t e = b.offsets[i]; e < b.offsets[i + 1]; ++e) {
        loss -= b.qtys[e] * u.At(b.contracts[e], s);
      }
      all.push_back({loss, s});
    }
    std::sort(all.begin(), all.end(), [](const RankedLoss& x, const RankedLoss& y) {
      return x.loss != y.loss ? x.loss > y.loss : x.scenario < y.scenario;
    });
    size_t first = static_cast<size_t>(rank - 1);
    while (first > 0 && all[first - 1].loss == all[rank - 1].loss) --first;
    out.push_back(all[first]);
  }
  return out;
}

std::vector<RankedLoss> Evaluate(Evaluator& ev, const UTable& u, const PortfolioBatch& b,
                            int32_t rank) {
  std::vector<RankedLoss> out;
  EXPECT_TRUE(ev.SetTable(u).ok());
  EXPECT_TRUE(ev.SetPortfolios(b).ok());
  absl::Status s = ev.Evaluate(rank, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

struct Shape {
  int32_t scenarios;
  int32_t rank;
  int64_t spread;  // small spreads make many ties
};
// Scenario counts on and off multiples of 32 and 16; ranks 1 and mc-like.
const Shape kShapes[] = {{1, 1, 1000},    {16, 1, 3},     {16, 1, 1'000'000'000},
                         {17, 1, 2},      {17, 5, 2},     {33, 1, 1000},
                         {33, 7, 3},      {64, 2, 5},     {1000, 1, 1'000'000},
                         {1000, 10, 4},   {1000, 10, 1'000'000'000}, {1500, 1, 3},
                         {1500, 15, 1'000'000}, {10000, 100, 50}};

TEST(CpuEvaluatorTest, MatchesNaiveOnRandomPortfolios) {
  std::mt19937_64 rng(12345);
  for (int threads : {1, 2, 3}) {
    auto ev = MakeCpuEvaluator(threads);
    EXPECT_EQ(ev->Name(), "cpu");
    for (const Shape& shape : kShapes) {
      SCOPED_TRACE(::testing::Message() << "threads " << threads << " scenarios "
                                        << shape.scenarios << " rank " << shape.rank);
      const UTable u = RandomTable(9, shape.scenarios, shape.spread, &rng);
      const PortfolioBatch b = RandomBatch(9, shape.scenarios >= 1000 ? 60 : 700, &rng);
      EXPECT_EQ(Evaluate(*ev, u, b, shape.rank), Naive(u, b, shape.rank));
    }
  }
}

// Every kernel this CPU can run (AVX-512, AVX2 with the split table, baseline), on the
// shapes above and on values that exercise the split multiply's high half: |U| up to 2^40
// with |qty| up to 2^18, and quantities of 2^31 and beyond, which take the generic path.
TEST(CpuEvaluatorTest, EveryKernelMatchesNaiveIncludingLargeValuesAndQuantities) {
  using internal::CpuKernel;
  std::mt19937_64 rng(777);
  int kernels_run = 0;
  for (CpuKernel kernel : {CpuKernel::kAvx512, CpuKernel::kAvx2, CpuKernel::kBaseline}) {
    std::unique_ptr<Evaluator> ev = internal::MakeCpuEvaluatorWithKernel(kernel, 2);
    if (ev == nullptr) continue;  // this CPU cannot run it
    ++kernels_run;
    for (const Shape& shape : kShapes) {
      SCOPED_TRACE(::testing::Message() << "kernel " << static_cast<int>(kernel)
                                        << " scenarios " << shape.scenarios << " rank "
                                        << shape.rank);
      const UTable u = RandomTable(9, shape.scenarios, shape.spread, &rng);
      const PortfolioBatch b = RandomBatch(9, shape.scenarios >= 1000 ? 30 : 300, &rng);
      EXPECT_EQ(Evaluate(*ev, u, b, shape.rank), Naive(u, b, shape.rank));
    }
    for (int32_t scenarios : {16, 37, 1024}) {
      SCOPED_TRACE(::testing::Message() << "kernel " << static_cast<int>(kernel)
                                        << " large values, scenarios " << scenarios);
      const UTable u = RandomTable(7, scenarios, int64_t{1} << 40, &rng);
      PortfolioBatch big_values;
      for (int i = 0; i < 40; ++i) {
        for (int k = 0; k < 11; ++k) {
          const int64_t q = static_cast<int64_t>(rng() % (1u << 19)) - (1 << 18);
          big_values.AddEntry(static_cast<int32_t>(rng() % 7), q);
        }
        big_values.EndPortfolio();
      }
      EXPECT_EQ(Evaluate(*ev, u, big_values, 3), Naive(u, big_values, 3));
      // |qty| around 2^31 .. 2^33 against |U| < 2^20: products stay far inside int64.
      const UTable small = RandomTable(7, scenarios, int64_t{1} << 20, &rng);
      PortfolioBatch big_qtys;
      for (int i = 0; i < 40; ++i) {
        big_qtys.AddEntry(static_cast<int32_t>(i % 7), (int64_t{1} << 31) * (i % 2 ? 1 : -1));
        big_qtys.AddEntry(static_cast<int32_t>(rng() % 7), (int64_t{1} << 31) - 1 - i);
        big_qtys.AddEntry(static_cast<int32_t>(rng() % 7),
                          static_cast<int64_t>(rng() % (int64_t{1} << 34)) - (int64_t{1} << 33));
        big_qtys.EndPortfolio();
      }
      EXPECT_EQ(Evaluate(*ev, small, big_qtys, 1), Naive(small, big_qtys, 1));
    }
  }
  EXPECT_GE(kernels_run, 1);  // the baseline kernel runs everywhere
}

TEST(CpuEvaluatorTest, EmptyPortfolioIsZeroLossAtTheFirstScenario) {
  auto ev = MakeCpuEvaluator();
  std::mt19937_64 rng(1);
  PortfolioBatch b;
  b.EndPortfolio();
  auto out = Evaluate(*ev, RandomTable(3, 16, 100, &rng), b, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (RankedLoss{0, 0}));
}

TEST(CpuEvaluatorTest, TiesGoToTheLowestScenario) {
  UTable u;
  u.num_contracts = 1;
  u.num_scenarios = 5;
  u.values = {5, -7, 2, -7, -7};  // long 1 lot: losses -5, 7, -2, 7, 7
  PortfolioBatch b;
  b.AddEntry(0, 1);
  b.EndPortfolio();
  auto ev = MakeCpuEvaluator();
  // The rank-th largest loss is 7 for ranks 1 to 3: scenarios 1, 3 and 4 tie on it, and a
  // tie goes to the lowest number whatever the rank (until 2026-12-04, rank 2 and 3 named
  // scenarios 3 and 4, and a flat account under mc named scenario k, not 1).
  EXPECT_EQ(Evaluate(*ev, u, b, 1)[0], (RankedLoss{7, 1}));
  EXPECT_EQ(Evaluate(*ev, u, b, 2)[0], (RankedLoss{7, 1}));
  EXPECT_EQ(Evaluate(*ev, u, b, 3)[0], (RankedLoss{7, 1}));
  EXPECT_EQ(Evaluate(*ev, u, b, 4)[0], (RankedLoss{-2, 2}));
}

TEST(EvaluatorSelectionTest, ForceCpuNeverPicksCuda) {
  setenv("CFX_FORCE_CPU", "1", 1);
  auto ev = MakeEvaluator();
  unsetenv("CFX_FORCE_CPU");
  ASSERT_TRUE(ev.ok());
  EXPECT_EQ((*ev)->Name(), "cpu");
  EXPECT_EQ((*MakeEvaluator(BackendChoice::kCpu))->Name(), "cpu");
}

TEST(EvaluatorSelectionTest, AutoFallsBackToCpuWithoutADevice) {
  auto cuda = MakeCudaEvaluator();
  auto ev = MakeEvaluator();
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ((*ev)->Name(), cuda.ok() ? "cuda" : "cpu");
  if (!cuda.ok()) {
    EXPECT_EQ(cuda.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_FALSE(MakeEvaluator(BackendChoice::kCuda).ok());
  }
}

// Built only where nvcc was found; runs only where a device is usable.
std::unique_ptr<Evaluator> CudaOrSkipReason(std::string* reason) {
  if (std::getenv("CFX_FORCE_CPU") != nullptr &&
      std::string(std::getenv("CFX_FORCE_CPU")) == "1") {
    *reason = "CFX_FORCE_CPU=1";
    return nullptr;
  }
  auto cuda = MakeCudaEvaluator();
  if (!cuda.ok()) {
    *reason = std::string(cuda.status().message());
    return nullptr;
  }
  return std::move(*cuda);
}

// The CUDA evaluator against the CPU one; skipped without a usable device.
class CudaEvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    gpu_ = CudaOrSkipReason(&reason);
    if (gpu_ == nullptr) GTEST_SKIP() << "no CUDA device: " << reason;
    cpu_ = MakeCpuEvaluator();
  }

  std::unique_ptr<Evaluator> gpu_;
  std::unique_ptr<Evaluator> cpu_;
};

TEST_F(CudaEvaluatorTest, BitIdenticalToCpuOnRandomPortfolios) {
  std::mt19937_64 rng(777);
  for (const Shape& shape : kShapes) {
    SCOPED_TRACE(::testing::Message() << "scenarios " << shape.scenarios << " rank "
                                      << shape.rank);
    const UTable u = RandomTable(40, shape.scenarios, shape.spread, &rng);
    const PortfolioBatch b = RandomBatch(40, 3000, &rng);
    EXPECT_EQ(Evaluate(*gpu_, u, b, shape.rank), Evaluate(*cpu_, u, b, shape.rank));
  }
}

TEST_F(CudaEvaluatorTest, BitIdenticalOnLargeValuesQuantitiesAndSpan16Batches) {
  std::mt19937_64 rng(4242);
  // |U| up to 2^40 and |qty| up to 2^18 (the CPU's split multiply uses both halves), the
  // span16 shape of the bench and an mc-like one.
  for (int32_t scenarios : {16, 10000}) {
    const UTable u = RandomTable(144, scenarios, int64_t{1} << 40, &rng);
    PortfolioBatch b;
    for (int i = 0; i < (scenarios == 16 ? 20000 : 500); ++i) {
      for (int k = 0; k < 10; ++k) {
        b.AddEntry(static_cast<int32_t>(rng() % 144),
                   static_cast<int64_t>(rng() % (1u << 19)) - (1 << 18));
      }
      b.EndPortfolio();
    }
    const int32_t rank = scenarios == 16 ? 1 : scenarios / 100;
    EXPECT_EQ(Evaluate(*gpu_, u, b, rank), Evaluate(*cpu_, u, b, rank)) << scenarios;
  }
}

TEST_F(CudaEvaluatorTest, BitIdenticalBeyondSharedMemoryAndOnResidentReuse) {
  std::mt19937_64 rng(99);
  // 40,000 scenarios x 8 bytes do not fit in shared memory: the global scratch path.
  const UTable u = RandomTable(12, 40000, 1'000'000, &rng);
  const PortfolioBatch b = RandomBatch(12, 300, &rng);
  for (int32_t rank : {1, 400, 40000}) {
    EXPECT_EQ(Evaluate(*gpu_, u, b, rank), Evaluate(*cpu_, u, b, rank)) << rank;
  }
  // A second batch on the same resident table, and an empty batch.
  const PortfolioBatch b2 = RandomBatch(12, 5, &rng);
  EXPECT_EQ(Evaluate(*gpu_, u, b2, 3), Evaluate(*cpu_, u, b2, 3));
  PortfolioBatch empty;
  EXPECT_TRUE(Evaluate(*gpu_, u, empty, 1).empty());
}

}  // namespace
}  // namespace cfx::gpu_valuation
