// The data behind the HTTP API (SPEC §7): narrow provider interfaces that the
// integrator (`cfx serve`) implements over the engine, valuation and reference modules,
// and that tests implement in memory (http_memory_providers.h). The HTTP layer owns the
// JSON rendering; providers return plain structs. `cfx serve`'s implementation is
// CoreHttpProviders (gateway/server/include/cfx/gateway/core_http_providers.h).
//
//   cfx::gateway::CoreHttpProviders core(&exchange_core, config, data_dir);  // gateway/server
//   cfx::gateway::HttpProviders providers = core.Providers();
//   providers.book = nullptr;  // a null provider answers 503 on its endpoints
//
// Common contract of every provider:
//  - Thread safety: called concurrently from the HTTP server's I/O threads (2 by default),
//    so implementations MUST be thread-safe. A call blocks one I/O thread while it runs;
//    keep calls short (a margin run of milliseconds is fine, seconds are not).
//  - Access control is done before the call: a provider is asked only about accounts the
//    caller's token may see. Providers MUST NOT add other accounts' data to an answer.
//  - Errors: NotFound -> 404, InvalidArgument -> 400 (the message is shown to the caller,
//    so it must name nothing private), Unavailable/FailedPrecondition -> 503, anything
//    else -> 500 with a generic message (the status text is not shown).
//  - Decimal values are strings already formatted by the provider ("5.400"), so that no
//    double reaches a price or an amount; money is int64 micro-USD.
#ifndef CFX_GATEWAY_HTTP_PROVIDERS_H_
#define CFX_GATEWAY_HTTP_PROVIDERS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/security_master/format.h"

namespace cfx::gateway {

// --- Margin (SPEC §10) ---------------------------------------------------------------

enum class MarginMethod { kSpan16, kMc };
// "span16" / "mc".
const char* MarginMethodName(MarginMethod method);

// The parameters of one scenario. Moves are fractions (-0.10 = -10%), as in SPEC §10;
// they are model parameters, not prices, hence double.
struct ScenarioParams {
  int number = 1;     // 1-based: 1..16 for span16, 1..N for mc
  std::string label;  // the scenario file's label, else the number as text
  double weight = 1.0;
  double price_move = 0.0;                             // a_s
  std::array<double, common::kNumTiers> tput_moves{};  // b_{s,tier}, indexed by cfx::Tier
  // TSR is per GPU and tier (SPEC §10): b_{s,gpu,tier} for every GPU the answer valued, by
  // GPU name; `tput_moves` is the first one's. Empty (and `tput_moves` left out of the
  // JSON) when nothing was valued: an account with no position.
  std::vector<std::pair<std::string, std::array<double, common::kNumTiers>>> tput_moves_by_gpu;
};

// One position of a margin answer.
struct MarginPositionLine {
  std::string sym;
  int64_t qty = 0;
  std::string settle;                         // latest settlement price, "5.400"
  std::optional<std::string> theta;           // grade throughput; nullopt when unknown
  std::optional<std::string> price_per_mtok;  // USD per 1M output tokens; nullopt when unknown
  int64_t worst_loss_micro_usd = 0;           // this line's loss in the worst scenario (+ = loss)
};

struct MarginResult {
  int64_t margin_micro_usd = 0;   // max(0, max_s L(s)); rendered in USD, 2 decimals
  ScenarioParams worst_scenario;  // an empty account: scenario 1
  int scenario_count = 0;         // 16 for span16, N for mc
  std::vector<MarginPositionLine> positions;
  std::string backend;  // what valued it: "cpu" or "cuda" (docs/valuation.md)
};

struct WhatIfPosition {
  std::string sym;  // a contract symbol, already checked by ParseSymbol
  int64_t qty = 0;  // signed; duplicates are passed as given (the provider sums them)
};

class MarginProvider {
 public:
  virtual ~MarginProvider() = default;
  // Margin of `account` (known in the config) under `method`. An account with no position
  // is margin 0 (not an error).
  virtual absl::StatusOr<MarginResult> AccountMargin(const std::string& account,
                                                     MarginMethod method) = 0;
  // Margin of a hypothetical portfolio; touches no account. InvalidArgument for an unknown
  // or unpriced symbol (symbols are public, so the message may name it).
  virtual absl::StatusOr<MarginResult> WhatIf(const std::vector<WhatIfPosition>& positions,
                                              MarginMethod method) = 0;
};

// --- Positions -------------------------------------------------------------------------

struct PositionLine {
  std::string sym;
  int64_t qty = 0;                        // signed net position
  std::optional<std::string> avg_price;   // average open price, when known
  std::optional<std::string> last_price;  // last trade price of the contract
  std::optional<std::string> settle;      // latest settlement price
  int64_t open_buy_qty = 0;               // resting buy quantity
  int64_t open_sell_qty = 0;              // resting sell quantity
  std::optional<int64_t> vm_micro_usd;    // variation margin posted so far
};

class PositionProvider {
 public:
  virtual ~PositionProvider() = default;
  // Positions of `account` (known in the config), sorted by sym. Empty when none.
  virtual absl::StatusOr<std::vector<PositionLine>> Positions(const std::string& account) = 0;
};

// --- Order book (public market data) ----------------------------------------------------

// One level as the JSON book shows it (FIX market data has its own BookLevel, in ticks).
struct HttpBookLevel {
  std::string price;  // "5.250"
  int64_t qty = 0;    // total displayed quantity
  int64_t count = 0;  // number of orders
};

struct LastTrade {
  std::string price;
  int64_t qty = 0;
  std::string ts;  // ISO 8601 UTC, empty when unknown
};

struct BookSnapshot {
  std::string sym;
  std::string state;            // pre_open | open | halted | closed
  uint64_t seq = 0;             // engine sequence number the snapshot reflects
  std::vector<HttpBookLevel> bids;  // best first
  std::vector<HttpBookLevel> asks;  // best first
  std::optional<LastTrade> last_trade;
};

class BookProvider {
 public:
  virtual ~BookProvider() = default;
  // The latest *published* snapshot of `sym`, at most `depth` levels a side. MUST be served
  // from a published copy (seqlock / double buffer, SPEC §2): never a lock the matcher
  // thread waits on, never a message to the matcher that waits for an answer.
  // NotFound for a symbol that is not listed.
  virtual absl::StatusOr<BookSnapshot> Book(const std::string& sym, int depth) = 0;
};

// --- Reference rates (SPEC §8, §12) -----------------------------------------------------

struct FixRecord {
  std::string grade;               // "B200-GOLD-US"
  std::string date;                // "2027-03-01"
  std::optional<std::string> fix;  // 4 decimals; nullopt: no fix (insufficient_data)
  std::optional<int> level;        // 1, 2, 3; nullopt with no fix
  std::optional<std::string> p25;
  std::optional<std::string> p75;
  int64_t n_obs = 0;
  int64_t n_dropped = 0;
  int64_t n_providers = 0;
  std::string volume = "0";  // sum of raw gpu_hours used, decimal string
  std::optional<std::string> theta;
  std::optional<std::string> price_per_mtok;
  std::vector<std::string> flags;  // stale, no_throughput, insufficient_data
  std::string methodology;         // the methodology version, e.g. "cfx-ref-2"
  std::optional<std::string> inputs_sha256;  // SHA-256 hex of the inputs; nullopt: not recorded
  int revision = 0;                // 0: first publication (Revisions() fills these two)
  std::string reason;              // why a revision was published; empty for revision 0
};

class ReferenceProvider {
 public:
  virtual ~ReferenceProvider() = default;
  // Published fixes of `grade` for dates in [from, to] (from <= to, checked by the
  // caller), ascending by date. Empty when none are published. NotFound only if the grade
  // is unknown to the exchange.
  virtual absl::StatusOr<std::vector<FixRecord>> Fixes(const common::Grade& grade,
                                                       common::Date from, common::Date to) = 0;
  // Every stored revision (the earlier records kept beside the latest) for dates in
  // [from, to], by date then revision, with `revision` and `reason` set. Errors as Fixes.
  virtual absl::StatusOr<std::vector<FixRecord>> Revisions(const common::Grade& grade,
                                                           common::Date from,
                                                           common::Date to) = 0;
  // The stored explanation of the latest revision of (grade, date): one JSON object
  // (docs/methodology.md, "Audit trail"). NotFound when the grade is unknown, the date was
  // never published, or it was published before explanations were stored.
  virtual absl::StatusOr<std::string> Explain(const common::Grade& grade, common::Date date) = 0;
};

// --- Security master (SPEC §3, §7) ----------------------------------------------------------

class ContractProvider {
 public:
  virtual ~ContractProvider() = default;
  // Every contract of the security master, expired ones included, sorted by symbol.
  virtual absl::StatusOr<std::vector<security_master::Contract>> Contracts() = 0;
  // One contract with its history. NotFound when it was never listed.
  virtual absl::StatusOr<security_master::ContractRecord> FindContract(
      const std::string& sym) = 0;
};

// --- Metrics ------------------------------------------------------------------------------

// One Prometheus gauge sample. `name` must match [a-zA-Z_:][a-zA-Z0-9_:]* (others are
// skipped); samples with the same name share one HELP/TYPE header.
struct GaugeSample {
  std::string name;  // e.g. "cfx_engine_ring_depth"
  std::string help;
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
  // A count that only goes up (trades, journal batches): TYPE counter, not gauge.
  bool counter = false;
};

class MetricsProvider {
 public:
  virtual ~MetricsProvider() = default;
  // Gauges added to GET /metrics. /metrics is served without authentication, so these
  // MUST NOT carry per-firm or per-account data (no account or firm labels).
  virtual std::vector<GaugeSample> Gauges() = 0;
};

// --- Audit --------------------------------------------------------------------------------

// A page of the audit log (docs/audit.md), for GET /v1/audit.
struct AuditEvents {
  std::vector<std::string> events;  // each one JSON object, ascending seq
  uint64_t next_after = 0;          // the last seq in `events` (`after` when empty)
  bool more = false;                // there are events after these
};

class AuditProvider {
 public:
  virtual ~AuditProvider() = default;
  // Up to `limit` events with seq > `after` (the API bounds `limit`).
  virtual absl::StatusOr<AuditEvents> Events(uint64_t after, size_t limit) = 0;
  // Every 401 and 403 the API answers, and every 429 of a peer's back-off after a wrong
  // token (the token is not looked at then): the route template (EndpointLabel,
  // "unmatched" when none), the client's IP address and the credential presented (the
  // Authorization value after its scheme, "" when none). An implementation records a fingerprint of the
  // credential, never the credential. Called on the I/O threads: quick and thread-safe.
  virtual void Refused(int status, const std::string& route, const std::string& peer,
                       const std::string& credential) = 0;
};

// The providers an HttpServer serves from. Non-owning: each must outlive the server.
// A null provider makes its endpoints answer 503 `unavailable`.
struct HttpProviders {
  MarginProvider* margin = nullptr;
  PositionProvider* positions = nullptr;
  BookProvider* book = nullptr;
  ReferenceProvider* reference = nullptr;
  MetricsProvider* metrics = nullptr;
  AuditProvider* audit = nullptr;  // GET /v1/audit (risk desk); 401/403 are recorded in it
  ContractProvider* contracts = nullptr;  // GET /v1/contracts, /v1/contracts/{sym}
};

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_HTTP_PROVIDERS_H_
