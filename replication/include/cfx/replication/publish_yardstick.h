// The yardstick of `cfx bench journal --replicated`: what one plain JetStream publish-ack
// costs on the same servers, in the same run (docs/performance.md, "Replication").
#ifndef CFX_REPLICATION_PUBLISH_YARDSTICK_H_
#define CFX_REPLICATION_PUBLISH_YARDSTICK_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "cfx/replication/nats_options.h"

namespace cfx::replication {

// `count` publishes of `bytes` bytes each, one at a time, each waiting for its ack, to a
// fresh stream of their own (options.stream + "_YARDSTICK", the same replicas, deleted
// afterwards). Returns each publish's time in µs, sorted.
absl::StatusOr<std::vector<double>> TimeRawPublishAcks(const NatsOptions& options, int count,
                                                       size_t bytes);

}  // namespace cfx::replication

#endif  // CFX_REPLICATION_PUBLISH_YARDSTICK_H_
