// Engine::Snapshot / Engine::Restore: the whole engine state as a versioned binary blob, so
// that a journal can restart from a snapshot plus the records after it. Format:
// docs/formats.md, "Engine snapshot". Orders are written in acceptance order (ascending order
// ids, which Restore requires), then each book's resting orders level by level
// (best first, FIFO) and its pending stops in list order (which rebuilds time priority).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/engine/engine.h"

namespace cfx::engine {
namespace internal {

// Reads a Snapshot() blob front to back. A failed read returns false and leaves ok() false
// for good, so reads whose result is not checked are caught by Restore's final check.
class SnapshotReader {
 public:
  explicit SnapshotReader(absl::string_view in) : in_(in) {}
  template <typename T>
  bool Get(T* v) {
    if (in_.size() < sizeof(T)) return Fail();
    std::memcpy(v, in_.data(), sizeof(T));
    in_.remove_prefix(sizeof(T));
    return true;
  }
  bool Str(std::string* s) {
    uint32_t n = 0;
    if (!Get(&n) || in_.size() < n) return Fail();
    s->assign(in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  bool Fixed(FixedString<kMaxIdLength>* f) {
    std::string s;
    if (!Str(&s) || !f->Assign(s)) return Fail();
    return true;
  }
  bool Count(uint64_t* n, size_t min_item_bytes) {
    // A count larger than what the remaining bytes can hold is corruption, not a reason to
    // allocate gigabytes.
    if (!Get(n) || *n > in_.size() / min_item_bytes + 1) return Fail();
    return true;
  }
  bool ok() const { return ok_; }
  bool done() const { return in_.empty(); }

 private:
  bool Fail() {
    ok_ = false;
    return false;
  }
  absl::string_view in_;
  bool ok_ = true;
};

}  // namespace internal
namespace {

using Reader = internal::SnapshotReader;

constexpr uint32_t kMagic = 0x45584643;  // "CFXE" little-endian
// 2: the (firm, STP group) pairs of the per-firm cap after the books' orders; 1 (read): none.
constexpr uint8_t kVersion = 2;
constexpr uint8_t kVersionNoStpGroups = 1;

class Writer {
 public:
  explicit Writer(std::string* out) : out_(out) {}
  template <typename T>
  void Put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_->append(b, sizeof(T));
  }
  void Str(std::string_view s) {
    Put<uint32_t>(static_cast<uint32_t>(s.size()));
    out_->append(s.data(), s.size());
  }

 private:
  std::string* out_;
};

void PutOrder(Writer& w, const Order& o) {
  w.Put(o.oid);
  w.Put(o.px);
  w.Put(o.qty);
  w.Put(o.cum);
  w.Put(o.shown);
  w.Put(o.firm);
  w.Put(o.stp);
  w.Put(static_cast<uint8_t>(o.side));
  w.Put(static_cast<uint8_t>(o.type));
  w.Put(static_cast<uint8_t>(o.tif));
  w.Put(static_cast<uint8_t>(o.stp_action));
  w.Put(static_cast<uint8_t>(o.status));
  w.Put(static_cast<uint8_t>(o.post_only));
  w.Put(o.display);
  w.Put(o.notional);
  w.Put(o.oid);  // the acceptance number: the oid (the format keeps the field)
  w.Put(o.priority_seq);
  w.Put(o.stop_px);
  w.Put(o.expire);
  w.Put(o.acct);
  w.Put(o.sym);
  w.Put(o.session);
  w.Str(o.cl.view());
}

// Reads an enum written as its uint8_t value; false past `last`, the enum's last
// enumerator (the engine's enums count from 0 with no gaps).
template <typename E>
bool GetEnum(Reader& r, E* e, E last) {
  uint8_t v = 0;
  if (!r.Get(&v) || v > static_cast<uint8_t>(last)) return false;
  *e = static_cast<E>(v);
  return true;
}

// The slot of the restored live order `oid` in `by_oid` (Engine::LiveOrderRef entries by
// ascending oid), kNoSlot if none.
template <typename Refs>
uint32_t RestoredSlot(const Refs& by_oid, OrderId oid) {
  const auto it = std::lower_bound(by_oid.begin(), by_oid.end(), oid,
                                   [](const auto& ref, OrderId id) { return ref.oid < id; });
  return it != by_oid.end() && it->oid == oid ? it->slot : kNoSlot;
}

absl::Status Bad(absl::string_view what) {
  return absl::DataLossError(absl::StrCat("engine snapshot: ", what));
}

}  // namespace

std::string Engine::Snapshot() const {
  std::string out;
  out.reserve(256 + ctx_.store.live_count() * 160 + client_ids_.size() * 56);
  Writer w(&out);
  w.Put(kMagic);
  // Version 1's layout while no firm has named a group under the cap: the blob (and the
  // replication digest of it) stays what an engine before the cap wrote.
  w.Put(stp_groups_.empty() ? kVersionNoStpGroups : kVersion);
  w.Put(next_oid_);
  w.Put(next_accept_);
  w.Put(now_);
  w.Put(next_gtd_expiry_);
  w.Put(ctx_.next_event_seq);
  w.Put(ctx_.next_priority);
  for (const NameTable* names : {&accounts_, &firms_}) {
    w.Put<uint64_t>(names->size());
    for (uint32_t i = 0; i < names->size(); ++i) w.Str(names->name(i));
  }
  w.Put<uint64_t>(books_.size());
  for (const auto& book : books_) {
    const BookConfig& c = book->config();
    w.Str(symbols_.name(c.id));
    w.Put<uint8_t>(c.has_ref);
    w.Put(c.ref);
    w.Put(c.band_percent);
    w.Put(c.max_order_qty);
    w.Put(c.protection_ticks);
    w.Put<uint8_t>(static_cast<uint8_t>(book->state()));
    w.Put<uint8_t>(book->has_last_trade());
    w.Put(book->last_trade());
    w.Put<uint8_t>(book->ever_accepted());
  }
  w.Put<uint64_t>(client_ids_.size());
  client_ids_.ForEach([&](AccountId acct, const ClientId& cl, OrderId oid) {
    w.Put(acct);
    w.Str(cl.view());
    w.Put(oid);
  });
  w.Put<uint64_t>(ctx_.store.live_count());
  ForEachLiveOrder([&](const Order& o) { PutOrder(w, o); });
  for (const auto& book : books_) {
    std::vector<OrderId> oids;
    auto add = [&](uint32_t slot) { oids.push_back(ctx_.store.at(slot).oid); };
    book->ForEachResting(Side::kBuy, add);
    book->ForEachResting(Side::kSell, add);
    book->ForEachPendingStop(add);
    w.Put<uint64_t>(oids.size());
    for (OrderId oid : oids) w.Put(oid);
  }
  // The per-firm STP groups (EngineConfig::max_stp_groups_per_firm), sorted: equal states
  // give equal blobs.
  if (!stp_groups_.empty()) {
    std::vector<uint64_t> groups(stp_groups_.begin(), stp_groups_.end());
    std::sort(groups.begin(), groups.end());
    w.Put<uint64_t>(groups.size());
    for (const uint64_t key : groups) w.Put(key);
  }
  return out;
}

absl::Status Engine::Restore(absl::string_view blob) {
  if (!books_.empty() || ctx_.store.live_count() != 0 || next_oid_ != 1) {
    return absl::FailedPreconditionError("engine snapshot: restore into a used engine");
  }
  Reader r(blob);
  uint8_t version = 0;
  if (absl::Status s = RestoreCounters(r, &version); !s.ok()) return s;
  if (absl::Status s = RestoreNames(r); !s.ok()) return s;
  if (absl::Status s = RestoreBooks(r); !s.ok()) return s;
  if (absl::Status s = RestoreClientIds(r); !s.ok()) return s;
  std::vector<LiveOrderRef> by_oid;  // the restored orders' slots, by ascending oid
  if (absl::Status s = RestoreOrders(r, &by_oid); !s.ok()) return s;
  if (absl::Status s = RestoreBookOrders(r, by_oid); !s.ok()) return s;
  if (version != kVersionNoStpGroups) {
    if (absl::Status s = RestoreStpGroups(r); !s.ok()) return s;
  }
  if (!r.ok() || !r.done()) return Bad("trailing or truncated bytes");
  return absl::OkStatus();
}

// Magic, version and the counters (a short counter read fails Restore's final check).
absl::Status Engine::RestoreCounters(Reader& r, uint8_t* version) {
  uint32_t magic = 0;
  if (!r.Get(&magic) || magic != kMagic) return Bad("bad magic");
  if (!r.Get(version) || (*version != kVersion && *version != kVersionNoStpGroups)) {
    return Bad("unsupported version");
  }
  r.Get(&next_oid_);
  r.Get(&next_accept_);
  r.Get(&now_);
  r.Get(&next_gtd_expiry_);
  r.Get(&ctx_.next_event_seq);
  r.Get(&ctx_.next_priority);
  return absl::OkStatus();
}

// Account names, then firm names, each interned at the id it had.
absl::Status Engine::RestoreNames(Reader& r) {
  for (const bool accounts : {true, false}) {
    uint64_t n = 0;
    if (!r.Count(&n, 4)) return Bad("truncated names");
    for (uint64_t i = 0; i < n; ++i) {
      std::string s;
      Name name;
      if (!r.Str(&s)) return Bad("truncated names");
      if (!name.Assign(s)) return Bad("name too long");
      const uint32_t id = accounts ? InternAccount(name) : firms_.Intern(name);
      if (id != i) return Bad("duplicate name");
    }
  }
  return absl::OkStatus();
}

// The (firm, STP group) pairs firms named (version 2), each of names the snapshot holds, and
// the count of each firm's rebuilt from them.
absl::Status Engine::RestoreStpGroups(Reader& r) {
  uint64_t n = 0;
  if (!r.Count(&n, 8)) return Bad("truncated STP groups");
  uint64_t previous = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t key = 0;
    if (!r.Get(&key)) return Bad("truncated STP groups");
    const uint64_t firm = key >> 32, stp = key & 0xFFFFFFFF;
    if (firm >= firms_.size() || stp >= firms_.size()) return Bad("STP group of an unknown name");
    if (i > 0 && key <= previous) return Bad("STP groups out of order");
    previous = key;
    stp_groups_.insert(key);
    if (firm >= stp_groups_of_firm_.size()) stp_groups_of_firm_.resize(firm + 1, 0);
    ++stp_groups_of_firm_[firm];
  }
  return absl::OkStatus();
}

// One empty book per symbol, in id order, with its configuration and marks.
absl::Status Engine::RestoreBooks(Reader& r) {
  uint64_t nbooks = 0;
  if (!r.Count(&nbooks, 8)) return Bad("truncated books");
  for (uint64_t i = 0; i < nbooks; ++i) {
    std::string sym;
    BookConfig c;
    uint8_t has_ref = 0, has_last = 0, ever = 0;
    TradingState state{};
    PriceTicks last{0};
    if (!r.Str(&sym) || !r.Get(&has_ref) || !r.Get(&c.ref) || !r.Get(&c.band_percent) ||
        !r.Get(&c.max_order_qty) || !r.Get(&c.protection_ticks) ||
        !GetEnum(r, &state, TradingState::kExpired) || !r.Get(&has_last) || !r.Get(&last) ||
        !r.Get(&ever)) {
      return Bad("truncated book");
    }
    c.has_ref = has_ref != 0;
    c.max_grid_levels = config_.max_grid_levels;
    c.max_price = config_.max_price;
    Name sym_name;
    if (!sym_name.Assign(sym)) return Bad("symbol too long");
    c.id = symbols_.Intern(sym_name);
    if (c.id != i) return Bad("duplicate symbol");
    books_.push_back(std::make_unique<OrderBook>(c, &ctx_));
    books_.back()->RestoreMarks(state, has_last != 0, last, ever != 0);
  }
  return absl::OkStatus();
}

// The (account, client id) -> order id index, ended orders' ids included (the live orders'
// slots are set by RestoreOrders).
absl::Status Engine::RestoreClientIds(Reader& r) {
  uint64_t nids = 0;
  if (!r.Count(&nids, 16)) return Bad("truncated client ids");
  for (uint64_t i = 0; i < nids; ++i) {
    AccountId acct = 0;
    ClientId cl;
    OrderId oid = 0;
    if (!r.Get(&acct) || !r.Fixed(&cl) || !r.Get(&oid)) return Bad("truncated client ids");
    if (acct >= accounts_.size()) return Bad("client id of an unknown account");
    const uint64_t acct_hash = accounts_.Hash(Name::From(accounts_.name(acct)));
    auto [rec, fresh] = client_ids_.TryInsert(ClHash(acct_hash, cl), acct, cl);
    if (!fresh) return Bad("duplicate client id");
    client_ids_.set_order(rec, oid, kNoSlot);
  }
  return absl::OkStatus();
}

// Every live order into the store, in acceptance order, not yet in any book; then each one's
// slot into the record of its client id, which must name it and be the only one that does.
absl::Status Engine::RestoreOrders(Reader& r, std::vector<LiveOrderRef>* by_oid) {
  uint64_t norders = 0;
  if (!r.Count(&norders, 64)) return Bad("truncated orders");
  OrderId last_oid = 0;
  for (uint64_t i = 0; i < norders; ++i) {
    Order in;
    uint8_t post_only = 0;
    uint64_t accept_seq = 0;  // kept in the format until 2026-12-07; always the oid, unread
    if (!r.Get(&in.oid) || !r.Get(&in.px) || !r.Get(&in.qty) || !r.Get(&in.cum) ||
        !r.Get(&in.shown) || !r.Get(&in.firm) || !r.Get(&in.stp) ||
        !GetEnum(r, &in.side, Side::kSell) || !GetEnum(r, &in.type, OrderType::kStopLimit) ||
        !GetEnum(r, &in.tif, TimeInForce::kGtd) ||
        !GetEnum(r, &in.stp_action, StpAction::kCancelBoth) ||
        !GetEnum(r, &in.status, OrderStatus::kCanceled) || !r.Get(&post_only) ||
        !r.Get(&in.display) || !r.Get(&in.notional) || !r.Get(&accept_seq) ||
        !r.Get(&in.priority_seq) || !r.Get(&in.stop_px) || !r.Get(&in.expire) || !r.Get(&in.acct) ||
        !r.Get(&in.sym) || !r.Get(&in.session) || !r.Fixed(&in.cl)) {
      return Bad("truncated order");
    }
    if (in.oid == 0 || in.oid >= next_oid_ || in.acct >= accounts_.size() ||
        in.sym >= books_.size() || in.firm >= firms_.size() || in.stp >= firms_.size()) {
      return Bad("inconsistent order");
    }
    // Acceptance order is oid order (ids are given at acceptance): the store walks its live
    // orders by oid. Strictly ascending, so no id twice.
    if (in.oid <= last_oid) return Bad("orders out of acceptance order");
    last_oid = in.oid;
    uint32_t slot = ctx_.store.Allocate(in.oid, in.acct);
    Order& o = ctx_.store.at(slot);
    const uint32_t live_idx = o.live_idx;  // the store's (set by Allocate)
    o = in;
    o.live_idx = live_idx;
    o.post_only = post_only != 0;
    o.live = true;
    o.in_level = false;
    o.prev = o.next = kNoSlot;
    by_oid->push_back(LiveOrderRef{in.oid, slot});
  }
  // A cancel or replace reaches a live order through its client id's record only.
  for (const LiveOrderRef& ref : *by_oid) {
    const Order& o = ctx_.store.at(ref.slot);
    const uint64_t acct_hash = accounts_.Hash(Name::From(accounts_.name(o.acct)));
    const uint32_t rec = client_ids_.Find(ClHash(acct_hash, o.cl), o.acct, o.cl);
    if (rec == ClientIdIndex::kNone || client_ids_.oid(rec) != o.oid) {
      return Bad("a live order's client id does not name it");
    }
    client_ids_.set_order(rec, o.oid, ref.slot);
  }
  // ...and by no other id (a replace leaves the old id naming no order): a second record of
  // a live order would keep no slot, and a cancel through it would miss the order.
  size_t naming_live = 0;
  client_ids_.ForEach([&](AccountId, const ClientId&, OrderId oid) {
    naming_live += RestoredSlot(*by_oid, oid) != kNoSlot;
  });
  if (naming_live != by_oid->size()) return Bad("two client ids name one live order");
  return absl::OkStatus();
}

// Each book's resting orders and pending stops, in the order that rebuilds time priority.
absl::Status Engine::RestoreBookOrders(Reader& r, const std::vector<LiveOrderRef>& by_oid) {
  for (auto& book : books_) {
    uint64_t n = 0;
    if (!r.Count(&n, 8)) return Bad("truncated book orders");
    for (uint64_t i = 0; i < n; ++i) {
      OrderId oid = 0;
      if (!r.Get(&oid)) return Bad("truncated book orders");
      const uint32_t slot = RestoredSlot(by_oid, oid);
      if (slot == kNoSlot || ctx_.store.at(slot).sym != book->config().id ||
          ctx_.store.at(slot).in_level) {
        return Bad("book names an unknown order");
      }
      // A resting order's price is a level's (at least one tick; 0 marks "no level").
      const Order& o = ctx_.store.at(slot);
      if (!o.is_stop_pending() && !book->CanRestAt(o.px)) return Bad("a resting order's price");
      book->RestoreOrder(slot);
    }
  }
  return absl::OkStatus();
}

}  // namespace cfx::engine
