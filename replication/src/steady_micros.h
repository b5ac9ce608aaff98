// The steady clock in µs since its epoch: lease deadlines and retry windows. Internal.
#ifndef CFX_REPLICATION_SRC_STEADY_MICROS_H_
#define CFX_REPLICATION_SRC_STEADY_MICROS_H_

#include <chrono>
#include <cstdint>

namespace cfx::replication::internal {

inline int64_t SteadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace cfx::replication::internal

#endif  // CFX_REPLICATION_SRC_STEADY_MICROS_H_
