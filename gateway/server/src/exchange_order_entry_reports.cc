// ExchangeOrderEntry (exchange_order_entry.h): the reports a crash kept from going out
// (docs/durability.md, "Reports a crash kept from going out"). Outcomes are delivered after
// the journal commit, so a kill -9 between the two leaves inputs in the journal whose
// reports reached no session's store. `<data_dir>/fix/reported` follows, lagging, the last
// input whose reports the stores hold; at a start the outcomes of the inputs after it are
// computed again from the journal and delivered marked PossResend, with the ExecIDs they
// had (a function of the input's seq), so a report that did go out comes again as the same
// execution. A replicated exchange keeps the mark in its stream instead of a file
// (docs/replication.md, "Reports after a failover").
#include <chrono>
#include <iostream>
#include <thread>
#include <utility>

#include "cfx/exchange/fix_session_table.h"
#include "cfx/gateway/execid_generation.h"
#include "exchange_order_entry_impl.h"
#include "order_type_mapping.h"

namespace cfx::gateway {

using internal::Pending;
using internal::Str;
using internal::ToGateway;

namespace {

// Delivers the outcomes of the inputs after `after` that a shadow matcher computes again,
// through the same code as live outcomes, each input's request registered from its journal
// record.
class Republisher : public exchange::TailVisitor {
 public:
  Republisher(ExchangeOrderEntry::Impl* m, uint64_t after) : m_(m), after_(after) {}
  void OnInput(uint64_t seq, const en::Command& command) override {
    if (seq <= after_) return;
    tag_ = m_->RegisterReplayed(command);
    m_->poss_resend_ = seq <= m_->recovered_last_;
  }
  void OnOutcome(uint64_t seq, const exchange::Outcome& o) override {
    if (seq <= after_ || o.kind != exchange::OutcomeKind::kEvent) return;
    m_->NumberOutcome(seq);
    m_->OnEvent(tag_, o);
  }
  absl::Status OnInputEnd(uint64_t seq, int64_t time_us) override {
    if (seq <= after_) return absl::OkStatus();
    m_->OnAck(seq, tag_, time_us);
    return absl::OkStatus();
  }

 private:
  ExchangeOrderEntry::Impl* m_;
  uint64_t after_;
  uint64_t tag_ = 0;
};

}  // namespace

uint64_t ExchangeOrderEntry::Impl::RegisterReplayed(const en::Command& command) {
  Pending p;
  if (const auto* n = std::get_if<en::NewOrderCmd>(&command)) {
    p.kind = Pending::Kind::kNew;
    OrderState& s = p.asked;
    s.session = SessionName(n->session);
    s.account = Str(n->acct);
    s.cl_ord_id = std::string(n->cl.view());
    s.symbol = Str(n->sym);
    s.side = ToGateway(n->side);
    s.ord_type = ToGateway(n->type);
    s.tif = ToGateway(n->tif);
    s.has_price = n->px.present && n->px.on_tick;
    s.price_ticks = n->px.ticks.value();
    s.has_stop = n->stop.present && n->stop.on_tick;
    s.stop_ticks = n->stop.ticks.value();
    s.qty = n->qty.value();
  } else if (const auto* c = std::get_if<en::CancelCmd>(&command)) {
    if (c->answer_to == 0) return 0;  // journaled before version 4: answered as the order's
    p.kind = Pending::Kind::kCancel;
    p.asked.session = SessionName(c->answer_to);
    p.asked.account = Str(c->acct);
    p.cl_ord_id = std::string(c->req.view());
    p.orig_cl_ord_id = std::string(c->orig.view());
  } else if (const auto* r = std::get_if<en::ReplaceCmd>(&command)) {
    if (r->answer_to == 0) return 0;  // journaled before version 4
    p.kind = Pending::Kind::kReplace;
    p.asked.session = SessionName(r->answer_to);
    p.asked.account = Str(r->acct);
    p.cl_ord_id = std::string(r->cl.view());
    p.orig_cl_ord_id = std::string(r->orig.view());
  } else if (const auto* m = std::get_if<en::MassCancelCmd>(&command)) {
    if (m->disconnect || m->answer_to == 0) return 0;  // none, or journaled before version 4
    p.kind = Pending::Kind::kMass;
    p.asked.session = SessionName(m->answer_to);
    p.mass.session = p.asked.session;
    p.mass.cl_ord_id = std::string(m->req.view());
    p.mass.account = Str(m->acct);
    p.mass.symbol = Str(m->sym);
  } else {
    return 0;
  }
  const uint64_t tag = next_tag_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(pending_mu_);
  pending_.emplace(tag, std::move(p));
  return tag;
}

absl::Status ExchangeOrderEntry::Impl::WriteWatermark(uint64_t seq, uint64_t if_held) {
  // What the listener was handed reaches the stores first (a connection may hold its last
  // burst back, or be closing): the file never gets ahead of them. A report the gateway
  // holds while its session logs on is in no store yet: the file then keeps `if_held`
  // (where it stood), and the next idle moment moves it on (it can only lag).
  if (listener_->HoldsUnstored()) {
    if (if_held == written_ && watermark_written_) return absl::OkStatus();
    seq = if_held;
  }
  if (!listener_->FlushStores()) {
    return absl::UnavailableError("the FIX sessions' stores could not be written");
  }
  if (absl::Status s = watermark_->Write(seq); !s.ok()) return s;
  written_ = seq;
  watermark_written_ = true;
  return absl::OkStatus();
}

void ExchangeOrderEntry::Impl::MarkReportsSent() {
  const auto now = std::chrono::steady_clock::now();
  if (!delivered_since_mark_ || acked_ <= marked_ || now - marked_at_ < kMarkEvery) return;
  {
    // After StopReports nothing more is marked: what is reported from then on (a leaving
    // leader's logout cancels) reaches only this node's stores.
    std::lock_guard<std::mutex> lock(gate_mu_);
    if (frozen_) return;
  }
  // As the file: what the listener was handed is in the stores first, and nothing held
  // outside them (a session's messages during its Logon) is covered; the next idle moment
  // tries again.
  if (listener_->HoldsUnstored() || !listener_->FlushStores()) return;
  // One try (the delivering thread never waits for the pipeline); a full ring or a node
  // no longer leading: the next idle moment tries again.
  if (core_->Submit(exchange::FixSessionTable::ReportsSentMark(acked_), 0) !=
      exchange::OfferResult::kAccepted) {
    return;
  }
  marked_ = acked_;
  last_mark_.store(acked_, std::memory_order_relaxed);
  marked_at_ = now;
  delivered_since_mark_ = false;  // the mark's own input reports nothing
}

void ExchangeOrderEntry::Impl::AfterIdle() {
  confirmed_.store(acked_, std::memory_order_release);
  if (reports_from_stream_.load(std::memory_order_relaxed)) {
    MarkReportsSent();
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now - written_at_ < std::chrono::milliseconds(10)) return;
  written_at_ = now;
  std::lock_guard<std::mutex> lock(gate_mu_);
  if (frozen_ || watermark_ == nullptr || written_ >= acked_) return;
  if (absl::Status s = WriteWatermark(acked_, written_); !s.ok()) {
    // The file lags from here on: more reports than needed come again at the next start.
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) std::cerr << "cfx serve: " << s << std::endl;
  }
}

void ExchangeOrderEntry::SetReportedFile(std::string path, uint64_t recovered_last) {
  impl_->reported_path_ = std::move(path);
  impl_->recovered_last_ = recovered_last;
}

void ExchangeOrderEntry::SetReportsFromStream(uint64_t recovered_last) {
  std::lock_guard<std::mutex> lock(impl_->gate_mu_);
  impl_->recovered_last_ = recovered_last;
  impl_->reports_from_stream_.store(true, std::memory_order_release);
}

absl::Status ExchangeOrderEntry::Impl::StartReportsFromStream() {
  // gate_mu_ held. Stopped meanwhile (a node stopping as it is promoted): nothing to start.
  if (frozen_) return absl::OkStatus();
  // The old primary's mark: the inputs after it may have been sequenced and replicated
  // without their reports reaching anyone. None recorded (a stream written before the
  // marks): from here on, as before.
  const uint64_t mark = core_->ReportsSentThrough();
  const uint64_t after = mark == 0 ? recovered_last_ : std::min(mark, recovered_last_);
  const uint64_t through = std::max(held_through_, recovered_last_);
  if (through > after) {
    Republisher visitor(this, after);
    absl::Status s = core_->ReplayOutcomes(after, through, &visitor);
    poss_resend_ = false;
    if (!s.ok()) return s;
    if (recovered_last_ > after) {
      std::cerr << "cfx serve: reported again (PossResend) the outcomes of inputs " << after + 1
                << ".." << recovered_last_
                << ", which the previous primary may not have sent (its last mark)" << std::endl;
    }
  }
  acked_ = through;
  marked_ = after;
  last_mark_.store(mark, std::memory_order_relaxed);
  // What was just reported is marked at the next idle moment (the clock's next input), so
  // a leader that dies before reporting anything new sends none of it again.
  delivered_since_mark_ = through > after;
  confirmed_.store(through, std::memory_order_relaxed);
  live_after_ = through;
  live_.store(true, std::memory_order_release);
  return absl::OkStatus();
}

absl::Status ExchangeOrderEntry::StartReports() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.gate_mu_);  // the delivering thread waits meanwhile
  if (m.live_.load(std::memory_order_acquire)) return absl::OkStatus();
  // Once live, after the reports made again: the refusals answered while outcomes were held
  // back (their marks acknowledged between the FIX port's opening and this call).
  struct AnswerHeld {
    Impl& m;
    ~AnswerHeld() {
      if (!m.live_.load(std::memory_order_acquire)) return;
      std::vector<std::function<void()>> held;
      held.swap(m.held_answers_);
      for (std::function<void()>& answer : held) answer();
    }
  } answer_held{m};
  if (m.reports_from_stream_) return m.StartReportsFromStream();
  auto w = internal::ReportWatermark::Open(m.reported_path_);
  if (!w.ok()) return w.status();
  const std::string generation_path = m.reported_path_ + ".generation";
  auto generations = ReadExecIdGenerations(generation_path);
  if (!generations.ok()) return generations.status();
  ExecIdGeneration latest = generations->empty() ? ExecIdGeneration{} : generations->back();
  auto* generation = &latest;
  const bool cut = (*w)->found().value_or(0) > m.recovered_last_;
  // Reports went out for inputs the journal no longer holds (an operator cut its tail): the
  // inputs sequenced from here on reuse their seqs, so their ExecIDs take a new generation,
  // on the disk before any of them is reported. `cfx journal verify --truncate-corrupt-tail`
  // records its cut itself (generation from the first seq it dropped): not twice.
  if (cut && generation->from != m.recovered_last_ + 1) {
    const ExecIdGeneration next{generation->generation + 1, m.recovered_last_ + 1};
    if (absl::Status s = WriteExecIdGeneration(generation_path, next); !s.ok()) return s;
    generations->push_back(next);
    std::cerr << "cfx serve: " << m.reported_path_ << " says inputs through " << *(*w)->found()
              << " were reported, but the journal ends at " << m.recovered_last_
              << " (its tail was cut): the ExecIDs of inputs from " << next.from << " on are <seq>."
              << next.generation << "-<n>, so none repeats one sent before" << std::endl;
    *generation = next;
  }
  if (cut) {
    // The file back to the journal's end, flushed, before the inputs held since are
    // reported: a start that died before its watermark write left the stale value, and the
    // next start took it for a cut again, with a generation of its own and the held inputs
    // counted as reported (never sent; until 2026-12-07, a review).
    if (absl::Status s = (*w)->Write(m.recovered_last_); !s.ok()) return s;
    if (absl::Status s = (*w)->Sync(); !s.ok()) return s;
  }
  m.exec_generations_ = *std::move(generations);
  // A file past what the journal holds (an operator cut its tail) says nothing of the
  // inputs sequenced since: none of them was reported.
  const uint64_t after = std::min((*w)->found().value_or(m.recovered_last_), m.recovered_last_);
  const uint64_t through = std::max(m.held_through_, m.recovered_last_);
  if (through > after) {
    Republisher visitor(&m, after);
    absl::Status s = m.core_->ReplayOutcomes(after, through, &visitor);
    m.poss_resend_ = false;
    if (!s.ok()) return s;
    if (m.recovered_last_ > after) {
      std::cerr << "cfx serve: reported again (PossResend) the outcomes of inputs " << after + 1
                << ".." << m.recovered_last_ << ", which the last run may not have sent"
                << std::endl;
    }
  }
  m.watermark_ = *std::move(w);
  // Where the file stands for a later write while the gateway holds a report (never 0,
  // which would send everything again; after a cut, the journal's end at most).
  m.written_ = after;
  absl::Status written = m.WriteWatermark(through, after);
  // After a cut the file went back to the journal's end: flushed, so that a power loss
  // cannot bring back the value past it (the next start would skip what it must send again).
  if (written.ok() && cut) written = m.watermark_->Sync();
  if (!written.ok()) {
    // The file stays behind: the next start sends more again than it needs to.
    std::cerr << "cfx serve: " << m.reported_path_ << ": " << written << std::endl;
  }
  m.acked_ = through;
  m.confirmed_.store(through, std::memory_order_relaxed);
  m.live_after_ = through;
  m.live_.store(true, std::memory_order_release);
  return absl::OkStatus();
}

uint64_t ExchangeOrderEntry::ReportedThrough() const {
  return impl_->confirmed_.load(std::memory_order_acquire);
}

void ExchangeOrderEntry::StopReports() {
  Impl& m = *impl_;
  if (m.reports_from_stream_.load(std::memory_order_acquire)) {
    uint64_t confirmed = 0;
    {
      std::lock_guard<std::mutex> lock(m.gate_mu_);
      if (m.frozen_) return;
      m.frozen_ = true;  // no more marks from the delivering thread
      if (!m.live_.load(std::memory_order_acquire)) return;
      confirmed = m.confirmed_.load(std::memory_order_acquire);
    }
    // A leader handing over: the last mark covers what went out before the freeze, so the
    // next leader sends none of it again; what comes after (the logouts' cancels, which
    // only this node's stores would hold) it reports. Not what the listener holds outside
    // its stores (fix's Stop drops it): then the last periodic mark stands. Without
    // gate_mu_ (the delivering thread may wait for it in Delivers while the ring is full),
    // and not the delivering thread: it may wait a moment for room.
    if (confirmed <= m.last_mark_.load(std::memory_order_relaxed) || m.listener_->HoldsUnstored() ||
        !m.listener_->FlushStores()) {
      return;
    }
    for (int i = 0; i < 200; ++i) {
      if (m.core_->Submit(exchange::FixSessionTable::ReportsSentMark(confirmed), 0) !=
          exchange::OfferResult::kFull) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return;
  }
  std::lock_guard<std::mutex> lock(m.gate_mu_);
  if (m.frozen_) return;
  m.frozen_ = true;
  const uint64_t confirmed = m.confirmed_.load(std::memory_order_acquire);
  if (m.watermark_ != nullptr && confirmed > m.written_) {
    if (absl::Status s = m.WriteWatermark(confirmed, m.written_); !s.ok()) {
      std::cerr << "cfx serve: " << s << std::endl;
    }
  }
}

}  // namespace cfx::gateway
