// Where the NATS servers are and how the replication stream and the leadership lease are
// named (config `[replication]`, docs/replication.md).
#ifndef CFX_REPLICATION_NATS_OPTIONS_H_
#define CFX_REPLICATION_NATS_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cfx::replication {

// How long opening a log or a lease keeps retrying the creation of its stream or bucket.
inline constexpr int64_t kOpenRetryUs = 15'000'000;

struct NatsOptions {
  std::vector<std::string> servers;  // "nats://127.0.0.1:4222", ...: the client fails over
  std::string stream = "CFX_INPUTS";    // the JetStream stream of sequenced input batches
  std::string subject = "cfx.inputs";   // its one subject
  int replicas = 3;                     // the stream's and the lease bucket's replication
  int64_t timeout_ms = 2000;            // one publish ack / API request
  std::string lease_bucket = "CFX_LEASE";  // the key-value bucket holding the lease
  // A lease not renewed for this long lapses. Longer than a JetStream leader election
  // (2-6 s measured here when the server holding the stream's leader dies), so that losing
  // one NATS server does not also depose the primary.
  int64_t lease_ttl_ms = 10000;
  std::string node_id;                     // this process, as the lease names its holder
  // The NATS user to connect as and its password (both or neither; neither: no credentials).
  // The password comes from a secret file ([replication] password_file), never the config.
  std::string user;
  std::string password;
};

}  // namespace cfx::replication

#endif  // CFX_REPLICATION_NATS_OPTIONS_H_
