// `cfx bench fix`: NewOrderSingle -> ExecutionReport round trips over real FIX sessions on
// loopback, against the gateway (with the fake exchange for now) or, with `echo`, against a
// bare QuickFIX acceptor that answers each order with one ExecutionReport and nothing else.
// C++14-clean so the C++20 app can call the C++14 QuickFIX code.
#ifndef CFX_GATEWAY_FIX_BENCH_H_
#define CFX_GATEWAY_FIX_BENCH_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"

namespace cfx {
namespace perf {

struct FixBenchOptions {
  int sessions = 4;
  int64_t orders = 10000;  // per phase, spread over the sessions
  bool echo = false;
  int window = 64;          // orders in flight per session in the pipelined phase
  // true: sides alternate at one price, so every second order trades (an ack plus a fill
  // to each side: about 2 ExecutionReports an order); false: buys at 4.900 and sells at
  // 5.100 rest, one ExecutionReport an order, as the echo acceptor sends.
  bool cross = true;
  std::string data_dir;     // empty: a fresh directory under /tmp
  int port = 0;             // 0: pick a free loopback port
  // Connect to a server already listening on `port` (the real exchange, started by the
  // caller) instead of starting the fake exchange or the echo acceptor. The server must
  // accept sessions BENCH_0..BENCH_<n-1> (firm BENCH, account BENCH-1) and list
  // B200-GOLD-US-202703 with 5.000 inside the band.
  bool external = false;
  // Called after each phase ("one_at_a_time", then "pipelined") on the bench's thread,
  // before the next begins: the caller reads its server's counters per phase.
  std::function<void(const char* phase)> after_phase;
  // With `echo`: called on the connection's thread before each order is echoed (the
  // durable echo, `cfx bench fix`'s yardstick: a flush of the disk before the answer).
  std::function<void()> before_echo;
};

struct FixBenchPhase {
  int64_t orders = 0;
  double seconds = 0;
  double orders_per_sec = 0;
  double p50_us = 0, p99_us = 0, p999_us = 0;
};

struct FixBenchResult {
  FixBenchPhase one_at_a_time;  // each session waits for its report before the next order
  FixBenchPhase pipelined;      // `window` orders in flight per session
};

// Runs both phases. Returns Unavailable if sessions cannot be set up.
absl::Status RunFixBench(const FixBenchOptions& options, FixBenchResult* result);

}  // namespace perf
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_BENCH_H_
