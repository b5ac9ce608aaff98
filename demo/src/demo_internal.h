// The steps of `cfx demo` (demo.h) and what they hand to each other and to the report.
// One file per step: demo_data.cc, demo_trading.cc, demo_settle.cc, demo_risk.cc,
// demo_report.cc; demo.cc runs them in order; demo_venue.cc starts the exchange.
#ifndef CFX_GATEWAY_DEMO_INTERNAL_H_
#define CFX_GATEWAY_DEMO_INTERNAL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cfx/client/fix_client.h"
#include "cfx/client/http_client.h"
#include "cfx/common/config.h"
#include "cfx/common/date.h"
#include "cfx/common/units.h"
#include "cfx/demo/demo.h"

namespace cfx::demo {

// The demo is a client of the exchange: it speaks the gateway's order-entry vocabulary
// through cfx_client.
using namespace cfx::client;   // NOLINT(build/namespaces)
using namespace cfx::gateway;  // NOLINT(build/namespaces)

// Paths under the output directory.
struct DemoPaths {
  std::string out;         // <out>
  std::string inputs;      // <out>/inputs: observations.csv, throughput.csv
  std::string data;        // <out>/data: the exchange's data dir (fixes, journal, ledger)
  std::string statements;  // <out>/statements/<D>/<account>.json
  std::string clients;     // <out>/data/clients: the FIX clients' sequence stores
};

// Step a: the fixes used, per grade and trading day.
struct FixUsed {
  std::string grade;
  common::Date date;
  std::optional<int64_t> fix_e4;
  std::optional<int> level;
  std::optional<int64_t> price_per_mtok_e4;
  std::vector<std::string> flags;
};

struct DataResult {
  int64_t observations = 0;
  int64_t throughput_rows = 0;
  int64_t records = 0;         // published fix records (all grades, all days)
  std::vector<FixUsed> fixes;  // the product grades on the trading days
  // Previous business day's fix of each product grade (the band reference before any
  // settlement), × 10^4, by "<grade>/<YYYY-MM-DD of the trading day>".
  std::map<std::string, int64_t> prior_fix_e4;
};

absl::StatusOr<DataResult> BuildData(const common::ExchangeConfig& config,
                                     const std::vector<common::Date>& days, uint64_t seed,
                                     const DemoPaths& paths, std::ostream& log);

// The exchange as the demo drives it: in-process, loopback, ephemeral ports, manual clock.
class Venue {
 public:
  virtual ~Venue() = default;
  virtual int fix_port() const = 0;
  virtual int http_port() const = 0;
  // Sets the exchange clock (a sequenced input). Time never goes back.
  virtual absl::Status AdvanceTime(common::TimestampUs ts) = 0;
  virtual absl::Status PreOpenAll() = 0;
  virtual absl::Status OpenAll() = 0;   // pre_open -> open: opening auctions
  virtual absl::Status CloseAll() = 0;  // day orders expire, books closed
  // Called after settlement of `date`: the venue refreshes what margin depends on.
  virtual absl::Status AfterSettlement(common::Date date) = 0;
  virtual void Stop() = 0;
  // One line saying what runs (for the report).
  virtual std::string Describe() const = 0;
};

absl::StatusOr<std::unique_ptr<Venue>> StartVenue(const common::ExchangeConfig& config,
                                                  const DemoPaths& paths,
                                                  common::TimestampUs start);

// Step c. A firm the demo simulates and what it does.
struct FirmRole {
  std::string firm;
  std::string session;  // SenderCompID
  std::string role;     // "market maker", "taker", "throttled, disconnects", "drop copy"
  std::string params;   // e.g. "half-spread 3 ticks, size 8, inventory limit 60 per contract"
  std::vector<std::string> accounts;
};

// A contract traded on a day.
struct DayContract {
  std::string sym;
  int64_t band_ref = 0;  // ticks: the exchange's band reference (prior settlement, else fix)
  int64_t fair = 0;      // ticks: where the market makers centre their quotes (the day's fix)
};

struct TradingDay {
  common::Date date;
  int64_t orders = 0;  // NewOrderSingle sent (quotes included)
  int64_t quotes = 0;  // of which the market makers' quotes
  int64_t cancels = 0;
  int64_t trades = 0;
  int64_t volume = 0;
  int64_t throttled = 0;           // requests refused `throttled`
  int64_t disconnect_cancels = 0;  // orders canceled by cancel-on-disconnect
};

struct TradingResult {
  std::vector<FirmRole> firms;
  std::vector<TradingDay> by_day;
  int64_t orders = 0;                             // NewOrderSingle sent
  int64_t quotes = 0;                             // of which market makers' quotes
  int64_t cancels = 0;                            // OrderCancelRequest sent
  int64_t replaces = 0;                           // OrderCancelReplaceRequest sent
  int64_t deliberate_late_cancels = 0;            // cancels of orders known to have filled
  int64_t exec_reports = 0;                       // on the trading sessions
  int64_t fills = 0;                              // ExecutionReports with a fill, both sides
  int64_t trades = 0;                             // distinct trades (public trade prints)
  int64_t volume = 0;                             // contracts traded
  int64_t throttled = 0;
  int64_t disconnect_cancels = 0;
  std::map<std::string, int64_t> rejects;         // order rejects by reason (58)
  std::map<std::string, int64_t> cancel_rejects;  // OrderCancelReject by reason
  std::map<std::string, int64_t> cancels_by_reason;
  std::map<std::string, int64_t> orders_by_type;  // limit, market, stop, iceberg, ioc...
  std::map<std::string, int64_t> trades_by_symbol;
  std::map<std::string, int64_t> volume_by_symbol;
  int64_t closing_window_trades = 0;          // in [15:30Z, 16:00Z)
  int64_t alpha_exec_reports = 0;             // the drop-copy firm's trading session(s)
  int64_t drop_copies = 0;                    // ALPHA_DC, 797=Y
  int64_t md_snapshots = 0;                   // W on the subscribed session
  int64_t md_incrementals = 0;                // X
  std::map<std::string, int64_t> md_rejects;  // Y
  std::string md_symbol;
  std::vector<std::string> sessions;  // logged on
  // GET /v1/book/{md_symbol}?depth=10 just before the last day's close (HTTP body).
  std::string book_at_close;
  common::Date book_date;
};

// The simulated firms; they outlive the exchange's nightly restarts.
class TradingFloor {
 public:
  virtual ~TradingFloor() = default;
  // One business day on `venue` (just started): logons, pre-open, the opening auction,
  // continuous trading, the closing window, the close, logouts. `book_at_close` asks the
  // HTTP API for the market-data symbol's book just before the close.
  virtual absl::Status TradeDay(Venue& venue, common::Date day,
                                const std::vector<DayContract>& contracts,
                                bool book_at_close) = 0;
  virtual const TradingResult& result() const = 0;
};

absl::StatusOr<std::unique_ptr<TradingFloor>> NewTradingFloor(const common::ExchangeConfig& config,
                                                              const DemoPaths& paths,
                                                              uint64_t seed, int orders_per_day,
                                                              std::ostream& log);

// Step d.
struct SettledContract {
  std::string sym;
  common::PriceTicks settle;
  std::string tier;  // T1..T4
  std::optional<common::PriceTicks> prior_settle;
};

struct AccountSettlement {
  std::string account;
  common::MicroUsd vm;  // this day
  common::MicroUsd cash;
  common::MicroUsd collateral;  // configured
  common::MicroUsd margin;
  common::MicroUsd call;
  std::map<std::string, common::Qty> positions;  // sym -> qty at the end of the day
};

struct SettleDayResult {
  common::Date date;
  std::vector<SettledContract> contracts;  // the ones with trades or open interest first
  int64_t listed = 0;                      // every settled contract
  std::map<std::string, int64_t> tiers;    // "T1" -> count
  std::vector<AccountSettlement> accounts;
  common::MicroUsd vm_sum;  // Σ account VM: must be 0
  bool margin_available = false;
  std::string margin_source;  // what computed initial margin
  std::vector<std::string> statement_files;
  std::string surveillance_json;  // the batch's _surveillance.json
};

absl::StatusOr<SettleDayResult> SettleDay(const common::ExchangeConfig& config, common::Date date,
                                          const DemoPaths& paths, std::ostream& log);

// Step e.
struct MarginAnswer {
  std::string account;
  int http_status = 0;
  std::string margin;  // USD, 2 decimals
  std::string worst_scenario;
  int64_t positions = 0;
  std::string positions_json;  // the answer's `positions` array
  std::optional<common::MicroUsd> call_micro;  // from settlement, for the report
};

struct RiskResult {
  std::vector<MarginAnswer> accounts;
  int whatif_status = 0;
  std::string whatif_body_margin;
  std::string whatif_portfolio;  // what was asked
  int cross_firm_status = 0;     // ALPHA's token on BETA's account: 403
  int no_token_status = 0;       // 401
  // What the desk reads of the benchmark: GET /v1/reference/{grade}?from=&to= per product
  // grade over the month before and the traded days (the body's `fixes`), and the
  // explanation of one fix (GET /v1/reference/{grade}/{date}/explain).
  std::string reference_from;
  std::map<std::string, std::string> reference_json;  // grade -> `fixes` array
  std::string explain_grade;
  std::string explain_date;
  std::string explain_json;
  std::string contracts_json;  // GET /v1/contracts: the security master's `contracts`
};

absl::StatusOr<RiskResult> RunRiskDesk(const common::ExchangeConfig& config, Venue& venue,
                                       const SettleDayResult& last_day,
                                       const std::vector<common::Date>& days, std::ostream& log);

// Step f.
struct DemoRun {
  DemoOptions options;
  std::vector<common::Date> days;
  std::string venue;
  DataResult data;
  TradingResult trading;
  std::vector<SettleDayResult> settlement;
  RiskResult risk;
  double seconds = 0;
};

// Prints the summary and writes <out>/report.md and <out>/report.json.
absl::Status WriteReport(const DemoRun& run, const DemoPaths& paths, std::ostream& out);

// "1234.56" for micro-USD (rounded half to even to cents), "-0.50" etc.
std::string UsdFromMicro(common::MicroUsd amount);
// "5.4000" for × 10^4 values.
std::string E4(int64_t e4);

}  // namespace cfx::demo

#endif  // CFX_GATEWAY_DEMO_INTERNAL_H_
