// The FIX gateway's order-entry boundary bound to the real exchange core (SPEC §6 over §4):
// requests become sequenced engine commands (`ExchangeCore::Submit`), durable outcomes
// become ExecutionListener calls (ExecutionReports, cancel rejects, mass-cancel reports,
// market data).
//
//   ExchangeCore core(config, options);
//   ExchangeOrderEntry entry(&core, sessions); // registers itself as an outcome listener
//   FixGateway gateway(FixGatewayConfigFromExchange(config), &entry);
//   entry.SetListener(&gateway);
//   core.Start(); entry.Start();               // publishes the security list
//   ...
//   gateway.Stop(); entry.Stop(); core.Stop();
//
// Validation of symbol, price band, quantity and duplicates is the engine's: its reject
// reasons become ExecutionReport rejects. The gateway keeps entitlements (account of the
// firm) and throttling. Only ids longer than the engine's 32 characters are refused here
// (`invalid_field`). A full input ring is retried briefly, then rejected `throttled`.
//
// Sessions map to engine SessionIds by a hash of the SenderCompID (stable across restarts
// and config edits, checked for collisions), so cancel-on-disconnect finds a session's
// orders in a recovered book.
#ifndef CFX_GATEWAY_EXCHANGE_ORDER_ENTRY_H_
#define CFX_GATEWAY_EXCHANGE_ORDER_ENTRY_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/gateway/order_entry.h"

namespace cfx::gateway {

// Session name <-> engine SessionId (FNV-1a of the name; never 0).
engine::SessionId SessionIdOf(std::string_view sender_comp_id);

// Thread safety: the OrderEntry methods may be called from any thread concurrently. The
// listener is called from the core's publisher thread (outcomes) and from this object's own
// worker thread (status answers, local rejects), never from inside an OrderEntry call.
class ExchangeOrderEntry : public OrderEntry, public exchange::OutcomeListener {
 public:
  // `core` must outlive this object; must be constructed before core->Start() (it adds
  // itself as a listener). `sessions` are the configured SenderCompIDs.
  ExchangeOrderEntry(exchange::ExchangeCore* core, const std::vector<std::string>& sessions);
  ~ExchangeOrderEntry() override;

  // REQUIRES: before Start. `listener` must outlive Stop().
  void SetListener(ExecutionListener* listener);
  // Starts the worker thread and publishes the security list. InvalidArgument when two
  // session names hash to one id. REQUIRES: the core has started.
  absl::Status Start();
  // Reports a crash kept from going out (docs/durability.md). Set before Start, `path`
  // (`<data_dir>/fix/reported`) holds the last input whose reports the listener's stores
  // hold, and Start holds every outcome back until StartReports. `recovered_last`: the last
  // input the core recovered from its journal (RecoveryInfo::next_seq - 1).
  void SetReportedFile(std::string path, uint64_t recovered_last);
  // The same for a replicated exchange, whose stream carries the mark instead of a file
  // (docs/replication.md, "Reports after a failover"): set before Start on the node that
  // leads, `recovered_last` the last input its core holds. StartReports then reports the
  // inputs after the stream's mark (FixSessionTable::ReportsSentMark: the old primary's;
  // none recorded: from here on), and while leading this entry records the mark as it
  // moves (an input at most every 50 ms while reports go out).
  void SetReportsFromStream(uint64_t recovered_last);
  // Once the listener takes reports (FixGateway::Start: its sessions' stores exist):
  // delivers, computed again from the journal, the outcomes of the inputs after the file's
  // seq (none when the file is new) that the core recovered, marked PossResend, and then
  // those of the inputs sequenced since the core started; then delivers as outcomes come,
  // and keeps the file following what reached the listener's stores (at each OnIdle, at
  // most every 10 ms). Errors: the file cannot be read or written (DataLoss naming it when
  // damaged), the journal cannot be read. REQUIRES: SetReportedFile or
  // SetReportsFromStream, Start.
  absl::Status StartReports();
  // The file moves no more (before the listener stops: what comes after is reported again
  // at the next start). Idempotent; Stop calls it.
  void StopReports();
  // The last input whose reports the listener had when it last became idle (OnIdle): what
  // StopReports writes. Any thread.
  uint64_t ReportedThrough() const;
  // Offers the cancel-on-disconnects that wait for room in the core's ring (postponed when a
  // logout found it full), retrying until each is taken or `budget` passes. For a clean
  // stop: after the gateway logged its sessions out, before the core stops. Any thread that
  // may block. Those not taken are named on stderr. Returns how many were left.
  size_t FlushDisconnectCancels(std::chrono::milliseconds budget);
  // Answers what is queued on the worker, then joins it. Idempotent.
  void Stop();

  // OrderEntry
  void Submit(const NewOrder& request) override;
  void Cancel(const CancelOrder& request) override;
  void Replace(const ReplaceOrder& request) override;
  void Status(const OrderStatus& request) override;
  void MassCancelOrders(const MassCancel& request) override;
  void Disconnected(const SessionDisconnected& request) override;
  void RefuseAmend(const CancelRejected& refusal) override;
  // A replicated core: sequences a `fix_session` input (engine::FixSessionCmd). One node:
  // nothing (true).
  bool RecordSequences(const SessionSequences& sequences) override;
  // A replicated core: sequences a `fix_session` mark (the session sent `msg_seq`) and runs
  // `answer` at its ack, on the delivering thread. One node: false (answer now).
  bool AnswerWhenRecorded(const std::string& session, uint64_t msg_seq,
                          const std::function<void()>& answer) override;
  // Where each configured session stands in the core's state (after Promote: as the old
  // primary left it), for FixGateway::ResumeSessions.
  std::vector<SessionSequences> ResumeSequences() const;
  // A node taking over: sequences, for each of `resume` (ResumeSequences), a sender limit
  // kSenderReserve past the one it resumes at, and waits until the core has applied them:
  // before any message goes out from the resumed numbers, so that a node taking over from
  // this one never sends them again. Error: the order path did not take them.
  absl::Status ReserveSenderSequences(const std::vector<SessionSequences>& resume);

  // exchange::OutcomeListener (publisher thread)
  void OnOutcome(uint64_t seq, uint64_t tag, const exchange::Outcome& outcome) override;
  void OnAck(uint64_t seq, uint64_t tag, int64_t time_us) override;
  void OnIdle() override;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_EXCHANGE_ORDER_ENTRY_H_
