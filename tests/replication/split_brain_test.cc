// Split brain: a primary cut off from NATS (every byte between it and the three servers
// dropped, its connections left open, as behind a failed switch) stops acknowledging within
// the lease's TTL; the standby, which still reaches NATS, takes the lease once it lapses and
// leads; when the network heals, the old primary acknowledges nothing more, and everything
// it did acknowledge is in the stream the new primary leads.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cfx/replication/lease.h"
#include "cfx/replication/lease_keeper.h"
#include "pipeline_node.h"
#include "temp_dir.h"

namespace cfx::replication {
namespace {

using Clock = std::chrono::steady_clock;

// A TCP forwarder on loopback, 127.0.0.1:port() -> 127.0.0.1:target. Cut() stops it
// forwarding either way: what either side sends stays unread (its sender's buffers fill),
// and the connections stay open; Heal() forwards again.
class CuttableProxy {
 public:
  explicit CuttableProxy(int target) : target_(target) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = Loopback(0);
    socklen_t len = sizeof(a);
    if (listener_ < 0 || bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        listen(listener_, 64) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      return;
    }
    port_ = ntohs(a.sin_port);
    threads_.emplace_back([this] { Accept(); });
  }
  ~CuttableProxy() {
    stop_.store(true);
    for (std::thread& t : threads_) t.join();
    close(listener_);
    for (int fd : fds_) close(fd);
  }
  int port() const { return port_; }
  void Cut() { cut_.store(true); }
  void Heal() { cut_.store(false); }

 private:
  static sockaddr_in Loopback(int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    return a;
  }
  void Accept() {
    while (!stop_.load()) {
      pollfd p{listener_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int client = accept(listener_, nullptr, nullptr);
      if (client < 0) continue;
      const int server = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a = Loopback(target_);
      if (connect(server, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
        close(client);
        close(server);
        continue;
      }
      std::lock_guard<std::mutex> lock(mu_);
      fds_.push_back(client);
      fds_.push_back(server);
      threads_.emplace_back([this, client, server] { Pump(client, server); });
    }
  }
  // Both directions of one connection, until either side closes or the proxy stops.
  void Pump(int a, int b) {
    char buf[65536];
    while (!stop_.load()) {
      if (cut_.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
      if (poll(p, 2, 20) <= 0) continue;
      for (int i = 0; i < 2; ++i) {
        if ((p[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        const ssize_t n = read(p[i].fd, buf, sizeof buf);
        if (n <= 0) {
          shutdown(a, SHUT_RDWR);
          shutdown(b, SHUT_RDWR);
          return;
        }
        const int to = i == 0 ? b : a;
        for (ssize_t off = 0; off < n;) {
          const ssize_t w = write(to, buf + off, static_cast<size_t>(n - off));
          if (w <= 0) return;
          off += w;
        }
      }
    }
  }

  const int target_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> cut_{false};
  std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> threads_;  // the accept thread first; pumps are added by it
};

int PortOf(const std::string& url) {
  int port = 0;
  const size_t colon = url.rfind(':');
  return colon != std::string::npos && absl::SimpleAtoi(url.substr(colon + 1), &port) ? port : 0;
}

// A pipeline node with a lease keeper: it promotes when the keeper takes the lease, and
// gives the lease up when its order path fails, as `cfx serve` does.
struct LeasedNode {
  LeasedNode(const NatsOptions& o, const std::string& dir) : node(o, dir) {
    auto l = Lease::Open(o);
    EXPECT_TRUE(l.ok()) << l.status();
    lease = std::move(*l);
    keeper = std::make_unique<LeaseKeeper>(
        lease.get(), node.log.get(),
        LeaseKeeper::Callbacks{.on_acquired =
                                   [this] {
                                     return node.Lead() ? absl::OkStatus()
                                                        : absl::UnavailableError("no lead");
                                   },
                               .on_lost = [this](const absl::Status&) { lost.store(true); }});
  }
  Node node;
  std::unique_ptr<Lease> lease;
  std::unique_ptr<LeaseKeeper> keeper;
  std::atomic<bool> lost{false};
};

TEST(SplitBrainTest, APrimaryCutOffFromNatsStopsAcknowledgingWithinTheLeaseTtl) {
  CFX_REQUIRE_NATS();
  NatsOptions o = TestNatsOptions("split");
  o.lease_ttl_ms = 3000;
  o.timeout_ms = 1000;
  // The primary reaches the three servers only through proxies that the test can cut.
  std::vector<std::unique_ptr<CuttableProxy>> proxies;
  NatsOptions cut_off = o;
  cut_off.servers.clear();
  for (const std::string& url : o.servers) {
    proxies.push_back(std::make_unique<CuttableProxy>(PortOf(url)));
    ASSERT_GT(proxies.back()->port(), 0);
    cut_off.servers.push_back(absl::StrCat("nats://127.0.0.1:", proxies.back()->port()));
  }
  cut_off.node_id = "node-a";
  o.node_id = "node-b";
  testsupport::TempDir dir_a("cfx_split_a"), dir_b("cfx_split_b");
  LeasedNode a(cut_off, dir_a.path());
  a.keeper->Start();
  ASSERT_TRUE(WaitFor([&] { return a.node.pipeline->leading(); }, 20000));
  LeasedNode b(o, dir_b.path());
  b.keeper->Start();

  // Orders flow into the primary until it stops taking them.
  std::atomic<bool> stop_flow{false};
  std::thread flow([&] {
    std::mt19937_64 rng(5);
    for (uint64_t id = 1; !stop_flow.load(); ++id) {
      const OfferResult r =
          a.node.pipeline->TryOffer(id, CounterCommand{id, rng() % 64, 1});
      if (r == OfferResult::kFull) std::this_thread::yield();
      if (r == OfferResult::kStopped || r == OfferResult::kNotLeader) return;
      if (id % 32 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  struct JoinAtExit {
    std::atomic<bool>& stop;
    std::thread& t;
    ~JoinAtExit() {
      stop.store(true);
      if (t.joinable()) t.join();
    }
  } join_flow{stop_flow, flow};
  ASSERT_TRUE(WaitFor([&] { return a.node.recorder.acks() > 2000; }, 20000));

  const Clock::time_point cut_at = Clock::now();
  for (auto& p : proxies) p->Cut();
  // The standby takes the lease once it lapses, and leads.
  ASSERT_TRUE(WaitFor([&] { return b.node.pipeline->leading(); }, 30000));
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - cut_at);
  const auto last_ack = std::chrono::duration_cast<std::chrono::milliseconds>(
      a.node.recorder.last_ack() - cut_at);
  std::cout << "cut off: last ack of the old primary " << last_ack.count()
            << " ms after the cut; the standby leads " << took.count() << " ms after it"
            << std::endl;
  EXPECT_LT(last_ack.count(), o.lease_ttl_ms) << "acknowledged after its lease could lapse";
  EXPECT_GE(took.count(), last_ack.count());
  // The old primary knows it: its keeper gives up once a renewal fails past the deadline
  // (90% of the TTL after the last renewal it sent), at most a renewal period and a
  // request timeout later.
  ASSERT_TRUE(WaitFor([&] { return a.lost.load(); }, 20000)) << "the old primary still leads";
  const auto lost = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - cut_at);
  std::cout << "the old primary gave up leading " << lost.count() << " ms after the cut"
            << std::endl;
  EXPECT_LT(lost.count(), o.lease_ttl_ms + o.lease_ttl_ms / 3 + o.timeout_ms + 1000);
  const size_t acked_by_a = a.node.recorder.acks();

  // The network heals: the old primary acknowledges nothing more (its deadline passed and
  // the stream has moved on), and the new primary's stream holds all it acknowledged.
  for (auto& p : proxies) p->Heal();
  constexpr size_t kNew = 200;
  std::mt19937_64 rng(9);
  ASSERT_EQ(b.node.Offer(1'000'000, kNew, rng), kNew);
  auto new_acked = [&] {
    size_t n = 0;
    for (uint64_t id : b.node.recorder.acked()) n += id >= 1'000'000;
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return new_acked() == kNew; }))
      << new_acked() << " acknowledged, error " << b.node.recorder.error();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(a.node.recorder.acks(), acked_by_a) << "the old primary acknowledged after the cut";
  EXPECT_GE(b.node.pipeline->stats().followed_inputs, acked_by_a)
      << "an input the old primary acknowledged is missing from the stream";
  a.keeper->Stop();
  b.keeper->Stop();
  (void)a.node.pipeline->Stop();
  (void)b.node.pipeline->Stop();
}

}  // namespace
}  // namespace cfx::replication
