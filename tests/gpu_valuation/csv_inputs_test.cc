#include "cfx/gpu_valuation/csv_inputs.h"

#include <fstream>
#include <initializer_list>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "remove_on_exit.h"

namespace cfx::gpu_valuation {
namespace {

using ::testing::HasSubstr;

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(CsvInputsTest, ParsesPositionsAndPrices) {
  auto pos = ParsePositionsCsv("account,sym,qty\nA1,B200-GOLD-US-202703,-5\n", "p.csv");
  ASSERT_TRUE(pos.ok()) << pos.status();
  EXPECT_EQ((*pos)[0].account, "A1");
  EXPECT_EQ((*pos)[0].position.qty, -5);
  EXPECT_EQ((*pos)[0].line, 2);
  auto prices = ParsePricesCsv("sym,settle\nB200-GOLD-US-202703,5.25\n", "s.csv");
  ASSERT_TRUE(prices.ok()) << prices.status();
  EXPECT_EQ((*prices)[0].settle_ticks, 5250);
}

// A CSV text and the error it must give (a substring of the message).
struct BadCsv {
  std::string text;
  const char* error;
};

// Parses each case's text as `file` with `parse` and expects its error.
template <typename Parse>
void ExpectErrors(Parse parse, const char* file, std::initializer_list<BadCsv> cases) {
  for (const BadCsv& c : cases) {
    EXPECT_THAT(Message(parse(c.text, file).status()), HasSubstr(c.error)) << c.text;
  }
}

TEST(CsvInputsTest, RejectsBadPositions) {
  const std::string h = "account,sym,qty\n";
  ExpectErrors(
      ParsePositionsCsv, "p.csv",
      {
          {h + "A1,B200-GOLD-US-202703,1.5\n", "p.csv:2: column qty: not an integer"},
          {h + "A1,B200-GOLD-XX-202703,1\n", "p.csv:2: column sym"},
          {h + ",B200-GOLD-US-202703,1\n", "p.csv:2: column account"},
          // Account ids as SPEC §9 has them, as settlement refuses the rest.
          {h + "_desk.1,B200-GOLD-US-202703,1\n", "p.csv:2: column account"},
          {h + "settlement_prices,B200-GOLD-US-202703,1\n", "p.csv:2: column account"},
          {h + "A,B200-GOLD-US-202703,2000000000\n", "p.csv:2: column qty"},
          {"acct,sym,qty\n", "p.csv:1: header must be 'account,sym,qty', got 'acct,sym,qty'"},
      });
}

TEST(CsvInputsTest, RejectsBadPrices) {
  const std::string h = "sym,settle\n";
  ExpectErrors(
      ParsePricesCsv, "s.csv",
      {
          {h + "B200-GOLD-US-202703,5.2501\n", "s.csv:2: column settle"},
          {h + "B200-GOLD-US-202703,0\n", "s.csv:2: column settle"},
          {h + "B200-GOLD-US-202703,5\nB200-GOLD-US-202703,6\n", "s.csv:3: column sym: duplicate"},
      });
}

TEST(CsvInputsTest, FollowTheStrictCsvRules) {
  const std::string h = "account,sym,qty\n";
  ExpectErrors(ParsePositionsCsv, "p.csv",
               {
                   {h + "A1,B200-GOLD-US-202703\n",
                    "p.csv:2: column qty: missing (expected 3 fields, got 2)"},
                   {h + "A1, B200-GOLD-US-202703,1\n", "p.csv:2: column sym: unexpected space"},
               });
  ExpectErrors(ParsePricesCsv, "s.csv",
               {{"sym,settle\n\"B200-GOLD-US-202703\",5\n",
                 "s.csv:2: column sym: unexpected space or quote"},
                // The margin engine's bound, with the file, line and column.
                {"sym,settle\nB200-GOLD-US-202703,1000000.001\n",
                 "s.csv:2: column settle: settlement price above 1,000,000 USD"}});
  // A spreadsheet's byte order mark before the header is dropped; CRLF is accepted.
  auto pos = ParsePositionsCsv(
      "\xEF\xBB\xBF"
      "account,sym,qty\r\n\r\nA1,B200-GOLD-US-202703,1\r\n",
      "p.csv");
  ASSERT_TRUE(pos.ok()) << pos.status();
  EXPECT_EQ((*pos)[0].line, 3);
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/cfx_csv_inputs_" + name;
  std::ofstream(path, std::ios::binary) << text;
  cfx::testsupport::RemoveAtProgramExit(path);
  return path;
}

TEST(CsvInputsTest, ThroughputIsReadByTheReferenceReader) {
  const std::string h = "date,operator,tier,gpu,model,isl,osl,output_tps_per_gpu\n";
  auto rows = ReadThroughputCsv(
      WriteTemp("t_ok.csv", h + "2027-03-01,op1,GOLD,B200,llama,1024,1024,260.3\n"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].operator_name, "op1");
  EXPECT_EQ((*rows)[0].tier, common::Tier::kGold);
  EXPECT_EQ((*rows)[0].output_tps_per_gpu, 260.3);  // the double nearest the text
  // Its errors and its limits are the reference's (at most 6 decimals, <= 10^9).
  const std::pair<const char*, const char*> kCases[] = {
      {"2027-02-30,op1,GOLD,B200,m,1,1,1\n", ":2: column date"},
      {"2027-03-01,op 1,GOLD,B200,m,1,1,1\n", ":2: column operator"},
      {"2027-03-01,op1,GOLDEN,B200,m,1,1,1\n", ":2: column tier"},
      {"2027-03-01,op1,GOLD,B200,m,1,1,1\n2027-03-01,op1,PLAT,B200,m,1,1,1\n",
       ":3: column tier: operator 'op1'"},
      {"2027-03-01,op2,GOLD,b200,m,1,1,1\n", ":2: column gpu"},
      {"2027-03-01,op2,GOLD,B200,,1,1,1\n", ":2: column model: empty"},
      {"2027-03-01,op2,GOLD,B200,m,0,1,1\n", ":2: column isl"},
      {"2027-03-01,op2,GOLD,B200,m,1,x,1\n", ":2: column osl"},
      {"2027-03-01,op2,GOLD,B200,m,1,1,0\n", ":2: column output_tps_per_gpu"},
      {"2027-03-01,op2,GOLD,B200,m,1,1,1.0000001\n", ":2: column output_tps_per_gpu: more than 6"},
      {"2027-03-01,op2,GOLD,B200,m,1,1,1000000001\n", ":2: column output_tps_per_gpu: must be <="},
      {"2027-03-01,op2,GOLD,B200,m,1,1\n", ":2: column output_tps_per_gpu: missing"},
  };
  for (const auto& [row, expected] : kCases) {
    EXPECT_THAT(Message(ReadThroughputCsv(WriteTemp("t_bad.csv", h + row)).status()),
                HasSubstr(expected))
        << row;
  }
  EXPECT_EQ(ReadThroughputCsv("/nonexistent/t.csv").status().code(), absl::StatusCode::kNotFound);
}

TEST(CsvInputsTest, GroupByAccountSortsAndRejectsUnpricedSymbols) {
  auto rows = ParsePositionsCsv(
      "account,sym,qty\nB,B200-GOLD-US-202703,1\nA,B200-GOLD-US-202703,2\n"
      "A,B200-PLAT-US-202703,3\n",
      "p.csv");
  ASSERT_TRUE(rows.ok());
  std::vector<ContractPrice> prices = {{"B200-GOLD-US-202703", 5000}};
  auto grouped = GroupByAccount(*rows, prices, "p.csv");
  EXPECT_THAT(Message(grouped.status()),
              HasSubstr("p.csv:4: column sym: no settlement price for \"B200-PLAT-US-202703\""));
  prices.push_back({"B200-PLAT-US-202703", 6000});
  grouped = GroupByAccount(*rows, prices, "p.csv");
  ASSERT_TRUE(grouped.ok());
  ASSERT_EQ(grouped->size(), 2u);
  EXPECT_EQ((*grouped)[0].account, "A");
  EXPECT_EQ((*grouped)[0].positions.size(), 2u);
}

}  // namespace
}  // namespace cfx::gpu_valuation
