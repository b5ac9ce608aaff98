#include "cfx/gpu_valuation/csv_inputs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

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

TEST(CsvInputsTest, RejectsBadPositions) {
  const char* h = "account,sym,qty\n";
  EXPECT_THAT(Message(ParsePositionsCsv(std::string(h) + "A1,B200-GOLD-US-202703,1.5\n", "p.csv")
                          .status()),
              HasSubstr("p.csv:2: field 'qty': not an integer"));
  EXPECT_THAT(Message(ParsePositionsCsv(std::string(h) + "A1,B200-GOLD-XX-202703,1\n", "p.csv")
                          .status()),
              HasSubstr("p.csv:2: field 'sym'"));
  EXPECT_THAT(Message(ParsePositionsCsv(std::string(h) + ",B200-GOLD-US-202703,1\n", "p.csv")
                          .status()),
              HasSubstr("p.csv:2: field 'account'"));
  EXPECT_THAT(
      Message(ParsePositionsCsv(std::string(h) + "A,B200-GOLD-US-202703,2000000000\n", "p.csv")
                  .status()),
      HasSubstr("p.csv:2: field 'qty'"));
  EXPECT_THAT(Message(ParsePositionsCsv("acct,sym,qty\n", "p.csv").status()),
              HasSubstr("p.csv:1: bad header"));
}

TEST(CsvInputsTest, RejectsBadPrices) {
  const char* h = "sym,settle\n";
  EXPECT_THAT(Message(ParsePricesCsv(std::string(h) + "B200-GOLD-US-202703,5.2501\n", "s.csv")
                          .status()),
              HasSubstr("s.csv:2: field 'settle'"));
  EXPECT_THAT(Message(ParsePricesCsv(std::string(h) + "B200-GOLD-US-202703,0\n", "s.csv")
                          .status()),
              HasSubstr("s.csv:2: field 'settle'"));
  EXPECT_THAT(Message(ParsePricesCsv(std::string(h) +
                                         "B200-GOLD-US-202703,5\nB200-GOLD-US-202703,6\n",
                                     "s.csv")
                          .status()),
              HasSubstr("s.csv:3: field 'sym': duplicate"));
}

TEST(CsvInputsTest, RejectsBadThroughputRows) {
  const std::string h = "date,operator,tier,gpu,model,isl,osl,output_tps_per_gpu\n";
  const std::string ok = "2027-03-01,op1,GOLD,B200,llama,1024,1024,1000.5\n";
  ASSERT_TRUE(ParseThroughputCsv(h + ok, "t.csv").ok());
  const std::pair<const char*, const char*> kCases[] = {
      {"2027-02-30,op1,GOLD,B200,m,1,1,1\n", "t.csv:3: field 'date'"},
      {"2027-03-01,op1,GOLDEN,B200,m,1,1,1\n", "t.csv:3: field 'tier'"},
      {"2027-03-01,op1,PLAT,B200,m,1,1,1\n", "t.csv:3: field 'tier': operator \"op1\""},
      {"2027-03-01,op2,GOLD,b200,m,1,1,1\n", "t.csv:3: field 'gpu'"},
      {"2027-03-01,op2,GOLD,B200,,1,1,1\n", "t.csv:3: field 'model'"},
      {"2027-03-01,op2,GOLD,B200,m,0,1,1\n", "t.csv:3: field 'isl'"},
      {"2027-03-01,op2,GOLD,B200,m,1,x,1\n", "t.csv:3: field 'osl'"},
      {"2027-03-01,op2,GOLD,B200,m,1,1,0\n", "t.csv:3: field 'output_tps_per_gpu'"},
      {"2027-03-01,op2,GOLD,B200,m,1,1\n", "t.csv:3: field 'output_tps_per_gpu'"},
  };
  for (const auto& [row, expected] : kCases) {
    EXPECT_THAT(Message(ParseThroughputCsv(h + ok + row, "t.csv").status()), HasSubstr(expected))
        << row;
  }
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
              HasSubstr("p.csv:4: field 'sym': no settlement price for \"B200-PLAT-US-202703\""));
  prices.push_back({"B200-PLAT-US-202703", 6000});
  grouped = GroupByAccount(*rows, prices, "p.csv");
  ASSERT_TRUE(grouped.ok());
  ASSERT_EQ(grouped->size(), 2u);
  EXPECT_EQ((*grouped)[0].account, "A");
  EXPECT_EQ((*grouped)[0].positions.size(), 2u);
}

}  // namespace
}  // namespace cfx::gpu_valuation
