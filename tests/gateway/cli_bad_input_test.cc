// Bad input on the command line (found by a black-box audit): a directory where a file is
// expected, an output that is the input, ranges too large to hold, a usage error's exit code.
// Each must fail with a clear message and a non-zero exit, with nothing (half-)written.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gtest/gtest.h"
#include "run_cfx.h"
#include "temp_dir.h"

namespace cfx {
namespace {

using testsupport::RunCfx;

std::string FileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The JSON lines of a command's output (its log lines on standard error left out).
std::string EventLines(const std::string& output) {
  std::string events;
  size_t at = 0;
  while (at < output.size()) {
    size_t end = output.find('\n', at);
    end = end == std::string::npos ? output.size() : end + 1;
    if (output[at] == '{') events.append(output, at, end - at);
    at = end;
  }
  return events;
}

constexpr char kReplayLines[] =
    R"({"op":"product","sym":"B200-GOLD-US-202703","ref":"5.000"})"
    "\n"
    R"({"op":"new","cl":"b1","acct":"A1","sym":"B200-GOLD-US-202703","side":"buy","type":"limit","px":"5.000","qty":1})"
    "\n";

TEST(CliBadInputTest, ReplayRefusesAnOutputThatIsItsInputAndADirectoryAsInput) {
  testsupport::TempDir dir("cfx_cli_bad_input");
  const std::string in = dir.path() + "/commands.jsonl";
  std::ofstream(in) << kReplayLines;
  auto same = RunCfx("replay --input " + in + " --output " + in);
  EXPECT_EQ(same.exit_code, 2) << same.output;  // a bad flag (run_status.h), as --config's
  EXPECT_NE(same.output.find("is the --input file"), std::string::npos) << same.output;
  EXPECT_EQ(FileText(in), kReplayLines) << "the input was truncated";
  auto folder = RunCfx("replay --input " + dir.path() + " --output " + dir.path() + "/out.jsonl");
  EXPECT_EQ(folder.exit_code, 2) << folder.output;
  auto missing = RunCfx("replay --input " + dir.path() + "/missing.jsonl");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("cannot open --input " + dir.path() + "/missing.jsonl"),
            std::string::npos)
      << missing.output;
  auto out_folder = RunCfx("replay --input " + in + " --output " + dir.path());
  EXPECT_EQ(out_folder.exit_code, 2) << out_folder.output;
  EXPECT_NE(folder.output.find("is a directory"), std::string::npos) << folder.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/out.jsonl"));
}

// The events name accounts and orders: the output is the user's alone even where an older
// file of the same name was readable by others (it is replaced, not rewritten in place).
TEST(CliBadInputTest, ReplayOutputReplacesAnOldFileAndIsPrivate) {
  testsupport::TempDir dir("cfx_cli_bad_input");
  const std::string in = dir.path() + "/commands.jsonl";
  const std::string out = dir.path() + "/events.jsonl";
  std::ofstream(in) << kReplayLines;
  std::ofstream(out) << "old\n";
  ASSERT_EQ(::chmod(out.c_str(), 0644), 0);
  auto r = RunCfx("replay --input " + in + " --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(FileText(out).find("\"ev\":\"accepted\""), std::string::npos) << FileText(out);
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // No temporary file is left (the folder holds the input and the output only).
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 2u);
}

// A link named as the old fixed temporary file (OUTPUT.tmp) is not followed: its target was
// overwritten with the events until 2026-12-06.
TEST(CliBadInputTest, ReplayOutputFollowsNoLinkBesideIt) {
  testsupport::TempDir dir("cfx_cli_bad_input");
  const std::string in = dir.path() + "/commands.jsonl";
  const std::string out = dir.path() + "/events.jsonl";
  std::ofstream(in) << kReplayLines;
  std::ofstream(dir.path() + "/victim") << "keep\n";
  ASSERT_EQ(::symlink((dir.path() + "/victim").c_str(), (out + ".tmp").c_str()), 0);
  auto r = RunCfx("replay --input " + in + " --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(FileText(dir.path() + "/victim"), "keep\n");
  EXPECT_NE(FileText(out).find("\"ev\":\"accepted\""), std::string::npos) << FileText(out);
}

TEST(CliBadInputTest, AConfigThatIsADirectoryIsRefused) {
  testsupport::TempDir dir("cfx_cli_bad_input");
  const std::string in = dir.path() + "/commands.jsonl";
  std::ofstream(in) << kReplayLines;
  auto r = RunCfx("replay --input " + in + " --config " + dir.path() + " --data-dir " + dir.path() +
                  "/data");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is a directory"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/data"));
}

// With a data dir, a bad --output fails before the store is written (it used to persist the
// trades and then fail on the output: half of the run done), and an output that is a
// directory is refused up front.
TEST(CliBadInputTest, ReplayWithADataDirWritesNothingWhenItsOutputIsBad) {
  testsupport::TempDir dir("cfx_cli_bad_input");
  const std::string in = dir.path() + "/commands.jsonl";
  std::ofstream(in) << kReplayLines;
  std::filesystem::create_directory(dir.path() + "/odir");
  for (const std::string& out : {dir.path() + "/nodir/out.jsonl", dir.path() + "/odir"}) {
    SCOPED_TRACE(out);
    const std::string data = dir.path() + "/data";
    auto r = RunCfx("replay --input " + in + " --data-dir " + data + " --output " + out);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("--output"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(data)) << r.output;
    size_t entries = 0;  // the input and odir: no temporary file left
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) {
      ++entries;
    }
    EXPECT_EQ(entries, 2u);
  }
}

// With a data dir the input is read twice (the store, the events); from a pipe the second
// read found nothing, so the events were missing (exit 0, no output at all).
TEST(CliBadInputTest, ReplayWithADataDirPrintsTheEventsOfAPipedInput) {
  testsupport::TempDir dir("cfx_cli_bad_input");
  const std::string in = dir.path() + "/commands.jsonl";
  std::ofstream(in) << kReplayLines;
  auto plain = RunCfx("replay --input " + in);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  ASSERT_NE(plain.output.find("\"ev\":\"accepted\""), std::string::npos) << plain.output;
  auto piped = RunCfx("replay --input /dev/stdin --data-dir " + dir.path() + "/data < " + in);
  ASSERT_EQ(piped.exit_code, 0) << piped.output;
  EXPECT_EQ(EventLines(piped.output), plain.output);
  const std::string out = dir.path() + "/events.jsonl";
  auto to_file = RunCfx("replay --input /dev/stdin --data-dir " + dir.path() + "/data2 --output " +
                        out + " < " + in);
  ASSERT_EQ(to_file.exit_code, 0) << to_file.output;
  EXPECT_EQ(FileText(out), plain.output);
}

// A data dir keeps the terms it was replayed under: a later replay into it without --config
// takes their holidays (it took none), and one with other holidays is refused with nothing
// written, as `cfx settle` refuses them (a review, 2026-12-07).
TEST(CliBadInputTest, AReplayIntoADataDirRunsUnderTheHolidaysItKeeps) {
  testsupport::TempDir dir("cfx_cli_bad_input");
  const std::string data = dir.path() + "/data";
  const std::string first = dir.path() + "/first.jsonl";
  std::ofstream(first) << kReplayLines;
  std::ofstream(dir.path() + "/h.toml") << "[exchange]\nholidays = [\"2027-12-31\"]\n";
  std::ofstream(dir.path() + "/other.toml") << "[exchange]\nholidays = [\"2027-12-24\"]\n";
  auto r = RunCfx("replay --input " + first + " --data-dir " + data + " --config " + dir.path() +
                  "/h.toml");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string terms = FileText(data + "/settlement_terms.toml");
  // The file goes on with December's contract: listed without --config, under the kept
  // holidays (its last trading day 2027-12-30, as settlement counts it).
  const std::string next = dir.path() + "/next.jsonl";
  std::ofstream(next) << kReplayLines
                      << R"({"op":"product","sym":"B200-GOLD-US-202712","ref":"5.000"})"
                      << "\n";
  auto other = RunCfx("replay --input " + next + " --data-dir " + data + " --config " + dir.path() +
                      "/other.toml");
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("--config: its holidays (2027-12-24) are not those the data dir "
                              "was replayed under (2027-12-31"),
            std::string::npos)
      << other.output;
  EXPECT_EQ(FileText(data + "/settlement_terms.toml"), terms);
  auto kept = RunCfx("replay --input " + next + " --data-dir " + data);
  ASSERT_EQ(kept.exit_code, 0) << kept.output;
  EXPECT_EQ(FileText(data + "/settlement_terms.toml"), terms);
  // Under the kept calendar December's last trading day is 2027-12-30: a run under none
  // (2027-12-31) is refused by the listed contract's check.
  std::ofstream(dir.path() + "/none.toml") << "[exchange]\n";
  std::filesystem::remove(data + "/settlement_terms.toml");
  auto moved = RunCfx("replay --input " + next + " --data-dir " + data + " --config " + dir.path() +
                      "/none.toml");
  EXPECT_NE(moved.exit_code, 0) << moved.output;
  EXPECT_NE(moved.output.find("B200-GOLD-US-202712 was listed with last trading day 2027-12-30"),
            std::string::npos)
      << moved.output;
}

// Ranges are built in memory: `--to 9999-12-31` grew past 6 GB, `--per-day 2000000000`
// ended in std::bad_alloc (an abort).
TEST(CliBadInputTest, ReferenceRangesTooLargeToHoldAreRefused) {
  testsupport::TempDir dir("cfx_cli_bad_input");
  std::ofstream(dir.path() + "/obs.csv")
      << "ts,provider,gpu,tier,region,lease,kind,price,gpu_hours\n";
  std::ofstream(dir.path() + "/tput.csv")
      << "date,operator,tier,gpu,model,isl,osl,output_tps_per_gpu\n";
  auto build = RunCfx("reference build --observations " + dir.path() + "/obs.csv --throughput " +
                      dir.path() + "/tput.csv --date 2027-03-01 --to 9999-12-31");
  EXPECT_EQ(build.exit_code, 2) << build.output;
  EXPECT_NE(build.output.find("--to: at most"), std::string::npos) << build.output;
  auto sample = RunCfx("reference sample --out " + dir.path() +
                       "/sample --from 2027-03-01 --to 2027-03-02 --per-day 2000000000");
  EXPECT_EQ(sample.exit_code, 2) << sample.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/sample"));
  auto many = RunCfx("reference sample --out " + dir.path() +
                     "/sample --from 2027-03-01 --to 2028-03-01 --per-day 1000000");
  EXPECT_EQ(many.exit_code, 2) << many.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/sample"));
  // Within a grade's bound, past it in all (until 2026-12-07 only a grade's was checked):
  // 12 grades x 366 days x 5,000.
  auto grades = RunCfx("reference sample --out " + dir.path() +
                       "/sample --from 2027-03-01 --to 2028-03-01 --per-day 5000 "
                       "--gpus B200,H100,B200 --regions US");
  EXPECT_EQ(grades.exit_code, 2) << grades.output;
  EXPECT_NE(grades.output.find("12 grades"), std::string::npos) << grades.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/sample"));
}

TEST(CliBadInputTest, OutOfRangeFlagValuesAreUsageErrors) {
  for (const char* args :
       {"serve --config x.toml --fix-port -1", "serve --config x.toml --http-port 70000",
        "reference sample --out /nonexistent/x --from 2027-03-01 --to 2027-03-01 --providers 0",
        "reference explain --grade B200-GOLD-US --date 2027-03-01 --data-dir /nonexistent "
        "--revision -5",
        "demo --orders -3"}) {
    SCOPED_TRACE(args);
    auto r = RunCfx(args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
  }
}

}  // namespace
}  // namespace cfx
