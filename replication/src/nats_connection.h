// A connected NATS client with its JetStream context (RAII over libnats), and the mapping of
// libnats errors to absl::Status. Internal to cfx_replication.
#ifndef CFX_REPLICATION_SRC_NATS_CONNECTION_H_
#define CFX_REPLICATION_SRC_NATS_CONNECTION_H_

#include <memory>

#include <nats/nats.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cfx/replication/nats_options.h"

namespace cfx::replication {

// `what` names the operation; the text carries libnats' last error of this thread.
absl::Status NatsError(absl::string_view what, natsStatus s, jsErrCode js = static_cast<jsErrCode>(0));

class NatsConnection {
 public:
  static absl::StatusOr<std::unique_ptr<NatsConnection>> Connect(const NatsOptions& options);
  ~NatsConnection();
  NatsConnection(const NatsConnection&) = delete;
  NatsConnection& operator=(const NatsConnection&) = delete;

  natsConnection* nc() const { return nc_; }
  jsCtx* js() const { return js_; }

 private:
  NatsConnection() = default;
  natsConnection* nc_ = nullptr;
  jsCtx* js_ = nullptr;
};

}  // namespace cfx::replication

#endif  // CFX_REPLICATION_SRC_NATS_CONNECTION_H_
