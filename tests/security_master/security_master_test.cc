// The security master's encoding and its derivation from sequenced listing inputs.
#include "cfx/security_master/derive.h"
#include "cfx/security_master/format.h"
#include "gtest/gtest.h"

namespace cfx::security_master {
namespace {

common::Date D(const char* s) { return *common::ParseDate(s); }
common::TimestampUs Ts(const char* s) { return *common::ParseTimestamp(s); }

ListingInput Listing(uint64_t seq, std::optional<common::TimestampUs> ts, const char* sym,
                     std::optional<int64_t> ref, int64_t max_qty = 1000) {
  ListingInput in;
  in.seq = seq;
  in.ts = ts;
  in.sym = sym;
  if (ref) in.band_ref = common::PriceTicks(*ref);
  in.max_order_qty = common::Qty(max_qty);
  return in;
}

TEST(SecurityMasterTest, AListingMakesTheRowWithItsMonthAndLastTradingDay) {
  // 2027-12-31 is a holiday: the December contract's last trading day is the 30th.
  const common::BusinessCalendar calendar({D("2027-12-31")});
  std::optional<Contract> row;
  auto e = ApplyListing(Listing(7, Ts("2027-03-01T09:00:00Z"), "B200-GOLD-US-202712", 5000),
                        calendar, &row);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, EventKind::kListed);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(FormatContractJson(*row),
            R"({"sym":"B200-GOLD-US-202712","grade":"B200-GOLD-US","month":"2027-12",)"
            R"("tick":"0.001","multiplier":1000,"max_order_qty":1000,"band_ref":"5.000",)"
            R"("listing_date":"2027-03-01","last_trading_day":"2027-12-30","state":"listed",)"
            R"("listed_seq":7,"updated_seq":7})");
  EXPECT_EQ(FormatContractEventJson(*e),
            R"({"seq":7,"ts":"2027-03-01T09:00:00Z","sym":"B200-GOLD-US-202712",)"
            R"("event":"listed","band_ref":"5.000","max_order_qty":1000})");
  EXPECT_EQ(HistoryKey(row->sym, 7), "B200-GOLD-US-202712/0000000000000007");
}

TEST(SecurityMasterTest, ChangesAreHistoryAndARepeatIsNot) {
  const common::BusinessCalendar calendar;
  std::optional<Contract> row;
  ASSERT_TRUE(ApplyListing(Listing(1, std::nullopt, "B200-GOLD-US-202703", std::nullopt), calendar,
                           &row));
  EXPECT_FALSE(row->listing_date.has_value());  // no sequenced time yet: from the beginning
  EXPECT_FALSE(ApplyListing(Listing(2, std::nullopt, "B200-GOLD-US-202703", std::nullopt),
                            calendar, &row));  // a margin refresh, say
  auto ref = ApplyListing(Listing(3, Ts("2027-03-02T16:05:00Z"), "B200-GOLD-US-202703", 5100),
                          calendar, &row);
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->kind, EventKind::kReferenceChanged);
  EXPECT_EQ(row->band_ref, common::PriceTicks(5100));
  auto terms = ApplyListing(Listing(4, std::nullopt, "B200-GOLD-US-202703", 5100, 500), calendar,
                            &row);
  ASSERT_TRUE(terms.has_value());
  EXPECT_EQ(terms->kind, EventKind::kTermsChanged);
  EXPECT_EQ(row->listed_seq, 1u);
  EXPECT_EQ(row->updated_seq, 4u);
  auto expired = ApplyExpiry(9, Ts("2027-03-31T16:00:00Z"), &*row);
  ASSERT_TRUE(expired.has_value());
  EXPECT_EQ(expired->kind, EventKind::kExpired);
  EXPECT_FALSE(row->listed());
  EXPECT_FALSE(ApplyExpiry(10, std::nullopt, &*row));
  EXPECT_FALSE(ApplyListing(Listing(11, std::nullopt, "B200-GOLD-US-202703", 9000), calendar, &row));
}

TEST(SecurityMasterTest, SettlesFromTheListingDateThroughTheLastTradingDay) {
  std::optional<Contract> row;
  ASSERT_TRUE(ApplyListing(Listing(1, Ts("2027-03-02T00:00:01Z"), "B200-GOLD-US-202703", 5000),
                           common::BusinessCalendar(), &row));
  EXPECT_FALSE(row->SettlesOn(D("2027-03-01")));
  EXPECT_TRUE(row->SettlesOn(D("2027-03-02")));
  EXPECT_TRUE(row->SettlesOn(D("2027-03-31")));  // its last trading day, expired or not
  EXPECT_FALSE(row->SettlesOn(D("2027-04-01")));
}

TEST(SecurityMasterTest, ASymbolOutsideTheSchemeHasNoMonth) {
  std::optional<Contract> row;
  ASSERT_TRUE(ApplyListing(Listing(1, std::nullopt, "XYZ", 1000), common::BusinessCalendar(), &row));
  EXPECT_FALSE(row->contract.has_value());
  EXPECT_FALSE(row->last_trading_day.has_value());
  EXPECT_NE(FormatContractJson(*row).find(R"("grade":null,"month":null)"), std::string::npos);
}

TEST(SecurityMasterTest, RowsAndEventsRoundTripAndBadRowsNameTheField) {
  std::optional<Contract> row;
  auto e = ApplyListing(Listing(5, Ts("2027-03-01T12:00:00Z"), "B200-SILV-EU-202705", 4100),
                        common::BusinessCalendar(), &row);
  auto back = ParseContractJson(FormatContractJson(*row));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(FormatContractJson(*back), FormatContractJson(*row));
  auto event = ParseContractEventJson(FormatContractEventJson(*e));
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(*event, *e);
  std::string text = FormatContractJson(*row);
  text.replace(text.find("\"listed\""), 8, "\"gone\"");
  auto bad = ParseContractJson(text);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'state'"), std::string::npos) << bad.status();
  EXPECT_FALSE(ParseContractJson("[]").ok());
  // A whole row, then a NUL and bytes (damage): not read as the row before the NUL.
  EXPECT_FALSE(ParseContractJson(FormatContractJson(*row) + std::string(1, '\0') + "x").ok());
  EXPECT_FALSE(
      ParseContractEventJson(FormatContractEventJson(*e) + std::string(1, '\0') + "x").ok());
}

// What no listing writes is refused, naming what is wrong: a last trading day outside the
// symbol's month (or for a symbol with no month), a multiplier or a maximum quantity that is
// not positive. Until 2026-12-07 such rows were read as written and settled on (a review).
TEST(SecurityMasterTest, RowsNoListingWritesAreRefused) {
  std::optional<Contract> row;
  ASSERT_TRUE(ApplyListing(Listing(5, Ts("2027-03-01T12:00:00Z"), "B200-SILV-EU-202705", 4100),
                           common::BusinessCalendar(), &row));
  const std::string good = FormatContractJson(*row);
  ASSERT_TRUE(ParseContractJson(good).ok());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from << " in " << text;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return ParseContractJson(text);
  };
  const std::string ltd = "\"last_trading_day\":\"" + common::FormatDate(*row->last_trading_day);
  auto outside = with(ltd, "\"last_trading_day\":\"2027-06-30");
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("outside the symbol's month"), std::string::npos)
      << outside.status();
  auto multiplier = with("\"multiplier\":1000", "\"multiplier\":0");
  ASSERT_FALSE(multiplier.ok());
  EXPECT_NE(multiplier.status().message().find("'multiplier'"), std::string::npos)
      << multiplier.status();
  auto qty = with("\"max_order_qty\":", "\"max_order_qty\":-");
  ASSERT_FALSE(qty.ok());
  EXPECT_NE(qty.status().message().find("'max_order_qty'"), std::string::npos) << qty.status();
  std::optional<Contract> odd;
  ASSERT_TRUE(
      ApplyListing(Listing(6, std::nullopt, "XYZ", 1000), common::BusinessCalendar(), &odd));
  std::string text = FormatContractJson(*odd);
  const std::string none = "\"last_trading_day\":null";
  const size_t at = text.find(none);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, none.size(), "\"last_trading_day\":\"2027-03-31\"");
  auto no_month = ParseContractJson(text);
  ASSERT_FALSE(no_month.ok());
  EXPECT_NE(no_month.status().message().find("no month"), std::string::npos) << no_month.status();
}

TEST(SecurityMasterTest, TheWindowIsTwelveMonthsAcrossTheYearEnd) {
  auto window = ListingWindow(*common::ParseGrade("B200-GOLD-US"), D("2027-06-15"));
  ASSERT_EQ(window.size(), 12u);
  EXPECT_EQ(window.front().Key(), "B200-GOLD-US-202706");
  EXPECT_EQ(window.back().Key(), "B200-GOLD-US-202805");
}

}  // namespace
}  // namespace cfx::security_master
