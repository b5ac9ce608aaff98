// The whole exchange in one object (`cfx serve`, `cfx demo`, tests): the exchange core
// (engine + journal + trade recorder), the FIX gateway bound to it, and the HTTP API over
// real data, all from one ExchangeConfig.
//
//   ExchangeServerOptions opt;
//   opt.fix_port = 0; opt.http_port = 0;        // ephemeral ports (tests, demo)
//   opt.manual_clock = true;                    // time moves only by core().AdvanceTime
//   ExchangeServer server(config, opt);
//   if (absl::Status s = server.Start(); !s.ok()) return s;
//   connect FIX to server.fix_port(), HTTP to server.http_port()
//   absl::Status s = server.Stop();             // FIX logout (COD), HTTP drain, core drain+sync
//
// Start order: core (recovery) -> margin basis and pre-trade margins -> FIX -> HTTP. Stop
// order is the reverse, so nothing new arrives while the core drains.
#ifndef CFX_GATEWAY_EXCHANGE_SERVER_H_
#define CFX_GATEWAY_EXCHANGE_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "cfx/common/config.h"
#include "cfx/engine/types.h"
#include "cfx/exchange/exchange_core.h"

namespace cfx::gateway {

// What Start does with the data dir (docs/serve.md, "Data dir"). In every mode a data dir
// that another user owns or that its group or others may write is refused.
enum class DataDirMode {
  kCreate,     // made (0700) when missing; a dir without a journal starts a fresh exchange
  kOpenOrNew,  // `cfx serve`: opens the journal it holds; missing or without one, a new
               // exchange (made 0700); an empty (0-byte) journal file is refused
  kExisting,   // must hold a journal (`cfx serve --existing`): a missing or empty one is refused
  kNew,        // must not hold a journal (`cfx serve --init`); made when missing
};
// kCreate, kOpenOrNew and kNew also refuse a dir without a journal that holds a trade store
// or a settlement ledger: another run's (a `cfx replay --data-dir`, a journal removed).

// How the server takes part in replication (docs/replication.md; needs [replication]).
enum class ServeRole {
  kAlone,    // no replication: the exchange is this process and its journal
  kPrimary,  // takes the lease at start (waiting up to 3 TTLs for a lapsed one) and leads
  kStandby,  // follows the primary through JetStream; takes over when the lease lapses
};

struct ExchangeServerOptions {
  std::string data_dir;       // empty: config.data_dir ("./cfx-data" by default)
  DataDirMode data_dir_mode = DataDirMode::kCreate;
  std::string config_path;    // the config's file, named in the audit log's config_load
  int fix_port = -1;          // -1: config.fix_port; 0: an ephemeral loopback port
  int http_port = -1;         // -1: config.http_port; 0: ephemeral
  bool manual_clock = false;  // else a wall clock ticks every second
  engine::Timestamp start_time = engine::kNoTime;  // manual clock: time at a fresh start
  bool pre_trade_risk = true;    // per-contract span16 margins set at start (SPEC §4)
  bool unsafe_no_sync = false;   // benchmarks only: journal commits not fsynced
  bool commit_log = true;        // false: benchmarks' A/B only (ExchangeOptions::commit_log)
  bool publisher_thread = false;  // benchmarks only: ExchangeOptions::publisher_thread
  bool matcher_thread_only = false;  // benchmarks only: ExchangeOptions::matcher_thread_only
  bool trace_stages = false;      // benchmarks only: ExchangeOptions::trace_stages
  bool quickfix_file_store = false;  // benchmarks only: FixGatewayConfig::quickfix_file_store
  bool fix_message_log = false;  // QuickFIX message log under <data_dir>/fix (debugging)
  ServeRole role = ServeRole::kAlone;
};

// Thread safety: Start and Stop from one controlling thread; the accessors from any
// thread after Start returned OK.
class ExchangeServer {
 public:
  ExchangeServer(common::ExchangeConfig config, ExchangeServerOptions options = {});
  ~ExchangeServer();  // Stop()s
  ExchangeServer(const ExchangeServer&) = delete;
  ExchangeServer& operator=(const ExchangeServer&) = delete;

  // Recovers the core from the data dir and starts FIX and HTTP. On error everything
  // started so far is stopped again; the error names the part that failed. A standby
  // starts HTTP only (read-only: market data, positions, metrics) and returns; when it takes
  // the lease it promotes the core and opens the FIX port (leading() turns true).
  absl::Status Start();
  // Stops accepting (FIX logout with cancel-on-disconnect, HTTP stop), drains the core and
  // syncs the journal. Returns the core's journal error, if any. Idempotent.
  absl::Status Stop();

  // Replicated roles: whether this node leads now; whether it lost the lease (or was fenced)
  // and must stop: a deposed node never sequences again (restart it as a standby).
  bool leading() const;
  bool deposed() const;
  // Waits until leading() or deposed() or timeout_ms; returns leading().
  bool WaitLeading(int64_t timeout_ms) const;

  int fix_port() const;  // the bound ports (after Start; FIX: after leading)
  int http_port() const;
  const std::string& data_dir() const;
  exchange::ExchangeCore& core();  // REQUIRES: after Start
  // What Start recovered (fresh start, replayed inputs, state hash...).
  const exchange::RecoveryInfo& recovery() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_EXCHANGE_SERVER_H_
