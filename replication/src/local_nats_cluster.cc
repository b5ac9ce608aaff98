#include "cfx/replication/local_nats_cluster.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cfx/common/free_port.h"
#include "cfx/replication/jetstream_log.h"

namespace cfx::replication {
namespace {

int FreePort() {
  absl::StatusOr<int> port = common::PickFreeLoopbackPort();
  return port.ok() ? *port : -1;
}

void Reap(pid_t pid, int first_signal) {
  if (pid <= 0) return;
  kill(pid, first_signal);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

std::string FindNatsServer() {
  if (const char* path = std::getenv("PATH")) {
    for (absl::string_view d : absl::StrSplit(path, ':')) {
      const std::string p = absl::StrCat(d, "/nats-server");
      if (access(p.c_str(), X_OK) == 0) return p;
    }
  }
  for (const char* p : {"/usr/sbin/nats-server", "/usr/bin/nats-server"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

absl::StatusOr<std::unique_ptr<LocalNatsCluster>> LocalNatsCluster::Start(const std::string& dir,
                                                                int servers,
                                                                int64_t ready_timeout_ms) {
  std::unique_ptr<LocalNatsCluster> c(new LocalNatsCluster());
  c->binary_ = FindNatsServer();
  if (c->binary_.empty()) {
    return absl::FailedPreconditionError("nats-server is not installed (scripts/setup)");
  }
  c->dir_ = dir;
  c->nodes_.resize(servers);
  // Distinct ports: a port picked is free again once the picker closes it, and the kernel
  // may hand it out twice (the standby demo's did, 2026-12-06).
  std::set<int> taken;
  auto pick = [&] {
    for (int attempt = 0; attempt < 64; ++attempt) {
      const int port = FreePort();
      if (port < 0 || taken.insert(port).second) return port;
    }
    return -1;
  };
  for (Node& n : c->nodes_) {
    n.client_port = pick();
    n.cluster_port = pick();
    if (n.client_port < 0 || n.cluster_port < 0) return absl::UnavailableError("no free port");
  }
  for (int i = 0; i < servers; ++i) {
    Node& n = c->nodes_[i];
    const std::string store = absl::StrCat(dir, "/n", i);
    std::filesystem::create_directories(store);
    std::string routes;
    for (int j = 0; j < servers; ++j) {
      if (j == i) continue;
      absl::StrAppend(&routes, routes.empty() ? "" : ", ", "nats-route://127.0.0.1:",
                      c->nodes_[j].cluster_port);
    }
    n.config = absl::StrCat(dir, "/n", i, ".conf");
    std::ofstream f(n.config);
    f << "server_name: n" << i << "\n"
      << "listen: 127.0.0.1:" << n.client_port << "\n"
      << "jetstream { store_dir: \"" << store << "\", max_memory_store: 64MB, max_file_store: 1GB }\n";
    if (servers > 1) {
      f << "cluster { name: cfx, listen: 127.0.0.1:" << n.cluster_port << ", routes: [" << routes
        << "] }\n";
    }
    if (!f) return absl::InternalError(absl::StrCat("cannot write ", n.config));
  }
  for (Node& n : c->nodes_) {
    if (absl::Status s = c->Launch(n); !s.ok()) return s;
  }
  if (absl::Status s = c->WaitReady(ready_timeout_ms); !s.ok()) return s;
  return c;
}

absl::Status LocalNatsCluster::WaitReady(int64_t timeout_ms) {
  // Ready when a new stream with a copy on every server can be created: the servers have a
  // meta leader and every one of them has joined (a restarted one has caught up).
  static std::atomic<int> probes{0};
  NatsOptions o;
  o.servers = urls();
  o.replicas = size();
  o.timeout_ms = 1000;
  o.stream = absl::StrCat("CFX_READY_PROBE_", getpid(), "_", probes.fetch_add(1));
  o.subject = absl::StrCat("cfx.ready.", o.stream);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto log = JetStreamLog::Open(o);
    if (log.ok()) return absl::OkStatus();
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("NATS cluster not ready: ", log.status().message()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

absl::Status LocalNatsCluster::Launch(Node& n) {
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a test that dies leaves no server behind
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, STDOUT_FILENO);
      dup2(devnull, STDERR_FILENO);
    }
    execl(binary_.c_str(), binary_.c_str(), "-c", n.config.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  n.pid = pid;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!common::LoopbackPortAccepts(n.client_port)) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      n.pid = -1;
      return absl::UnavailableError(absl::StrCat("nats-server exited at start (", n.config, ")"));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("nats-server did not listen on ",
                                                      n.client_port));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::OkStatus();
}

LocalNatsCluster::~LocalNatsCluster() {
  for (Node& n : nodes_) Reap(n.pid, SIGTERM);
}

std::vector<std::string> LocalNatsCluster::urls() const {
  std::vector<std::string> u;
  for (const Node& n : nodes_) u.push_back(absl::StrCat("nats://127.0.0.1:", n.client_port));
  return u;
}

void LocalNatsCluster::Kill(int i) {
  Reap(nodes_[i].pid, SIGKILL);
  nodes_[i].pid = -1;
}

absl::Status LocalNatsCluster::Restart(int i) {
  if (nodes_[i].pid > 0) Kill(i);
  if (absl::Status s = Launch(nodes_[i]); !s.ok()) return s;
  return WaitReady(30000);
}

}  // namespace cfx::replication
