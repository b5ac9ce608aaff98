// One three-server NATS cluster shared by the replication tests of a binary: started at the
// first use, stopped at exit (its folder removed). Each test names its own stream and bucket.
#ifndef CFX_TESTS_REPLICATION_NATS_TEST_CLUSTER_H_
#define CFX_TESTS_REPLICATION_NATS_TEST_CLUSTER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "cfx/replication/jetstream_log.h"
#include "cfx/replication/nats_options.h"
#include "cfx/replication/local_nats_cluster.h"
#include "temp_dir.h"

namespace cfx::replication {

class SharedNatsCluster : public ::testing::Environment {
 public:
  // The cluster, started at the first call; null if it could not start (Error() says why).
  static LocalNatsCluster* Get() {
    SharedNatsCluster& env = Env();
    if (env.cluster_ == nullptr && env.error_.empty()) {
      // Ports are picked free, then bound by the servers: another test process may take one
      // in between (ctest -j). A cluster that did not come up is tried again on new ports.
      for (int attempt = 0; attempt < 3 && env.cluster_ == nullptr; ++attempt) {
        env.dir_ = std::make_unique<testsupport::TempDir>("cfx_nats");
        auto c = LocalNatsCluster::Start(env.dir_->path(), 3);
        if (c.ok()) {
          env.cluster_ = std::move(*c);
          env.error_.clear();
        } else {
          env.error_ = std::string(c.status().message());
        }
      }
    }
    return env.cluster_.get();
  }
  static const std::string& Error() { return Env().error_; }
  void TearDown() override {
    cluster_.reset();
    dir_.reset();
  }

 private:
  static SharedNatsCluster& Env() {
    static SharedNatsCluster* env = [] {
      auto* e = new SharedNatsCluster();
      ::testing::AddGlobalTestEnvironment(e);  // owned by gtest; TearDown stops the servers
      return e;
    }();
    return *env;
  }
  std::unique_ptr<testsupport::TempDir> dir_;
  std::unique_ptr<LocalNatsCluster> cluster_;
  std::string error_;
};

// Options for a stream and a lease bucket of this test's own.
inline NatsOptions TestNatsOptions(const std::string& name) {
  static std::atomic<int> n{0};
  NatsOptions o;
  o.servers = SharedNatsCluster::Get()->urls();
  o.user = SharedNatsCluster::Get()->user();
  o.password = SharedNatsCluster::Get()->password();
  o.stream = absl::StrCat("T_", name, "_", n.fetch_add(1));
  o.subject = absl::StrCat("t.", o.stream);
  o.lease_bucket = absl::StrCat("L_", o.stream);
  o.replicas = 3;
  o.timeout_ms = 2000;
  o.lease_ttl_ms = 10000;  // appends retry this long through a stream leader's election
  o.node_id = "node-a";
  return o;
}

// Polls `done` every 5 ms; false if it is still false after `ms`.
inline bool WaitFor(const std::function<bool()>& done, int64_t ms = 30000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// A log on `o`'s stream; null (and a test failure) if it cannot open.
inline std::unique_ptr<JetStreamLog> OpenLog(const NatsOptions& o) {
  auto log = JetStreamLog::Open(o);
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? std::move(*log) : nullptr;
}

}  // namespace cfx::replication

#define CFX_REQUIRE_NATS()                                                         \
  ASSERT_NE(::cfx::replication::SharedNatsCluster::Get(), nullptr)                 \
      << "a 3-server NATS cluster is needed: " << ::cfx::replication::SharedNatsCluster::Error()

#endif  // CFX_TESTS_REPLICATION_NATS_TEST_CLUSTER_H_
