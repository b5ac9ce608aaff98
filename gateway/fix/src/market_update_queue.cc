#include "market_update_queue.h"

#include <utility>

#include "cfx/concurrency/spsc_ring.h"

namespace cfx::gateway::internal {

struct MarketUpdateQueue::Ring {
  explicit Ring(size_t capacity) : ring(capacity) {}
  concurrency::SpscRing<MarketUpdate> ring;
};

MarketUpdateQueue::MarketUpdateQueue(size_t capacity) : ring_(std::make_unique<Ring>(capacity)) {}

MarketUpdateQueue::~MarketUpdateQueue() = default;

bool MarketUpdateQueue::TryPush(MarketUpdate&& update) {
  return ring_->ring.TryPush(std::move(update));
}

bool MarketUpdateQueue::TryPop(MarketUpdate* out) { return ring_->ring.TryPop(*out); }

size_t MarketUpdateQueue::SizeApprox() const { return ring_->ring.SizeApprox(); }

}  // namespace cfx::gateway::internal
