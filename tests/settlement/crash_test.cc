// Crash safety: a failure injected at every step, and a child process killed with SIGKILL
// at random moments, leave a state from which a rerun produces exactly the results of an
// undisturbed run.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>

#include "batch_fixture.h"

namespace cfx::settlement {
namespace {

using testing::D;
using testing::DumpLedger;
using testing::MakeTrade;
using testing::ReadTree;
using testing::TempDir;

const char* const kDays[] = {"2027-03-29", "2027-03-30", "2027-03-31", "2027-04-01"};

// Three days of trading between `n` accounts in two contracts, with fixes.
void Workload(int n, MemoryTradeSource* trades, MemoryFixSource* fixes) {
  std::mt19937 rng(11);
  int64_t seq = 0;
  for (const char* day : kDays) {
    fixes->Set("B200-GOLD-US", D(day), 50000 + static_cast<int64_t>(rng() % 500));
    for (int i = 0; i < n; ++i) {
      std::string ts = std::string(day) + (i % 2 ? "T15:40:00Z" : "T09:00:00Z");
      std::string sym = i % 3 ? "B200-GOLD-US-202704" : "B200-GOLD-US-202703";
      if (std::string(day) == "2027-04-01") sym = "B200-GOLD-US-202704";
      trades->AddTrade(MakeTrade(++seq, ts, sym, i % 2 ? "5.010" : "4.990", 1 + rng() % 9,
                                 "ACC" + std::to_string(i), "ACC" + std::to_string((i * 7 + 1) % n)));
    }
  }
}

struct Outcome {
  std::map<std::string, std::string> files;
  std::string ledger;
};

absl::Status RunAll(const std::string& root, MemoryTradeSource* trades, MemoryFixSource* fixes,
                    const FailPoint& fail = nullptr) {
  testing::PerLotMargin margin;
  SettleConfig config;
  config.collateral["ACC1"] = common::MicroUsd(5'000'000'000);
  for (const char* day : kDays) {
    auto r = SettleDate(D(day), config, {trades, fixes, &margin},
                        {.data_dir = root + "/data", .out_dir = root + "/out", .fail = fail});
    if (!r.ok()) return r.status();
  }
  return absl::OkStatus();
}

Outcome Capture(const std::string& root) {
  return Outcome{ReadTree(root + "/out"), DumpLedger(root + "/data")};
}

TEST(CrashTest, InjectedFailureAtEveryStepThenRerunMatchesCleanRun) {
  MemoryTradeSource trades;
  MemoryFixSource fixes;
  Workload(50, &trades, &fixes);
  TempDir clean;
  ASSERT_TRUE(RunAll(clean.path(), &trades, &fixes).ok());
  Outcome expected = Capture(clean.path());
  for (const char* point : {"computed", "ledger_begin", "ledger_half", "ledger_before_commit",
                            "committed", "statements_written"}) {
    // Fail at `point` while settling each day in turn, then rerun everything.
    for (int fail_index = 0; fail_index < 4; ++fail_index) {
      TempDir dir;
      int seen = 0;
      bool failed = false;
      absl::Status s = RunAll(dir.path(), &trades, &fixes, [&](std::string_view p) {
        if (p != point || failed) return absl::OkStatus();
        if (seen++ != fail_index) return absl::OkStatus();
        failed = true;
        return absl::AbortedError("injected crash");
      });
      ASSERT_TRUE(failed) << point << " " << fail_index;
      EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
      ASSERT_TRUE(RunAll(dir.path(), &trades, &fixes).ok()) << point << " " << fail_index;
      Outcome got = Capture(dir.path());
      EXPECT_EQ(got.ledger, expected.ledger) << point << " " << fail_index;
      EXPECT_EQ(got.files, expected.files) << point << " " << fail_index;
    }
  }
}

TEST(CrashTest, SigkillAtRandomMomentsThenRerunMatchesCleanRun) {
  MemoryTradeSource trades;
  MemoryFixSource fixes;
  Workload(300, &trades, &fixes);
  TempDir clean;
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(RunAll(clean.path(), &trades, &fixes).ok());
  int64_t clean_us = std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::steady_clock::now() - start).count();
  Outcome expected = Capture(clean.path());
  std::mt19937 rng(3);
  // A kill that comes after the child finished tests nothing, and how long the child takes
  // varies with the machine's load: keep going until 8 kills have landed mid-run (the delay
  // is drawn over the first half of a clean run's duration), within a bounded number of
  // attempts.
  int killed_mid_run = 0;
  for (int attempt = 0; attempt < 60 && killed_mid_run < 8; ++attempt) {
    TempDir dir;
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // The child opens its own LMDB environments (none is open in the parent now).
      _exit(RunAll(dir.path(), &trades, &fixes).ok() ? 0 : 3);
    }
    usleep(static_cast<useconds_t>(rng() % (clean_us / 2 + 1)));
    kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    if (WIFSIGNALED(status)) ++killed_mid_run;
    else ASSERT_EQ(WEXITSTATUS(status), 0);
    ASSERT_TRUE(RunAll(dir.path(), &trades, &fixes).ok()) << "attempt " << attempt;
    Outcome got = Capture(dir.path());
    EXPECT_EQ(got.ledger, expected.ledger) << "attempt " << attempt;
    EXPECT_EQ(got.files, expected.files) << "attempt " << attempt;
  }
  EXPECT_GE(killed_mid_run, 8);
}

}  // namespace
}  // namespace cfx::settlement
