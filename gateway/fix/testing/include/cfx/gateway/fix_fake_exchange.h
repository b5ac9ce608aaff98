// An in-memory stand-in for the exchange behind OrderEntry (a test double, target
// cfx_fix_testing): for the FIX gateway's tests and for `cfx bench fix --fake`, which
// measures the gateway alone. The real binding is gateway/server's ExchangeOrderEntry
// (cfx/gateway/exchange_order_entry.h). NOT the engine: it rests and crosses limit
// and market orders price-time, handles IOC/FOK, post-only, stops, cancel, replace, mass
// cancel and cancel-on-disconnect, and publishes books and trades. No bands, no STP, no
// auction, no margin. C++14-clean.
//
//   FakeExchange exchange({"B200-GOLD-US-202703"});
//   FixGateway gateway(config, &exchange);
//   exchange.SetListener(&gateway);
//   exchange.Start();
#ifndef CFX_GATEWAY_FIX_FAKE_EXCHANGE_H_
#define CFX_GATEWAY_FIX_FAKE_EXCHANGE_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cfx/gateway/order_entry.h"

namespace cfx {
namespace gateway {
namespace testing {

// Thread safety: the OrderEntry methods may be called from any thread; they enqueue, and
// one worker thread processes requests in order and calls the listener (never from inside
// an OrderEntry call, as the contract requires).
class FakeExchange : public OrderEntry {
 public:
  explicit FakeExchange(std::vector<std::string> symbols, int64_t max_order_qty = 1000);
  ~FakeExchange() override;

  // REQUIRES: before Start. `listener` must outlive Stop().
  void SetListener(ExecutionListener* listener) { listener_ = listener; }
  // Starts the worker and publishes the security list.
  void Start();
  // Processes what is queued, then joins the worker. Idempotent.
  void Stop();
  // Blocks until every request enqueued before the call has been processed.
  void Drain();

  void Submit(const NewOrder& request) override;
  void Cancel(const CancelOrder& request) override;
  void Replace(const ReplaceOrder& request) override;
  void Status(const OrderStatus& request) override;
  void MassCancelOrders(const MassCancel& request) override;
  void RefuseAmend(const CancelRejected& refusal) override;
  void Disconnected(const SessionDisconnected& request) override;

  // Runs `deliver` on the worker, in order with the requests, with the listener: a test's
  // own report, such as the exchange would make for an order entered under an older config.
  void Inject(std::function<void(ExecutionListener&)> deliver);

  // As a replicated exchange (AnswerWhenRecorded): from now on each refusal the gateway
  // makes is recorded as (session, MsgSeqNum) and its answer held until ReleaseRefusals,
  // which runs the held answers on the worker, in order. Off by default: answered at once.
  void HoldRefusals();
  void ReleaseRefusals();
  std::vector<std::pair<std::string, uint64_t>> RecordedRefusals();
  bool AnswerWhenRecorded(const std::string& session, uint64_t msg_seq,
                          const std::function<void()>& answer) override;

  class Book;  // matching state, worker thread only

 private:
  void Post(std::function<void()> task);
  void Run();

  std::vector<std::string> symbols_;
  int64_t max_order_qty_;
  ExecutionListener* listener_ = nullptr;
  std::unique_ptr<Book> book_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  uint64_t posted_ = 0, done_ = 0;
  std::thread worker_;

  std::mutex refusals_mu_;
  bool hold_refusals_ = false;
  std::vector<std::pair<std::string, uint64_t>> recorded_;
  std::vector<std::function<void()>> held_;
};

}  // namespace testing
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_FAKE_EXCHANGE_H_
