// `cfx serve` killed (SIGKILL) while a client's orders stream in, then started again on the
// same data dir: every order the exchange kept (its journal has it, so it is in the book) has
// its ExecutionReport at the client, from before the kill or sent again after it
// (docs/durability.md, "Reports a crash kept from going out"). The server runs in a forked
// child, so the kill is a real one: nothing of it runs after the signal. C++14 (QuickFIX).
#include <poll.h>
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

// The server in a forked child (forked while this process runs no other thread: each
// client below is gone, its threads joined, before the next fork). Killed and reaped when
// this goes, whatever the test did.
class ServerChild {
 public:
  // Starts the server on `data_dir`; port() is -1 when it did not start within 60 s.
  explicit ServerChild(const std::string& data_dir) {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(fds[0]);
      std::string error;
      std::unique_ptr<ServeHarness> server = ServeHarness::Start(data_dir, &error);
      const int p = server ? server->fix_port() : -1;
      if (write(fds[1], &p, sizeof(p)) != static_cast<ssize_t>(sizeof(p))) _exit(3);
      if (!server) _exit(2);
      for (;;) pause();  // until killed
    }
    close(fds[1]);
    pollfd in = {fds[0], POLLIN, 0};
    int p = -1;
    if (pid_ > 0 && poll(&in, 1, 60000) == 1 &&
        read(fds[0], &p, sizeof(p)) == static_cast<ssize_t>(sizeof(p))) {
      port_ = p;
    }
    close(fds[0]);
  }
  ~ServerChild() { Kill(); }
  int port() const { return port_; }
  // SIGKILLs the child and reaps it; true when it died of the signal.
  bool Kill() {
    if (pid_ <= 0) return false;
    kill(pid_, SIGKILL);
    int status = 0;
    const bool reaped = waitpid(pid_, &status, 0) == pid_;
    pid_ = -1;
    return reaped && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  }

 private:
  pid_t pid_ = -1;
  int port_ = -1;
};

// Removes a test's folder when the test ends, passed or not.
struct RemovedAtEnd {
  std::string dir;
  ~RemovedAtEnd() {
    std::string rm = "rm -rf '" + dir + "'";
    if (std::system(rm.c_str()) != 0) ADD_FAILURE() << rm;
  }
};

bool IsOrderReport(const Msg& m) {
  const std::string type = F(m, 150);
  return F(m, 35) == "8" && (type == "0" || type == "8");
}

TEST(ServeCrashTest, AfterAKillEveryOrderTheExchangeKeptHasItsReport) {
  const std::string dir = TempDir();
  RemovedAtEnd cleanup{dir};
  const std::string dictionary = dir + "/CFX-FIX44.xml";
  ASSERT_TRUE(WriteFixDictionary(dictionary).ok());
  const std::string data = dir + "/data", client_dir = dir + "/client";
  std::mt19937 rng(20261205);
  std::vector<std::string> sent;
  std::vector<Msg> received;  // by every run of the client
  constexpr int kKills = 3, kOrders = 400;
  for (int round = 0; round < kKills; ++round) {
    ServerChild child(data);
    ASSERT_GT(child.port(), 0) << "the server did not start";
    {
      TestClient beta("BETA_T1", child.port(), client_dir, dictionary);  // keeps its orders
      beta.Start();
      ASSERT_TRUE(beta.WaitLogon());
      // Orders as fast as they go; the kill lands while the exchange works through them.
      const int kill_at = kOrders / 2 + static_cast<int>(rng() % (kOrders / 2));
      for (int i = 0; i < kOrders; ++i) {
        const std::string cl = "k" + std::to_string(round) + "-" + std::to_string(i);
        const std::string px = "4.9" + std::to_string(10 + i % 80);
        beta.Send(NewOrderMsg(cl, "B1", '1', 1, px));
        sent.push_back(cl);
        if (i == kill_at) break;
      }
      ASSERT_TRUE(child.Kill());
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
}

// A watermark file damaged in both slots (a disk's fault: a write cut short spoils one) does
// not say which reports went out: the start is refused naming the file, and succeeds once
// the operator removed it.
TEST(ServeCrashTest, ADamagedReportsWatermarkRefusesTheStartNamingIt) {
  const std::string dir = TempDir();
  RemovedAtEnd cleanup{dir};
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
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
