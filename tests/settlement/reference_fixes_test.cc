// The production FixSource over `cfx reference build`'s store (SPEC §9 step 1): a stale
// record (level 3, carrying the earlier fix) counts as a fix; a record without a fix
// (insufficient_data) and a day without a record do not.
#include "cfx/settlement/reference_fixes.h"

#include <memory>
#include <string>
#include <vector>

#include "cfx/reference/fix_store.h"
#include "gtest/gtest.h"
#include "temp_dir.h"

namespace cfx::settlement {
namespace {

reference::PublishItem Item(const std::string& date, std::optional<int64_t> fix_e4,
                            std::optional<int> level, std::vector<std::string> flags) {
  reference::PublishItem item;
  item.record.grade = "B200-GOLD-US";
  item.record.date = *common::ParseDate(date);
  item.record.fix_e4 = fix_e4;
  item.record.level = level;
  item.record.flags = std::move(flags);
  item.record.methodology = "cfx-ref-2";
  item.record.inputs_sha256 = std::string(64, 'a');
  item.explanation = R"({"grade":"B200-GOLD-US","date":")" + date + R"("})";
  return item;
}

TEST(ReferenceFixSourceTest, AStaleFixCountsAndAMissingOneDoesNot) {
  testsupport::TempDir dir("cfx_reference_fixes");
  ASSERT_FALSE(dir.path().empty());
  {
    auto store = reference::FixStore::Open(dir.path());
    ASSERT_TRUE(store.ok()) << store.status();
    absl::Status s = (*store)->Publish(
        {Item("2027-03-01", 51000, 1, {}),
         Item("2027-03-02", 51000, 3, {reference::kFlagStale}),
         Item("2027-03-03", std::nullopt, std::nullopt, {reference::kFlagInsufficientData})},
        {});
    ASSERT_TRUE(s.ok()) << s;
  }
  auto source = OpenReferenceFixSource(dir.path());
  ASSERT_TRUE(source.ok()) << source.status();
  auto fix = [&](const char* date) {
    auto f = (*source)->FixE4("B200-GOLD-US", *common::ParseDate(date));
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? *f : std::optional<int64_t>(-1);
  };
  EXPECT_EQ(fix("2027-03-01"), std::optional<int64_t>(51000));
  EXPECT_EQ(fix("2027-03-02"), std::optional<int64_t>(51000)) << "a stale fix is a fix";
  EXPECT_EQ(fix("2027-03-03"), std::nullopt) << "insufficient data: no fix";
  EXPECT_EQ(fix("2027-03-04"), std::nullopt) << "no record: no fix";
  // Built: every day from the store's first on has a record of some grade; before its first
  // there was no benchmark (a missing fix there is no fix).
  auto built = [&](const char* date) {
    auto b = (*source)->Built(*common::ParseDate(date));
    EXPECT_TRUE(b.ok()) << b.status();
    return b.ok() && *b;
  };
  EXPECT_TRUE(built("2027-02-26"));
  EXPECT_TRUE(built("2027-03-01"));
  EXPECT_TRUE(built("2027-03-03")) << "insufficient data is a published day";
  EXPECT_FALSE(built("2027-03-04")) << "no record of any grade: not built yet";
}

}  // namespace
}  // namespace cfx::settlement
