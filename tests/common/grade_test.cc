#include "cfx/common/grade.h"

#include <string>

#include "gtest/gtest.h"

namespace cfx {
namespace {

TEST(GradeTest, ParsesGradesAndSymbols) {
  auto g = common::ParseGrade("B200-GOLD-US");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->tier, common::Tier::kGold);
  EXPECT_EQ(g->Key(), "B200-GOLD-US");
  EXPECT_TRUE(common::ParseGrade("H100-PLAT-APAC").ok());
  auto s = common::ParseSymbol("B200-GOLD-US-202703");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->year, 2027);
  EXPECT_EQ(s->month, 3);
  EXPECT_EQ(s->Key(), "B200-GOLD-US-202703");
}

TEST(GradeTest, RejectsUnknownParts) {
  EXPECT_FALSE(common::ParseGrade("B200-GOLD").ok());
  EXPECT_FALSE(common::ParseGrade("B200-TIN-US").ok());
  EXPECT_FALSE(common::ParseGrade("B200-GOLD-MARS").ok());
  EXPECT_FALSE(common::ParseGrade("b200-GOLD-US").ok());
  EXPECT_FALSE(common::ParseSymbol("B200-GOLD-US-202713").ok());
  EXPECT_FALSE(common::ParseSymbol("B200-GOLD-US-2027").ok());
}

// The longest grade's symbols fit the engine's 32-byte names; one character more is refused
// where the grade is read (config, files), not found later as an unlisted contract.
TEST(GradeTest, GpuNamesAreShortEnoughForEverySymbolToBeListed) {
  const std::string longest(common::kMaxGpuNameChars, 'G');
  auto s = common::ParseSymbol(longest + "-BRNZ-APAC-202703");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->Key().size(), common::kMaxSymbolChars);
  auto g = common::ParseGrade(longest + "G-PLAT-US");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("longer than 15 characters"), std::string::npos)
      << g.status();
}

}  // namespace
}  // namespace cfx
