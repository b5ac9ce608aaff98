// A NATS cluster on loopback for tests and `cfx demo --standby`: n real `nats-server`
// processes (Debian's nats-server, installed by scripts/setup) with JetStream on file
// storage under a folder of the caller's, routed to each other, refusing any client but one
// with the credentials made at start (user(), password(); docs/replication.md,
// "Credentials"). Not a fake: the servers are the ones a deployment runs, on ports picked
// free at start.
//
//   auto cluster = LocalNatsCluster::Start(dir.path(), 3);   // waits until JetStream answers
//   NatsOptions o; o.servers = (*cluster)->urls();
//   o.user = (*cluster)->user(); o.password = (*cluster)->password();
//   (*cluster)->Kill(1);                               // kill -9 one server
//   (*cluster)->Restart(1);                            // same ports, same storage
#ifndef CFX_REPLICATION_LOCAL_NATS_CLUSTER_H_
#define CFX_REPLICATION_LOCAL_NATS_CLUSTER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace cfx::replication {

// The nats-server binary (PATH, then /usr/sbin, /usr/bin); "" when not installed.
std::string FindNatsServer();

class LocalNatsCluster {
 public:
  // Starts `servers` servers under `dir` (one config file and one store folder each) and
  // waits until JetStream has a meta leader (up to `ready_timeout_ms`).
  static absl::StatusOr<std::unique_ptr<LocalNatsCluster>> Start(const std::string& dir,
                                                            int servers = 3,
                                                            int64_t ready_timeout_ms = 30000);
  ~LocalNatsCluster();  // stops every server (SIGTERM, then SIGKILL after 5 s)
  LocalNatsCluster(const LocalNatsCluster&) = delete;
  LocalNatsCluster& operator=(const LocalNatsCluster&) = delete;

  std::vector<std::string> urls() const;  // "nats://127.0.0.1:<port>", one per server
  // The credentials its clients connect with (NatsOptions::user, password), made at start;
  // the password is also in password_file() (0600), for a config's [replication].
  const std::string& user() const { return user_; }
  const std::string& password() const { return password_; }
  const std::string& password_file() const { return password_file_; }
  int size() const { return static_cast<int>(nodes_.size()); }
  void Kill(int i);               // SIGKILL, reaped
  // Starts server i again on its ports and storage; returns once it has rejoined.
  absl::Status Restart(int i);
  // Waits until a stream with a copy on every server can be created.
  absl::Status WaitReady(int64_t timeout_ms);

 private:
  struct Node {
    std::string config;
    int client_port = 0;
    int cluster_port = 0;
    pid_t pid = -1;
  };
  LocalNatsCluster() = default;
  absl::Status Launch(Node& n);
  std::string binary_;
  std::string dir_;
  std::string user_ = "cfx";
  std::string password_;
  std::string password_file_;
  std::vector<Node> nodes_;
};

}  // namespace cfx::replication

#endif  // CFX_REPLICATION_LOCAL_NATS_CLUSTER_H_
