// The matching engine of one shard: owns every book, validates and sequences commands,
// assigns order ids, keeps client-id and account indexes, and delivers events.
//
// Usage:
//   Engine engine;
//   engine.set_listener(&my_listener);
//   engine.Process(ProductCmd{...});
//   engine.Process(NewOrderCmd{...});   // listener sees accepted, trades, ... before return
//
// Deterministic: the same commands give the same events and the same StateHash().
// Thread safety: none. One thread calls every method. The engine holds no ring and knows
// no thread: in `cfx serve` other threads reach it through the exchange's journal::Pipeline
// (the rings in concurrency/), whose matcher thread is the one caller.
#ifndef CFX_ENGINE_ENGINE_H_
#define CFX_ENGINE_ENGINE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "cfx/engine/client_id_index.h"
#include "cfx/engine/command.h"
#include "cfx/engine/events.h"
#include "cfx/engine/name_table.h"
#include "cfx/engine/order_book.h"

namespace cfx::engine {
namespace internal {
class SnapshotReader;  // snapshot.cc
}  // namespace internal

// Pre-trade check called after every other entry check passes, before `accepted`.
// Returns kNone to accept, or kInsufficientMargin / kAccountNotPermitted / kThrottled.
// Replay installs none.
class PreTradeRisk {
 public:
  virtual ~PreTradeRisk() = default;
  // `acct`: cmd.acct as the engine interned it (no name lookup needed).
  virtual RejectReason CheckNewOrder(const NewOrderCmd& cmd, AccountId acct,
                                     const OrderBook& book) = 0;
  // A replace of `order` that raises its total to `new_qty` (> order.qty: `added` more open
  // on order.side), after every other replace check passes. kNone to accept, or the reason
  // the replace is refused with (`cancel_rejected`, the order unchanged). A replace that
  // keeps or lowers the quantity is never asked. Default: accept.
  virtual RejectReason CheckReplace(const ReplaceCmd& cmd, AccountId acct, const Order& order,
                                    Qty added, const OrderBook& book) {
    (void)cmd, (void)acct, (void)order, (void)added, (void)book;
    return RejectReason::kNone;
  }
};

struct EngineConfig {
  size_t order_capacity = 1 << 16;      // live orders before the pool grows
  size_t client_id_capacity = 1 << 16;  // client ids (they stay taken) before the map grows
  // Accounts (and as many firms and STP groups: an account is its own by default) before
  // their name tables grow: sized at start, the first order of each account inserts into a
  // table already in memory instead of rehashing a growing one.
  size_t account_capacity = 64;
  // Caps each book's dense window of price levels (docs/engine.md); prices outside it rest
  // in far levels. A memory bound, not a band.
  size_t max_grid_levels = size_t{1} << 20;
  // false (SPEC §4.2, `cfx replay`): a client id stays taken for the whole run. true (`cfx
  // serve`): for the UTC date; at the first time input of a new date the ids of ended orders
  // are forgotten, so the set holds one day's ids, not every id the exchange has seen.
  bool client_ids_per_day = false;
  // The highest limit price an order may carry (0: none, `cfx replay`'s SPEC §4.1 engine);
  // above it a new order or a replace is refused `price_outside_band`. `cfx serve` sets
  // the highest price its settlement and margin can value (docs/engine.md, "Price limit"):
  // a contract without a band otherwise traded at any price, and the day could then never
  // be settled.
  PriceTicks max_price{0};
  // The most STP groups of its own one firm may name (0: no cap, `cfx replay`): a group is
  // an order's `stp` other than its account and its firm (FIX 7928, whatever the client
  // sends), counted once per firm and name the first time the firm's order naming it is
  // accepted. Names are never forgotten and every snapshot holds them; past its cap a firm's
  // order naming a group it has not named before is refused `invalid_field`, whether or not
  // another firm uses that name, and its known groups, its accounts' defaults and its firm go
  // on. Per firm, so that one firm cannot use up what other firms' groups need (until
  // 2026-12-07 the cap was one table of 65,536 names for the whole exchange). `cfx serve`'s
  // matcher sets 4,096 through a sequenced input (docs/engine.md, "Names kept").
  size_t max_stp_groups_per_firm = 0;
};

// A live order as FindOrder reports it: what an event would say of it, and its symbol.
struct OrderView : OrderInfo {
  SymbolId sym = 0;
};

class Engine {
 public:
  explicit Engine(const EngineConfig& config = {});
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // The listener must outlive the engine or be reset; nullptr drops events.
  void set_listener(EngineListener* listener) { listener_ = listener; }
  void set_pre_trade_risk(PreTradeRisk* risk) { risk_ = risk; }

  // Applies one command; every event it caused is delivered before this returns.
  void Process(const Command& cmd);
  // A hint, no effect on state: brings into the cache what Process(cmd) will probe first
  // (the buckets of its account's name and of its client id). A caller holding a batch calls it a
  // few commands ahead, so that the index's cache miss overlaps the work on the commands before.
  void Prefetch(const Command& cmd) const;
  // How many commands ahead Prefetch pays: far enough for a miss (~100 ns) to land before
  // the command is processed, near enough that the line is still cached then.
  static constexpr size_t kPrefetchAhead = 8;
  // Events of the last Process call (valid until the next call).
  const std::vector<Event>& last_events() const { return ctx_.events; }

  // --- Lookups -------------------------------------------------------------------------
  // The live order named by (account, client id), or nullopt (unknown, ended, replaced away).
  std::optional<OrderView> FindOrder(std::string_view acct, std::string_view cl) const;
  std::optional<SymbolId> FindSymbol(std::string_view sym) const;
  std::optional<AccountId> FindAccount(std::string_view acct) const;
  std::string_view SymbolName(SymbolId id) const { return symbols_.name(id); }
  std::string_view AccountName(AccountId id) const { return accounts_.name(id); }
  std::string_view FirmName(FirmId id) const { return firms_.name(id); }
  // The same names as fixed-size values, to copy whole (a copy of a view's bytes compiled to
  // a byte loop: a sixth of building an Outcome).
  const Name& SymbolFixedName(SymbolId id) const { return symbols_.fixed_name(id); }
  const Name& AccountFixedName(AccountId id) const { return accounts_.fixed_name(id); }
  const Name& FirmFixedName(FirmId id) const { return firms_.fixed_name(id); }
  size_t symbol_count() const { return books_.size(); }
  size_t account_count() const { return accounts_.size(); }
  size_t firm_count() const { return firms_.size(); }
  // EngineConfig::max_stp_groups_per_firm, as a sequenced input sets it (the exchange's
  // RiskCmd::stp_groups_per_firm): the groups counted so far stay counted.
  size_t stp_groups_per_firm() const { return config_.max_stp_groups_per_firm; }
  void set_stp_groups_per_firm(size_t n) { config_.max_stp_groups_per_firm = n; }
  const OrderBook& book(SymbolId id) const { return *books_[id]; }
  Timestamp now() const { return now_; }
  size_t live_orders() const { return ctx_.store.live_count(); }

  // Hash of every book, the indexes and the counters; equal states give equal hashes.
  uint64_t StateHash() const;

  // Calls fn(order) for every live order (resting or pending stop), in acceptance order.
  template <typename Fn>
  void ForEachLiveOrder(Fn&& fn) const {
    ctx_.store.ForEachLive([&](uint32_t s) { fn(ctx_.store.at(s)); });
  }

  // --- Snapshots (snapshot.cc; format: docs/formats.md "Engine snapshot") ---------------
  // The whole state as a versioned binary blob: Restore() of it into a fresh engine, then
  // the same commands, gives the same events, order ids and StateHash().
  std::string Snapshot() const;
  // Replaces the state by a Snapshot() blob. REQUIRES: a freshly constructed engine.
  // DataLoss when the blob is truncated, of another version, or inconsistent.
  absl::Status Restore(absl::string_view blob);

 private:
  // One per Command alternative; Process visits the command onto them.
  void Apply(const ProductCmd& c);
  void Apply(const StateCmd& c);
  void Apply(const NewOrderCmd& c);
  void Apply(const CancelCmd& c);
  void Apply(const ReplaceCmd& c);
  void Apply(const MassCancelCmd& c);
  void Apply(const TimeCmd& c);
  void Apply(const CloseCmd& c);
  void Apply(const FixSessionCmd&) {}  // the exchange's matcher keeps it (no engine state)
  void Apply(const RiskCmd&) {}        // the same
  void ForgetEndedClientIds();

  // Whether `c` names an STP group of its own (not its account's, not its firm's).
  static bool NamesOwnStpGroup(const NewOrderCmd& c) {
    return !c.stp.empty() && c.stp != c.acct && c.stp != (c.firm.empty() ? c.acct : c.firm);
  }
  static uint64_t StpKey(FirmId firm, uint32_t stp) { return uint64_t{firm} << 32 | stp; }
  // Whether `c` (account `acct`) would name an STP group its firm may not add: the cap is
  // reached and the firm has not named this one before. Changes nothing.
  bool StpGroupOverCap(const NewOrderCmd& c, AccountId acct) const;
  // After acceptance: counts the order's STP group for its firm (with the cap).
  void CountStpGroup(const Order& o);
  // Validation (validation.cc); kNone when the order may be accepted.
  // On kNone, *cl_rec is the order's new record in client_ids_ (order id 0 until accepted):
  // the duplicate check and the insertion are one probe. Any other result leaves the index
  // as it was.
  // `acct_hash` is accounts_.Hash(c.acct), computed once per command.
  RejectReason ValidateNew(const NewOrderCmd& c, OrderBook** book, AccountId acct,
                           uint64_t acct_hash, uint32_t* cl_rec);
  RejectReason ValidateNewTerms(const NewOrderCmd& c, OrderBook** book, AccountId acct,
                                uint64_t acct_hash, uint32_t* cl_rec);  // the checks, in order
  RejectReason ValidateReplace(const ReplaceCmd& c, const Order& o, const OrderBook& book,
                               uint64_t acct_hash, PriceTicks* px, Qty* qty);

  // Restore's steps (snapshot.cc), in blob order. Each reads its section into the engine
  // and returns DataLoss naming what is wrong (the caller checks trailing bytes at the end).
  absl::Status RestoreCounters(internal::SnapshotReader& r, uint8_t* version);
  absl::Status RestoreNames(internal::SnapshotReader& r);
  absl::Status RestoreBooks(internal::SnapshotReader& r);
  absl::Status RestoreStpGroups(internal::SnapshotReader& r);
  absl::Status RestoreClientIds(internal::SnapshotReader& r);
  struct LiveOrderRef {
    OrderId oid;
    uint32_t slot;
  };
  absl::Status RestoreOrders(internal::SnapshotReader& r, std::vector<LiveOrderRef>* by_oid);
  absl::Status RestoreBookOrders(internal::SnapshotReader& r,
                                 const std::vector<LiveOrderRef>& by_oid);

  // The account's id, interned (and the per-account tables grown) when new.
  AccountId InternAccount(const Name& name, uint64_t hash);
  AccountId InternAccount(const Name& name) { return InternAccount(name, accounts_.Hash(name)); }
  // The firm (or STP group) id of an order that names none: its account's name, interned in
  // firms_ at the account's first order and remembered per account (one lookup an account,
  // not one an order).
  FirmId DefaultFirm(AccountId acct, const Name& acct_name);
  OrderBook* BookOf(const Name& sym);
  // The client-id index's hash of (account, cl), from the account name's hash in accounts_
  // (one hash of the name per command serves both tables).
  uint64_t ClHash(uint64_t acct_hash, const ClientId& cl) const {
    return client_ids_.HashKey(acct_hash, cl);
  }
  // The live slot named by (acct, cl) (`acct_hash` the account name's hash), else kNoSlot;
  // *rec (when given) its id's record.
  uint32_t LookupLive(uint64_t acct_hash, AccountId acct, const ClientId& cl,
                      uint32_t* rec = nullptr) const;
  // The live slot a cancel or replace (client id `cl`, nullptr for a cancel) names by
  // (account, orig), its account id in *acct; else emits the unknown_order cancel reject
  // (naming the account, interned if new) and returns kNoSlot.
  uint32_t FindAmended(const Name& acct_name, uint64_t acct_hash, const ClientId& orig,
                       const ClientId* cl, AccountId* acct, uint32_t* orig_rec);
  void EmitReject(const NewOrderCmd& c, AccountId acct, RejectReason reason);
  // `live`: the order refused (it still works): its id, executed and working quantities go
  // with the event, for reports that say so (FIX 37/39).
  void EmitCancelReject(const ClientId& orig, const ClientId* cl, AccountId acct,
                        RejectReason reason, const Order* live = nullptr);
  OrderView ViewOf(const Order& o) const;
  void Deliver();

  EngineConfig config_;
  MatchContext ctx_;
  std::vector<std::unique_ptr<OrderBook>> books_;
  Name last_sym_;                   // BookOf's memo: the last symbol it found...
  OrderBook* last_book_ = nullptr;  // ...and its book
  NameTable symbols_, accounts_, firms_;
  std::vector<FirmId> default_firm_;  // by account: DefaultFirm's memo, NameTable::kNone unset
  // With max_stp_groups_per_firm: the (firm, STP group) pairs firms' accepted orders named
  // (StpKey), and how many each firm has (by firm id). In the snapshot.
  absl::flat_hash_set<uint64_t> stp_groups_;
  std::vector<uint32_t> stp_groups_of_firm_;
  ClientIdIndex client_ids_;
  OrderId next_oid_ = 1;
  uint64_t next_accept_ = 1;
  Timestamp now_ = kNoTime;
  Timestamp next_gtd_expiry_ = INT64_MAX;  // lower bound of live gtd expiries
  EngineListener* listener_ = nullptr;
  PreTradeRisk* risk_ = nullptr;
};

}  // namespace cfx::engine

#endif  // CFX_ENGINE_ENGINE_H_
