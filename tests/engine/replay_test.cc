// Runs every example of tests/data/replay (copied from shared/examples/replay) and checks
// determinism: replaying twice gives identical events and state hash.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cfx/engine/replay.h"
#include "gtest/gtest.h"

namespace cfx::engine {
namespace {

std::string StripOid(const std::string& text) {
  static const std::regex kOid(R"(,"oid":\d+)");
  return std::regex_replace(text, kOid, "");
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ReplayTest, EveryExampleMatchesItsExpectedOutput) {
  std::filesystem::path dir = std::filesystem::path(CFX_SOURCE_DIR) / "tests/data/replay";
  int examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(".expected.jsonl") || !name.ends_with(".jsonl")) continue;
    std::filesystem::path expected = entry.path();
    expected.replace_extension(".expected.jsonl");
    std::ifstream in(entry.path());
    std::ostringstream out;
    RunReplay(in, out);
    EXPECT_EQ(StripOid(out.str()), StripOid(ReadFile(expected))) << name;
    ++examples;
  }
  EXPECT_GE(examples, 6);
}

TEST(ReplayTest, ReplayTwiceGivesIdenticalEventsAndStateHash) {
  std::filesystem::path dir = std::filesystem::path(CFX_SOURCE_DIR) / "tests/data/replay";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(".expected.jsonl")) continue;
    std::string input = ReadFile(entry.path());
    std::istringstream in1(input), in2(input);
    std::ostringstream out1, out2;
    ReplayResult r1 = RunReplay(in1, out1);
    ReplayResult r2 = RunReplay(in2, out2);
    EXPECT_EQ(out1.str(), out2.str()) << name;
    EXPECT_EQ(r1.state_hash, r2.state_hash) << name;
  }
}

TEST(ReplayTest, SeqStrictlyIncreasesAndBlankLinesCountForLineNumbers) {
  std::istringstream in(
      "{\"op\":\"product\",\"sym\":\"S\",\"ref\":\"5.000\"}\n\n\nnot json\n");
  std::ostringstream out;
  RunReplay(in, out);
  EXPECT_EQ(out.str(), "{\"seq\":1,\"ev\":\"rejected\",\"reason\":\"invalid_field\",\"line\":4}\n");
}

// Rules that only show with two contracts (SPEC §4, §4.2): a mass cancel naming a symbol
// cancels that symbol's orders only; `close` expires the day orders of its symbol only; the
// closing book lines come one per symbol, sorted by symbol (X before Y, listed after it).
// Every other engine test lists one contract, so none of these would fail if broken (a
// review, 2026-12-07).
TEST(ReplayTest, MassCancelCloseAndBookLinesKeepToTheirSymbol) {
  auto order = [](const char* cl, const char* sym) {
    return std::string(R"({"op":"new","cl":")") + cl + R"(","acct":"A1","sym":")" + sym +
           R"(","side":"buy","type":"limit","px":"1.000","qty":1,"tif":"day"})" + "\n";
  };
  std::istringstream in(std::string(R"({"op":"product","sym":"Y"})") + "\n" +
                        R"({"op":"product","sym":"X"})" + "\n" + order("a", "Y") + order("b", "X") +
                        R"({"op":"mass_cancel","acct":"A1","sym":"X"})" + "\n" + order("c", "Y") +
                        order("d", "X") + R"({"op":"close","sym":"X"})" + "\n");
  std::ostringstream out;
  RunReplay(in, out);
  EXPECT_EQ(
      out.str(),
      "{\"seq\":1,\"ev\":\"accepted\",\"cl\":\"a\",\"acct\":\"A1\",\"oid\":1}\n"
      "{\"seq\":2,\"ev\":\"accepted\",\"cl\":\"b\",\"acct\":\"A1\",\"oid\":2}\n"
      "{\"seq\":3,\"ev\":\"canceled\",\"cl\":\"b\",\"acct\":\"A1\",\"qty\":1,\"reason\":\"mass\"}\n"
      "{\"seq\":4,\"ev\":\"accepted\",\"cl\":\"c\",\"acct\":\"A1\",\"oid\":3}\n"
      "{\"seq\":5,\"ev\":\"accepted\",\"cl\":\"d\",\"acct\":\"A1\",\"oid\":4}\n"
      "{\"seq\":6,\"ev\":\"canceled\",\"cl\":\"d\",\"acct\":\"A1\",\"qty\":1,\"reason\":"
      "\"expired\"}\n"
      "{\"seq\":7,\"ev\":\"book\",\"sym\":\"X\",\"bids\":[],\"asks\":[]}\n"
      "{\"seq\":8,\"ev\":\"book\",\"sym\":\"Y\",\"bids\":[[\"1.000\",2,2]],\"asks\":[]}\n");
}

// A raw NUL is in no JSON text (RFC 8259): a line holding one is invalid_field, whatever
// precedes it. nlohmann's reader stops at the NUL, and `{...}\0junk` was accepted as `{...}`
// until 2026-12-06 (an audit).
TEST(ReplayTest, ALineHoldingANulIsInvalidEvenAfterAWholeCommand) {
  const std::string order =
      "{\"op\":\"new\",\"cl\":\"o1\",\"acct\":\"A\",\"sym\":\"S\",\"side\":\"buy\","
      "\"type\":\"limit\",\"px\":\"5.000\",\"qty\":1}";
  std::istringstream in("{\"op\":\"product\",\"sym\":\"S\"}\n" + order + std::string(1, '\0') +
                        "junk\n" + order + std::string(1, '\0') + "\n");
  std::ostringstream out;
  RunReplay(in, out);
  EXPECT_EQ(out.str(),
            "{\"seq\":1,\"ev\":\"rejected\",\"reason\":\"invalid_field\",\"line\":2}\n"
            "{\"seq\":2,\"ev\":\"rejected\",\"reason\":\"invalid_field\",\"line\":3}\n");
}

// A key given twice in one line is invalid_field: nlohmann kept the last one silently, so
// the line below was a sell of 1000 until 2026-12-07 (a review). The same order without the
// repetition is accepted.
TEST(ReplayTest, ALineGivingAKeyTwiceIsInvalid) {
  const std::string twice =
      "{\"op\":\"new\",\"cl\":\"o1\",\"acct\":\"A\",\"sym\":\"S\",\"side\":\"buy\","
      "\"side\":\"sell\",\"type\":\"limit\",\"px\":\"5.000\",\"qty\":1,\"qty\":1000}";
  const std::string once =
      "{\"op\":\"new\",\"cl\":\"o2\",\"acct\":\"A\",\"sym\":\"S\",\"side\":\"buy\","
      "\"type\":\"limit\",\"px\":\"5.000\",\"qty\":1}";
  std::istringstream in("{\"op\":\"product\",\"sym\":\"S\"}\n" + twice + "\n" + once + "\n");
  std::ostringstream out;
  RunReplay(in, out);
  EXPECT_EQ(
      out.str().find("{\"seq\":1,\"ev\":\"rejected\",\"reason\":\"invalid_field\",\"line\":2}\n"),
      0u)
      << out.str();
  EXPECT_NE(out.str().find(R"("ev":"accepted","cl":"o2")"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find(R"("cl":"o1")"), std::string::npos) << out.str();
}

// A line longer than any command (kMaxReplayLine) is one rejected line, read without being
// held; the lines after it still run (SPEC §4.1: replay never stops). Before, a line too
// large for memory ended the replay as if the file had (an audit, 2026-12-06).
TEST(ReplayTest, ALineLongerThanAnyCommandIsRejectedAndTheReplayGoesOn) {
  const std::string product = "{\"op\":\"product\",\"sym\":\"S\"}\n";
  const std::string order =
      "{\"op\":\"new\",\"cl\":\"o2\",\"acct\":\"A\",\"sym\":\"S\",\"side\":\"buy\","
      "\"type\":\"limit\",\"px\":\"5.000\",\"qty\":1}";
  std::istringstream in(product + "{\"op\":\"new\",\"cl\":\"" + std::string(kMaxReplayLine, 'x') +
                        "\"}\n" + order);
  std::ostringstream out;
  ReplayResult r = RunReplay(in, out);
  EXPECT_EQ(r.lines, 3u);
  EXPECT_EQ(out.str(),
            "{\"seq\":1,\"ev\":\"rejected\",\"reason\":\"invalid_field\",\"line\":2}\n"
            "{\"seq\":2,\"ev\":\"accepted\",\"cl\":\"o2\",\"acct\":\"A\",\"oid\":1}\n"
            "{\"seq\":3,\"ev\":\"book\",\"sym\":\"S\",\"bids\":[[\"5.000\",1,1]],\"asks\":[]}\n");
  // At the bound itself a line is read (and parsed) as usual.
  std::string line;
  std::istringstream exact(std::string(kMaxReplayLine, ' ') + "\nnext");
  EXPECT_EQ(ReadReplayLine(exact, &line), ReplayLine::kLine);
  EXPECT_EQ(line.size(), kMaxReplayLine);
  EXPECT_EQ(ReadReplayLine(exact, &line), ReplayLine::kLine);
  EXPECT_EQ(line, "next");
  EXPECT_EQ(ReadReplayLine(exact, &line), ReplayLine::kEnd);
  // A blank line is blank however long (SPEC §4.1: skipped, counted).
  std::istringstream blank(std::string(kMaxReplayLine + 5, ' ') + "\r\n");
  EXPECT_EQ(ReadReplayLine(blank, &line), ReplayLine::kLine);
  EXPECT_EQ(line, "");
}

// Account ids name settlement statements (SPEC §9): one outside [A-Za-z0-9][A-Za-z0-9_-]*
// (or the reserved settlement_prices) is invalid_field on every command that names one.
TEST(ReplayTest, AnAccountIdThatCouldNameABatchFileIsInvalidField) {
  std::string lines = "{\"op\":\"product\",\"sym\":\"S\",\"ref\":\"5.000\"}\n";
  for (const char* acct : {"_summary", "settlement_prices", ".x", "a/b", "a b"}) {
    lines += std::string("{\"op\":\"new\",\"cl\":\"o1\",\"acct\":\"") + acct +
             "\",\"sym\":\"S\",\"side\":\"buy\",\"type\":\"limit\",\"px\":\"5.000\","
             "\"qty\":1}\n";
  }
  lines += "{\"op\":\"cancel\",\"orig\":\"o1\",\"acct\":\"_a\"}\n";
  lines += "{\"op\":\"mass_cancel\",\"acct\":\"-a\"}\n";
  lines += "{\"op\":\"new\",\"cl\":\"o1\",\"acct\":\"A_1-x\",\"sym\":\"S\",\"side\":\"buy\","
           "\"type\":\"limit\",\"px\":\"5.000\",\"qty\":1}\n";
  std::istringstream in(lines);
  std::ostringstream out;
  RunReplay(in, out);
  const std::string events = out.str();
  for (int line = 2; line <= 8; ++line) {
    EXPECT_NE(events.find("\"reason\":\"invalid_field\",\"line\":" + std::to_string(line) + "}"),
              std::string::npos)
        << line << "\n" << events;
  }
  EXPECT_NE(events.find("{\"seq\":8,\"ev\":\"accepted\",\"cl\":\"o1\",\"acct\":\"A_1-x\",\"oid\":1}"),
            std::string::npos)
      << events;
}

// SPEC §5 (poison input): ids are printable ASCII without spaces, in replay as at the FIX
// gateway. A client id, original id, STP id or firm with a space, a control byte or a
// non-ASCII character is invalid_field (before 2026-12-04 replay took them, and echoed and
// stored them, while the gateway refused them).
TEST(ReplayTest, AnIdThatIsNotPrintableAsciiIsInvalidField) {
  const std::string order =
      "\"acct\":\"A1\",\"sym\":\"S\",\"side\":\"buy\",\"type\":\"limit\","
      "\"px\":\"5.000\",\"qty\":1";
  std::string lines = "{\"op\":\"product\",\"sym\":\"S\",\"ref\":\"5.000\"}\n";
  for (const char* cl : {"c 1", "c\\u0000x", "c\\u0007", "c\\t", "c\u00e9", "c\\u007f"}) {
    lines += std::string("{\"op\":\"new\",\"cl\":\"") + cl + "\"," + order + "}\n";
  }
  lines += "{\"op\":\"new\",\"cl\":\"o1\",\"stp\":\"s 1\"," + order + "}\n";  // line 8
  lines += "{\"op\":\"new\",\"cl\":\"o1\",\"firm\":\"F\\u0001\"," + order + "}\n";
  lines += "{\"op\":\"new\",\"cl\":\"o1\"," + order + "}\n";  // line 10: accepted
  lines += "{\"op\":\"replace\",\"cl\":\"o 2\",\"orig\":\"o1\",\"acct\":\"A1\",\"qty\":2}\n";
  lines += "{\"op\":\"replace\",\"cl\":\"o2\",\"orig\":\"o\\u00001\",\"acct\":\"A1\"}\n";
  lines += "{\"op\":\"cancel\",\"orig\":\"o 1\",\"acct\":\"A1\"}\n";  // line 13
  lines += "{\"op\":\"new\",\"cl\":\"o!~_-.:/2\",\"stp\":\"S-1\",\"firm\":\"F1\"," + order +
           "}\n";  // line 14: the whole printable range is fine
  std::istringstream in(lines);
  std::ostringstream out;
  RunReplay(in, out);
  const std::string events = out.str();
  for (int line : {2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13}) {
    EXPECT_NE(events.find("\"reason\":\"invalid_field\",\"line\":" + std::to_string(line) + "}"),
              std::string::npos)
        << line << "\n"
        << events;
  }
  EXPECT_NE(events.find("\"ev\":\"accepted\",\"cl\":\"o1\""), std::string::npos) << events;
  EXPECT_NE(events.find("\"ev\":\"accepted\",\"cl\":\"o!~_-.:/2\""), std::string::npos) << events;
  EXPECT_EQ(events.find("\"ev\":\"replaced\""), std::string::npos) << events;
  EXPECT_EQ(events.find("\"ev\":\"canceled\""), std::string::npos) << events;
}

}  // namespace
}  // namespace cfx::engine
