// `cfx replay --data-dir` -> `cfx reference build` -> `cfx settle` as a new user runs them
// (issue #14): the security master from the replay's `product` lines is the listing, so
// every listed contract settles every day, traded or not, and one without any price source
// fails the batch. Runs the built `cfx` binary.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "fresh_dir.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "run_cfx.h"

namespace cfx {
namespace {

using testsupport::RunCfx;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Nine contracts of five grades.
const std::vector<std::string> kCliListed = {
    "B200-GOLD-US-202703", "B200-GOLD-US-202704", "B200-GOLD-US-202705",
    "B200-SILV-EU-202703", "B200-SILV-EU-202706", "H100-PLAT-APAC-202703",
    "B200-BRNZ-US-202703", "B200-BRNZ-US-202704", "H200-GOLD-EU-202712"};
const std::vector<std::string> kCliGrades = {"B200-GOLD-US", "B200-SILV-EU", "H100-PLAT-APAC",
                                          "B200-BRNZ-US", "H200-GOLD-EU"};

std::string ReplayOrderLine(const char* cl, const char* acct, const std::string& sym, const char* side,
                  const char* px, int qty) {
  return nlohmann::json({{"op", "new"}, {"cl", cl}, {"acct", acct}, {"sym", sym}, {"side", side},
                         {"type", "limit"}, {"px", px}, {"qty", qty}, {"tif", "day"}})
      .dump();
}

// A replay `time` line and a `product` line listing `sym` at band reference 5.000.
std::string TimeLine(const std::string& ts) {
  return nlohmann::json({{"op", "time"}, {"ts", ts}}).dump() + "\n";
}
std::string ProductLine(const std::string& sym) {
  return nlohmann::json({{"op", "product"}, {"sym", sym}, {"ref", "5.000"}}).dump() + "\n";
}

class SettleCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testsupport::FreshDir("cfx_settle_cli");
    data_ = dir_ + "/data";
    out_ = dir_ + "/out";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
  }
  // Day 1: the products at 09:00Z; in the closing window A1 buys 4 GOLD March from B1 and
  // 2 SILV March. Day 2: A1 buys 1 more GOLD March in the window.
  void Replay() {
    std::string in = TimeLine("2027-03-01T09:00:00Z");
    for (const std::string& sym : kCliListed) {
      in += ProductLine(sym);
    }
    in += TimeLine("2027-03-01T15:40:00Z");
    in += ReplayOrderLine("s1", "B1", kCliListed[0], "sell", "5.050", 4) + "\n";
    in += ReplayOrderLine("b1", "A1", kCliListed[0], "buy", "5.050", 4) + "\n";
    in += ReplayOrderLine("s2", "B1", kCliListed[3], "sell", "4.950", 2) + "\n";
    in += ReplayOrderLine("b2", "A1", kCliListed[3], "buy", "4.950", 2) + "\n";
    in += TimeLine("2027-03-02T15:45:00Z");
    in += ReplayOrderLine("s3", "B1", kCliListed[0], "sell", "5.120", 1) + "\n";
    in += ReplayOrderLine("b3", "A1", kCliListed[0], "buy", "5.120", 1) + "\n";
    in += TimeLine("2027-03-02T16:30:00Z");
    Write("commands.jsonl", in);
    auto r = RunCfx("replay --input " + dir_ + "/commands.jsonl --output " + dir_ +
                    "/events.jsonl --data-dir " + data_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  // Fixes on both days (5.1000, then 5.2000) for `grades`; throughput for every tier.
  void Reference(const std::vector<std::string>& grades) {
    std::string obs = "ts,provider,gpu,tier,region,lease,kind,price,gpu_hours\n";
    for (const std::string& g : grades) {
      std::string gpu = g.substr(0, g.find('-'));
      std::string rest = g.substr(g.find('-') + 1);
      std::string tier = rest.substr(0, rest.find('-'));
      std::string region = rest.substr(rest.find('-') + 1);
      for (const char* day : {"2027-03-01", "2027-03-02"}) {
        const char* price = std::string(day) == "2027-03-01" ? "5.1000" : "5.2000";
        for (const char* p : {"p1", "p2", "p3", "p1", "p2"}) {
          obs += std::string(day) + "T10:00:00Z," + p + "," + gpu + "," + tier + "," + region +
                 ",on_demand,trade," + price + ",100\n";
        }
      }
    }
    Write("observations.csv", obs);
    Write("throughput.csv",
          "date,operator,tier,gpu,model,isl,osl,output_tps_per_gpu\n"
          "2027-02-20,o1,GOLD,B200,m,1024,1024,1000\n2027-02-20,o2,SILV,B200,m,1024,1024,800\n"
          "2027-02-20,o3,BRNZ,B200,m,1024,1024,600\n2027-02-20,o4,PLAT,H100,m,1024,1024,500\n"
          "2027-02-20,o5,GOLD,H200,m,1024,1024,700\n");
    auto r = RunCfx("reference build --observations " + dir_ + "/observations.csv --throughput " +
                    dir_ + "/throughput.csv --date 2027-03-01 --to 2027-03-02 --data-dir " + data_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  nlohmann::json Prices(const char* date) {
    std::ifstream in(out_ + "/" + date + "/settlement_prices.json");
    return nlohmann::json::parse(in, nullptr, false);
  }

  std::string dir_, data_, out_;
};

TEST_F(SettleCliTest, EveryListedContractSettlesOnBothDaysWithNoConfig) {
  ASSERT_NO_FATAL_FAILURE(Replay());
  ASSERT_NO_FATAL_FAILURE(Reference(kCliGrades));
  auto d1 = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  ASSERT_EQ(d1.exit_code, 0) << d1.output;
  nlohmann::json p1 = Prices("2027-03-01");
  ASSERT_EQ(p1.size(), kCliListed.size()) << p1;
  std::map<std::string, std::string> tier1;
  for (const auto& p : p1) tier1[p["sym"]] = p["tier"];
  EXPECT_EQ(tier1[kCliListed[0]], "T1");
  EXPECT_EQ(tier1[kCliListed[3]], "T1");
  EXPECT_EQ(tier1["H200-GOLD-EU-202712"], "T4");  // never traded: the grade's fix
  auto d2 = RunCfx("settle --date 2027-03-02 --data-dir " + data_ + " --out " + out_);
  ASSERT_EQ(d2.exit_code, 0) << d2.output;
  nlohmann::json p2 = Prices("2027-03-02");
  ASSERT_EQ(p2.size(), kCliListed.size()) << p2;
  for (const auto& p : p2) {
    // Every contract settled on day 1, so day 2 has a prior: T3 where nothing traded.
    if (p["sym"] == kCliListed[0]) {
      EXPECT_EQ(p["tier"], "T1");
    } else {
      EXPECT_EQ(p["tier"], "T3") << p;
    }
  }
  // The H200 contract: 5.100 + (5.2 − 5.1) = 5.200.
  for (const auto& p : p2) {
    if (p["sym"] == "H200-GOLD-EU-202712") EXPECT_EQ(p["settle"], "5.200");
  }
  std::ifstream a1(out_ + "/2027-03-02/A1.json");
  nlohmann::json statement = nlohmann::json::parse(a1, nullptr, false);
  ASSERT_TRUE(statement.is_object());
  for (const auto& line : statement["positions"]) {
    EXPECT_FALSE(line["prior_settle"].is_null()) << line;
  }
  EXPECT_TRUE(std::filesystem::exists(out_ + "/2027-03-02/_summary.json"));
  EXPECT_TRUE(std::filesystem::exists(out_ + "/2027-03-02/_surveillance.json"));
  EXPECT_FALSE(std::filesystem::exists(out_ + "/2027-03-02/summary.json"));
  // A1 bought every lot of the closing windows: a surveillance alert, printed.
  EXPECT_NE(d1.output.find("surveillance alert: 2027-03-01 B200-GOLD-US-202703: account A1"),
            std::string::npos)
      << d1.output;
}

// SPEC §9: the book at the close is the book after the last input before D 16:00Z. A replay
// file that ends before 16:00Z leaves its book as that day's close (T2 here); a file that
// extends it replaces that quote with its own.
TEST_F(SettleCliTest, AReplayThatEndsBeforeTheCloseLeavesItsBookAsTheClose) {
  const std::string sym = kCliListed[0];
  std::string base = TimeLine("2027-03-01T09:00:00Z");
  base += ProductLine(sym);
  base += TimeLine("2027-03-01T10:00:00Z");
  base += ReplayOrderLine("s1", "B1", sym, "sell", "5.010", 10) + "\n";
  base += ReplayOrderLine("b1", "A1", sym, "buy", "5.000", 10) + "\n";
  Write("base.jsonl", base);
  auto r = RunCfx("replay --input " + dir_ + "/base.jsonl --output " + dir_ + "/e1.jsonl" +
                  " --data-dir " + dir_ + "/only_base");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto settled = RunCfx("settle --date 2027-03-01 --data-dir " + dir_ + "/only_base --out " + out_);
  ASSERT_EQ(settled.exit_code, 0) << settled.output;
  EXPECT_EQ(Prices("2027-03-01"),
            nlohmann::json::parse(R"([{"sym":")" + sym + R"(","settle":"5.005","tier":"T2"}])"));

  // The same start, replayed into another data dir, then extended: at 12:00Z the bid moves
  // to 5.004 (mid 5.007), and the file ends before the close again.
  r = RunCfx("replay --input " + dir_ + "/base.jsonl --output " + dir_ + "/e2.jsonl" +
             " --data-dir " + data_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string more = base + TimeLine("2027-03-01T12:00:00Z");
  more += R"({"op":"cancel","orig":"b1","acct":"A1"})"
          "\n";
  more += ReplayOrderLine("b2", "A1", sym, "buy", "5.004", 10) + "\n";
  Write("more.jsonl", more);
  r = RunCfx("replay --input " + dir_ + "/more.jsonl --output " + dir_ + "/e3.jsonl" +
             " --data-dir " + data_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string out2 = dir_ + "/out2";
  settled = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out2);
  ASSERT_EQ(settled.exit_code, 0) << settled.output;
  std::ifstream in(out2 + "/2027-03-01/settlement_prices.json");
  EXPECT_EQ(nlohmann::json::parse(in, nullptr, false),
            nlohmann::json::parse(R"([{"sym":")" + sym + R"(","settle":"5.007","tier":"T2"}])"));
}

// SPEC §9 / §11: a rerun of a settled date changes nothing, says so and exits 0; a bad flag
// names itself and exits non-zero, writing nothing.
TEST_F(SettleCliTest, ARerunSaysSoAndABadDateNamesTheFlag) {
  ASSERT_NO_FATAL_FAILURE(Replay());
  ASSERT_NO_FATAL_FAILURE(Reference(kCliGrades));
  auto d1 = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  ASSERT_EQ(d1.exit_code, 0) << d1.output;
  const std::string before = ReadAll(out_ + "/2027-03-01/A1.json");
  auto again = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("2027-03-01 is already settled; nothing changed"), std::string::npos)
      << again.output;
  EXPECT_EQ(ReadAll(out_ + "/2027-03-01/A1.json"), before);
  for (const std::string& date : {"2027-13-01", "2027-02-30", "yesterday", ""}) {
    auto bad = RunCfx("settle --date '" + date + "' --data-dir " + data_ + " --out " + out_);
    EXPECT_NE(bad.exit_code, 0) << date << ": " << bad.output;
    EXPECT_NE(bad.output.find("--date"), std::string::npos) << date << ": " << bad.output;
  }
  EXPECT_FALSE(std::filesystem::exists(out_ + "/2027-13-01"));
  auto unknown = RunCfx("settle --date 2027-03-02 --bogus --data-dir " + data_ + " --out " + out_);
  EXPECT_NE(unknown.exit_code, 0) << unknown.output;
  EXPECT_NE(unknown.output.find("--bogus"), std::string::npos) << unknown.output;
  EXPECT_FALSE(std::filesystem::exists(out_ + "/2027-03-02"));
}

// One run at a time on a data dir: a second one while the first holds its lock is refused,
// writing nothing (two at once could publish a statements folder missing accounts for good).
TEST_F(SettleCliTest, ASecondRunWhileOneRunsIsRefusedAndWritesNothing) {
  ASSERT_NO_FATAL_FAILURE(Replay());
  ASSERT_NO_FATAL_FAILURE(Reference(kCliGrades));
  const int fd = ::open((data_ + "/settle.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);  // as a run in progress holds it
  auto refused = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  EXPECT_NE(refused.exit_code, 0) << refused.output;
  EXPECT_NE(refused.output.find("another cfx settle is running on " + data_), std::string::npos)
      << refused.output;
  EXPECT_FALSE(std::filesystem::exists(out_ + "/2027-03-01"));
  ::close(fd);
  auto ran = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_TRUE(std::filesystem::exists(out_ + "/2027-03-01/A1.json"));
}

TEST_F(SettleCliTest, AListedContractWithoutAnyPriceSourceFailsTheBatch) {
  ASSERT_NO_FATAL_FAILURE(Replay());
  // No observations for the H200 grade: its listed contract has no trade, no close, no
  // prior and no fix.
  ASSERT_NO_FATAL_FAILURE(
      Reference({"B200-GOLD-US", "B200-SILV-EU", "H100-PLAT-APAC", "B200-BRNZ-US"}));
  auto r = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("H200-GOLD-EU-202712"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nothing was written"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out_ + "/2027-03-01"));
  // Nothing was written: not even an empty ledger (the first date's commit creates it), or
  // the statements' folder the run made to check it could write there.
  EXPECT_FALSE(std::filesystem::exists(data_ + "/ledger")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out_)) << r.output;
}

// A folder that holds no trades (an empty one, a typo'd path, another program's) is not an
// exchange's data dir: refused, naming what is missing, with nothing created in it; before,
// it "settled" 0 contracts, exited 0 and left empty stores and a settled date behind.
TEST_F(SettleCliTest, AFolderThatHoldsNoTradesIsRefusedWithNothingCreatedInIt) {
  const std::string empty = dir_ + "/empty";
  std::filesystem::create_directory(empty);
  std::filesystem::permissions(empty, std::filesystem::perms::owner_all);
  auto r = RunCfx("settle --date 2027-03-01 --data-dir " + empty);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("holds no trades"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(empty + "/trades"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::is_empty(empty)) << r.output;
  // A data dir with only reference fixes in it is no exchange's either; its audit log
  // records the refused run.
  ASSERT_NO_FATAL_FAILURE(Reference(kCliGrades));
  auto fixes_only = RunCfx("settle --date 2027-03-01 --data-dir " + data_);
  EXPECT_EQ(fixes_only.exit_code, 1) << fixes_only.output;
  EXPECT_NE(fixes_only.output.find("holds no trades"), std::string::npos) << fixes_only.output;
  for (const char* made : {"/trades", "/ledger", "/statements"}) {
    EXPECT_FALSE(std::filesystem::exists(data_ + made)) << made;
  }
  EXPECT_NE(ReadAll(data_ + "/audit.log").find("\"settlement_run\""), std::string::npos);
}

// `<out>/<D>` already there for a date the ledger has not settled is not this run's to
// replace (another exchange's statements pointed at the same --out, the user's own files):
// refused before anything is posted, the folder left as it was. Before, the run deleted it.
TEST_F(SettleCliTest, AStatementsFolderAlreadyThereIsNeverReplaced) {
  ASSERT_NO_FATAL_FAILURE(Replay());
  ASSERT_NO_FATAL_FAILURE(Reference(kCliGrades));
  std::filesystem::create_directories(out_ + "/2027-03-01");
  Write("out/2027-03-01/mine.txt", "my notes");
  auto r = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(out_ + "/2027-03-01 is already there"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nothing was written"), std::string::npos) << r.output;
  EXPECT_EQ(ReadAll(out_ + "/2027-03-01/mine.txt"), "my notes");
  EXPECT_FALSE(std::filesystem::exists(data_ + "/ledger")) << r.output;
  // Moved away, the date settles; a rerun then finds it settled and leaves the folder.
  std::filesystem::rename(out_ + "/2027-03-01", dir_ + "/mine");
  auto good = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  ASSERT_EQ(good.exit_code, 0) << good.output;
  EXPECT_EQ(Prices("2027-03-01").size(), kCliListed.size());
  auto rerun = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  EXPECT_EQ(rerun.exit_code, 0) << rerun.output;
  EXPECT_NE(rerun.output.find("already settled"), std::string::npos) << rerun.output;
  EXPECT_EQ(Prices("2027-03-01").size(), kCliListed.size());
}

// SPEC §11: a bad config is refused (naming the file, line and key) before anything is
// written: no event file, no data dir; with or without --data-dir.
TEST_F(SettleCliTest, ReplayRefusesABadConfigBeforeWritingAnything) {
  Write("commands.jsonl", R"({"op":"product","sym":"B200-GOLD-US-202703","ref":"5.000"})"
                          "\n");
  Write("bad.toml", "[exchange]\nholidays = [\"2027-02-30\"]\n");
  const std::string events = dir_ + "/events-bad.jsonl";
  const std::string data = dir_ + "/data-bad";
  for (const std::string& extra : {std::string(""), " --data-dir " + data}) {
    auto r = RunCfx("replay --input " + dir_ + "/commands.jsonl --output " + events + " --config " +
                    dir_ + "/bad.toml" + extra);
    EXPECT_EQ(r.exit_code, 2) << extra << ": " << r.output;
    EXPECT_NE(r.output.find("bad.toml:2"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("exchange.holidays[0]"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(events)) << extra;
    EXPECT_FALSE(std::filesystem::exists(data)) << extra;
  }
  auto missing =
      RunCfx("replay --input " + dir_ + "/commands.jsonl --config " + dir_ + "/nope.toml");
  EXPECT_NE(missing.exit_code, 0) << missing.output;
  EXPECT_NE(missing.output.find("nope.toml"), std::string::npos) << missing.output;
}

// SPEC §12's `cfx settle --date D --data-dir DIR` takes no config: the data dir keeps the
// exchange's own (`replay --config --data-dir` as `cfx serve`), so the holidays and the
// collateral are the exchange's. Tuesday 2027-03-02 is a holiday: Wednesday settles after
// Monday, and the cash holds the configured collateral.
TEST_F(SettleCliTest, SettleWithoutConfigUsesTheHolidaysAndCollateralTheExchangeRanWith) {
  const std::string sym = "B200-GOLD-US-202703";
  std::string in = TimeLine("2027-03-01T09:00:00Z");
  in += ProductLine(sym);
  in += TimeLine("2027-03-01T15:40:00Z");
  in += ReplayOrderLine("s1", "B1", sym, "sell", "5.000", 4) + "\n";
  in += ReplayOrderLine("b1", "A1", sym, "buy", "5.000", 4) + "\n";
  in += TimeLine("2027-03-03T15:45:00Z");
  in += ReplayOrderLine("s2", "B1", sym, "sell", "5.010", 1) + "\n";
  in += ReplayOrderLine("b2", "A1", sym, "buy", "5.010", 1) + "\n";
  in += TimeLine("2027-03-03T16:30:00Z");
  Write("commands.jsonl", in);
  Write("exchange.toml",
        "[exchange]\nholidays = [\"2027-03-02\"]\n\n[[firms]]\nid = \"FA\"\nname = \"A\"\n\n"
        "[[firms]]\nid = \"FB\"\nname = \"B\"\n\n"
        "[[accounts]]\nid = \"A1\"\nfirm = \"FA\"\ncollateral = \"1000.00\"\n\n"
        "[[accounts]]\nid = \"B1\"\nfirm = \"FB\"\ncollateral = \"2500.00\"\n");
  auto r = RunCfx("replay --input " + dir_ + "/commands.jsonl --output " + dir_ +
                  "/events.jsonl --data-dir " + data_ + " --config " + dir_ + "/exchange.toml");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string terms = ReadAll(data_ + "/settlement_terms.toml");
  EXPECT_NE(terms.find("holidays = [\"2027-03-02\"]"), std::string::npos) << terms;
  EXPECT_EQ(std::filesystem::status(data_ + "/settlement_terms.toml").permissions() &
                std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  auto d1 = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  ASSERT_EQ(d1.exit_code, 0) << d1.output;
  auto holiday = RunCfx("settle --date 2027-03-02 --data-dir " + data_ + " --out " + out_);
  EXPECT_NE(holiday.exit_code, 0) << holiday.output;  // not a business day
  EXPECT_FALSE(std::filesystem::exists(out_ + "/2027-03-02"));
  auto d3 = RunCfx("settle --date 2027-03-03 --data-dir " + data_ + " --out " + out_);
  ASSERT_EQ(d3.exit_code, 0) << d3.output;
  std::ifstream a1(out_ + "/2027-03-03/A1.json");
  nlohmann::json statement = nlohmann::json::parse(a1, nullptr, false);
  ASSERT_TRUE(statement.is_object()) << ReadAll(out_ + "/2027-03-03/A1.json");
  // S(03-01) = 5.000 (T1), S(03-03) = 5.010 (T1): VM = 1000 × 4 × 0.010 = 40.00 on the
  // prior position, 0 on the day's trade at 5.010. Cash = 1000.00 + 40.00.
  EXPECT_EQ(statement["vm_total"], "40.00") << statement;
  EXPECT_EQ(statement["cash"], "1040.00") << statement;
  ASSERT_EQ(statement["positions"].size(), 1u) << statement;
  EXPECT_EQ(statement["positions"][0]["prior_settle"], "5.000") << statement;
  // --config with other holidays than the exchange's is refused (exit 2, the two lists
  // named, nothing written): its last trading days count the exchange's calendar, and a
  // run by another calendar left the ledger where no later date could settle (an audit,
  // 2026-12-06). The same holidays, with other collateral, are taken.
  Write("other.toml",
        "[exchange]\nholidays = [\"2027-03-04\"]\n\n[[firms]]\nid = \"FA\"\nname = \"A\"\n");
  auto other = RunCfx("settle --date 2027-03-04 --data-dir " + data_ + " --out " + out_ +
                      " --config " + dir_ + "/other.toml");
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("its holidays (2027-03-04) are not those of the exchange"),
            std::string::npos)
      << other.output;
  EXPECT_NE(other.output.find("(2027-03-02, in " + data_ + "/settlement_terms.toml)"),
            std::string::npos)
      << other.output;
  EXPECT_FALSE(std::filesystem::exists(out_ + "/2027-03-04"));
  Write("same.toml",
        "[exchange]\nholidays = [\"2027-03-02\", \"2027-03-02\"]\n\n"
        "[[firms]]\nid = \"FA\"\nname = \"A\"\n");
  auto same = RunCfx("settle --date 2027-03-04 --data-dir " + data_ + " --out " + out_ +
                     " --config " + dir_ + "/same.toml");
  EXPECT_EQ(same.exit_code, 0) << same.output;
}

TEST_F(SettleCliTest, ReplayRefusesAnAccountIdThatCouldNameABatchFile) {
  Write("commands.jsonl",
        R"({"op":"product","sym":"B200-GOLD-US-202703","ref":"5.000"})" "\n" +
            ReplayOrderLine("x1", "_summary", "B200-GOLD-US-202703", "buy", "5.000", 1) + "\n");
  auto r = RunCfx("replay --input " + dir_ + "/commands.jsonl");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(R"("ev":"rejected")"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(R"("reason":"invalid_field")"), std::string::npos) << r.output;
}

// A statements folder that cannot be written refuses the run before the ledger posts
// anything (the day used to be committed first, with "nothing was written" printed after):
// a rerun with a good folder settles the day as if the first run had not happened.
TEST_F(SettleCliTest, AStatementsFolderThatCannotBeWrittenRefusesTheRunWithNothingPosted) {
  ASSERT_NO_FATAL_FAILURE(Replay());
  ASSERT_NO_FATAL_FAILURE(Reference(kCliGrades));
  Write("not_a_folder", "x");
  auto bad =
      RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + dir_ + "/not_a_folder");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("statements folder"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("nothing was written"), std::string::npos) << bad.output;
  auto good = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  ASSERT_EQ(good.exit_code, 0) << good.output;
  EXPECT_EQ(good.output.find("already settled"), std::string::npos) << good.output;
  EXPECT_EQ(Prices("2027-03-01").size(), kCliListed.size());
}

// The settlement terms a data dir keeps always hold an [exchange] table: one emptied (or
// blanked) is damage, refused with nothing written, not read as "no collateral, no
// holidays" (an audit settled a day so, with every account called for its whole margin,
// and the holidays gone, 2026-12-06).
TEST_F(SettleCliTest, AnEmptiedKeptTermsFileIsRefusedNotReadAsNoTerms) {
  const std::string sym = "B200-GOLD-US-202703";
  Write("commands.jsonl", TimeLine("2027-03-01T09:00:00Z") + ProductLine(sym));
  Write("exchange.toml",
        "[exchange]\nholidays = [\"2027-03-02\"]\n\n[[firms]]\nid = \"FA\"\nname = \"A\"\n\n"
        "[[accounts]]\nid = \"A1\"\nfirm = \"FA\"\ncollateral = \"1000.00\"\n");
  auto r = RunCfx("replay --input " + dir_ + "/commands.jsonl --output " + dir_ +
                  "/events.jsonl --data-dir " + data_ + " --config " + dir_ + "/exchange.toml");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string terms = data_ + "/settlement_terms.toml";
  for (const char* damaged : {"", "\n# nothing\n"}) {
    std::ofstream(terms, std::ios::trunc) << damaged;
    auto settle = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
    EXPECT_NE(settle.exit_code, 0) << settle.output;
    EXPECT_NE(settle.output.find(terms + ": holds no [exchange] table"), std::string::npos)
        << settle.output;
    EXPECT_FALSE(std::filesystem::exists(out_ + "/2027-03-01"));
    EXPECT_FALSE(std::filesystem::exists(data_ + "/ledger")) << "nothing was written";
  }
}

// A reference store that is there but cannot be read (cut short, emptied) refuses the run:
// settling on would commit the day without its fixes and with no margin, for good. Only a
// data dir where `cfx reference build` never ran settles without them (with a warning).
TEST_F(SettleCliTest, AReferenceStoreThatCannotBeReadRefusesTheRun) {
  ASSERT_NO_FATAL_FAILURE(Replay());
  ASSERT_NO_FATAL_FAILURE(Reference(kCliGrades));
  const std::string file = data_ + "/reference/data.mdb";
  const std::string kept = ReadAll(file);
  for (size_t size : {size_t{4096}, size_t{0}}) {
    std::filesystem::resize_file(file, size);
    auto settle = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
    EXPECT_EQ(settle.exit_code, 1) << settle.output;
    EXPECT_NE(settle.output.find("the reference store cannot be read"), std::string::npos)
        << settle.output;
    EXPECT_NE(settle.output.find("nothing was written"), std::string::npos) << settle.output;
    EXPECT_FALSE(std::filesystem::exists(out_ + "/2027-03-01"));
    EXPECT_EQ(std::filesystem::file_size(file), size) << "left as it was";
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc) << kept;
  auto settle = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  EXPECT_EQ(settle.exit_code, 0) << settle.output;
  EXPECT_EQ(settle.output.find("warning"), std::string::npos) << settle.output;
}

// The first date settled fixes where the ledger starts (each later run settles the next
// business day): one before any contract trades (a year typed wrong) is refused, naming the
// first listing, where the master knows it, else the day of the first trade.
TEST_F(SettleCliTest, AFirstDateBeforeAnyContractTradesIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Replay());  // listed at 2027-03-01T09:00Z
  auto typo = RunCfx("settle --date 2026-03-02 --data-dir " + data_ + " --out " + out_);
  EXPECT_EQ(typo.exit_code, 1) << typo.output;
  EXPECT_NE(typo.output.find("no contract of the security master trades then (the first is "
                             "listed on 2027-03-01)"),
            std::string::npos)
      << typo.output;
  EXPECT_FALSE(std::filesystem::exists(out_ + "/2026-03-02"));
  ASSERT_NO_FATAL_FAILURE(Reference(kCliGrades));
  auto real = RunCfx("settle --date 2027-03-01 --data-dir " + data_ + " --out " + out_);
  EXPECT_EQ(real.exit_code, 0) << real.output;

  // Products before any `time`: listed "from the beginning"; the first trade's day decides.
  const std::string other = dir_ + "/other";
  const std::string sym = "B200-GOLD-US-202703";
  Write("untimed.jsonl", ProductLine(sym) + TimeLine("2027-03-01T15:40:00Z") +
                             ReplayOrderLine("s1", "B1", sym, "sell", "5.000", 1) + "\n" +
                             ReplayOrderLine("b1", "A1", sym, "buy", "5.000", 1) + "\n");
  auto r = RunCfx("replay --input " + dir_ + "/untimed.jsonl --output " + dir_ +
                  "/untimed.out --data-dir " + other);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto early = RunCfx("settle --date 2027-02-26 --data-dir " + other + " --out " + out_);
  EXPECT_EQ(early.exit_code, 1) << early.output;
  EXPECT_NE(early.output.find("(the first is listed on 2027-03-01)"), std::string::npos)
      << early.output;
}

// `cfx replay --data-dir` keeps contracts that settle: a `product` whose symbol is no
// contract's is refused before anything is written (its trades used to land in the store,
// and `cfx settle` then refused every date of the data dir); without --data-dir it runs.
TEST_F(SettleCliTest, ReplayIntoADataDirRefusesAProductThatIsNoContract) {
  Write("commands.jsonl", TimeLine("2027-03-01T09:00:00Z") + ProductLine("B200-GOLD-US-202703") +
                              ProductLine("FOO") +
                              ReplayOrderLine("s1", "B1", "FOO", "sell", "5.000", 1) + "\n");
  auto r = RunCfx("replay --input " + dir_ + "/commands.jsonl --output " + dir_ +
                  "/events.jsonl --data-dir " + data_);
  EXPECT_NE(r.exit_code, 0) << r.output;
  // The file, the line and the field (SPEC §11).
  EXPECT_NE(r.output.find(dir_ + "/commands.jsonl: line 3: sym: product 'FOO' is not a contract "
                                 "symbol"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(data_)) << "nothing was written, not even the folder";
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/events.jsonl"));
  auto plain = RunCfx("replay --input " + dir_ + "/commands.jsonl");
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find(R"("ev":"accepted","cl":"s1")"), std::string::npos) << plain.output;
  // A limit price above the exchange's limit (cfx serve refuses it): no day of it could be
  // settled, so a data dir takes none either.
  Write("absurd.jsonl",
        ProductLine("B200-GOLD-US-202703") +
            ReplayOrderLine("s1", "B1", "B200-GOLD-US-202703", "sell", "1000000.001", 1) + "\n");
  auto absurd = RunCfx("replay --input " + dir_ + "/absurd.jsonl --output " + dir_ +
                       "/events.jsonl --data-dir " + data_);
  EXPECT_NE(absurd.exit_code, 0) << absurd.output;
  EXPECT_NE(absurd.output.find("line 2: px: a limit price above 1000000.000 USD per GPU-hour"),
            std::string::npos)
      << absurd.output;
  EXPECT_FALSE(std::filesystem::exists(data_));
}

// A replay line too large for the memory the process may have (200 MB under a 400 MB
// limit) is one rejected line and the replay goes on; it used to end the replay as if the
// file had, with exit 0 and the orders after it missing (an audit, 2026-12-06).
TEST_F(SettleCliTest, AReplayLineTooLargeForMemoryIsRejectedAndTheRestRuns) {
  {
    std::ofstream in(dir_ + "/big.jsonl", std::ios::binary);
    in << ProductLine("B200-GOLD-US-202703")
       << ReplayOrderLine("b1", "A1", "B200-GOLD-US-202703", "buy", "5.000", 1) << "\n"
       << R"({"op":"new","cl":")";
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 200; ++i) in << chunk;
    in << "\"}\n" << ReplayOrderLine("b2", "A1", "B200-GOLD-US-202703", "buy", "5.000", 1) << "\n";
  }
  // Under a 400 MB address-space limit, set in the shell that starts cfx.
  const std::string cmd = "(ulimit -v 400000; CFX_FORCE_CPU=1 " + std::string(CFX_BINARY_DIR) +
                          "/app/cfx replay --input " + dir_ + "/big.jsonl --output " + dir_ +
                          "/events.jsonl) 2>&1; echo exit=$?";
  testsupport::CfxResult r;
  if (FILE* pipe = popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
    pclose(pipe);
  }
  std::filesystem::remove(dir_ + "/big.jsonl");
  EXPECT_NE(r.output.find("exit=0"), std::string::npos) << r.output.substr(0, 2000);
  const std::string events = ReadAll(dir_ + "/events.jsonl");
  EXPECT_NE(events.find(R"("ev":"rejected","reason":"invalid_field","line":3)"), std::string::npos)
      << events.substr(0, 2000);
  EXPECT_NE(events.find(R"("ev":"accepted","cl":"b2")"), std::string::npos)
      << events.substr(0, 2000);
}

// Without --data-dir nothing of a config applies to a replay (the engine alone): said, so
// that its holidays are not taken as applied (it was silently ignored).
TEST_F(SettleCliTest, ReplayWithAConfigButNoDataDirSaysTheConfigDoesNotApply) {
  Write("commands.jsonl", ProductLine("B200-GOLD-US-202703"));
  Write("exchange.toml", "[exchange]\nholidays = [\"2027-03-02\"]\n");
  auto r = RunCfx("replay --input " + dir_ + "/commands.jsonl --config " + dir_ + "/exchange.toml");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("was checked but applies only with --data-dir"), std::string::npos)
      << r.output;
}

// Output that does not reach standard output (a full disk under `> file`) fails the
// command; it used to exit 0 over a file cut short (an audit, 2026-12-06).
TEST_F(SettleCliTest, AStandardOutputThatCannotBeWrittenFailsTheCommand) {
  Write("commands.jsonl",
        ProductLine("B200-GOLD-US-202703") +
            ReplayOrderLine("b1", "A1", "B200-GOLD-US-202703", "buy", "5.000", 1) + "\n");
  auto full = RunCfx("replay --input " + dir_ + "/commands.jsonl > /dev/full; echo exit=$?");
  EXPECT_NE(full.output.find("exit=1"), std::string::npos) << full.output;
  auto fine = RunCfx("replay --input " + dir_ + "/commands.jsonl > /dev/null; echo exit=$?");
  EXPECT_NE(fine.output.find("exit=0"), std::string::npos) << fine.output;
}

}  // namespace
}  // namespace cfx
