#include "cfx/replication/local_nats_cluster.h"

#include <crypt.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

// 16 bytes of the system's randomness as 32 hex digits; "" if it cannot be read.
std::string RandomSecret() {
  unsigned char bytes[16];
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  const bool ok = read(fd, bytes, sizeof(bytes)) == static_cast<ssize_t>(sizeof(bytes));
  close(fd);
  if (!ok) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

// The bcrypt hash of `secret` (libxcrypt, "$2b$", cost 4: the servers verify a hash at each
// connection, and these clusters live on loopback for tests and the demo); "" on failure.
std::string Bcrypt(const std::string& secret) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", 4, nullptr, 0, salt, sizeof(salt)) == nullptr) return "";
  crypt_data data{};
  const char* hash = crypt_rn(secret.c_str(), salt, &data, sizeof(data));
  return hash == nullptr || hash[0] != '$' ? "" : std::string(hash);
}

// Writes `text` to `path` (0600, replacing an earlier run's file; not through a link), all
// of it.
absl::Status WritePrivate(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create ", path));
  const bool ok = fchmod(fd, 0600) == 0 &&
                  write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok ? absl::OkStatus() : absl::InternalError(absl::StrCat("cannot write ", path));
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
  // Clients connect as user `cfx` and the servers route to each other as `route`, each with
  // a fresh random password: no one else who reaches a port on loopback reads the orders the
  // stream carries or joins the cluster (a review, 2026-12-07). The servers' configs hold
  // bcrypt hashes, the clients' password is in `<dir>/nats.password` (0600); a route's
  // password is in its server's config (0600), as a route URL needs it.
  c->password_ = RandomSecret();
  const std::string route_password = RandomSecret();
  const std::string client_hash = Bcrypt(c->password_);
  const std::string route_hash = Bcrypt(route_password);
  if (c->password_.empty() || route_password.empty() || client_hash.empty() || route_hash.empty()) {
    return absl::InternalError("cannot make the NATS cluster's credentials");
  }
  std::error_code made;
  std::filesystem::create_directories(dir, made);  // the caller's folder, made when missing
  c->password_file_ = absl::StrCat(dir, "/nats.password");
  if (absl::Status s = WritePrivate(c->password_file_, c->password_ + "\n"); !s.ok()) return s;
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
      absl::StrAppend(&routes, routes.empty() ? "" : ", ", "nats-route://route:", route_password,
                      "@127.0.0.1:", c->nodes_[j].cluster_port);
    }
    n.config = absl::StrCat(dir, "/n", i, ".conf");
    std::string conf = absl::StrCat("server_name: n", i, "\n", "listen: 127.0.0.1:", n.client_port,
                                    "\n", "authorization { user: ", c->user_, ", password: \"",
                                    client_hash, "\" }\n", "jetstream { store_dir: \"", store,
                                    "\", max_memory_store: 64MB, max_file_store: 1GB }\n");
    if (servers > 1) {
      absl::StrAppend(&conf, "cluster { name: cfx, listen: 127.0.0.1:", n.cluster_port,
                      ", authorization { user: route, password: \"", route_hash, "\" }, routes: [",
                      routes, "] }\n");
    }
    if (absl::Status s = WritePrivate(n.config, conf); !s.ok()) return s;
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
  o.user = user_;
  o.password = password_;
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
