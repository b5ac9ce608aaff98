// Market data for FIX sessions: the listed symbols (SecurityList `y`), the latest book and
// trade per symbol, and per-session subscriptions (MarketDataRequest `V` -> snapshot `W`,
// then incrementals `X`; `Y` for a bad request).
#ifndef CFX_GATEWAY_FIX_MARKET_DATA_H_
#define CFX_GATEWAY_FIX_MARKET_DATA_H_

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cfx/gateway/fix_quickfix.h"
#include "cfx/gateway/order_entry.h"
#include "market_update_queue.h"

namespace cfx {
namespace gateway {
namespace internal {

// Thread safety: the state is mu_'s, and messages are sent while it is held, so a session
// sees its snapshot before the incrementals that follow it. `send` must not call back into
// MarketData. Lock order: mu_ before the gateway's session lock.
//
// OnBook and OnTrade come from the thread delivering the matcher's outcomes (in `cfx
// serve`, the matcher's own: SPEC §2, the matcher never waits on a reader's lock). They
// never wait for mu_: the update goes into `pending_`, and whoever holds mu_ applies it,
// the delivering thread itself when mu_ is free (try_lock), else the request thread that
// holds it, before it lets go. Past the ring's 1,024 updates they wait in `overflow_`, under
// a lock held only to add or to take the whole list (never across a send); until
// 2026-12-07 the delivering thread then waited for mu_, i.e. for the request's sends.
class MarketData {
 public:
  // Sends `msg` to the session; returns false if the session is gone (subscription dropped).
  using Sender = std::function<bool(const std::string& session, uint64_t generation,
                                    FIX::Message& msg)>;
  // Live subscriptions (263=1) one session may hold; past it a request gets `Y` 281=2.
  static constexpr size_t kMaxSubscriptionsPerSession = 64;

  explicit MarketData(Sender send) : send_(std::move(send)) {}

  void SetContracts(const std::vector<ListedContract>& contracts);
  // Answers a SecurityListRequest `x` with `y`.
  void OnSecurityListRequest(const std::string& session, uint64_t generation,
                             const FIX::Message& request);
  // Answers a MarketDataRequest `V`: `W` per symbol (+ subscription) or `Y`.
  void OnRequest(const std::string& session, uint64_t generation, const FIX::Message& request);
  void OnBook(const BookUpdate& book);
  void OnTrade(const PublicTrade& trade);

 private:
  using Update = MarketUpdate;  // a book or trade update from the delivering thread
  // mu_ held: applies every update waiting, then lets mu_ go and applies what came in the
  // meantime if mu_ is free again (so nothing is left behind with no one to apply it).
  class Held {
   public:
    explicit Held(MarketData* md);
    ~Held();
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;

   private:
    MarketData* md_;
  };
  void Push(Update update);                   // the delivering thread
  void DrainLocked();                         // mu_ held
  void ApplyBook(BookUpdate book);            // mu_ held
  void ApplyTrade(const PublicTrade& trade);  // mu_ held
  // After mu_.unlock(): takes mu_ again and drains while updates wait and mu_ is free.
  void DrainIfFree();

  struct Subscription {
    std::string session;
    uint64_t generation = 0;  // the session's logon; a later logon ends the subscription
    std::string md_req_id;
    std::vector<std::string> symbols;
    size_t depth = 0;  // 0 = full book
    bool bids = false, offers = false, trades = false;
    std::map<std::string, BookUpdate> sent;  // what the client has, per symbol (cut to depth)
  };

  void Reject(const std::string& session, uint64_t generation, const std::string& md_req_id,
              char reason, const std::string& text);
  FIX::Message Snapshot(const Subscription& sub, const std::string& symbol) const;
  BookUpdate Cut(const BookUpdate& book, size_t depth) const;

  std::mutex mu_;
  // Producers of OnBook/OnTrade: one thread in `cfx serve` (the delivering one), so never
  // contended there; it keeps pending_ single-producer when a test feeds from several.
  std::mutex produce_mu_;
  MarketUpdateQueue pending_{1024};  // waiting for mu_; consumer: whoever holds mu_
  // Updates that came while the ring was full, in order, all newer than the ring's: while
  // any wait here the producer adds here, not to the ring. It grows only while one request
  // holds mu_ (the time to send one answer), by what the matcher publishes meanwhile.
  std::mutex overflow_mu_;
  std::deque<Update> overflow_;          // under overflow_mu_
  std::atomic<bool> overflowed_{false};  // !overflow_.empty(), read without the lock
  Sender send_;
  std::vector<std::string> symbols_;         // sorted
  std::vector<ListedContract> contracts_;    // sorted by symbol, as symbols_
  std::map<std::string, BookUpdate> books_;
  std::map<std::string, PublicTrade> last_trade_;
  std::vector<Subscription> subs_;
  uint64_t next_response_id_ = 1;
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_MARKET_DATA_H_
