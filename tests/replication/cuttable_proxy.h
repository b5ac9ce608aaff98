// A TCP forwarder on loopback whose traffic the test can cut, to put a node behind a
// network partition (SplitBrainTest, ServeRoleTest).
#ifndef CFX_TESTS_REPLICATION_CUTTABLE_PROXY_H_
#define CFX_TESTS_REPLICATION_CUTTABLE_PROXY_H_

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

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace cfx::replication {

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

inline int PortOf(const std::string& url) {
  int port = 0;
  const size_t colon = url.rfind(':');
  return colon != std::string::npos && absl::SimpleAtoi(url.substr(colon + 1), &port) ? port : 0;
}

// One proxy per "nats://127.0.0.1:<port>" URL, appended to *proxies; the proxies' URLs, or
// fewer than given when a proxy could not listen.
inline std::vector<std::string> ProxiedUrls(const std::vector<std::string>& urls,
                                            std::vector<std::unique_ptr<CuttableProxy>>* proxies) {
  std::vector<std::string> out;
  for (const std::string& url : urls) {
    proxies->push_back(std::make_unique<CuttableProxy>(PortOf(url)));
    if (proxies->back()->port() <= 0) break;
    out.push_back(absl::StrCat("nats://127.0.0.1:", proxies->back()->port()));
  }
  return out;
}

}  // namespace cfx::replication

#endif  // CFX_TESTS_REPLICATION_CUTTABLE_PROXY_H_
