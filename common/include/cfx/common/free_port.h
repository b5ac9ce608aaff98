// A free TCP port on loopback, for servers that must be told their port before they bind
// it (QuickFIX cannot report the port it bound; `nats-server` and `cfx serve` children
// take theirs on the command line): bind port 0, read the port back, close. Another
// process could take it in between; on loopback that is rare, and the server's own bind
// then fails with an error instead of hanging.
//
//   absl::StatusOr<int> port = common::PickFreeLoopbackPort();
//   while (!common::LoopbackPortAccepts(*port)) ...;   // until the server listens
#ifndef CFX_COMMON_FREE_PORT_H_
#define CFX_COMMON_FREE_PORT_H_

#include "absl/status/statusor.h"

namespace cfx::common {

absl::StatusOr<int> PickFreeLoopbackPort();

// Whether a TCP connection to 127.0.0.1:`port` is accepted now (it is closed at once): a
// server started elsewhere has opened its port.
bool LoopbackPortAccepts(int port);

}  // namespace cfx::common

#endif  // CFX_COMMON_FREE_PORT_H_
