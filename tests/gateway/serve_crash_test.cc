// `cfx serve` killed (SIGKILL) while a client's orders stream in, then started again on the
// same data dir: every order the exchange kept (its journal has it, so it is in the book) has
// its ExecutionReport at the client, from before the kill or sent again after it
// (docs/durability.md, "Reports a crash kept from going out"). The server runs in a forked
// child, so the kill is a real one: nothing of it runs after the signal. C++14 (QuickFIX).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fix_test_client.h"
#include "gtest/gtest.h"
#include "serve_harness.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

using Msg = FIX::Message;

// Starts the server on `data_dir` in a child and returns its pid; *port is its FIX port.
pid_t StartServerChild(const std::string& data_dir, int* port) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string error;
    std::unique_ptr<ServeHarness> server = ServeHarness::Start(data_dir, &error);
    const int p = server ? server->fix_port() : -1;
    if (write(fds[1], &p, sizeof(p)) != static_cast<ssize_t>(sizeof(p))) _exit(3);
    if (!server) _exit(2);
    for (;;) pause();  // until killed
  }
  close(fds[1]);
  *port = -1;
  if (pid < 0 || read(fds[0], port, sizeof(*port)) != static_cast<ssize_t>(sizeof(*port))) {
    *port = -1;
  }
  close(fds[0]);
  return pid;
}

bool IsOrderReport(const Msg& m) {
  const std::string type = F(m, 150);
  return F(m, 35) == "8" && (type == "0" || type == "8");
}

TEST(ServeCrashTest, AfterAKillEveryOrderTheExchangeKeptHasItsReport) {
  const std::string dir = TempDir();
  const std::string dictionary = dir + "/CFX-FIX44.xml";
  ASSERT_TRUE(WriteFixDictionary(dictionary).ok());
  const std::string data = dir + "/data", client_dir = dir + "/client";
  std::mt19937 rng(20261205);
  std::vector<std::string> sent;
  std::vector<Msg> received;  // by every run of the client
  constexpr int kKills = 3, kOrders = 400;
  for (int round = 0; round < kKills; ++round) {
    int port = -1;
    const pid_t pid = StartServerChild(data, &port);
    ASSERT_GT(pid, 0);
    ASSERT_GT(port, 0) << "the server did not start";
    {
      TestClient beta("BETA_T1", port, client_dir, dictionary);  // no cancel-on-disconnect
      beta.Start();
      ASSERT_TRUE(beta.WaitLogon());
      // Orders as fast as they go; the kill lands while the exchange works through them.
      const int kill_at = kOrders / 2 + static_cast<int>(rng() % (kOrders / 2));
      for (int i = 0; i < kOrders; ++i) {
        const std::string cl = "k" + std::to_string(round) + "-" + std::to_string(i);
        const std::string px = "4.9" + std::to_string(10 + i % 80);
        beta.Send(NewOrderMsg(cl, "B1", '1', 1, px));
        sent.push_back(cl);
        if (i == kill_at) {
          kill(pid, SIGKILL);
          break;
        }
      }
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      ASSERT_TRUE(WIFSIGNALED(status));
      std::vector<Msg> got = beta.Snapshot();
      received.insert(received.end(), got.begin(), got.end());
      beta.Stop(/*force=*/true);
    }
  }
  // Started once more, in this process: the client logs on with its own sequence numbers,
  // and what the exchange sent (and sends again) while it was away comes in the resend.
  std::string error;
  std::unique_ptr<ServeHarness> server = ServeHarness::Start(data, &error);
  ASSERT_TRUE(server != nullptr) << error;
  TestClient beta("BETA_T1", server->fix_port(), client_dir, dictionary);
  beta.Start();
  ASSERT_TRUE(beta.WaitLogon());
  // Everything before the answer to a status request has arrived once the answer has.
  beta.Send(StatusMsg(sent.back(), "B1"));
  Msg answer;
  ASSERT_TRUE(beta.WaitExec(sent.back(), 'I', &answer));
  std::vector<Msg> got = beta.Snapshot();
  received.insert(received.end(), got.begin(), got.end());

  // A report sent again has the ExecID it had, and an order the client resent (43=Y: the
  // server's inbound sequence number lags after a kill) is not answered again: an accepted
  // order has one acceptance, and nothing is refused as a duplicate of itself. (A rejected
  // order is no order: a resend of it is judged again, and may be rejected again.)
  std::set<std::string> reported;
  std::map<std::string, std::set<std::string>> answers;  // cl -> {"ExecID 150 58"}
  for (const Msg& m : received) {
    if (!IsOrderReport(m)) continue;
    const std::string cl = F(m, 11);
    reported.insert(cl);
    EXPECT_NE(F(m, 58), "duplicate_client_id") << cl << " refused as a duplicate of itself";
    answers[cl].insert(F(m, 17) + " " + F(m, 150) + " " + F(m, 58));
  }
  for (const auto& entry : answers) {
    bool accepted = false;
    for (const std::string& a : entry.second)
      accepted = accepted || a.find(" 0 ") != std::string::npos;
    if (accepted) {
      EXPECT_EQ(entry.second.size(), 1u)
          << entry.first << " answered more than once: " << *entry.second.begin() << " / "
          << *entry.second.rbegin();
    }
  }
  // An order without a report must be one the exchange does not know (it died before the
  // order was journaled).
  int unreported_known = 0, unknown = 0;
  for (const std::string& cl : sent) {
    if (reported.count(cl)) continue;
    beta.Send(StatusMsg(cl, "B1"));
    Msg m;
    ASSERT_TRUE(beta.WaitExec(cl, 'I', &m)) << cl;
    if (F(m, 58) == "unknown_order") {
      ++unknown;
    } else {
      ++unreported_known;
      ADD_FAILURE() << cl << " is in the exchange (39=" << F(m, 39) << ") but was never reported";
    }
  }
  std::fprintf(stderr, "%d kills: %zu orders sent, %zu reported, %d unknown to the exchange\n",
               kKills, sent.size(), reported.size(), unknown);
  EXPECT_EQ(unreported_known, 0);
  beta.Stop();
  EXPECT_TRUE(server->Stop(&error)) << error;
  std::string rm = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(rm.c_str()), 0);
}

// A watermark file damaged in both slots (a disk's fault: a write cut short spoils one) does
// not say which reports went out: the start is refused naming the file, and succeeds once
// the operator removed it.
TEST(ServeCrashTest, ADamagedReportsWatermarkRefusesTheStartNamingIt) {
  const std::string dir = TempDir();
  const std::string data = dir + "/data", file = data + "/fix/reported";
  std::string error;
  std::unique_ptr<ServeHarness> server = ServeHarness::Start(data, &error);
  ASSERT_TRUE(server != nullptr) << error;
  ASSERT_TRUE(server->Stop(&error)) << error;
  server.reset();
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good()) << file;
    f.write("XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", 64);
  }
  server = ServeHarness::Start(data, &error);
  ASSERT_TRUE(server == nullptr);
  EXPECT_NE(error.find(file), std::string::npos) << error;
  EXPECT_NE(error.find("damaged"), std::string::npos) << error;
  ASSERT_EQ(std::remove(file.c_str()), 0);
  server = ServeHarness::Start(data, &error);
  ASSERT_TRUE(server != nullptr) << error;
  EXPECT_TRUE(server->Stop(&error)) << error;
  std::string rm = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(rm.c_str()), 0);
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
