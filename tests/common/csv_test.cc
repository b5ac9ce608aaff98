#include "cfx/common/csv.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cfx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kHeader[] = "a,b,c";

struct Parsed {
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;
  absl::Status status;
};

Parsed Parse(const std::string& text) {
  Parsed out;
  common::CsvReader csv(text, "t.csv", kHeader);
  while (csv.Next()) {
    out.rows.emplace_back(csv.fields().begin(), csv.fields().end());
    out.lines.push_back(csv.line());
  }
  out.status = csv.status();
  return out;
}

// The message of a text that must be rejected.
std::string Rejected(const std::string& text) {
  Parsed p = Parse(text);
  EXPECT_EQ(p.status.code(), absl::StatusCode::kInvalidArgument) << text;
  return std::string(p.status.message());
}

TEST(CsvReaderTest, ReadsRowsAfterAnExactHeader) {
  Parsed p = Parse("a,b,c\n1,2,3\nx,y,z\n");
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_THAT(p.rows, ElementsAre(ElementsAre("1", "2", "3"), ElementsAre("x", "y", "z")));
  EXPECT_THAT(p.lines, ElementsAre(2, 3));  // the header is line 1
}

TEST(CsvReaderTest, HeaderOnlyHasNoRows) {
  Parsed p = Parse("a,b,c\n");
  EXPECT_TRUE(p.status.ok());
  EXPECT_TRUE(p.rows.empty());
}

// The message names the first column that differs (SPEC §11: the file, the line and the
// field), and shows a control byte escaped, never raw.
TEST(CsvReaderTest, RejectsAnyOtherHeader) {
  EXPECT_EQ(Rejected("a,b\n1,2\n"),
            "t.csv:1: header must be 'a,b,c', got 'a,b': column 3 'c' is missing");
  EXPECT_EQ(Rejected("A,b,c\n"),
            "t.csv:1: header must be 'a,b,c', got 'A,b,c': column 1 is 'A', expected 'a'");
  EXPECT_EQ(Rejected("a, b,c\n"),
            "t.csv:1: header must be 'a,b,c', got 'a, b,c': column 2 is ' b', expected 'b'");
  EXPECT_EQ(Rejected("a,b,c,d\n"),
            "t.csv:1: header must be 'a,b,c', got 'a,b,c,d': column 4 'd' is not one of them");
  EXPECT_EQ(Rejected("\na,b,c\n"),
            "t.csv:1: header must be 'a,b,c', got '': column 1 is '', expected 'a'");
  EXPECT_EQ(Rejected(""), "t.csv:1: empty file, expected a header");
  // Lines ending in a bare CR (old Mac files) are one line: said, with the CRs escaped.
  EXPECT_EQ(Rejected("a,b,c\r1,2,3\r"),
            "t.csv:1: header must be 'a,b,c', got 'a,b,c\\r1,2,3': its lines end in a bare CR "
            "(carriage return): use LF or CRLF line ends");
  EXPECT_EQ(Rejected("a,\x01"
                     "b,c\n"),
            "t.csv:1: header must be 'a,b,c', got 'a,\\x01b,c': column 2 is '\\x01b', "
            "expected 'b'");
}

TEST(CsvReaderTest, DropsAUtf8ByteOrderMarkBeforeTheHeaderOnly) {
  Parsed p = Parse(
      "\xEF\xBB\xBF"
      "a,b,c\n1,2,3\n");
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_THAT(p.rows, ElementsAre(ElementsAre("1", "2", "3")));
  // Anywhere else the mark is data: in a field it is kept as bytes.
  p = Parse(
      "a,b,c\n\xEF\xBB\xBF"
      "1,2,3\n");
  ASSERT_TRUE(p.status.ok());
  EXPECT_EQ(p.rows[0][0],
            "\xEF\xBB\xBF"
            "1");
  EXPECT_THAT(Rejected("a,\xEF\xBB\xBF"
                       "b,c\n"),
              HasSubstr("t.csv:1: header must be"));
}

TEST(CsvReaderTest, AcceptsCrlfLineEndsAndAMissingFinalNewline) {
  Parsed p = Parse("a,b,c\r\n1,2,3\r\n4,5,6");
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_THAT(p.rows, ElementsAre(ElementsAre("1", "2", "3"), ElementsAre("4", "5", "6")));
}

TEST(CsvReaderTest, SkipsBlankLinesButCountsThem) {
  Parsed p = Parse("a,b,c\n\n1,2,3\r\n\r\n\n4,5,6\n");
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_THAT(p.lines, ElementsAre(3, 6));
  EXPECT_EQ(Rejected("a,b,c\n\n\n1,2\n"), "t.csv:4: column c: missing (expected 3 fields, got 2)");
}

TEST(CsvReaderTest, ShortRowNamesTheFirstMissingColumn) {
  EXPECT_EQ(Rejected("a,b,c\n1,2\n"), "t.csv:2: column c: missing (expected 3 fields, got 2)");
  EXPECT_EQ(Rejected("a,b,c\n1\n"), "t.csv:2: column b: missing (expected 3 fields, got 1)");
}

TEST(CsvReaderTest, LongRowGivesTheCounts) {
  // The extra field is named by its place, its value and the column it follows.
  EXPECT_EQ(Rejected("a,b,c\n1,2,3,4\n"),
            "t.csv:2: expected 3 fields, got 4: field 4 ('4', after column c) is not in the "
            "header");
  EXPECT_EQ(Rejected("a,b,c\n1,2,3,\n"),
            "t.csv:2: expected 3 fields, got 4: field 4 ('', after column c) is not in the "
            "header");
}

// A line of a million commas is refused by its count without a view per field; a value
// of megabytes is shown by its two ends, and raw bytes escaped (an audit, 2026-12-06).
TEST(CsvReaderTest, HugeRowsGiveShortMessagesWithoutRawBytes) {
  EXPECT_EQ(Rejected("a,b,c\n1,2,3" + std::string(1'000'000, ',') + "\n"),
            "t.csv:2: expected 3 fields, got 1000003: field 4 ('', after column c) is not in the "
            "header");
  const std::string message =
      Rejected("a,b,c\n1,2,3," + std::string(5'000'000, 'x') + "\x01\xff\n");
  EXPECT_LT(message.size(), 600u) << message.substr(0, 600);
  EXPECT_THAT(message, HasSubstr("bytes not shown"));
  EXPECT_THAT(message, HasSubstr("xxx\\x01\\xff', after column c) is not in the header"));
  EXPECT_EQ(message.find('\x01'), std::string::npos);
}

TEST(CsvReaderTest, RejectsEmptyFields) {
  EXPECT_EQ(Rejected("a,b,c\n1,,3\n"), "t.csv:2: column b: empty");
  EXPECT_EQ(Rejected("a,b,c\n,2,3\n"), "t.csv:2: column a: empty");
  EXPECT_EQ(Rejected("a,b,c\n1,2,\n"), "t.csv:2: column c: empty");
  EXPECT_EQ(Rejected("a,b,c\n,,\n"), "t.csv:2: column a: empty");
}

TEST(CsvReaderTest, RejectsQuotesAnywhereInAField) {
  EXPECT_EQ(Rejected("a,b,c\n\"1\",2,3\n"),
            "t.csv:2: column a: unexpected space or quote: '\"1\"'");
  EXPECT_EQ(Rejected("a,b,c\n1,x\"y,3\n"), "t.csv:2: column b: unexpected space or quote: 'x\"y'");
  EXPECT_EQ(Rejected("a,b,c\n1,2,3\"\n"), "t.csv:2: column c: unexpected space or quote: '3\"'");
}

TEST(CsvReaderTest, RejectsSurroundingSpacesButKeepsInnerOnes) {
  EXPECT_THAT(Rejected("a,b,c\n 1,2,3\n"), HasSubstr("t.csv:2: column a: unexpected space"));
  EXPECT_THAT(Rejected("a,b,c\n1,2 ,3\n"), HasSubstr("t.csv:2: column b: unexpected space"));
  EXPECT_THAT(Rejected("a,b,c\n1,2,\t3\n"), HasSubstr("t.csv:2: column c: unexpected space"));
  EXPECT_THAT(Rejected("a,b,c\n1, ,3\n"), HasSubstr("t.csv:2: column b: unexpected space"));
  Parsed p = Parse("a,b,c\nBeta Co,2,3\n");
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.rows[0][0], "Beta Co");
}

TEST(CsvReaderTest, StopsAtTheFirstBadRow) {
  common::CsvReader csv("a,b,c\n1,2,3\n1,2\n4,5,6\n", "t.csv", kHeader);
  EXPECT_TRUE(csv.Next());
  EXPECT_FALSE(csv.Next());
  EXPECT_FALSE(csv.status().ok());
  EXPECT_FALSE(csv.Next());  // stays stopped
  EXPECT_EQ(csv.line(), 3);
}

TEST(CsvReaderTest, ErrorNamesFileLineAndColumn) {
  common::CsvReader csv("a,b,c\n\n1,2,3\n", "t.csv", kHeader);
  ASSERT_TRUE(csv.Next());
  EXPECT_EQ(csv.column_count(), 3u);
  EXPECT_EQ(csv.column_name(1), "b");
  const absl::Status s = csv.Error(1, "not a number: '2'");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "t.csv:3: column b: not a number: '2'");
  EXPECT_EQ(common::CsvError("f.csv", 7, "", "no rows").message(), "f.csv:7: no rows");
}

TEST(CsvFieldTest, ParseDecimalDoubleIsStrict) {
  EXPECT_EQ(*common::ParseDecimalDouble("0.25"), 0.25);
  EXPECT_EQ(*common::ParseDecimalDouble("-1"), -1.0);
  EXPECT_EQ(*common::ParseDecimalDouble("1000.5"), 1000.5);
  for (const char* bad : {"", "-", "1.", ".5", "1e3", "+1", "nan", "inf", " 1", "1.2.3", "--1"}) {
    EXPECT_FALSE(common::ParseDecimalDouble(bad).ok()) << bad;
  }
  EXPECT_THAT(std::string(common::ParseDecimalDouble("abc").status().message()),
              HasSubstr("not a decimal number: \"abc\""));
}

TEST(CsvFieldTest, ParseIntegerIsStrict) {
  EXPECT_EQ(*common::ParseInteger("42"), 42);
  EXPECT_EQ(*common::ParseInteger("-7"), -7);
  EXPECT_EQ(*common::ParseInteger("9223372036854775807"), INT64_MAX);
  for (const char* bad : {"", "-", "1.5", "+1", "1e3", "x", "9223372036854775808", " 1"}) {
    EXPECT_FALSE(common::ParseInteger(bad).ok()) << bad;
  }
  EXPECT_THAT(std::string(common::ParseInteger("1.5").status().message()),
              HasSubstr("not an integer: \"1.5\""));
}

TEST(CsvFieldTest, PlainNamesArePrintableAsciiWithoutSpaces) {
  EXPECT_TRUE(common::IsPlainName("ALPHA-1"));
  EXPECT_TRUE(common::IsPlainName(std::string(64, 'x')));
  EXPECT_FALSE(common::IsPlainName(""));
  EXPECT_FALSE(common::IsPlainName(std::string(65, 'x')));
  EXPECT_FALSE(common::IsPlainName("a b"));
  EXPECT_FALSE(common::IsPlainName("a\tb"));
  EXPECT_FALSE(common::IsPlainName("a\x7f"));
  EXPECT_FALSE(common::IsPlainName("M\xC3\xBCller"));  // non-ASCII bytes
}

TEST(ReadWholeFileTest, ReadsBytesAsTheyAre) {
  const std::string path = ::testing::TempDir() + "/cfx_csv_test_read.csv";
  const std::string bytes = "a,b,c\r\n1,2,3\n\xEF\xBB\xBF";
  std::ofstream(path, std::ios::binary) << bytes;
  absl::StatusOr<std::string> text = common::ReadWholeFile(path);
  std::remove(path.c_str());  // tests leave nothing in /tmp
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, bytes);
}

TEST(ReadWholeFileTest, MissingFileIsNotFoundNamingThePath) {
  absl::StatusOr<std::string> text = common::ReadWholeFile("/nonexistent/x.csv");
  EXPECT_EQ(text.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(text.status().message(),
            "/nonexistent/x.csv: cannot open file: No such file or directory");
}

}  // namespace
}  // namespace cfx
