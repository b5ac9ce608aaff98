// The queue of book and trade updates that wait for the FIX market data's state
// (fix_market_data.h): a preallocated single-producer single-consumer ring behind a pointer.
// The ring (concurrency::SpscRing) is C++17 and aligned to cache lines; the market data is
// compiled as C++14 with the QuickFIX headers, where an over-aligned member would make the
// gateway's `new` under-aligned. So the ring lives in market_update_queue.cc (C++20) and this
// header names no part of it.
//
// Thread safety: as SpscRing's: one producer calls TryPush, one consumer TryPop (each may
// change over time only with an external happens-before); SizeApprox from any thread.
#ifndef CFX_GATEWAY_FIX_MARKET_UPDATE_QUEUE_H_
#define CFX_GATEWAY_FIX_MARKET_UPDATE_QUEUE_H_

#include <cstddef>
#include <memory>

#include "cfx/gateway/order_entry.h"

namespace cfx {
namespace gateway {
namespace internal {

struct MarketUpdate {
  bool is_trade = false;
  BookUpdate book;    // !is_trade
  PublicTrade trade;  // is_trade
};

class MarketUpdateQueue {
 public:
  explicit MarketUpdateQueue(size_t capacity);  // REQUIRES: a power of two >= 2
  ~MarketUpdateQueue();
  MarketUpdateQueue(const MarketUpdateQueue&) = delete;
  MarketUpdateQueue& operator=(const MarketUpdateQueue&) = delete;

  // False, `update` untouched, when full. Producer only.
  bool TryPush(MarketUpdate&& update);
  // Moves the oldest into *out; false when empty. Consumer only.
  bool TryPop(MarketUpdate* out);
  // How many wait (exact when neither side is moving); any thread.
  size_t SizeApprox() const;

 private:
  struct Ring;
  std::unique_ptr<Ring> ring_;
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_MARKET_UPDATE_QUEUE_H_
