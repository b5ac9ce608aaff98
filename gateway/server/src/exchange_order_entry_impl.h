// ExchangeOrderEntry::Impl: what the two halves of ExchangeOrderEntry share — the requests
// in flight, the worker that answers locally, the cancel-on-disconnect retries — and the
// offering of commands. Requests in: exchange_order_entry.cc; outcomes out as listener
// calls: exchange_order_entry_outcomes.cc.
#ifndef CFX_GATEWAY_SERVER_SRC_EXCHANGE_ORDER_ENTRY_IMPL_H_
#define CFX_GATEWAY_SERVER_SRC_EXCHANGE_ORDER_ENTRY_IMPL_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "cfx/gateway/exchange_order_entry.h"
#include "cfx/gateway/execid_generation.h"
#include "report_watermark.h"

namespace cfx::gateway {

namespace en = cfx::engine;

namespace internal {

// How often a full input ring is retried before the request is refused `throttled`.
constexpr int kFullRetries = 2000;

// What the publisher needs to answer one request: the request itself, as sent.
struct Pending {
  // kAnswer: the `fix_session` mark of a request refused before it became an input
  // (AnswerWhenRecorded): `answer` sends the refusal at the mark's ack.
  enum class Kind { kNew, kCancel, kReplace, kMass, kDisconnect, kAnswer };
  Kind kind = Kind::kNew;
  OrderState asked;            // kNew: the order as asked (for rejects)
  bool poss_dup_unplaced = false;  // kNew: 43=Y, and no order found under its ClOrdID
  std::string cl_ord_id;       // cancel/replace/mass: the request's id
  std::string orig_cl_ord_id;  // cancel/replace: the order named
  MassCancelResult mass;       // kMass: filled as outcomes arrive
  std::function<void()> answer;  // kAnswer
};

}  // namespace internal

class ExchangeOrderEntry::Impl {
 public:
  using Pending = internal::Pending;

  Impl(exchange::ExchangeCore* core, const std::vector<std::string>& sessions) : core_(core) {
    for (const std::string& s : sessions) {
      auto [it, inserted] = session_names_.emplace(SessionIdOf(s), s);
      if (!inserted && it->second != s) collision_ = absl::StrCat(it->second, " and ", s);
    }
  }

  exchange::ExchangeCore* core_;
  ExecutionListener* listener_ = nullptr;
  absl::flat_hash_map<en::SessionId, std::string> session_names_;  // immutable after ctor
  std::string collision_;

  // Requests in flight, by tag. Producers insert, the publisher erases at the ack. A node
  // map: the publisher keeps a pointer to an entry across producers' inserts (rehashes).
  std::mutex pending_mu_;
  absl::node_hash_map<uint64_t, Pending> pending_;
  std::atomic<uint64_t> next_tag_{1};

  // Publisher thread only: symbols whose book changed during the current input.
  std::vector<std::string> touched_;
  std::vector<uint32_t> touched_waits_;    // by touched_'s index: acks it has waited for
  std::atomic<uint64_t> listing_seen_{0};  // the ListingVersion of the last list handed over

  // The worker: status answers and local rejects, so that no listener call happens inside
  // an OrderEntry call.
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread worker_;

  // Sessions whose cancel-on-disconnect met a full ring: offered again at each end of a
  // delivery burst (OnIdle, when the matcher has freed room), and their new orders refused
  // meanwhile, so that the late mass cancel cannot cancel the orders of the client's next
  // connection. The count keeps the order path to one load.
  struct DisconnectCancel {
    en::MassCancelCmd command;
    Pending pending;
  };
  std::mutex disconnect_mu_;
  absl::flat_hash_set<en::SessionId> disconnect_pending_;
  std::vector<DisconnectCancel> disconnect_retry_;  // under disconnect_mu_
  std::atomic<int> disconnect_pending_n_{0};

  // Offers what waits in disconnect_retry_, once each, without waiting.
  void RetryDisconnectCancels() {
    if (disconnect_pending_n_.load(std::memory_order_acquire) == 0) return;
    std::lock_guard<std::mutex> lock(disconnect_mu_);
    auto& q = disconnect_retry_;
    for (size_t i = 0; i < q.size();) {
      const exchange::OfferResult r = OfferOnce(q[i].command, q[i].pending);
      if (r == exchange::OfferResult::kFull) {
        ++i;
        continue;
      }
      if (r != exchange::OfferResult::kAccepted) {  // stopped, or no longer the leader
        std::cerr << "cfx serve: the cancel-on-disconnect of session " << q[i].command.session
                  << " could not be sequenced (the core "
                  << (r == exchange::OfferResult::kNotLeader ? "no longer leads" : "stopped")
                  << "): its orders stay\n";
      }
      disconnect_pending_.erase(q[i].command.session);
      disconnect_pending_n_.fetch_sub(1, std::memory_order_release);
      q.erase(q.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  bool DisconnectCancelPending(en::SessionId session) {
    if (disconnect_pending_n_.load(std::memory_order_acquire) == 0) return false;
    std::lock_guard<std::mutex> lock(disconnect_mu_);
    return disconnect_pending_.contains(session);
  }

  void Post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      std::function<void()> task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  const std::string& SessionName(en::SessionId id) const {
    static const std::string kNone;
    auto it = session_names_.find(id);
    return it == session_names_.end() ? kNone : it->second;
  }

  // Registers the request and offers the command; on kFull (after retries) or kStopped the
  // request is forgotten.
  exchange::OfferResult Offer(const en::Command& command, Pending pending) {
    return Register(command, std::move(pending), internal::kFullRetries);
  }
  // As Offer, with one try: for the threads that must not wait (the delivering thread, and
  // QuickFIX callbacks under a session's lock).
  exchange::OfferResult OfferOnce(const en::Command& command, Pending pending) {
    return Register(command, std::move(pending), 1);
  }
  exchange::OfferResult Register(const en::Command& command, Pending pending, int tries) {
    const uint64_t tag = next_tag_.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(pending_mu_);
      pending_.emplace(tag, std::move(pending));
    }
    const exchange::OfferResult r = SubmitRetrying(command, tag, tries);
    if (r != exchange::OfferResult::kAccepted) {
      std::lock_guard<std::mutex> lock(pending_mu_);
      pending_.erase(tag);
    }
    return r;
  }

  // Replicated: a request names its FIX session and MsgSeqNum (docs/replication.md, "FIX
  // sessions"). One node: none (QuickFIX's own store keeps the session).
  en::Origin OriginOf(const std::string& session, uint64_t msg_seq) const {
    if (!core_->replicated() || msg_seq == 0 || msg_seq > UINT32_MAX) return {};
    return en::Origin{SessionIdOf(session), static_cast<uint32_t>(msg_seq)};
  }
  // Submit, tried (yielding between tries) while the input ring is full, up to `tries`
  // times.
  exchange::OfferResult SubmitRetrying(const en::Command& command, uint64_t tag,
                                       int tries = internal::kFullRetries) {
    exchange::OfferResult r = exchange::OfferResult::kFull;
    for (int i = 0; i < tries && r == exchange::OfferResult::kFull; ++i) {
      r = core_->Submit(command, tag);
      if (r == exchange::OfferResult::kFull && i + 1 < tries) std::this_thread::yield();
    }
    return r;
  }

  // Whether a NewOrder flagged PossDup is an order the exchange has: one of the account with
  // its ClOrdID, entered on its session, for the same contract, side, quantity and price.
  // Then it is dropped. (A day's ClOrdIDs may be used again the next day: the terms tell a
  // resend from a new order.)
  bool AlreadyHas(const NewOrder& r, bool* named) const;  // *named: FindOrder found one
  // The same for a replace: the order now has the replace's ClOrdID and its terms.
  bool AlreadyHas(const ReplaceOrder& r) const;

  // OrderEntry::AnswerWhenRecorded: a replicated core sequences a `fix_session` mark, the
  // session having sent `msg_seq` (the next expected is the one after), and `answer` goes
  // out at its ack, in order with the session's other inputs. The mark is offered on the
  // caller's thread before the session's next request, so a mark never moves the expected
  // number back past a later request's. False (answer now): one node, no number, or a
  // full order path (an overload: the refusal goes out unrecorded, docs/replication.md).
  // `tries`: offers of the mark while the ring is full (1 after the request's own offer
  // found it full: a second wait under the session's lock would only hold the matcher's
  // reports to this session longer).
  bool AnswerWhenRecorded(const std::string& session, uint64_t msg_seq,
                          const std::function<void()>& answer, int tries = internal::kFullRetries) {
    const en::Origin origin = OriginOf(session, msg_seq);
    if (origin.msg_seq == 0) return false;
    Pending p;
    p.kind = Pending::Kind::kAnswer;
    p.answer = answer;
    const en::FixSessionCmd mark{origin.session, uint64_t{origin.msg_seq} + 1, 0};
    // Not the leader any more, or stopping: not answered; the client's resend reaches the
    // next primary, which has no record of the request and processes it once.
    return Register(mark, std::move(p), tries) != exchange::OfferResult::kFull;
  }
  // Answers a request refused here: from the worker thread, or (replicated) at its mark's
  // ack (AnswerWhenRecorded).
  void AnswerRefused(const std::string& session, uint64_t msg_seq, std::function<void()> answer,
                     int tries = internal::kFullRetries) {
    if (!AnswerWhenRecorded(session, msg_seq, answer, tries)) Post(std::move(answer));
  }
  // Refuses a new order locally (AnswerRefused).
  void RejectNew(const OrderState& asked, const std::string& reason, uint64_t msg_seq,
                 int tries = internal::kFullRetries) {
    AnswerRefused(
        asked.session, msg_seq, [this, asked, reason] { listener_->OnRejected(asked, reason); },
        tries);
  }
  // Offers the cancel or replace `command` of the request `refusal` describes; refuses it
  // `throttled` when the input ring stays full.
  void OfferAmend(const en::Command& command, Pending::Kind kind, CancelRejected refusal) {
    Pending p;
    p.kind = kind;
    p.asked.session = refusal.session;
    p.asked.account = refusal.account;
    p.cl_ord_id = refusal.cl_ord_id;
    p.orig_cl_ord_id = refusal.orig_cl_ord_id;
    if (Offer(command, std::move(p)) != exchange::OfferResult::kAccepted) {
      refusal.reason = "throttled";
      RejectCancel(refusal, 1);
    }
  }

  // Answers a cancel or replace refused before the engine saw it. Unless the order is
  // unknown (or another firm's: the same answer), the report carries the order's id and
  // state when it is live (FIX 37/39: a working order is not reported as rejected).
  void RejectCancel(CancelRejected r, int tries = internal::kFullRetries) {
    const std::string session = r.session;
    const uint64_t msg_seq = r.msg_seq;
    AnswerRefused(
        session, msg_seq,
        [this, r]() mutable {
          if (r.reason != "unknown_order" && !r.order_live) {
            std::optional<exchange::OrderStateView> v =
                core_->FindOrder(r.account, r.orig_cl_ord_id);
            if (v && !en::Ended(v->status)) {
              r.order_live = true;
              r.order_id = v->oid;
              r.cum_qty = v->cum.value();
            }
          }
          listener_->OnCancelRejected(r);
        },
        tries);
  }

  // Outcomes out (exchange_order_entry_outcomes.cc), on the delivering thread unless said.

  // The exchange time of the input an outcome came from, in µs (0: none, the report says
  // "now"): the TransactTime of its reports (SPEC §5).
  static int64_t TimeUs(const exchange::Outcome& o);

  // An engine order as the gateway reports it.
  OrderState StateOf(const en::OrderInfo& info, const en::Name& acct, const en::Name& sym,
                     const exchange::OrderDetail& d, int64_t time_us = 0) const;

  // The order of outcome `o` (on a trade, with `seller`, the seller's) as its report
  // describes it, with the report's ExecID (NumberOutcome). Delivering thread.
  OrderState ReportOf(const exchange::Outcome& o, bool seller = false) const;

  // Notes that the book of `sym` changed during the current input (OnAck publishes it).
  void Touch(const en::Name& sym);

  // The request in flight under `tag`, or nullptr (tag 0: not an order entry's input).
  // Publisher thread: it alone erases or changes entries, and node_hash_map keeps element
  // addresses across producers' inserts, so the pointer stays valid without the lock.
  Pending* FindPending(uint64_t tag);

  // Turns one engine event of a durable input into listener calls. `tag` is Submit's.
  void OnEvent(uint64_t tag, const exchange::Outcome& o);

  // A reject: counted into a mass cancel's result, else an order reject (as asked, when the
  // request is ours).
  void DeliverRejected(const exchange::Outcome& o, Pending* p);

  // A trade: a fill to each side's order, then the public trade.
  void DeliverTrade(const exchange::Outcome& o);

  // A cancel, answered to the cancel or replace request that caused it (its session and
  // ids), or counted into a mass cancel's result.
  void DeliverCanceled(const exchange::Outcome& o, Pending* p);

  // A replace, answered to the amending session with the order's new price and quantity.
  void DeliverReplaced(const exchange::Outcome& o, Pending* p);

  // A refused cancel or replace, with the request's ids and whether the order still works.
  void DeliverCancelRejected(const exchange::Outcome& o, const Pending* p);

  // Hands the current listing to the listener, through the worker like the first one so
  // that lists arrive in the order they were read. Any thread; PostListing calls race only
  // in the harmless way (a list re-sent).
  void PostListing();
  // Hands the listener every listed symbol's book and last trade as the exchange recovered
  // them (Start, before any connection): FIX market data otherwise hears of a book only when
  // an input changes it, so after a restart a `V` found every book empty and no last trade.
  void PublishRecoveredMarket();

  // The end of an input: the books it changed, a new listing, a mass cancel's result.
  void OnAck(uint64_t seq, uint64_t tag, int64_t time_us);

  // --- Reports a crash kept from going out (exchange_order_entry_reports.cc) ------------
  // docs/durability.md, "Reports a crash kept from going out". Until StartReports, the
  // outcomes of every input are held back (not delivered; held_through_ remembers the last
  // such input); StartReports computes them again from the journal, with those after the
  // watermark the crash left, and delivers them; then inputs after live_after_ are
  // delivered as they come. Without a watermark file, Start goes live at once.

  // Whether the outcomes of input `seq` are delivered now (else held back). Delivering
  // thread.
  bool Delivers(uint64_t seq) {
    if (live_.load(std::memory_order_acquire)) return seq > live_after_;
    std::lock_guard<std::mutex> lock(gate_mu_);
    if (live_.load(std::memory_order_relaxed)) return seq > live_after_;
    held_through_ = std::max(held_through_, seq);
    return false;
  }
  // Numbers the outcome about to be delivered: its reports' ExecIDs are "<seq>-<n>", n
  // = 2 × its place among the input's events (+ 1 for a trade's second fill).
  void NumberOutcome(uint64_t seq) {
    if (seq != exec_seq_) {
      exec_seq_ = seq;
      exec_index_ = 0;
    } else {
      ++exec_index_;
    }
  }
  // `<seq>-<n>`; `<seq>.<g>-<n>` from the first seq of ExecID generation g on (after an
  // operator cut the journal's tail: cfx/gateway/execid_generation.h).
  std::string ExecId(int leg) const {
    if (const uint32_t g = GenerationOf(exec_generations_, exec_seq_); g > 0) {
      return absl::StrCat(exec_seq_, ".", g, "-", 2 * exec_index_ + leg);
    }
    return absl::StrCat(exec_seq_, "-", 2 * exec_index_ + leg);
  }
  // The request a journaled command was, as Submit & co. register it, under a new tag (0
  // when the command is no request answered as such).
  uint64_t RegisterReplayed(const en::Command& command);
  // After the listener's OnIdle: what was delivered is in the sessions' stores.
  void AfterIdle();
  // gate_mu_ held. Writes `seq`, or `if_held` while the listener holds something outside
  // its stores (ExecutionListener::HoldsUnstored: the file must not get ahead of them).
  absl::Status WriteWatermark(uint64_t seq, uint64_t if_held);

  // A replicated leader: the mark travels in the stream (SetReportsFromStream).
  // Set by SetReportsFromStream on the promoting (keeper) thread, read by Stop's.
  std::atomic<bool> reports_from_stream_{false};
  std::atomic<uint64_t> last_mark_{0};  // the last mark offered: what StopReports keeps when
                                        // something is held outside the stores
  // Delivering thread: offers the stream's mark when reports went out since the last one.
  void MarkReportsSent();
  static constexpr std::chrono::milliseconds kMarkEvery{50};
  // StartReports for a replicated leader. gate_mu_ held.
  absl::Status StartReportsFromStream();
  uint64_t marked_ = 0;                // the last mark offered (or found at StartReports)
  bool delivered_since_mark_ = false;  // an outcome was handed to the listener since
  std::chrono::steady_clock::time_point marked_at_{};
  std::string reported_path_;   // empty: no watermark (live at Start)
  uint64_t recovered_last_ = 0;  // the last input the core recovered from the journal
  std::unique_ptr<internal::ReportWatermark> watermark_;  // under gate_mu_ once live
  std::mutex gate_mu_;
  std::atomic<bool> live_{false};
  uint64_t live_after_ = 0;    // set before live_: inputs up to it were reported by replay
  uint64_t held_through_ = 0;  // under gate_mu_
  // The answers of refusals whose marks were acknowledged while outcomes were held back
  // (before StartReports): a mark has no outcome to report again, so StartReports sends
  // them once it has reported the rest. Under gate_mu_.
  std::vector<std::function<void()>> held_answers_;
  bool frozen_ = false;        // under gate_mu_: StopReports ran; the file moves no more
  uint64_t written_ = 0;       // under gate_mu_: what the file holds
  bool watermark_written_ = false;      // under gate_mu_: written_ was written by this run
  std::atomic<uint64_t> confirmed_{0};  // the last input acked before a listener's OnIdle
  // The delivering thread's (or, before live_, StartReports's):
  uint64_t exec_seq_ = 0;
  uint64_t exec_index_ = 0;
  // Set by StartReports before any outcome is numbered (the delivering thread waits on the
  // gate until then), read by the delivering thread.
  std::vector<ExecIdGeneration> exec_generations_;  // every journal cut's (StartReports)
  bool poss_resend_ = false;
  uint64_t acked_ = 0;
  std::chrono::steady_clock::time_point written_at_{};
};

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_SERVER_SRC_EXCHANGE_ORDER_ENTRY_IMPL_H_
