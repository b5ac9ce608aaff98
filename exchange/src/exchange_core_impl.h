// Private to the exchange core: ExchangeCore's state and the steps that build it
// (exchange_core.cc holds the public methods, exchange_core_start.cc the start steps).
#ifndef CFX_EXCHANGE_SRC_EXCHANGE_CORE_IMPL_H_
#define CFX_EXCHANGE_SRC_EXCHANGE_CORE_IMPL_H_

#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "book_publisher.h"
#include "cfx/common/grade.h"
#include "cfx/exchange/engine_codec.h"
#include "cfx/exchange/engine_matcher.h"
#include "cfx/exchange/exchange_core.h"
#include "cfx/exchange/trade_recorder.h"
#include "listing_outcomes.h"

namespace cfx::exchange {
namespace internal {

inline engine::Timestamp WallNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline constexpr size_t kCommitEveryInputs = 4096;

// The exchange clock the sequencer stamps inputs with (ClockMode::kWall).
class WallInputClock : public journal::InputClock {
 public:
  int64_t NowMicros() override { return WallNow() / 1000; }
};

}  // namespace internal

class ExchangeCore::Impl : public journal::PipelineListener<Outcome> {
 public:
  Impl(const common::ExchangeConfig& c, const ExchangeOptions& o)
      : config(c), options(o), calendar(c.Calendar()) {
    data_dir = o.data_dir.empty() ? c.data_dir : o.data_dir;
  }

  // --- Publisher thread -----------------------------------------------------------------
  void OnOutcome(uint64_t seq, uint64_t tag, const Outcome& outcome) override {
    recorder->Add(seq, outcome);
    outcomes.fetch_add(1, std::memory_order_relaxed);
    if (outcome.kind == OutcomeKind::kEvent && outcome.event.type == engine::EventType::kTrade) {
      trades.fetch_add(1, std::memory_order_relaxed);
    }
    for (OutcomeListener* l : listeners) l->OnOutcome(seq, tag, outcome);
  }
  void OnAck(uint64_t seq, uint64_t tag, int64_t time_us) override {
    recorder->EndInput(seq);
    // The input is durable in the journal (the matcher only sees committed inputs), so the
    // listeners hear of it now; the trade store, derived from the journal, follows.
    for (OutcomeListener* l : listeners) l->OnAck(seq, tag, time_us);
    published_seq.store(seq, std::memory_order_release);
    // Flush counts the acks of what this core offered, not of inputs it followed.
    if (seq >= pipeline->lead_start_seq()) {
      acks.fetch_add(1, std::memory_order_release);
    } else {
      followed.fetch_add(1, std::memory_order_relaxed);
    }
    // Hand the rows to the committer thread when the publisher has caught up with the
    // journal (or a large batch piled up): its LMDB commit and fsync never delay an
    // outcome, and inputs published during one commit share the next (group commit).
    const uint64_t journaled = journal ? journal->DurableSeq() : seq;
    if (seq >= journaled || recorder->pending_inputs() >= internal::kCommitEveryInputs) {
      ReportRecorderError(recorder->CommitInBackground());
    }
  }
  void OnIdle() override {
    for (OutcomeListener* l : listeners) l->OnIdle();
  }
  void OnJournalError(const absl::Status& status) override {
    std::cerr << "cfx exchange: journal error, order path stopped: " << status << "\n";
    for (OutcomeListener* l : listeners) l->OnJournalError(status);
  }
  void CommitRecorder() { ReportRecorderError(recorder->Commit()); }
  void ReportRecorderError(const absl::Status& s) {
    if (!s.ok() && !recorder_failed) {
      // The journal still has every input: a restart re-derives the rows (docs/durability.md).
      std::cerr << "cfx exchange: trade store commit failed (re-derived on restart): " << s << "\n";
      recorder_failed = true;
    }
  }

  // --- Controlling / producer threads -----------------------------------------------------
  OfferResult Offer(const engine::Command& c, uint64_t tag) {
    if (!running.load(std::memory_order_acquire)) return OfferResult::kStopped;
    OfferResult r = pipeline->TryOffer(tag, c);
    if (r == OfferResult::kAccepted) {
      offered.fetch_add(1, std::memory_order_release);
    } else if (r == OfferResult::kFull) {
      offers_full.fetch_add(1, std::memory_order_relaxed);
    }
    return r;
  }
  // Internal commands (listing, clock, session helpers) wait for room instead of failing.
  absl::Status OfferRetrying(const engine::Command& c) {
    for (int i = 0; i < 200000; ++i) {
      OfferResult r = Offer(c, 0);
      if (r == OfferResult::kAccepted) return absl::OkStatus();
      if (r == OfferResult::kStopped) return absl::UnavailableError("exchange stopped");
      if (r == OfferResult::kNotLeader) return absl::FailedPreconditionError("a standby");
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return absl::UnavailableError("exchange input ring full");
  }

  // Lists each product's 12 months from the first month still trading at `now` that are
  // not listed yet: the current month until its last trading day's 16:00Z close (when the
  // matcher expires it), the next month after that. Cheap when nothing changed. Any thread:
  // the clock thread, AdvanceTime's callers, Start.
  absl::Status ListMonths(engine::Timestamp now, std::vector<std::string>* added);

  // --- Start's steps (controlling thread, in this order) -----------------------------------
  // The matcher's options: the config's calendar, the options' risk switch. What every
  // matcher of this core starts with (the live one, the trade store's rebuild, the reports'
  // replay): no collateral, which comes only from sequenced RiskCmds, so that a replay under
  // another config decides as the run did.
  MatcherOptions MatcherOptionsFromConfig() const;
  // The same with the config's collateral: what RiskCmdsFor compares the recovered settings
  // with, to sequence each difference.
  MatcherOptions RiskSettingsFromConfig() const;

  // Sequences `risk` (EngineMatcher::RiskCmdsFor this start's config and options, read
  // before anything was offered: the matcher was idle, so the read raced with nothing):
  // inputs replayed from the journal kept the settings they were decided under, and what
  // follows is decided under these (docs/durability.md, "Determinism of pre-trade risk").
  absl::Status OfferAll(const std::vector<engine::RiskCmd>& risk);

  // With options.journal: creates the data dir and opens the journal in it (else nothing).
  absl::Status OpenJournal();

  // Opens the trade recorder (in memory without a journal) and re-derives the rows of the
  // journal records it is missing (a crash between journal and trade-store commits).
  absl::Status OpenRecorder(const MatcherOptions& mo, RecoveryInfo* info);

  // Builds the matcher and the pipeline and starts it: the engine recovers (snapshot +
  // journal tail), SeedFromRecoveredEngine and StartTime (into *now) run on this thread, and
  // then the threads. Fills `info`'s recovery fields.
  absl::Status StartPipeline(const MatcherOptions& mo, RecoveryInfo* info, engine::Timestamp* now);

  // Seeds what derives from the recovered engine: its state hash into `info`, the published
  // books, the recorder's open orders and the set of listed symbols. REQUIRES: no pipeline
  // thread runs (a hot standby's matcher applies what it follows as soon as they do).
  void SeedFromRecoveredEngine(RecoveryInfo* info);

  // The time to start at: the wall clock's (or the manual start_time), never before the
  // recovered engine's. REQUIRES: no input is being applied: before the pipeline's threads
  // start, or in Promote once every followed input is published (nothing else is offered
  // to a standby).
  engine::Timestamp StartTime() const;

  // Starts the clock thread: every wall_tick_ms a TimeCmd{now} and the listing it brings.
  void StartWallClock();

  engine::ProductCmd ProductFor(const std::string& sym, const common::ProductConfig* p) const;

  common::ExchangeConfig config;
  ExchangeOptions options;
  common::BusinessCalendar calendar;
  std::string data_dir;
  EngineCodec codec;
  std::unique_ptr<journal::Journal> journal;
  std::unique_ptr<EngineMatcher> matcher;
  std::unique_ptr<internal::ListingOutcomes> listing;  // the pipeline's matcher: + kListing
  internal::BookPublisher publisher;
  std::unique_ptr<TradeRecorder> recorder;
  internal::WallInputClock wall_clock;
  std::unique_ptr<journal::Pipeline<engine::Command, Outcome>> pipeline;
  std::vector<OutcomeListener*> listeners;
  std::thread clock;
  std::mutex listing_mu;
  std::set<std::string> listed_syms;  // every symbol listed (recovered or offered)
  int listed_month_index = -1;        // year*12 + month-1 of the last ListMonths pass
  std::atomic<bool> running{false};
  std::atomic<bool> stop_clock{false};
  bool started = false;
  bool recorder_failed = false;  // publisher thread (controlling thread after Stop)
  std::atomic<uint64_t> offered{0}, acks{0}, outcomes{0}, trades{0}, offers_full{0};
  std::atomic<uint64_t> followed{0};
  std::atomic<uint64_t> published_seq{0};
  uint64_t start_seq = 1;
};

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_SRC_EXCHANGE_CORE_IMPL_H_
