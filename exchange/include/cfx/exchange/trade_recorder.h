// TradeRecorder: the post-trade store of the exchange. Consumes outcomes (on the publisher
// thread in `cfx serve`, inline in `cfx replay --data-dir`) and writes, in ONE LMDB
// transaction per commit, together with the last input seq it covers:
//   <data_dir>/trades  table `trades`    one row per execution (cfx/trade_store/format.h,
//                                        trade_store::FormatTradeJson; key: engine event seq)
//                      table `closes`    closing quotes (trade_store::FormatCloseJson)
//                      table `positions` `<acct>/<sym>` -> {"acct","sym","qty","bought","sold"}
//                      table `orders`    `<acct>/<cl>`  -> the live order (deleted when it ends)
//                      table `ended_orders` `<acct>/<cl>` -> the order as it ended (filled or
//                                        canceled), the most recent `ended_kept` of them
//                      tables `contracts`, `contract_history`: the security master
//                                        (cfx/security_master/format.h), from the kListing
//                                        outcomes and the expiries
//                      table `meta`      `last_seq`     -> the last input seq recorded
// Tables: docs/formats.md. Restart: rows of inputs after `last_seq` are re-derived from the
// journal (ExchangeCore::Start, RecordJournalTail), so a kill -9 loses no trade.
//
//   auto rec = TradeRecorder::Open("/var/cfx");           // "" -> memory only
//   rec->Add(seq, outcome); ... rec->EndInput(seq);
//   absl::Status s = rec->Commit();                        // synced, on this thread
//   rec->CommitInBackground();                             // or: on the committer thread
//
// The store is derived data (the journal is the durability boundary), so the order path
// never waits for it: ExchangeCore hands buffered rows to a committer thread
// (CommitInBackground) and goes on delivering outcomes while that thread writes and syncs.
// Each background transaction still holds whole inputs and the matching `last_seq`, in
// input order, so recovery's re-derivation stays exact.
#ifndef CFX_EXCHANGE_TRADE_RECORDER_H_
#define CFX_EXCHANGE_TRADE_RECORDER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/common/date.h"
#include "cfx/security_master/format.h"
#include "cfx/trade_store/format.h"
#include "cfx/exchange/outcome.h"

namespace cfx::storage {
class KvStore;
}

namespace cfx::exchange {

inline constexpr char kPositionsTable[] = "positions";
inline constexpr char kOrdersTable[] = "orders";
inline constexpr char kEndedOrdersTable[] = "ended_orders";
using trade_store::kMetaTable;

// Thread safety: Add, EndInput, Commit, CommitInBackground, Seed* on one writer thread (the
// one delivering outcomes: the matcher's since it delivers them itself, or a publisher
// thread). Positions, FindOrder, last_seq, WaitCommitted and the counters from any thread:
// they read in-memory copies under a mutex that only this writer and readers take, so a
// reader holding it briefly delays matching; readers copy out and let go. The committer thread (started by the first CommitInBackground) only
// touches the batches handed to it, under `commit_mu_`, and the LMDB store.
class TradeRecorder {
 public:
  // Opens `<data_dir>/trades` (created if absent) and loads positions, open orders and the
  // most recent `ended_kept` ended orders. An empty `data_dir` keeps everything in memory.
  // `calendar` (the config's holidays) gives the master's last trading days. `map_size_bytes`:
  // the store's LMDB map (ExchangeConfig::trade_store_map_bytes).
  static absl::StatusOr<std::unique_ptr<TradeRecorder>> Open(
      const std::string& data_dir, size_t ended_kept = kDefaultEndedOrdersKept,
      common::BusinessCalendar calendar = {}, uint64_t map_size_bytes = 8ull << 30);
  ~TradeRecorder();

  // The text of a row of `orders` (end_serial 0) or `ended_orders`: one JSON object with its
  // keys in sorted order, as nlohmann::json writes it (invalid UTF-8 replaced). Written by
  // hand: it is most of the committer thread's work.
  static std::string OrderRowText(const OrderStateView& order, uint64_t end_serial = 0);

  // The last input seq whose rows are committed (0: none).
  uint64_t last_seq() const { return last_seq_.load(std::memory_order_acquire); }

  // Buffers the rows of one outcome of input `seq`. Inputs at or below last_seq() are
  // ignored (idempotent re-derivation).
  void Add(uint64_t seq, const Outcome& outcome);
  // Marks input `seq` complete (its outcomes were all added).
  void EndInput(uint64_t seq);
  // Buffers a row of the `meta` table, written in the transaction that next writes the
  // inputs ended so far (with last_seq): `cfx replay --data-dir`'s digest of its inputs.
  void PutMeta(const std::string& key, std::string value);
  // A meta row as committed; nullopt when absent. Errors name the store path.
  absl::StatusOr<std::optional<std::string>> GetMeta(const std::string& key) const;
  // Writes everything buffered and `last_seq` in one synced transaction, on this thread,
  // after any batch handed to the committer thread. A no-op when nothing is buffered.
  // Errors name the store path (the rows stay buffered and are retried by the next commit).
  absl::Status Commit();
  // Hands everything buffered to the committer thread and returns at once; batches handed
  // over while it is busy, or within kMinCommitInterval of its last transaction, are written
  // together by its next one (unless WaitCommitted is waiting for them). Returns the error
  // of a failed background transaction once (its rows are retried with the next batch).
  absl::Status CommitInBackground();
  // Waits until inputs up to `seq` are committed or a background commit has failed (true:
  // nothing more to wait for; the failure is CommitInBackground's to report), or until
  // `timeout` passes (false).
  bool WaitCommitted(uint64_t seq, std::chrono::milliseconds timeout) const;
  // Rows held for a retry after failed background commits (a full map, a failing disk): past
  // this many the store gives up for the rest of the run (kept rows dropped, nothing more
  // committed, the error reported once) and the next start rebuilds it from the journal.
  // Until 2026-12-07 every later row was held and re-serialised at each retry, without bound.
  static constexpr size_t kMaxHeldRows = size_t{1} << 20;
  void LimitHeldRows(size_t rows) { max_held_rows_ = rows; }  // before the first commit
  bool given_up() const;
  // The committer's shortest gap between transactions: at a trickle of orders a flush per
  // order would sit on the one disk in front of the journal's next commit.
  static constexpr std::chrono::milliseconds kMinCommitInterval{10};
  size_t pending_inputs() const { return pending_inputs_; }

  // Replaces the in-memory open orders by `orders` (after recovery: the engine's live
  // orders are authoritative).
  void SeedOrders(const std::vector<OrderStateView>& orders);

  std::vector<PositionView> Positions(std::string_view account) const;
  // The latest trade of `sym` the rows hold (meta `last_trade/<sym>`, written with each
  // trade): what the published book's last trade is after a recovery from a snapshot taken
  // after that trade, which no replayed input reports again. nullopt: none.
  std::optional<trade_store::Trade> LastTrade(std::string_view sym) const;
  // The live order `cl` of `account`; else the most recently ended one of that id (status
  // filled or canceled, leaves 0) while it is among the last `ended_kept` to end.
  std::optional<OrderStateView> FindOrder(std::string_view account, std::string_view cl) const;
  // The security master: every contract ever listed (expired ones included), by symbol.
  std::vector<security_master::Contract> Contracts() const;
  // One contract with its history; nullopt when never listed.
  std::optional<security_master::ContractRecord> FindContract(std::string_view sym) const;
  // Changes whenever the master changed (a listing, a band or terms change, an expiry).
  uint64_t master_version() const { return master_version_.load(std::memory_order_acquire); }
  uint64_t commits() const { return commits_.load(std::memory_order_relaxed); }
  uint64_t trades() const { return trades_.load(std::memory_order_relaxed); }

 private:
  struct Position {
    engine::Qty qty{0}, bought{0}, sold{0};
  };
  using Key = std::pair<std::string, std::string>;  // (acct, sym) or (acct, cl)
  // A row to write, kept as data until the transaction that writes it: the JSON is made on
  // the thread that commits (the committer, in `cfx serve`), not on the publisher, and a
  // row written several times in one batch is made and written once (the last).
  struct OrderRow {
    OrderStateView view;
    uint64_t end_serial = 0;  // ended orders: their place in the forgetting order
  };
  struct PositionRow {
    std::string acct, sym;
    engine::Qty qty{0}, bought{0}, sold{0};
  };
  struct Op {
    const char* table;
    std::string key;
    // monostate: delete; string: ready text (closes); the others are formatted at commit.
    std::variant<std::monostate, std::string, OrderRow, PositionRow, trade_store::Trade> value;
  };
  TradeRecorder() = default;
  absl::Status Load();
  absl::Status CheckLastTradingDays() const;  // Load's last step
  // One transaction: `ops` and last_seq = `seq`. Store thread: the writer or the committer.
  absl::Status WriteTxn(const std::vector<Op>& ops, uint64_t seq);
  static std::string RowText(const decltype(Op::value)& value);
  void RunCommitter();
  void OnEvent(const Outcome& o);
  // The security master's rows of a kListing outcome or an expiry (REQUIRES: mu_ held).
  void OnListing(uint64_t seq, const Outcome& o);
  void OnExpiry(uint64_t seq, const Outcome& o);
  void PutContract(const security_master::Contract& c, const security_master::ContractEvent& e);
  void UpdateOrder(const engine::OrderInfo& info, const Outcome& o, const OrderDetail& d,
                   std::string_view acct);
  void PutPosition(const std::string& acct, const std::string& sym);
  void PutOrder(const OrderStateView& v);
  void DeleteOrder(const std::string& acct, const std::string& cl);
  // Adds (sign 1) or takes away (-1) a live order's leaves in open_qty_. mu_ held.
  void CountOpen(const OrderStateView& v, int sign);
  // Sets the view `out` of order `key` from the engine's `info` after outcome `o`.
  static void Fill(const engine::OrderInfo& info, const Outcome& o, const OrderDetail& d,
                   const Key& key, OrderStateView* out);
  // Keeps `v` (which just ended) for status requests; forgets the oldest beyond the cap.
  void RememberEnded(OrderStateView v);
  void ForgetEndedBeyondCap();  // the oldest ended orders past `ended_kept_`

  std::unique_ptr<storage::KvStore> store_;  // null: memory only
  std::atomic<uint64_t> last_seq_{0};
  uint64_t pending_seq_ = 0;
  size_t pending_inputs_ = 0;
  std::vector<Op> ops_;
  std::atomic<uint64_t> commits_{0};
  std::atomic<uint64_t> trades_{0};

  // Hand-off to the committer thread. The writer takes the lock only to append a batch;
  // the committer only to take one and to report its result, never during the LMDB write.
  mutable std::mutex commit_mu_;
  mutable std::condition_variable commit_cv_;
  std::vector<Op> handed_;        // rows handed over, not yet taken (or a failed batch)
  uint64_t handed_seq_ = 0;       // the last input seq `handed_` covers
  bool committing_ = false;       // the committer holds a batch
  bool stop_committer_ = false;
  // The committer waits for rows (not in its gap): only then does a hand-off wake it. A wake
  // per publisher burst during the gap, only for it to sleep again, was a fifth of the
  // publisher thread's time in `cfx bench fix` (docs/performance.md).
  bool committer_waiting_ = false;
  bool commit_failed_ = false;    // the last background transaction failed
  bool given_up_ = false;         // past max_held_rows_ after a failure: no more commits
  size_t max_held_rows_ = kMaxHeldRows;
  mutable int commit_waiters_ = 0;  // WaitCommitted calls waiting: commit without the gap
  absl::Status commit_error_;     // not yet reported by CommitInBackground
  std::thread committer_;         // started by the first CommitInBackground

  mutable std::mutex mu_;  // readers vs the delivering thread (the matcher's, by default)
  std::map<Key, Position> positions_;
  std::map<std::string, trade_store::Trade, std::less<>> last_trades_;  // by symbol
  common::BusinessCalendar calendar_;
  std::map<std::string, security_master::ContractRecord, std::less<>> master_;
  std::atomic<uint64_t> master_version_{0};
  std::map<Key, OrderStateView> orders_;  // live orders by (acct, cl)
  absl::flat_hash_map<uint64_t, Key> order_keys_;  // oid -> (acct, cl)
  // The live orders' leaves by (acct, sym), kept with orders_ (CountOpen): Positions reads
  // these, a few entries an account, instead of walking the account's live orders under
  // the lock the delivering thread needs (a firm with 100,000 resting orders polling its
  // positions would otherwise hold matching for milliseconds a request).
  struct OpenQty {
    engine::Qty buy{0}, sell{0};
  };
  std::map<Key, OpenQty> open_qty_;
  struct EndedOrder {
    uint64_t serial = 0;  // order of ending: the oldest is forgotten first
    OrderStateView view;
  };
  size_t ended_kept_ = kDefaultEndedOrdersKept;
  uint64_t next_ended_serial_ = 1;
  std::map<Key, EndedOrder> ended_;          // by (acct, cl)
  std::map<uint64_t, Key> ended_by_serial_;  // serial -> (acct, cl)
};

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_TRADE_RECORDER_H_
