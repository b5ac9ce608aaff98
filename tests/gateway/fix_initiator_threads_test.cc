// InitiatorThreads (client/initiator_threads.h) and FixSession::Stop: QuickFIX's
// ThreadedSocketInitiator detaches a connection thread when the peer hangs up first or the
// connect fails, and that thread still calls into the initiator afterwards. These tests make
// both happen and check that every such thread is counted, and that FixSession::Stop returns
// only once they have all ended (so it never frees the initiator under one of them; CI's
// ThreadSanitizer caught exactly that free once).
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "cfx/client/fix_session.h"
#include "cfx/client/initiator_threads.h"
#include "fix_test_client.h"
#include "gtest/gtest.h"
#include "quickfix/Application.h"
#include "quickfix/MessageStore.h"
#include "quickfix/SessionSettings.h"
#include "quickfix/ThreadedSocketInitiator.h"

namespace cfx {
namespace gateway {
namespace test {
namespace {

using client::InitiatorThreads;

// The threads of this process now (the entries of /proc/self/task).
int CountThreads() {
  DIR* d = opendir("/proc/self/task");
  if (d == nullptr) return -1;
  int n = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(d);
  return n;
}

template <typename Pred>
bool WaitUntil(Pred pred, int ms = kWaitMs) {
  for (int i = 0; i < ms / 5; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

// A loopback listener that accepts each connection and closes it at once: the peer that
// hangs up first.
class HangUpListener {
 public:
  HangUpListener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        listen(fd_, 16) != 0 || getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ADD_FAILURE() << "cannot listen on loopback";
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        const int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return;  // shutdown() below
        close(c);
        ++accepted_;
      }
    });
  }
  ~HangUpListener() {
    shutdown(fd_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    close(fd_);
  }
  int port() const { return port_; }
  int accepted() const { return accepted_.load(); }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

// One initiator session to 127.0.0.1:port that dials once (no reconnect within the test),
// with messages kept in memory: no files.
FIX::SessionSettings OneSession(int port) {
  FIX::Dictionary d;
  d.setString("ConnectionType", "initiator");
  d.setString("SocketConnectHost", "127.0.0.1");
  d.setInt("SocketConnectPort", port);
  d.setInt("HeartBtInt", 30);
  d.setInt("ReconnectInterval", 600);
  d.setString("StartTime", "00:00:00");
  d.setString("EndTime", "00:00:00");
  d.setBool("UseDataDictionary", false);
  FIX::SessionSettings settings;
  settings.set(FIX::SessionID("FIX.4.4", "ALPHA_T1", "CFX"), d);
  return settings;
}

TEST(InitiatorThreadsTest, AThreadWhosePeerHungUpIsCountedUntilItEnds) {
  HangUpListener peer;
  InitiatorThreads threads;
  FIX::NullApplication app;
  FIX::MemoryStoreFactory store;
  FIX::SessionSettings settings = OneSession(peer.port());
  FIX::ThreadedSocketInitiator initiator(app, store, settings, threads);
  initiator.start();
  ASSERT_TRUE(WaitUntil([&] { return peer.accepted() >= 1; }));
  ASSERT_TRUE(WaitUntil([&] { return threads.seen() >= 1; }));
  // The thread reads the hang-up, detaches itself and ends, all before any stop().
  EXPECT_TRUE(threads.WaitAllEnded(std::chrono::milliseconds(kWaitMs)));
  EXPECT_EQ(threads.live(), 0);
  initiator.stop(true);
  EXPECT_TRUE(threads.WaitAllEnded(std::chrono::milliseconds(kWaitMs)));
}

TEST(InitiatorThreadsTest, AThreadWhoseConnectFailedIsCountedUntilItEnds) {
  const int port = FreePort();  // nothing listens there
  InitiatorThreads threads;
  FIX::NullApplication app;
  FIX::MemoryStoreFactory store;
  FIX::SessionSettings settings = OneSession(port);
  FIX::ThreadedSocketInitiator initiator(app, store, settings, threads);
  initiator.start();
  ASSERT_TRUE(WaitUntil([&] { return threads.seen() >= 1; }));
  EXPECT_TRUE(threads.WaitAllEnded(std::chrono::milliseconds(kWaitMs)));
  initiator.stop(true);
  EXPECT_EQ(threads.live(), 0);
}

TEST(InitiatorThreadsTest, FixSessionStopLeavesNoConnectionThreadBehind) {
  char tmpl[] = "/tmp/cfx_fix_threads_XXXXXX";
  const char* made = mkdtemp(tmpl);
  ASSERT_NE(made, nullptr);
  const std::string dir = made;
  HangUpListener peer;
  const int before = CountThreads();
  ASSERT_GT(before, 0);
  // Stop at once after the hang-up, when the detached thread may still be running, and a
  // while after, when it has surely ended: neither may leave a thread behind.
  for (int round = 0; round < 4; ++round) {
    client::FixClientOptions o;
    o.sender_comp_id = "ALPHA_T1";
    o.port = peer.port();
    o.store_dir = dir + "/client";
    client::FixSession session(o);
    const int accepted = peer.accepted();
    ASSERT_TRUE(session.Start().ok());
    ASSERT_TRUE(WaitUntil([&] { return peer.accepted() > accepted; }));
    if (round % 2 == 1) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    session.Stop(true);
    // A thread that has returned is listed until the kernel has taken it down, a moment
    // after its join (or, detached, its exit notice): waited for, not assumed.
    EXPECT_TRUE(WaitUntil([&] { return CountThreads() == before; }))
        << "round " << round << ": " << CountThreads() << " threads, " << before << " before";
  }
  const std::string rm = "rm -rf '" + dir + "'";
  EXPECT_EQ(std::system(rm.c_str()), 0);
}

}  // namespace
}  // namespace test
}  // namespace gateway
}  // namespace cfx
