// Value types of the matching engine: prices in ticks, quantities, ids and the enums that
// name every outcome. Everything here is trivially copyable, so commands and events are
// copied into preallocated ring slots (journal::Pipeline) without allocating; the journal
// stores commands field by field through exchange::EngineCodec, not as raw bytes.
#ifndef CFX_ENGINE_TYPES_H_
#define CFX_ENGINE_TYPES_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "cfx/engine/units.h"  // PriceTicks (ticks of 0.001 USD per GPU-hour), Qty, MicroUsd

namespace cfx::engine {

using OrderId = uint64_t;    // exchange-assigned, starts at 1, never reused
using Timestamp = int64_t;   // nanoseconds since the Unix epoch (an input, never read from a clock)
using AccountId = uint32_t;  // interned names (engine-local, assigned in order of first sight)
using FirmId = uint32_t;
using StpId = uint32_t;
using SymbolId = uint32_t;
using SessionId = uint32_t;  // 0: the order belongs to no session

inline constexpr uint32_t kNoSlot = 0xffffffffu;
inline constexpr Timestamp kNoTime = INT64_MIN;

// Short fixed-capacity string (ids, accounts, symbols): no heap, trivially copyable.
template <size_t N>
struct FixedString {
  static_assert(N < 256);
  char data[N] = {};
  uint8_t len = 0;

  // Returns false (and leaves *this empty) when `s` does not fit.
  bool Assign(std::string_view s) {
    if (s.size() > N) {
      len = 0;
      return false;
    }
    if (!s.empty()) std::memcpy(data, s.data(), s.size());  // an empty view may hold nullptr
    len = static_cast<uint8_t>(s.size());
    return true;
  }
  static FixedString From(std::string_view s) {
    FixedString f;
    f.Assign(s);
    return f;
  }
  std::string_view view() const { return std::string_view(data, len); }
  bool empty() const { return len == 0; }
  // Eight bytes at a time over the length (bytes past it, left over from a longer value, do
  // not count): no call to memcmp, which was a tenth of a name lookup.
  friend bool operator==(const FixedString& a, const FixedString& b) {
    if (a.len != b.len) return false;
    size_t i = 0;
    for (; i + 8 <= a.len; i += 8) {
      uint64_t x, y;
      std::memcpy(&x, a.data + i, 8);
      std::memcpy(&y, b.data + i, 8);
      if (x != y) return false;
    }
    if (i == a.len) return true;
    if constexpr (N % 8 == 0) {  // the last partial word lies inside data: mask it
      static_assert(std::endian::native == std::endian::little);
      uint64_t x, y;
      std::memcpy(&x, a.data + i, 8);
      std::memcpy(&y, b.data + i, 8);
      const uint64_t mask = (uint64_t{1} << (8 * (a.len - i))) - 1;
      return ((x ^ y) & mask) == 0;
    } else {
      return std::memcmp(a.data + i, b.data + i, a.len - i) == 0;
    }
  }
};

inline constexpr size_t kMaxIdLength = 32;
using ClientId = FixedString<kMaxIdLength>;  // the client's order id (FIX ClOrdID)
using Name = FixedString<kMaxIdLength>;      // account, firm, STP id or symbol

enum class Side : uint8_t { kBuy, kSell };
enum class OrderType : uint8_t { kLimit, kMarket, kStop, kStopLimit };
enum class TimeInForce : uint8_t { kDay, kGtc, kIoc, kFok, kGtd };
enum class StpAction : uint8_t { kCancelResting, kCancelAggressor, kCancelBoth };
// kExpired: delisted after its last trading day (the exchange sets it at that day's close):
// every order was canceled `expired`; new orders are refused `market_closed`, and no later
// StateCmd changes it.
enum class TradingState : uint8_t { kPreOpen, kOpen, kHalted, kClosed, kExpired };
enum class Aggressor : uint8_t { kBuy, kSell, kNone };

enum class RejectReason : uint8_t {
  kNone,
  kInvalidField,
  kUnknownSymbol,
  kMarketClosed,
  kHalted,
  kDuplicateClientId,
  kInvalidQty,
  kQtyAboveMax,
  kInvalidPriceTick,
  kPriceOutsideBand,
  kInvalidStopPrice,
  kPostOnlyWouldCross,
  kUnknownOrder,
  kInsufficientMargin,
  kAccountNotPermitted,
  kThrottled,
};

enum class CancelReason : uint8_t {
  kUser,
  kIoc,
  kFok,
  kStp,
  kExpired,
  kMass,
  kDisconnect,
  kNoLiquidity,
  kReplacedToZero,
};

// Lifecycle of an order as the FIX gateway reports it (OrdStatus).
enum class OrderStatus : uint8_t {
  kPendingStop,      // accepted stop waiting for its trigger
  kNew,              // resting, nothing executed
  kPartiallyFilled,  // resting, part executed
  kFilled,
  kCanceled,  // ended by any cancel reason (incl. expiry); cum may be > 0
};

// One step of the state hashes (Engine::StateHash, OrderBook::StateHash): folds `v` into `h`.
inline uint64_t HashMix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDull;
}

// Filled or canceled: the order is out of the book for good.
inline bool Ended(OrderStatus s) { return s == OrderStatus::kFilled || s == OrderStatus::kCanceled; }

inline Side Opposite(Side s) { return s == Side::kBuy ? Side::kSell : Side::kBuy; }

// Stable wire names used by replay (SPEC §4.1).
std::string_view ToString(Side v);
std::string_view ToString(OrderType v);
std::string_view ToString(TimeInForce v);
std::string_view ToString(StpAction v);
std::string_view ToString(TradingState v);
std::string_view ToString(Aggressor v);
std::string_view ToString(RejectReason v);
std::string_view ToString(CancelReason v);
std::string_view ToString(OrderStatus v);

}  // namespace cfx::engine

#endif  // CFX_ENGINE_TYPES_H_
