// The exchange core: the matching engine behind the durable journal, with the post-trade
// stores (trades, closes, positions, open orders) and published read-only views. This is
// the API that `cfx serve` (FIX, HTTP), `cfx demo` and the tests use.
//
//   ExchangeOptions opt;
//   opt.data_dir = "/var/cfx";
//   ExchangeCore core(config, opt);
//   core.AddListener(&gateway_adapter);                 // before Start
//   absl::StatusOr<RecoveryInfo> r = core.Start();      // recovers, lists products, runs
//   if (!r.ok()) return r.status();                     // e.g. DataLoss "journal record 812"
//   core.Submit(engine::NewOrderCmd{...}, /*tag=*/42);  // any thread; kFull: caller decides
//   ...                                                  // listener: outcomes once durable
//   absl::Status s = core.Stop();                       // drains, syncs, joins
//
// Pipeline (docs/architecture.md): producers -> MPSC ring -> journaler (group commit, fsync)
// -> matcher (engine + pre-trade risk + closing quotes) -> publisher (trade recorder,
// published state, listeners). No mutex on the order path.
//
// Thread safety: Submit, AdvanceTime, OpenAll, PreOpenAll, CloseAll, RefreshMargins and every
// const query may be called from any thread concurrently once Start returned OK. Start and
// Stop from one controlling thread. AddListener only before Start. Listener callbacks run on
// one thread, "the publisher thread" below (the matcher's own, at the end of each burst, or
// with ExchangeOptions::publisher_thread one of its own), in sequence order, only for
// durable inputs; they must not wait for the core (no Submit retried until it fits, no Stop).
#ifndef CFX_EXCHANGE_EXCHANGE_CORE_H_
#define CFX_EXCHANGE_EXCHANGE_CORE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cfx/common/config.h"
#include "cfx/engine/command.h"
#include "cfx/engine/types.h"
#include "cfx/exchange/fix_session_table.h"
#include "cfx/exchange/outcome.h"
#include "cfx/journal/pipeline.h"
#include "cfx/security_master/format.h"

namespace cfx::exchange {

using OfferResult = journal::OfferResult;  // kAccepted, kFull, kStopped

enum class ClockMode {
  kWall,    // a timer thread submits TimeCmd{now} every `wall_tick_ms`
  kManual,  // time moves only through AdvanceTime (tests, demo, replay-like runs)
};

// How many ended orders status requests can still answer (docs/fix.md, "Order status").
inline constexpr size_t kDefaultEndedOrdersKept = 100000;

struct ExchangeOptions {
  std::string data_dir;         // empty: config.data_dir
  bool journal = true;          // false: in memory only (no durability, no trade store)
  bool record_trades = true;    // trade store <data_dir>/trades (needs the journal)
  bool unsafe_no_sync = false;  // benchmarks: commits not synced (process-crash safe only)
  // The journal's commit log (docs/durability.md, "The commit log"): an input is durable after
  // one small write and flush; LMDB gets it in the background. false: benchmarks' A/B only.
  bool commit_log = true;
  // Outcomes delivered to the listeners by a publisher thread of their own instead of the
  // matcher's (journal::PipelineOptions::publish_on_matcher off): benchmarks' A/B only.
  bool publisher_thread = false;
  // Only the matcher thread matches, never the sequencer for a small batch while the matcher
  // is idle (journal::PipelineOptions::sequencer_matches_up_to 0): benchmarks' A/B only.
  bool matcher_thread_only = false;
  // Each input's time through the order path's stages, in Stats().stages (the FIX bench's
  // breakdown; journal/include/cfx/journal/stage_latency.h). A few clock reads per input.
  bool trace_stages = false;
  int64_t snapshot_every = -1;  // inputs between engine snapshots; -1: config value; 0: none
  ClockMode clock = ClockMode::kWall;
  // Manual clock: the exchange time at a fresh start (ns since the epoch); also the month
  // the listing starts from. kNoTime: the wall clock's now.
  engine::Timestamp start_time = engine::kNoTime;
  int64_t wall_tick_ms = 1000;
  bool pre_trade_risk = true;      // SPEC §4 margin check (active once margins are set)
  size_t ring_capacity = 1 << 16;  // each pipeline ring (power of two)
  size_t max_batch = 8192;         // most inputs in one group commit
  size_t ended_orders_kept = kDefaultEndedOrdersKept;  // for FindOrder after an order ends
  // A hot standby's replicated log (docs/replication.md; needs the journal; not owned).
  // With one the core starts as a standby: it applies the primary's inputs from the log,
  // publishes the same views and outcomes, refuses Submit (kNotLeader), and lists nothing
  // until Promote.
  journal::ReplicationLog* replication = nullptr;
};

struct RecoveryInfo {
  bool fresh = true;  // the journal was empty: products were listed now
  uint64_t next_seq = 1;
  uint64_t snapshot_seq = 0;        // 0: no snapshot used
  uint64_t replayed = 0;            // journal records applied after the snapshot
  // Acknowledged inputs a previous run left in the journal's commit log only (docs/
  // durability.md, "The commit log"), put into LMDB at this start.
  uint64_t from_commit_log = 0;
  // Where the commit log's last entry was found cut short or damaged, in bytes (0: none):
  // an append a crash interrupted, never acknowledged, so not applied (Journal::
  // CommitLogTornAt).
  uint64_t commit_log_torn_at = 0;
  // Not empty: the snapshot store could not be read (why), so the whole journal was
  // replayed (journal::RecoveryResult::snapshots_unreadable).
  std::string snapshots_unreadable;
  // Snapshots whose record failed its check, passed over for an older one (or for a replay
  // from record 1): the start is slower, not wrong (journal::RecoveryResult).
  int skipped_snapshots = 0;
  // Snapshots the matcher refused to restore (their checksum good: a binary rolled back past
  // their format), passed over the same way, and the first one's error.
  int unrestorable_snapshots = 0;
  std::string snapshot_restore_error;
  uint64_t recorder_replayed = 0;   // inputs re-derived into the trade store (crash recovery)
  uint64_t recorder_start_seq = 0;  // the journal record that re-derivation read from
  uint64_t state_hash = 0;          // engine StateHash() after recovery
  std::vector<std::string> listed;  // symbols listed at this start (new months included)
};

// Receives outcomes. Thread safety: called on the publisher thread only (the matcher's by
// default), in seq order.
class OutcomeListener {
 public:
  virtual ~OutcomeListener() = default;
  // Every outcome of the input `seq`, after the input is durable. `tag` is Submit's (0 for
  // inputs a standby applies from the replicated log).
  virtual void OnOutcome(uint64_t seq, uint64_t tag, const Outcome& outcome) = 0;
  // After the input's last outcome (also for inputs without outcomes). `time_us`: the
  // exchange time the input took effect at, which its outcomes carry (SPEC §5: its
  // sequencing stamp; under a manual clock the latest time input's); 0 before any time.
  virtual void OnAck(uint64_t seq, uint64_t tag, int64_t time_us) {}
  // The journal failed: the exchange stopped accepting (Submit returns kStopped).
  virtual void OnJournalError(const absl::Status& status) {}
  // Every outcome waiting has been delivered (once per burst): send what was held back to
  // be sent in batches.
  virtual void OnIdle() {}
};

// What ExchangeCore::ReplayOutcomes hands over, input by input, in seq order.
class TailVisitor {
 public:
  virtual ~TailVisitor() = default;
  virtual void OnInput(uint64_t seq, const engine::Command& command) {}
  // Every outcome of the input `seq`, as the running core published it.
  virtual void OnOutcome(uint64_t seq, const Outcome& outcome) = 0;
  // After the input's last outcome; `time_us` as OutcomeListener::OnAck's. An error stops
  // the replay.
  virtual absl::Status OnInputEnd(uint64_t seq, int64_t time_us) { return absl::OkStatus(); }
};

struct BookLevelView {
  engine::PriceTicks px{0};
  engine::Qty qty{0};   // total displayed quantity
  uint32_t count = 0;   // orders
};

// A published copy of one book's top levels (never the matcher's live book).
struct BookView {
  std::string sym;
  engine::TradingState state = engine::TradingState::kOpen;
  uint64_t seq = 0;                 // the input seq the copy reflects
  engine::Timestamp ts = engine::kNoTime;  // that input's exchange time (SPEC §5)
  std::vector<BookLevelView> bids;  // best first
  std::vector<BookLevelView> asks;  // best first
  bool has_last_trade = false;
  engine::PriceTicks last_px{0};
  engine::Qty last_qty{0};
  engine::Timestamp last_ts = engine::kNoTime;
};

// Most levels a side a published snapshot holds.
inline constexpr int kMaxPublishedDepth = 10;

struct PositionView {
  std::string sym;
  engine::Qty qty{0};     // signed: long > 0
  engine::Qty bought{0};  // traded quantities since the journal began
  engine::Qty sold{0};
  engine::Qty open_buy_qty{0};  // resting/pending buy leaves
  engine::Qty open_sell_qty{0};
};

// A live order as last published (FIX OrderStatusRequest, tests).
struct OrderStateView {
  uint64_t oid = 0;
  std::string acct;
  std::string cl;
  std::string sym;
  engine::Side side = engine::Side::kBuy;
  engine::OrderStatus status = engine::OrderStatus::kNew;
  OrderDetail detail;
  engine::Qty cum{0};
  engine::Qty leaves{0};
  int64_t notional = 0;
  bool expired = false;  // status canceled because the order expired (GTD, day end)
};

struct ExchangeStats {
  uint64_t inputs = 0;    // journaled inputs since Start
  uint64_t outcomes = 0;  // delivered outcomes since Start
  uint64_t trades = 0;    // trade outcomes since Start
  uint64_t acks = 0;
  uint64_t next_seq = 0;  // the seq after the last published input
  uint64_t batches = 0;   // group commits
  uint64_t max_batch = 0;
  std::array<uint64_t, 24> batch_size_log2{};  // [k]: batches of size in [2^k, 2^(k+1))
  uint64_t snapshots_written = 0;
  uint64_t snapshots_dropped = 0;
  uint64_t matched_on_sequencer = 0;  // batches the sequencer matched itself (a trickle)
  uint64_t offers_full = 0;       // Submit answered kFull
  uint64_t recorder_batches = 0;  // trade-store transactions
  uint64_t followed = 0;          // inputs applied from the replicated log as a standby
  bool leading = true;            // false while a standby
  uint64_t state_seq = 0;         // the latest state hash (at a snapshot seq), 0: none yet
  uint64_t state_hash = 0;
  uint64_t state_checks = 0;       // a standby's hashes found equal to the primary's
  uint64_t state_checked_seq = 0;  // the latest seq at which they were
  journal::StageLatencies stages;   // with ExchangeOptions::trace_stages; empty otherwise
};

class ExchangeCore {
 public:
  // `config` is copied. Nothing runs before Start.
  ExchangeCore(const common::ExchangeConfig& config, const ExchangeOptions& options);
  ~ExchangeCore();  // Stop()s
  ExchangeCore(const ExchangeCore&) = delete;
  ExchangeCore& operator=(const ExchangeCore&) = delete;

  // Opens (or creates) the journal and trade store under the data dir, recovers the engine
  // (snapshot + journal tail), re-derives trade-store rows the crash lost, then starts the
  // threads and lists what is missing: the 12 monthly contracts from the current month for
  // each configured product, after a TimeCmd with the clock's time; returns once those are
  // applied (ListedSymbols() is complete). While running, each clock tick (or AdvanceTime)
  // that enters a new month lists that month's 12th contract, so a year of months stays
  // listed without a restart. Errors: the data
  // dir is unusable, or DataLoss naming the first corrupt journal record (nothing started).
  absl::StatusOr<RecoveryInfo> Start();
  // A standby (ExchangeOptions::replication) reads the log to its end and becomes the
  // primary: it then takes Submit, runs the clock and lists the months due, like Start.
  // The caller holds the leadership lease. Errors: the log failed, no progress in reading
  // it for timeout_ms (DeadlineExceeded: however far behind, a standby that keeps reading
  // goes on), or `abandon` set (Cancelled; a stop).
  absl::Status Promote(int64_t timeout_ms = 30000, const std::atomic<bool>* abandon = nullptr);
  bool leading() const;
  // With ExchangeOptions::replication: the FIX gateway then sequences `fix_session` inputs.
  bool replicated() const;
  // Where each FIX session stands, from the `fix_session` inputs applied so far (after
  // Promote: every input of the old primary). Any thread.
  std::vector<FixSessionSeqs> FixSessions() const;
  // The last input a replicated primary recorded its reports as sent through
  // (FixSessionTable::ReportsSentMark); 0: none. Any thread.
  uint64_t ReportsSentThrough() const;
  // Computes again the outcomes of the journal's inputs through `through`, on a shadow
  // matcher restored from the newest valid snapshot at or before `after` (record 1 when none
  // is kept), and hands every input it applies to `visitor`: those after `after` are the
  // ones asked for (the caller skips the others). Nothing in the running core changes; the
  // outcomes are those the core published (the engine is deterministic). Any thread, after
  // Start; `through` at most the last published seq. FailedPrecondition without a journal,
  // DataLoss naming a corrupt record.
  absl::Status ReplayOutcomes(uint64_t after, uint64_t through, TailVisitor* visitor) const;
  // Stops accepting, drains every accepted input through journal, engine and publisher,
  // syncs and joins. Returns the journal error if one stopped the exchange. Idempotent.
  absl::Status Stop();

  // Hands one command to the sequencer. Never blocks: kFull when the input ring is full
  // (the caller retries, or rejects `throttled`), kStopped before Start / after Stop.
  OfferResult Submit(const engine::Command& command, uint64_t tag);
  // Manual clock: submits TimeCmd{ts} (ignored by the engine if earlier than the last);
  // once accepted, lists the months `ts` brings into the 12-month window (Start).
  OfferResult AdvanceTime(engine::Timestamp ts, uint64_t tag = 0);
  // Session helpers over every listed symbol (each one sequenced command per symbol):
  // pre_open; open (an opening auction when pre_open); close (day orders expire).
  // Unavailable if a command could not be offered (full after retries, or stopped).
  absl::Status PreOpenAll();
  absl::Status OpenAll();
  absl::Status CloseAll();
  // Pre-trade margins: initial margin per contract (micro-USD, one lot), e.g. from
  // gpu_valuation::MarginEngine::PerContractInitialMargin after a settlement. Sent as a
  // sequenced ProductCmd per symbol so that replay takes the same decisions.
  // `band_ref_by_sym`, when it names a symbol, also moves its price-band reference
  // (SPEC §3: the prior settlement, else the grade's latest fix; the config's `ref` only
  // until either exists).
  absl::Status RefreshMargins(
      const std::map<std::string, engine::MicroUsd>& margin_by_sym,
      const std::map<std::string, engine::PriceTicks>& band_ref_by_sym = {});
  // Waits until every input Submit accepted before this call is published (or `timeout_ms`
  // passes: DeadlineExceeded; stopped: Unavailable).
  absl::Status Flush(int64_t timeout_ms = 10000) const;

  // REQUIRES: before Start. Not owned; must outlive the core.
  void AddListener(OutcomeListener* listener);

  // --- Published views (any thread; never a lock the matcher waits on) -----------------
  std::optional<BookView> BookSnapshot(std::string_view sym, int depth) const;
  // Positions from the trade store (with record_trades; otherwise trades since Start only).
  std::vector<PositionView> Positions(std::string_view account) const;  // sorted by sym
  // The security master (SPEC §3, cfx/security_master/format.h): every contract ever
  // listed, expired ones included, sorted by symbol, as of the latest published input. The
  // same rows are persisted beside the trades (<data_dir>/trades, tables `contracts` and
  // `contract_history`) for `cfx settle`. Empty before Start.
  std::vector<security_master::Contract> Contracts() const;
  // One contract of the master with its history (oldest first); nullopt if never listed.
  std::optional<security_master::ContractRecord> FindContract(std::string_view sym) const;
  // The master's contracts that trade: state `listed` (an expired one keeps its book view).
  std::vector<std::string> ListedSymbols() const;  // sorted
  // Every contract of the master, expired ones included (prices for positions held).
  std::vector<std::string> AllSymbols() const;  // sorted
  // Changes whenever the master changed (a listing, a band move, an expiry was published):
  // read it before the listing, cache both and compare it to refresh. Any thread.
  uint64_t ListingVersion() const;
  std::optional<OrderStateView> FindOrder(std::string_view account, std::string_view cl) const;
  ExchangeStats Stats() const;
  const common::ExchangeConfig& config() const;
  const std::string& data_dir() const;
  // Exchange time of the latest published input's TimeCmd (kNoTime before any).
  engine::Timestamp now() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_EXCHANGE_CORE_H_
