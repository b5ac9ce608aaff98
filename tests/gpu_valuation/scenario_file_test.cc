#include <string>

#include "cfx/gpu_valuation/scenarios.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cfx::gpu_valuation {
namespace {

using ::testing::HasSubstr;

constexpr char kHeader[] = "scenario,weight,price_move,tput_PLAT,tput_GOLD,tput_SILV,tput_BRNZ\n";

TEST(ScenarioFileTest, ParsesLabelsWeightsAndMoves) {
  auto set = ParseScenarioCsv(std::string(kHeader) +
                                  "crash,0.5,-0.30,-0.1,-0.2,-0.3,-0.4\r\n"
                                  "\n"
                                  "rally,1,0.2,0,0,0,0.05\n",
                              "s.csv");
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->method, ScenarioMethod::kFile);
  ASSERT_EQ(set->scenarios.size(), 2u);
  EXPECT_EQ(set->scenarios[0].label, "crash");
  EXPECT_DOUBLE_EQ(set->scenarios[0].weight, 0.5);
  EXPECT_DOUBLE_EQ(set->scenarios[0].price_move, -0.30);
  // File moves apply as written to every gpu.
  EXPECT_DOUBLE_EQ(set->TputMove(set->scenarios[0], "B200", common::Tier::kSilv), -0.3);
  EXPECT_DOUBLE_EQ(set->TputMove(set->scenarios[0], "H100", common::Tier::kBrnz), -0.4);
  EXPECT_DOUBLE_EQ(set->TputMove(set->scenarios[1], "B200", common::Tier::kBrnz), 0.05);
}

struct BadCase {
  const char* body;      // after the header
  const char* expected;  // a substring of the message
};

TEST(ScenarioFileTest, RejectsEveryMalformedRowNamingFileLineAndColumn) {
  const BadCase kCases[] = {
      {"x,1,0,0,0,0\n", "s.csv:2: column tput_BRNZ: missing (expected 7 fields, got 6)"},
      {"x,1,0,0,0,0,0,9\n", "s.csv:2: expected 7 fields, got 8"},
      {",1,0,0,0,0,0\n", "s.csv:2: column scenario: empty"},
      {"a b,1,0,0,0,0,0\n", "s.csv:2: column scenario"},
      {"x,1,0,0,0,0,0\nx,1,0,0,0,0,0\n", "s.csv:3: column scenario: duplicate"},
      {"x,0,0,0,0,0,0\n", "s.csv:2: column weight"},
      {"x,-1,0,0,0,0,0\n", "s.csv:2: column weight"},
      {"x,1.5,0,0,0,0,0\n", "s.csv:2: column weight"},
      {"x,abc,0,0,0,0,0\n", "s.csv:2: column weight: not a decimal"},
      {"x,1,,0,0,0,0\n", "s.csv:2: column price_move: empty"},
      {"x,1,1e-3,0,0,0,0\n", "s.csv:2: column price_move"},
      {"x,1,nan,0,0,0,0\n", "s.csv:2: column price_move"},
      {"x,1, 0.1,0,0,0,0\n", "s.csv:2: column price_move: unexpected space"},
      {"x,1,-1.5,0,0,0,0\n", "s.csv:2: column price_move: move must be in [-1, 10]"},
      {"x,1,11,0,0,0,0\n", "s.csv:2: column price_move"},
      {"x,1,0,0.,0,0,0\n", "s.csv:2: column tput_PLAT"},
      {"x,1,0,0,-2,0,0\n", "s.csv:2: column tput_GOLD"},
      {"x,1,0,0,0,x,0\n", "s.csv:2: column tput_SILV"},
      {"x,1,0,0,0,0,+1\n", "s.csv:2: column tput_BRNZ"},
      {"\"x\",1,0,0,0,0,0\n", "s.csv:2: column scenario: unexpected space or quote"},
      {"", "s.csv: no scenarios"},
  };
  for (const BadCase& c : kCases) {
    auto set = ParseScenarioCsv(std::string(kHeader) + c.body, "s.csv");
    ASSERT_FALSE(set.ok()) << c.body;
    EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(set.status().message()), HasSubstr(c.expected)) << c.body;
  }
}

// A file past kMaxScenarios rows is refused at the first row past it, named with its line
// (it named the file alone).
TEST(ScenarioFileTest, AFileOfTooManyScenariosNamesTheRowPastTheBound) {
  std::string text = kHeader;
  text.reserve(text.size() + (kMaxScenarios + 1) * 24);
  for (int i = 0; i <= kMaxScenarios; ++i) text += "s" + std::to_string(i) + ",1,0,0,0,0,0\n";
  auto set = ParseScenarioCsv(text, "big.csv");
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(std::string(set.status().message()),
              HasSubstr("big.csv:" + std::to_string(kMaxScenarios + 2) + ":"));
  EXPECT_THAT(std::string(set.status().message()), HasSubstr("more than 1000000 scenarios"));
}

TEST(ScenarioFileTest, RejectsMissingOrWrongHeader) {
  EXPECT_THAT(std::string(ParseScenarioCsv("", "s.csv").status().message()),
              HasSubstr("s.csv:1: empty file, expected a header"));
  EXPECT_THAT(
      std::string(ParseScenarioCsv("scenario,weight,price_move\n", "s.csv").status().message()),
      HasSubstr("s.csv:1: header must be 'scenario,weight,"));
}

TEST(ScenarioFileTest, MissingFileIsNotFound) {
  EXPECT_EQ(ReadScenarioFile("/nonexistent/s.csv").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace cfx::gpu_valuation
