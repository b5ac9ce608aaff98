// Inputs of the engine. Plain, trivially copyable structs so that a journal can serialize
// them and a replay reproduces the same outputs. Time enters only as a field (TimeCmd).
//
// Usage:
//   Command c = NewOrderCmd{...};
//   engine.Process(c);
#ifndef CFX_ENGINE_COMMAND_H_
#define CFX_ENGINE_COMMAND_H_

#include <variant>

#include "cfx/engine/types.h"

namespace cfx::engine {

// A price as the client sent it: ticks plus whether it was a multiple of the tick, so the
// engine can reject `invalid_price_tick` at its place in the reject precedence (§4.2).
struct PriceField {
  bool present = false;
  bool on_tick = true;
  PriceTicks ticks{0};
  static PriceField Ticks(PriceTicks t) { return PriceField{true, true, t}; }
};

// Lists a contract (or, when already listed, updates its band reference / limits).
struct ProductCmd {
  Name sym;
  PriceField ref;             // absent: no band (or, when already listed: keep the ref)
  Qty max_order_qty{1000};    // `qty_above_max` above this
  int64_t band_percent = 10;  // band is ref ± this percent, inclusive; 0 disables the band
  PriceTicks protection_ticks{50};  // market order protection
  // Pre-trade initial margin per contract (micro-USD, one lot). Not used by the engine: the
  // exchange core's risk check reads it, so that margins are sequenced inputs and replay
  // takes the same decisions. -1: keep the current value (0 at listing).
  MicroUsd initial_margin{-1};
};

struct StateCmd {
  Name sym;
  TradingState state = TradingState::kOpen;
};

// Where a request came from: its FIX session and MsgSeqNum; 0 when not from FIX (or not
// replicated). The engine ignores it; the exchange's matcher keeps, per session, the
// MsgSeqNum after the latest, so that a standby taking over knows exactly which requests it
// has (docs/replication.md, "FIX sessions").
struct Origin {
  SessionId session = 0;
  uint32_t msg_seq = 0;
};

struct NewOrderCmd {
  ClientId cl;
  Name acct;
  Name sym;
  Side side = Side::kBuy;
  OrderType type = OrderType::kLimit;
  TimeInForce tif = TimeInForce::kDay;
  PriceField px;    // limit price (limit, stop_limit)
  PriceField stop;  // trigger price (stop, stop_limit)
  Qty qty{0};
  bool has_display = false;  // iceberg; display must be 1..qty
  Qty display{0};
  bool post_only = false;
  Name stp;    // empty: the account
  StpAction stp_action = StpAction::kCancelResting;
  Name firm;   // empty: the account
  Timestamp expire = kNoTime;  // required for gtd
  SessionId session = 0;       // for cancel-on-disconnect
  Origin origin;
};

struct CancelCmd {
  ClientId orig;
  Name acct;
  Origin origin;
  // The request's own id (FIX 11) and the session that sent it, which the engine ignores:
  // what the exchange answers with, also when it reports the outcome again after a restart
  // (docs/durability.md, "Reports a crash kept from going out").
  ClientId req;
  SessionId answer_to = 0;
};

struct ReplaceCmd {
  ClientId cl;  // the new id
  ClientId orig;
  Name acct;
  PriceField px;     // absent: keep
  bool has_qty = false;
  Qty qty{0};  // the new total quantity
  Origin origin;
  SessionId answer_to = 0;  // as CancelCmd's
};

// Cancels resting orders and pending stops. By account (optionally one symbol), or, when
// `session` != 0, every order entered on that session: with `disconnect`, all of them
// (cancel-on-disconnect, reason disconnect); without, as a FIX mass cancel that names no
// Account asks (optionally one symbol, an unknown one refused; reason mass).
struct MassCancelCmd {
  Name acct;
  Name sym;  // empty: all symbols
  SessionId session = 0;
  Origin origin;
  bool disconnect = false;
  ClientId req;  // as CancelCmd's; empty (and answer_to 0) for a disconnect
  SessionId answer_to = 0;
  // A session's own mass cancel (not a disconnect): non-empty, only the orders of this firm
  // (the firm an order was entered for, NewOrderCmd::firm). The gateway sets the session's
  // firm, so a session an operator moved to another firm cancels none of its old firm's.
  Name firm;
};

struct TimeCmd {
  Timestamp ts = 0;
};

struct CloseCmd {
  Name sym;
};

// Where a FIX session stands, recorded at its Logon and as the MsgSeqNums it is sent grow
// (docs/replication.md, "FIX sessions"): the engine ignores it; the exchange's matcher
// keeps the latest per session in its state, so a new primary resumes the session's
// sequence numbers. 0 leaves a value as it is.
struct FixSessionCmd {
  SessionId session = 0;
  uint64_t next_target = 0;   // the next MsgSeqNum expected from the client
  uint64_t sender_limit = 0;  // the exchange sends no MsgSeqNum at or above this
};

// The exchange's pre-trade risk settings, sequenced so that a replay of the journal takes
// the decisions that were acknowledged (docs/durability.md, "Determinism of pre-trade
// risk"): the check's switch, one account's collateral, and the cap on an account's open
// orders. The engine ignores it; the exchange's matcher keeps the settings in its state
// (and its snapshots).
struct RiskCmd {
  int8_t check = -1;  // 1: the pre-trade check on, 0: off, -1: as it is
  Name acct;          // empty: no collateral change
  MicroUsd collateral{0};
  // Live orders (resting or pending stops) one account may have; a new order past it is
  // rejected `throttled`. 0: no cap; -1: as it is.
  int64_t max_open_orders = -1;
  // 1: day orders expire at each business day's 16:00Z close (`cfx serve`, SPEC §4: the
  // session close), taken when a `time` input passes it; 2: the same, and a close is taken
  // at the first input stamped at or past it (SPEC §9.1); 3: as 2, and the engine's clock
  // moves to each order input's stamp before it is applied (a GTD order expires, and is
  // judged expired on arrival, at the stamp: SPEC §4.2, §5); 0: only at a `close` input; -1:
  // as it is. Sequenced, so that a journal written before the rule replays as it ran.
  int8_t close_day_orders = -1;
  // STP groups of its own one firm may name (EngineConfig::max_stp_groups_per_firm): 0 no
  // cap, -1 as it is. Sequenced, so that a journal written before the cap replays as it ran
  // and every node counts from the same input (codec version 10).
  int64_t stp_groups_per_firm = -1;
};

using Command = std::variant<ProductCmd, StateCmd, NewOrderCmd, CancelCmd, ReplaceCmd,
                             MassCancelCmd, TimeCmd, CloseCmd, FixSessionCmd, RiskCmd>;

}  // namespace cfx::engine

#endif  // CFX_ENGINE_COMMAND_H_
