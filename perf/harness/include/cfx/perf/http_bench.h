// `cfx bench http`: concurrent keep-alive clients on loopback against an HttpServer over
// in-memory providers (a book, a margin result, positions and five fixes of one account);
// with `endpoint` margin, the margin is computed per request by the valuation engine;
// requests per second and latency percentiles (docs/performance.md).
//
//   HttpBenchOptions options;  // 16 clients x 2000 requests, the mixed read paths
//   absl::StatusOr<HttpBenchResult> result = RunHttpBench(config, options);
//   if (result.ok()) PrintHttpBench(*result, std::cout);  // the last line is JSON
#ifndef CFX_PERF_HTTP_BENCH_H_
#define CFX_PERF_HTTP_BENCH_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "cfx/common/config.h"

namespace cfx::perf {

struct HttpBenchOptions {
  int clients = 16;                // concurrent keep-alive connections
  int requests = 2000;             // per client
  int threads = 2;                 // server I/O threads
  std::string endpoint = "mixed";  // mixed, book, margin, positions or healthz
};

struct HttpBenchResult {
  HttpBenchOptions options;
  // "valuation" (endpoint margin: a real span16/mc MarginEngine answers every request, as
  // `cfx serve` does) or "memory" (a canned answer, for the other endpoints).
  std::string margin_provider;
  uint64_t ok = 0;     // requests answered 200
  int64_t errors = 0;  // other answers, failed requests, and those of clients that failed
  double seconds = 0;  // from the start signal until the last client finished
  double requests_per_sec = 0;
  double p50_us = 0, p99_us = 0, max_us = 0;  // of the 200 answers
};

// Serves `config`'s HTTP API (its listen address and port are replaced by 127.0.0.1 and a
// free port; rate limiting is off) and runs the clients. Returns the server's error when it
// cannot start; request errors are counted, not returned.
absl::StatusOr<HttpBenchResult> RunHttpBench(common::ExchangeConfig config,
                                             const HttpBenchOptions& options);

// Writes the report: a summary, then one JSON object.
void PrintHttpBench(const HttpBenchResult& result, std::ostream& out);

}  // namespace cfx::perf

#endif  // CFX_PERF_HTTP_BENCH_H_
