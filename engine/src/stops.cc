// Pending stops and the trigger cascade (§4, §4.2): the incoming order completes first;
// then the stops its prints triggered enter, print by print, breadth-first.
#include <algorithm>
#include <cassert>

#include "cfx/engine/order_book.h"

namespace cfx::engine {

void OrderBook::AddStop(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  o.prev = stop_tail_;
  o.next = kNoSlot;
  if (stop_tail_ != kNoSlot) ctx_->store.at(stop_tail_).next = slot; else stop_head_ = slot;
  stop_tail_ = slot;
  ++stops_;
}

void OrderBook::RemoveStop(uint32_t slot) {
  Order& o = ctx_->store.at(slot);
  OrderStore& st = ctx_->store;
  if (o.prev != kNoSlot) st.at(o.prev).next = o.next; else stop_head_ = o.next;
  if (o.next != kNoSlot) st.at(o.next).prev = o.prev; else stop_tail_ = o.prev;
  o.prev = o.next = kNoSlot;
  --stops_;
}

void OrderBook::RunTriggers() {
  while (!prints_.empty()) {
    gen_prints_.swap(prints_);
    prints_.clear();
    triggered_.clear();
    for (PriceTicks p : gen_prints_) {
      size_t first = triggered_.size();
      for (uint32_t s = stop_head_; s != kNoSlot;) {
        Order& o = ctx_->store.at(s);
        uint32_t next = o.next;
        if (o.side == Side::kBuy ? o.stop_px <= p : o.stop_px >= p) {
          RemoveStop(s);
          triggered_.push_back(s);
        }
        s = next;
      }
      // Buys by ascending stop, sells by descending stop: both are "farthest from the
      // print first"; that one key also orders buys against sells. Then submission time
      // (priority_seq: entry, or a replace that lost priority).
      std::sort(triggered_.begin() + first, triggered_.end(), [&](uint32_t x, uint32_t y) {
        const Order& a = ctx_->store.at(x);
        const Order& b = ctx_->store.at(y);
        PriceTicks da = a.stop_px > p ? a.stop_px - p : p - a.stop_px;
        PriceTicks db = b.stop_px > p ? b.stop_px - p : p - b.stop_px;
        if (da != db) return da > db;
        return a.priority_seq < b.priority_seq;
      });
    }
    gen_prints_.clear();
    for (uint32_t s : triggered_) {
      Order& o = ctx_->store.at(s);
      o.type = o.type == OrderType::kStop ? OrderType::kMarket : OrderType::kLimit;
      o.status = OrderStatus::kNew;
      Event& e = ctx_->Emit(EventType::kTriggered);
      e.sym = config_.id;
      e.has_sym = true;
      FillOrderInfo(&e.order, o);
      Execute(s);
    }
    triggered_.clear();
  }
}

}  // namespace cfx::engine
