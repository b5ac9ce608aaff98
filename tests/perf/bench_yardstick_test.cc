// The benches' same-run yardsticks: raw synced commits on the disk, and `cfx bench fix`'s
// report of its figures beside the echo acceptor's and the commit's, as ratios.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cfx/perf/fix_serve_bench.h"
#include "cfx/perf/journal_bench.h"
#include "cfx/perf/journal_bench_harness.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace cfx::perf {
namespace {

TEST(BenchYardstickTest, RawSyncedCommitsTimesEveryCommit) {
  const std::string dir = ::testing::TempDir() + "/raw_commits_test_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  absl::StatusOr<nlohmann::json> raw = RawSyncedCommits(dir, 20, 10);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_EQ((*raw)["commits"], 20);
  EXPECT_EQ((*raw)["records_per_commit"], 10);
  EXPECT_GT((*raw)["p50_us"].get<double>(), 0);
  EXPECT_GE((*raw)["p99_us"].get<double>(), (*raw)["p50_us"].get<double>());
  EXPECT_GT((*raw)["records_per_sec"].get<double>(), 0);
}

TEST(BenchYardstickTest, GroupFlushClientsAcksEveryAskAfterAFlush) {
  const std::string dir = ::testing::TempDir() + "/group_flush_test_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  absl::StatusOr<nlohmann::json> g = GroupFlushClients(dir, 3, 60, 10);
  const bool left = std::filesystem::exists(dir + "/group_flush.dat");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_FALSE(left);  // its file is removed
  EXPECT_EQ((*g)["clients"], 3);
  EXPECT_EQ((*g)["acks"], 60);
  // Every ask waited for a flush; three clients share some of them, never more than asked.
  EXPECT_GE((*g)["flushes"].get<int>(), 20);
  EXPECT_LE((*g)["flushes"].get<int>(), 60);
  EXPECT_GT((*g)["p50_us"].get<double>(), 0);
  EXPECT_GE((*g)["p99_us"].get<double>(), (*g)["p50_us"].get<double>());
  EXPECT_FALSE(GroupFlushClients(dir + "/missing", 1, 1, 0).ok());  // names the path
}

// The flusher behind the disk alone and the durable echo: an ask returns only after a flush
// that ended after it was made, asks from several threads share flushes, the file goes.
TEST(BenchYardstickTest, AGroupFlusherAnswersAfterAFlushAndSharesThem) {
  const std::string dir = ::testing::TempDir() + "/group_flusher_test_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    auto flusher = GroupFlusher::Open(dir);
    ASSERT_TRUE(flusher.ok()) << flusher.status();
    std::atomic<int> early{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&] {
        for (int k = 0; k < 20; ++k) {
          // A flush that began after this point must have ended when MakeDurable returns:
          // the one in flight (begun, not ended) does not count.
          const uint64_t begun = (*flusher)->flushes_begun();
          (*flusher)->MakeDurable();
          if ((*flusher)->flushes() <= begun) ++early;
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(early.load(), 0);
    EXPECT_GE((*flusher)->flushes(), 20u);
    EXPECT_LE((*flusher)->flushes(), 60u);
    EXPECT_EQ((*flusher)->error(), 0);
  }
  const bool left = std::filesystem::exists(dir + "/group_flush.dat");
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(left);
  EXPECT_FALSE(GroupFlusher::Open(dir + "/missing").ok());
}

// The durable echo is the echo acceptor with a hook before each answer: every order of
// both phases passes through it, and its time is in every order's round trip.
TEST(BenchYardstickTest, TheDurableEchoCallsItsHookBeforeEveryAnswer) {
  FixBenchOptions o;
  o.sessions = 2;
  o.orders = 40;
  o.window = 4;
  o.echo = true;
  o.cross = false;
  std::atomic<int> calls{0};
  o.before_echo = [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  };
  FixBenchResult r;
  ASSERT_TRUE(RunFixBench(o, &r).ok());
  EXPECT_EQ(r.one_at_a_time.orders, 40);
  EXPECT_EQ(r.pipelined.orders, 40);
  EXPECT_EQ(calls.load(), 80);
  // One at a time, an answer sent before the hook returned would come back in well under
  // the hook's 3 ms (a loopback echo takes about 0.1 ms).
  EXPECT_GE(r.one_at_a_time.p50_us, 3000) << "the answer did not wait for the hook";
}

TEST(BenchYardstickTest, FixReportPrintsTheRatiosToTheEchoAcceptorAndTheCommit) {
  FixServeBenchResult r;
  r.phases.pipelined.orders_per_sec = 9000;
  r.phases.one_at_a_time.p99_us = 3000;
  FixBenchResult echo;
  echo.pipelined.orders_per_sec = 18000;
  echo.one_at_a_time.p99_us = 500;
  r.echo = echo;
  r.raw_commit = nlohmann::json{{"p99_us", 1000.0}};
  r.group_flush =
      nlohmann::json{{"clients", 4}, {"think_us", 80.0}, {"p50_us", 300.0}, {"p99_us", 700.0}};
  std::ostringstream out;
  PrintFixServeBench(r, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("yardstick, same run"), std::string::npos) << text;
  // The last line is the JSON object.
  const size_t last = text.rfind('\n', text.size() - 2);
  const nlohmann::json j = nlohmann::json::parse(text.substr(last + 1));
  EXPECT_DOUBLE_EQ(j["ratio_pipelined_to_echo"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["ratio_p99_to_echo_p99_plus_raw_commit_p99"].get<double>(), 2.0);
  EXPECT_EQ(j["yardstick_raw_commit_10"]["p99_us"], 1000.0);
  // The disk alone with 4 clients: (500 + 700) / (500 + 1000).
  EXPECT_DOUBLE_EQ(j["ratio_echo_p99_plus_group_flush_p99_to_yardstick"].get<double>(), 0.8);
  EXPECT_NE(text.find("the disk alone, same run: 4 clients"), std::string::npos) << text;
  EXPECT_EQ(j.count("ratio_durable_echo_p99_to_yardstick"), 0u);

  // With the durable echo: its p99 against the yardstick, and cfx's against it.
  FixBenchResult durable;
  durable.one_at_a_time.p99_us = 1800;
  durable.pipelined.orders_per_sec = 3000;
  r.durable_echo = durable;
  std::ostringstream with_durable;
  PrintFixServeBench(r, with_durable);
  const std::string durable_text = with_durable.str();
  const nlohmann::json d = nlohmann::json::parse(
      durable_text.substr(durable_text.rfind('\n', durable_text.size() - 2) + 1));
  EXPECT_DOUBLE_EQ(d["ratio_durable_echo_p99_to_yardstick"].get<double>(), 1.2);
  EXPECT_DOUBLE_EQ(d["ratio_p99_to_durable_echo_p99"].get<double>(), 3000.0 / 1800);
  EXPECT_DOUBLE_EQ(d["ratio_pipelined_to_durable_echo"].get<double>(), 3.0);
  EXPECT_EQ(d["yardstick_durable_echo"]["one_at_a_time"]["p99_us"], 1800.0);
  EXPECT_NE(durable_text.find("the durable echo, same run"), std::string::npos) << durable_text;

  // Without yardsticks (--no-yardsticks, or another server) there are no ratios.
  r.echo.reset();
  std::ostringstream plain;
  PrintFixServeBench(r, plain);
  EXPECT_EQ(plain.str().find("ratio_"), std::string::npos);
}

TEST(BenchYardstickTest, PipelineWithTheEngineIsTimedBesideTheToyAndTheEngineAlone) {
  HarnessConfig config;
  config.engine = true;
  config.messages = 20'000;
  const nlohmann::json j = RunPipelineBench(config);
  ASSERT_FALSE(j.contains("error")) << j.dump();
  EXPECT_EQ(j["messages"], 20'000);
  EXPECT_EQ(j["yardstick_toy"]["messages"], 20'000);
  const nlohmann::json& alone = j["engine_alone"];
  EXPECT_GT(alone["ns_per_input"].get<double>(), 0);
  // The same inputs in the same order through the engine alone leave the state the pipeline
  // left: the yardstick does the pipeline's matching work, no less.
  EXPECT_EQ(alone["state_hash"], j["state_hash"]);
  EXPECT_GT(alone["outcomes"].get<uint64_t>(), 20'000u);  // every input acked, some trade
  const double toy = j["yardstick_toy"]["orders_per_sec"].get<double>();
  EXPECT_DOUBLE_EQ(j["ratio_to_toy"].get<double>(), j["orders_per_sec"].get<double>() / toy);
  EXPECT_DOUBLE_EQ(j["engine_alone_ratio_to_toy"].get<double>(),
                   alone["orders_per_sec"].get<double>() / toy);
}

}  // namespace
}  // namespace cfx::perf
