// The Engine's memory floor (memory_floor.h): a loop that does the memory work of a new order
// and nothing else, on the Engine's commands or on 64-byte commands of handles.
#include "cfx/engine/memory_floor.h"

#include <cstring>
#include <memory>
#include <string_view>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "cfx/engine/huge_page_allocator.h"
#include "cfx/engine/order.h"
#include "time_stream.h"

namespace cfx::engine {
namespace {

// A new order whose account and contract were resolved to handles before the matcher.
struct alignas(64) HandleOrder {
  ClientId cl;
  AccountId acct = 0;
  SymbolId sym = 0;
  Side side = Side::kBuy;
  TimeInForce tif = TimeInForce::kDay;
  bool is_new = false;
  PriceTicks px{0};
  Qty qty{0};
};
static_assert(sizeof(HandleOrder) == 64);

// Eight bytes at a time, as the Engine's own id hash (engine/src/fixed_hash.h) works.
uint64_t Mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}
uint64_t HashName(uint64_t h, const Name& n) {
  uint64_t w[4];
  std::memcpy(w, n.data, sizeof(w));
  for (uint64_t x : w) h = Mix(h, x);
  return Mix(h, n.len);
}

// The tables of the floor, sized and written before timing as the Engine's are.
class Floor {
 public:
  explicit Floor(size_t ids) : orders_(ids) {
    size_t buckets = 1;
    while (buckets < 2 * ids) buckets <<= 1;
    table_.assign(buckets, 0);
    records_.resize(ids);
  }

  void Prefetch(uint64_t key) const { __builtin_prefetch(&table_[key & (table_.size() - 1)], 1); }

  // Probes for the id and takes it (the stream's ids are all new): a bucket holds the key's
  // upper 32 bits and the record's index + 1.
  void Enter(uint64_t key, AccountId acct, SymbolId sym, const ClientId& cl, Side side,
             PriceTicks px, Qty qty) {
    const size_t mask = table_.size() - 1;
    const auto tag = static_cast<uint32_t>(key >> 32);
    size_t b = key & mask;
    while (table_[b] != 0) {
      const Record& r = records_[static_cast<uint32_t>(table_[b]) - 1];
      if (static_cast<uint32_t>(table_[b] >> 32) == tag && r.acct == acct && r.cl == cl) {
        return;  // a reused id: refused
      }
      b = (b + 1) & mask;
    }
    const auto rec = static_cast<uint32_t>(count_);
    table_[b] = (uint64_t{tag} << 32) | (rec + 1);
    records_[rec] = Record{cl, acct, ++next_oid_};
    Order& o = orders_[rec];
    o = kFresh;
    o.oid = next_oid_;
    o.acct = acct;
    o.sym = sym;
    o.side = side;
    o.px = px;
    o.qty = qty;
    o.cl = cl;
    ++count_;
  }

  uint64_t trades() const { return 0; }
  size_t resting() const { return count_; }  // the orders entered (duplicates are not)

 private:
  struct Record {
    ClientId cl;
    AccountId acct = 0;
    OrderId oid = 0;
  };
  static constexpr Order kFresh{};

  std::vector<uint64_t, HugePageAllocator<uint64_t>> table_;
  std::vector<Record, HugePageAllocator<Record>> records_;
  std::vector<Order, HugePageAllocator<Order>> orders_;
  size_t count_ = 0;
  OrderId next_oid_ = 0;
};

// The Engine's commands: the account's name and the id are hashed, as the Engine does.
class CommandFloor {
 public:
  explicit CommandFloor(size_t ids) : floor_(ids) {}
  void Ahead(const Command& c) const {
    if (const auto* n = std::get_if<NewOrderCmd>(&c)) floor_.Prefetch(Key(*n));
  }
  void Apply(const Command& c) {
    if (const auto* n = std::get_if<NewOrderCmd>(&c)) {
      // The Engine resolves the account and the contract by a lookup each in a table whose
      // line is in the cache: the floor pays their hashes, not the tables.
      const uint64_t acct_hash = HashName(0, n->acct);
      const auto sym = static_cast<SymbolId>(HashName(1, n->sym));
      floor_.Enter(HashName(acct_hash, n->cl), static_cast<AccountId>(acct_hash), sym, n->cl,
                   n->side, n->px.ticks, n->qty);
    }
  }
  uint64_t trades() const { return floor_.trades(); }
  size_t resting() const { return floor_.resting(); }

 private:
  static uint64_t Key(const NewOrderCmd& n) { return HashName(HashName(0, n.acct), n.cl); }
  Floor floor_;
};

class HandleFloor {
 public:
  explicit HandleFloor(size_t ids) : floor_(ids) {}
  void Ahead(const HandleOrder& h) const {
    if (h.is_new) floor_.Prefetch(Key(h));
  }
  void Apply(const HandleOrder& h) {
    if (h.is_new) floor_.Enter(Key(h), h.acct, h.sym, h.cl, h.side, h.px, h.qty);
  }
  uint64_t trades() const { return floor_.trades(); }
  size_t resting() const { return floor_.resting(); }

 private:
  static uint64_t Key(const HandleOrder& h) { return HashName(h.acct, h.cl); }
  Floor floor_;
};

size_t NewOrders(const std::vector<Command>& commands) {
  size_t n = 16;
  for (const Command& c : commands) n += std::holds_alternative<NewOrderCmd>(c);
  return n;
}

}  // namespace

BenchFigures RunMemoryFloor(const std::vector<Command>& commands) {
  const size_t ids = NewOrders(commands);
  return internal::TimeStream(
      commands, [&] { return std::make_unique<CommandFloor>(ids); }, [](const CommandFloor&) {});
}

BenchFigures RunMemoryFloorWithHandles(const std::vector<Command>& commands) {
  // Handles as a resolver before the matcher would give them: in order of first sight.
  absl::flat_hash_map<std::string_view, uint32_t> accounts;
  std::vector<HandleOrder> orders(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    const auto* n = std::get_if<NewOrderCmd>(&commands[i]);
    if (n == nullptr) continue;
    HandleOrder& h = orders[i];
    h.cl = n->cl;
    h.acct = accounts.try_emplace(n->acct.view(), static_cast<uint32_t>(accounts.size()))
                 .first->second;
    h.sym = 0;
    h.side = n->side;
    h.tif = n->tif;
    h.is_new = true;
    h.px = n->px.ticks;
    h.qty = n->qty;
  }
  const size_t ids = NewOrders(commands);
  return internal::TimeStream(
      orders, [&] { return std::make_unique<HandleFloor>(ids); }, [](const HandleFloor&) {});
}

}  // namespace cfx::engine
