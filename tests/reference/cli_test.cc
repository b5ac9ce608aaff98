// Runs the built `cfx` binary: the documented worked example (docs/methodology.md) and the
// command's error contract.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cfx/common/config.h"
#include "cfx/reference/fix_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace cfx::reference {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kCfx = std::string(CFX_BINARY_DIR) + "/app/cfx";
const std::string kExample = std::string(CFX_SOURCE_DIR) + "/docs/examples/methodology";

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

RunResult RunCfx(const std::string& args) {
  // One file per process: ctest runs the tests of this binary in parallel processes.
  const std::string err_file =
      std::string(::testing::TempDir()) + "/cfx_reference_cli." + std::to_string(getpid()) + ".err";
  RunResult r;
  FILE* p = popen((kCfx + " " + args + " 2>" + err_file).c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::remove(err_file.c_str());
  return r;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string ExampleArgs() {
  return "reference build --observations " + kExample + "/observations.csv --throughput " +
         kExample + "/throughput.csv --date 2027-03-01 --to 2027-03-03";
}

TEST(ReferenceCliTest, WorkedExampleMatchesExpectedJson) {
  RunResult r = RunCfx(ExampleArgs());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(kExample + "/expected.jsonl"));
}

TEST(ReferenceCliTest, WorkedExampleWithMarketWideSeries) {
  RunResult r = RunCfx(ExampleArgs() + " --market-wide");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(kExample + "/expected_market_wide.jsonl"));
}

TEST(ReferenceCliTest, WorkedExampleMatchesExpectedCsv) {
  RunResult r = RunCfx(ExampleArgs() + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(kExample + "/expected.csv"));
}

TEST(ReferenceCliTest, StoredRunsAreIdempotentAndRevisionsNeedAReason) {
  const std::string dir = testing::TempDir("cli_store");
  RunResult first = RunCfx(ExampleArgs() + " --data-dir " + dir);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  RunResult second = RunCfx(ExampleArgs() + " --data-dir " + dir);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, first.out);
  EXPECT_THAT(second.err, HasSubstr("stored 0 new, 0 revisions"));
  // Day by day, the carry works across runs: Wednesday alone gives the same stale record.
  RunResult wed =
      RunCfx("reference build --observations " + kExample + "/observations.csv --throughput " +
             kExample + "/throughput.csv --date 2027-03-03 --data-dir " + dir);
  EXPECT_THAT(first.out,
              HasSubstr(wed.out.substr(wed.out.find("{\"grade\":\"B200-GOLD-US\""), 100)));
  RunResult no_reason = RunCfx(ExampleArgs() + " --data-dir " + dir + " --revise");
  EXPECT_NE(no_reason.exit_code, 0);
  EXPECT_THAT(no_reason.err, HasSubstr("--reason"));
  EXPECT_TRUE(no_reason.out.empty());
  // A reason that is not UTF-8 (typed in a Latin-1 terminal) is refused naming the flag; it
  // ended the run in the JSON library's error before.
  RunResult latin1 =
      RunCfx(ExampleArgs() + " --data-dir " + dir + " --revise --reason \"$(printf 'caf\\351')\"");
  EXPECT_EQ(latin1.exit_code, 2) << latin1.err;
  EXPECT_THAT(latin1.err, HasSubstr("--reason: not UTF-8 text ('caf\\xe9')"));
  EXPECT_THAT(latin1.err, Not(HasSubstr("json.exception")));
  EXPECT_TRUE(latin1.out.empty());
}

// `reference explain` only reads: on a data dir where no fix was ever built it says so and
// leaves the folder as it was (it used to create an empty fix store there and then report
// "no explanation stored").
TEST(ReferenceCliTest, ExplainOnADataDirWithoutFixesCreatesNothing) {
  const std::string dir = testing::TempDir("cli_explain_empty");
  RunResult r =
      RunCfx("reference explain --grade B200-GOLD-US --date 2027-03-01 --data-dir " + dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no reference fixes stored under " + dir));
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

// An explanation record damaged in the store (bytes of its page overwritten) is refused in
// both formats, naming the store's file; the json format printed the damaged bytes as they
// were, exit 0, until 2026-12-06, and the text format named no file.
TEST(ReferenceCliTest, ADamagedExplanationIsRefusedNamingTheStore) {
  const std::string dir = testing::TempDir("cli_explain_damaged");
  ASSERT_EQ(RunCfx(ExampleArgs() + " --data-dir " + dir).exit_code, 0);
  const std::string file = dir + "/reference/data.mdb";
  std::string bytes = ReadFile(file);
  const std::string key = "\"window\":{";  // in every explanation, in no fix record
  size_t damaged = 0;
  for (size_t at = bytes.find(key); at != std::string::npos; at = bytes.find(key, at + 1)) {
    bytes[at] = '\x07';
    ++damaged;
  }
  ASSERT_GT(damaged, 0u);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  for (const char* format : {"text", "json"}) {
    const RunResult r = RunCfx("reference explain --grade B200-GOLD-US --date 2027-03-01 " +
                               std::string("--data-dir ") + dir + " --format " + format);
    EXPECT_EQ(r.exit_code, 1) << format;
    EXPECT_EQ(r.out, "") << format;
    EXPECT_THAT(r.err, HasSubstr(file + ": the explanation stored for B200-GOLD-US 2027-03-01 is "
                                        "damaged"))
        << format;
  }
  // The fixes themselves are still read.
  EXPECT_EQ(RunCfx(ExampleArgs() + " --data-dir " + dir).exit_code, 0);
}

TEST(ReferenceCliTest, ExplainPrintsTheStoredDecisionAndRevisionsAreAudited) {
  const std::string dir = testing::TempDir("cli_explain");
  ASSERT_EQ(RunCfx(ExampleArgs() + " --data-dir " + dir).exit_code, 0);
  // The worked example's Monday (docs/methodology.md): Kite's 9.90 is the outlier.
  RunResult text = RunCfx("reference explain --grade B200-GOLD-US --date 2027-03-01 --data-dir " +
                          dir);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("B200-GOLD-US 2027-03-01  fix 5.5000  level 1"));
  EXPECT_THAT(text.out, HasSubstr("methodology cfx-ref-2  inputs_sha256 "));
  EXPECT_THAT(text.out, HasSubstr("Kite B200-GOLD-US on_demand trade 9.9 x 100  outlier"));
  EXPECT_THAT(text.out, HasSubstr("not_at_level  (a quote at level 1)"));
  EXPECT_THAT(text.out, HasSubstr("<- fix"));
  RunResult json = RunCfx("reference explain --grade B200-GOLD-US --date 2027-03-01 --data-dir " +
                          dir + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"inputs_sha256\":\""));
  EXPECT_EQ(json.out.back(), '\n');
  // Level 3: where the carry came from.
  EXPECT_THAT(RunCfx("reference explain --grade B200-GOLD-US --date 2027-03-03 --data-dir " + dir)
                  .out,
              HasSubstr("the record of 2027-03-02 is carried (stale day 1 of at most 5)"));
  RunResult missing =
      RunCfx("reference explain --grade B200-GOLD-US --date 2027-03-04 --data-dir " + dir);
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.err, HasSubstr("no explanation stored for B200-GOLD-US 2027-03-04"));
  EXPECT_NE(RunCfx("reference explain --grade B200-GOLD-US --date 2027-03-01 --data-dir " + dir +
                   " --format xml")
                .exit_code,
            0);

  // A revision: a late trade, published with --revise --reason; the audit log says who and why.
  const std::string late = dir + "/late.csv";
  std::ofstream(late) << ReadFile(kExample + "/observations.csv")
                      << "2027-03-01T15:00:00Z,Helio,B200,GOLD,US,on_demand,trade,5.7,3000\n";
  RunResult revised = RunCfx("reference build --observations " + late + " --throughput " +
                             kExample + "/throughput.csv --date 2027-03-01 --data-dir " + dir +
                             " --revise --reason 'late trade from Helio'");
  ASSERT_EQ(revised.exit_code, 0) << revised.err;
  EXPECT_THAT(revised.err, HasSubstr("revisions in"));
  const std::string audit = ReadFile(dir + "/audit.log");
  EXPECT_THAT(audit, HasSubstr("\"kind\":\"reference_revision\",\"grade\":\"B200-GOLD-US\","
                               "\"date\":\"2027-03-01\",\"revision\":\"1\""));
  EXPECT_THAT(audit, HasSubstr("\"reason\":\"late trade from Helio\",\"methodology\":\"cfx-ref-2\""));
  EXPECT_THAT(audit, HasSubstr("\"by\":\""));
  EXPECT_THAT(RunCfx("reference explain --grade B200-GOLD-US --date 2027-03-01 --data-dir " + dir)
                  .out,
              HasSubstr("revision 1  reason: late trade from Helio"));
  EXPECT_THAT(RunCfx("reference explain --grade B200-GOLD-US --date 2027-03-01 --revision 0 "
                     "--data-dir " + dir)
                  .out,
              HasSubstr("revision 0\n"));
  auto store = FixStore::Open(dir);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->History("B200-GOLD-US", testing::kMon)->size(), 2u);
  store->reset();
  std::filesystem::remove_all(dir);
}

TEST(ReferenceCliTest, BadRowStopsTheRunNamingFileLineAndColumnAndStoresNothing) {
  const std::string dir = testing::TempDir("cli_bad");
  const std::string bad = dir + "/observations.csv";
  std::string text = ReadFile(kExample + "/observations.csv");
  text += "2027-03-01T10:00:00Z,Fjord,B200,GOLD,EU,on_demand,trade,-1,300\n";
  std::ofstream(bad) << text;
  RunResult r = RunCfx("reference build --observations " + bad + " --throughput " + kExample +
                       "/throughput.csv --date 2027-03-01 --data-dir " + dir + "/data");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(r.out.empty());
  EXPECT_THAT(r.err, HasSubstr(bad + ":30: column price:"));
  auto store = FixStore::Open(dir + "/data");
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE((*store)->Grades()->empty());
}

// SPEC §11: a bad flag is a usage error (exit 2) naming the flag, with nothing written: no
// data dir, store or audit log is made for a run that cannot go ahead (they used to be, and
// the run then exited 1).
TEST(ReferenceCliTest, FlagsThatCannotWorkCreateNothing) {
  const std::string dir = testing::TempDir("cli_flags");
  const std::string data = dir + "/nd";
  const std::string files = "reference build --observations " + kExample +
                            "/observations.csv --throughput " + kExample + "/throughput.csv ";
  struct Case {
    std::string args;
    std::string names;
  };
  const Case cases[] = {
      {files + "--date 2027-03-01 --revise --data-dir " + data, "--reason"},
      {files + "--date 2027-03-01 --revise --reason typo", "--data-dir"},
      // A reason without --revise would be kept nowhere (it was ignored without a word).
      {files + "--date 2027-03-01 --reason typo --data-dir " + data,
       "a reason is recorded with a revision only"},
      {files + "--date 2027-03-03 --to 2027-03-01 --data-dir " + data, "--to"},
      {files + "--date 2027-03-06 --to 2027-03-07 --data-dir " + data, "no business day"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    RunResult r = RunCfx(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.names));
    EXPECT_TRUE(r.out.empty());
    EXPECT_FALSE(std::filesystem::exists(data));
  }
  std::filesystem::remove_all(dir);
}

TEST(ReferenceCliTest, BadFlagsAndHelp) {
  EXPECT_NE(RunCfx(ExampleArgs() + " --format xml").exit_code, 0);
  RunResult bad_date = RunCfx("reference build --observations a --throughput b --date 2027-13-01");
  EXPECT_NE(bad_date.exit_code, 0);
  EXPECT_THAT(bad_date.err, HasSubstr("--date"));
  EXPECT_NE(RunCfx("reference build --date 2027-03-01").exit_code, 0);  // missing files
  RunResult help = RunCfx("reference build --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--observations"));
  EXPECT_EQ(RunCfx("reference sample --help").exit_code, 0);
  EXPECT_EQ(RunCfx("bench reference --help").exit_code, 0);
}

// The holidays come from --holidays or from the exchange's config (--config, the list
// `cfx serve` and `cfx settle --config` use), not both; a holiday has no fix of its own.
TEST(ReferenceCliTest, HolidaysComeFromTheFlagOrTheExchangeConfig) {
  const std::string dir = testing::TempDir("cli_holidays");
  std::ofstream(dir + "/exchange.toml") << "[exchange]\nholidays = [\"2027-03-02\"]\n";
  std::ofstream(dir + "/bad.toml") << "[exchange]\nholidays = [\"2027-02-30\"]\n";
  const RunResult flag = RunCfx(ExampleArgs() + " --holidays 2027-03-02");
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_THAT(flag.out, Not(HasSubstr("\"date\":\"2027-03-02\"")));
  EXPECT_THAT(flag.out, HasSubstr("\"date\":\"2027-03-03\""));
  EXPECT_NE(flag.out, RunCfx(ExampleArgs()).out);
  const RunResult config = RunCfx(ExampleArgs() + " --config " + dir + "/exchange.toml");
  ASSERT_EQ(config.exit_code, 0) << config.err;
  EXPECT_EQ(config.out, flag.out);
  const RunResult both =
      RunCfx(ExampleArgs() + " --config " + dir + "/exchange.toml --holidays 2027-03-02");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_THAT(both.err, HasSubstr("--holidays and --config"));
  EXPECT_TRUE(both.out.empty());
  const RunResult bad = RunCfx(ExampleArgs() + " --config " + dir + "/bad.toml");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("bad.toml:2: exchange.holidays[0]"));
  EXPECT_TRUE(bad.out.empty());
  std::filesystem::remove_all(dir);
}

// SPEC §8 step 1: business days are the exchange's. A data dir made by `cfx serve` or
// `cfx replay --config` keeps the exchange's settlement terms, holidays included; a build
// there without --config or --holidays counts business days by them (it used to count none:
// it published a fix for the holiday and opened the next day's window on the wrong day). A
// flag that disagrees with them is refused: settlement in that data dir goes by them.
TEST(ReferenceCliTest, ADataDirKeepsTheExchangesHolidaysAndAFlagMustAgree) {
  const std::string dir = testing::TempDir("cli_dir_holidays");
  const std::string data = dir + "/hd";
  std::filesystem::create_directories(data);
  absl::StatusOr<common::ExchangeConfig> exchange =
      common::ParseConfig("[exchange]\nholidays = [\"2027-03-02\"]\n", "ex.toml");
  ASSERT_TRUE(exchange.ok()) << exchange.status();
  std::ofstream(common::SettlementTermsPath(data)) << common::SettlementTermsToml(*exchange);
  std::ofstream(dir + "/other.toml") << "[exchange]\nholidays = [\"2027-03-04\"]\n";
  std::ofstream(dir + "/same.toml") << "[exchange]\nholidays = [\"2027-03-02\"]\n";

  // Disagreeing flags first: refused (usage, exit 2) before anything is stored.
  for (const std::string& flag :
       {std::string(" --holidays 2027-03-04"), std::string(" --config ") + dir + "/other.toml",
        std::string(" --holidays 2027-03-02,2027-03-04")}) {
    SCOPED_TRACE(flag);
    const RunResult refused = RunCfx(ExampleArgs() + " --data-dir " + data + flag);
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_THAT(refused.err, HasSubstr("(2027-03-02, in " + common::SettlementTermsPath(data)));
    EXPECT_TRUE(refused.out.empty());
    EXPECT_FALSE(std::filesystem::exists(data + "/reference"));
  }
  const std::string with_holiday = RunCfx(ExampleArgs() + " --holidays 2027-03-02").out;
  const RunResult kept = RunCfx(ExampleArgs() + " --data-dir " + data);
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_THAT(kept.out, Not(HasSubstr("\"date\":\"2027-03-02\"")));
  EXPECT_EQ(kept.out, with_holiday);
  // Flags that agree are accepted, and change nothing.
  for (const std::string& flag :
       {std::string(" --holidays 2027-03-02"), std::string(" --config ") + dir + "/same.toml"}) {
    SCOPED_TRACE(flag);
    const RunResult agreed = RunCfx(ExampleArgs() + " --data-dir " + data + flag);
    ASSERT_EQ(agreed.exit_code, 0) << agreed.err;
    EXPECT_EQ(agreed.out, with_holiday);
    EXPECT_THAT(agreed.err, HasSubstr("stored 0 new, 0 revisions"));
  }
  std::filesystem::remove_all(dir);
}

// SPEC §8 step 6: an operator listed under two tiers is an input error across runs too. The
// store keeps every run's throughput, and valuation (`cfx settle`'s margin) refuses a store
// that holds an operator under two tiers; the run that would make one stops, naming the row.
TEST(ReferenceCliTest, AnOperatorStoredUnderAnotherTierIsAnInputError) {
  const std::string dir = testing::TempDir("cli_two_tiers");
  ASSERT_EQ(RunCfx(ExampleArgs() + " --data-dir " + dir).exit_code, 0);
  const std::string audit_before = ReadFile(dir + "/audit.log");
  const std::string moved = dir + "/moved.csv";
  std::ofstream(moved) << "date,operator,tier,gpu,model,isl,osl,output_tps_per_gpu\n"
                       << "2027-03-03,Fjord,GOLD,B200,m,8000,1000,253.0\n"
                       << "2027-03-03,Kite,SILV,H100,m,8000,1000,120.0\n";
  RunResult r =
      RunCfx("reference build --observations " + kExample + "/observations.csv --throughput " +
             moved + " --date 2027-03-04 --data-dir " + dir);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_THAT(r.err, HasSubstr(moved + ":3: column tier: operator 'Kite' is listed under SILV "
                                       "here and under GOLD in the reference store"));
  EXPECT_EQ(ReadFile(dir + "/audit.log"), audit_before);
  auto store = FixStore::Open(dir);
  ASSERT_TRUE(store.ok());
  EXPECT_FALSE((*store)->Get("B200-GOLD-US", common::DateFromYmd(2027, 3, 4))->has_value());
  auto stored = (*store)->Throughput();
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->size(), 6u);  // the example's rows only: Fjord's 03-03 row is not stored
  store->reset();
  std::filesystem::remove_all(dir);
}

// SPEC §8: publication is idempotent, and a correction needs --revise and is recorded as a
// revision: for the throughput measurements stored beside the fixes as for the fixes (a plain
// rerun used to replace a stored measurement silently).
TEST(ReferenceCliTest, AChangedThroughputMeasurementIsStoredOnlyAsARevision) {
  const std::string dir = testing::TempDir("cli_tput_revision");
  const RunResult first = RunCfx(ExampleArgs() + " --data-dir " + dir);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // Each first publication of a measurement is audited, as a first fix is (it was not).
  EXPECT_THAT(ReadFile(dir + "/audit.log"),
              HasSubstr("\"kind\":\"reference_throughput_publish\",\"gpu\":\"B200\","
                        "\"operator\":\"Fjord\",\"tier\":\"GOLD\",\"date\":\"2027-02-15\","
                        "\"revision\":\"0\",\"output_tps_per_gpu\":\"252\""));
  std::string text = ReadFile(kExample + "/throughput.csv");
  const std::string from = "2027-02-15,Fjord,GOLD,B200,llama-3.3-70b-fp8,8000,1000,252.0";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(),
               "2027-02-15,Fjord,GOLD,B200,llama-3.3-70b-fp8,8000,1000,252.5");
  const std::string changed = dir + "/changed.csv";
  std::ofstream(changed) << text;
  const std::string args = "reference build --observations " + kExample +
                           "/observations.csv --throughput " + changed +
                           " --date 2027-03-01 --to 2027-03-03 --data-dir " + dir;
  auto stored_fjord = [&]() {
    auto store = FixStore::Open(dir);
    auto rows = (*store)->Throughput();
    for (const ThroughputRevision& t : *rows) {
      if (t.row.operator_name == "Fjord") return t;
    }
    return ThroughputRevision{};
  };

  const RunResult plain = RunCfx(args);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.err, HasSubstr("warning: throughput B200 Fjord 2027-02-15 (" + changed +
                                   ":7): already stored as 252; the new measurement 252.5 "
                                   "differs and was not stored"));
  // Fjord's 252 is the GOLD median: the stored measurement stands, θ and the records too.
  EXPECT_EQ(plain.out, first.out);
  EXPECT_THAT(plain.err, Not(HasSubstr("already published")));
  EXPECT_EQ(stored_fjord().row.output_tps_per_gpu, 252.0);
  EXPECT_EQ(stored_fjord().revision, 0);
  EXPECT_THAT(ReadFile(dir + "/audit.log"), Not(HasSubstr("reference_throughput_revision")));

  const RunResult revised = RunCfx(args + " --revise --reason 'Fjord re-measured'");
  ASSERT_EQ(revised.exit_code, 0) << revised.err;
  EXPECT_THAT(revised.err, HasSubstr("(and 1 throughput revisions)"));
  EXPECT_THAT(revised.out, HasSubstr("\"theta\":252.5"));
  EXPECT_EQ(stored_fjord().row.output_tps_per_gpu, 252.5);
  EXPECT_EQ(stored_fjord().revision, 1);
  EXPECT_EQ(stored_fjord().reason, "Fjord re-measured");
  EXPECT_THAT(ReadFile(dir + "/audit.log"),
              HasSubstr("\"kind\":\"reference_throughput_revision\",\"gpu\":\"B200\","
                        "\"operator\":\"Fjord\",\"tier\":\"GOLD\",\"date\":\"2027-02-15\","
                        "\"revision\":\"1\",\"output_tps_per_gpu\":\"252.5\",\"previous\":\"252\","
                        "\"reason\":\"Fjord re-measured\""));
  // Revising again with the same file changes nothing.
  const RunResult again = RunCfx(args + " --revise --reason 'Fjord re-measured'");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, Not(HasSubstr("throughput revisions")));
  EXPECT_EQ(stored_fjord().revision, 1);
  std::filesystem::remove_all(dir);
}

TEST(ReferenceCliTest, SampleIsReproducible) {
  const std::string a = testing::TempDir("cli_sample_a"), b = testing::TempDir("cli_sample_b");
  ASSERT_EQ(RunCfx("reference sample --out " + a + " --from 2027-03-01 --to 2027-03-05 --seed 9")
                .exit_code,
            0);
  ASSERT_EQ(RunCfx("reference sample --out " + b + " --from 2027-03-01 --to 2027-03-05 --seed 9")
                .exit_code,
            0);
  EXPECT_EQ(ReadFile(a + "/observations.csv"), ReadFile(b + "/observations.csv"));
  EXPECT_EQ(ReadFile(a + "/throughput.csv"), ReadFile(b + "/throughput.csv"));
  RunResult built =
      RunCfx("reference build --observations " + a + "/observations.csv --throughput " + a +
             "/throughput.csv --date 2027-03-01 --to 2027-03-05");
  EXPECT_EQ(built.exit_code, 0) << built.err;
}

// A folder that already holds an observations.csv or a throughput.csv (the user's own data,
// or an earlier sample) is not written over: the run fails naming the file, and neither file
// is changed or added.
TEST(ReferenceCliTest, SampleReplacesNoFileAlreadyThere) {
  const std::string dir = testing::TempDir("cli_sample_kept");
  const std::string sample = "reference sample --out " + dir + " --from 2027-03-01 --to 2027-03-02";
  std::ofstream(dir + "/throughput.csv") << "the user's own file\n";
  const RunResult refused = RunCfx(sample);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr(dir + "/throughput.csv is already there"));
  EXPECT_EQ(ReadFile(dir + "/throughput.csv"), "the user's own file\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/observations.csv"));

  std::filesystem::remove(dir + "/throughput.csv");
  ASSERT_EQ(RunCfx(sample).exit_code, 0);
  const std::string written = ReadFile(dir + "/observations.csv");
  EXPECT_FALSE(written.empty());
  const RunResult again = RunCfx(sample + " --seed 2");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_THAT(again.err, HasSubstr(dir + "/observations.csv is already there"));
  EXPECT_EQ(ReadFile(dir + "/observations.csv"), written);
  // Private, as everything cfx writes: 0600 files.
  EXPECT_EQ(std::filesystem::status(dir + "/observations.csv").permissions() &
                std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

// A header line of 50 MB of commas (an export without line ends) is a clear error naming the
// file and line 1, within 400 MB of address space: the header's columns were split into a
// vector first (16 bytes a comma) and the process died of std::bad_alloc, naming nothing.
TEST(ReferenceCliTest, AHugeBadHeaderIsAClearErrorWithinBoundedMemory) {
  const std::string dir = testing::TempDir("cli_huge_header");
  const std::string obs = dir + "/observations.csv";
  {
    std::ofstream out(obs, std::ios::binary);
    out << "date";
    const std::string chunk(1 << 20, ',');
    for (int i = 0; i < 50; ++i) out << chunk;
  }
  // Under a 400 MB address-space limit, set in the shell that starts cfx.
  const std::string cmd = "(ulimit -v 400000; " + kCfx + " reference build --observations " + obs +
                          " --throughput " + kExample +
                          "/throughput.csv --date 2027-03-01 > /dev/null) 2>&1; echo exit=$?";
  std::string output;
  if (FILE* pipe = popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
    pclose(pipe);
  }
  std::filesystem::remove_all(dir);
  EXPECT_THAT(output, HasSubstr(obs + ":1: header must be")) << output.substr(0, 2000);
  EXPECT_THAT(output, HasSubstr("bytes not shown"));
  EXPECT_THAT(output, Not(HasSubstr("bad_alloc")));
  EXPECT_THAT(output, Not(HasSubstr("exit=0")));
  EXPECT_LT(output.size(), 4000u);
}

}  // namespace
// A run the builder's bound refuses (more than kMaxRecordsPerRun records) is refused before
// the data dir is made: nothing is left behind (until 2026-12-07 an empty store and audit log
// were, a review).
TEST(ReferenceCliTest, ARunOverTheRecordBoundLeavesNoDataDir) {
  const std::string dir = testing::TempDir("cli_bound");
  const std::string obs = dir + "/many.csv";
  {
    std::ofstream out(obs);
    out << "ts,provider,gpu,tier,region,lease,kind,price,gpu_hours\n";
    for (int g = 0; g < 999; ++g) {
      out << "2027-02-26T17:00:00Z,A,G" << g << ",GOLD,US,on_demand,trade,5.00,100\n";
    }
  }
  const std::string data = dir + "/data";
  RunResult r = RunCfx("reference build --observations " + obs + " --throughput " + kExample +
                       "/throughput.csv --date 2027-03-01 --to 2031-01-31 --data-dir " + data);
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("records, more than 1000000"));
  EXPECT_FALSE(std::filesystem::exists(data)) << "the refused run made the data dir";
}

}  // namespace cfx::reference
