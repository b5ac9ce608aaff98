// ExchangeCore: wires codec, journal, EngineMatcher, TradeRecorder and the book publisher
// into one journal::Pipeline, lists products, runs the wall clock, and answers queries from
// published state.
#include "cfx/exchange/exchange_core.h"

#include <chrono>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "book_publisher.h"
#include "cfx/common/grade.h"
#include "cfx/concurrency/thread_name.h"
#include "cfx/exchange/engine_codec.h"
#include "cfx/exchange/engine_matcher.h"
#include "cfx/exchange/trade_recorder.h"
#include "cfx/storage/private_files.h"
#include "listing_outcomes.h"
#include "journal_tail.h"

namespace cfx::exchange {
namespace {

engine::Timestamp WallNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

constexpr size_t kCommitEveryInputs = 4096;

// The exchange clock the sequencer stamps inputs with (ClockMode::kWall).
class WallInputClock : public journal::InputClock {
 public:
  int64_t NowMicros() override { return WallNow() / 1000; }
};

}  // namespace

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
    if (seq >= journaled || recorder->pending_inputs() >= kCommitEveryInputs) {
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
  absl::Status ListMonths(engine::Timestamp now, std::vector<std::string>* added) {
    int year = 0, month = 0, day = 0;
    const int64_t now_us = now / 1000;
    common::YmdFromDate(common::Date{static_cast<int32_t>(now_us / common::kUsPerDay)}, &year,
                        &month, &day);
    int index = year * 12 + month - 1;
    if (now_us >= common::AtHour(calendar.LastBusinessDayOfMonth(year, month), 16)) ++index;
    std::lock_guard<std::mutex> lock(listing_mu);
    if (index <= listed_month_index) return absl::OkStatus();
    for (const common::ProductConfig& p : config.products) {
      for (int k = 0; k < 12; ++k) {
        common::ContractSymbol cs{p.grade, (index + k) / 12, (index + k) % 12 + 1};
        std::string sym = cs.Key();
        if (listed_syms.count(sym)) continue;
        if (absl::Status s = OfferRetrying(ProductFor(sym, &p)); !s.ok()) return s;
        if (added != nullptr) added->push_back(sym);
        listed_syms.insert(std::move(sym));
      }
    }
    listed_month_index = index;
    return absl::OkStatus();
  }

  // --- Start's steps (controlling thread, in this order) -----------------------------------
  // The matcher's options: the config's calendar and collateral, the options' risk switch.
  MatcherOptions MatcherOptionsFromConfig() const {
    MatcherOptions mo;
    mo.calendar = config.Calendar();
    mo.pre_trade_risk = options.pre_trade_risk;
    mo.max_open_orders_per_account = config.limits.max_open_orders_per_account;
    // The configured accounts, with room for as many again (an account added at a restart).
    mo.engine.account_capacity = std::max<size_t>(64, 2 * config.accounts.size());
    for (const common::AccountConfig& a : config.accounts) {
      mo.collateral[a.id] = a.collateral;
    }
    return mo;
  }

  // Sequences `risk` (EngineMatcher::RiskCmdsFor this start's config and options, read
  // before anything was offered: the matcher was idle, so the read raced with nothing):
  // inputs replayed from the journal kept the settings they were decided under, and what
  // follows is decided under these (docs/durability.md, "Determinism of pre-trade risk").
  absl::Status OfferAll(const std::vector<engine::RiskCmd>& risk) {
    for (const engine::RiskCmd& c : risk) {
      if (absl::Status s = OfferRetrying(c); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // With options.journal: creates the data dir and opens the journal in it (else nothing).
  absl::Status OpenJournal() {
    if (!options.journal) return absl::OkStatus();
    if (absl::Status made = storage::MakePrivateDirs(data_dir); !made.ok()) {
      return absl::PermissionDeniedError(
          absl::StrCat(data_dir, ": cannot create the data dir: ", made.message()));
    }
    journal::JournalOptions jo;
    jo.data_dir = data_dir;
    jo.unsafe_no_sync = options.unsafe_no_sync;
    jo.defer_commit_sync = true;  // the pipeline acks from DurableSeq (docs/durability.md)
    jo.commit_log = options.commit_log;
    auto j = journal::Journal::Open(jo);
    if (!j.ok()) return j.status();
    journal = std::move(*j);
    return absl::OkStatus();
  }

  // Opens the trade recorder (in memory without a journal) and re-derives the rows of the
  // journal records it is missing (a crash between journal and trade-store commits).
  absl::Status OpenRecorder(const MatcherOptions& mo, RecoveryInfo* info) {
    auto rec = TradeRecorder::Open(options.journal && options.record_trades ? data_dir : "",
                                   options.ended_orders_kept, mo.calendar);
    if (!rec.ok()) return rec.status();
    recorder = std::move(*rec);
    if (journal && options.record_trades && recorder->last_seq() < journal->LastSeq()) {
      auto n = RecordJournalTail(*journal, mo, recorder.get());
      if (!n.ok()) return n.status();
      info->recorder_replayed = n->recorded;
      info->recorder_start_seq = n->start_seq;
    }
    return absl::OkStatus();
  }

  // Builds the matcher and the pipeline and starts it: the engine recovers (snapshot +
  // journal tail) and the threads run. Fills `info`'s recovery fields.
  absl::Status StartPipeline(const MatcherOptions& mo, RecoveryInfo* info) {
    matcher = std::make_unique<EngineMatcher>(mo);
    matcher->set_publisher(&publisher);
    listing = std::make_unique<internal::ListingOutcomes>(matcher.get());
    journal::PipelineOptions po;
    po.input_capacity = po.sequenced_capacity = po.output_capacity = options.ring_capacity;
    po.max_batch = options.max_batch;
    // A manual clock (replay, tests) has no stamps: its inputs' time is the TimeCmd's.
    if (options.clock == ClockMode::kWall) po.clock = &wall_clock;
    const int64_t every =
        options.snapshot_every >= 0 ? options.snapshot_every : config.snapshot_interval;
    po.snapshot_every = journal ? static_cast<uint64_t>(std::max<int64_t>(every, 0)) : 0;
    po.replication = options.replication;
    po.publish_on_matcher = !options.publisher_thread;
    if (options.matcher_thread_only) po.sequencer_matches_up_to = 0;
    po.trace_stages = options.trace_stages;
    pipeline = std::make_unique<journal::Pipeline<engine::Command, Outcome>>(
        po, journal.get(), &codec, listing.get(), this);
    auto r = pipeline->Start();
    if (!r.ok()) return r.status();
    info->fresh = r->next_seq == 1;
    info->next_seq = r->next_seq;
    info->snapshot_seq = r->snapshot_seq;
    info->replayed = r->replayed;
    info->snapshots_unreadable = r->snapshots_unreadable;
    info->skipped_snapshots = r->skipped_snapshots;
    start_seq = r->next_seq;
    published_seq.store(r->next_seq - 1);
    return absl::OkStatus();
  }

  // Seeds what derives from the recovered engine: its state hash into `info`, the published
  // books, the recorder's open orders and the set of listed symbols.
  void SeedFromRecoveredEngine(RecoveryInfo* info) {
    // The threads run, but nothing reaches the matcher before the first offer, so reading
    // the recovered engine here races with nothing (the ring push orders it).
    const engine::Engine& eng = matcher->engine();
    info->state_hash = eng.StateHash();
    // A book's last trade before the snapshot the engine was restored from is reported by
    // no replayed input: its quantity and time come from the recorder's rows (until
    // 2026-12-06 the published book then had no last trade until the next one).
    for (size_t i = 0; recorder != nullptr && i < eng.symbol_count(); ++i) {
      const auto id = static_cast<engine::SymbolId>(i);
      const engine::OrderBook& book = eng.book(id);
      if (!book.has_last_trade() || publisher.HasLastTrade(id)) continue;
      const std::optional<trade_store::Trade> t = recorder->LastTrade(eng.SymbolName(id));
      if (!t || t->px_ticks.value() != book.last_trade().value()) continue;
      publisher.NoteTrade(id, book.last_trade(), engine::Qty(t->qty.value()),
                          t->ts > 0 ? t->ts * 1000 : engine::kNoTime);
    }
    matcher->PublishAll();
    std::vector<OrderStateView> live;
    eng.ForEachLiveOrder([&](const engine::Order& ord) {
      OrderStateView v;
      v.oid = ord.oid;
      v.acct = std::string(eng.AccountName(ord.acct));
      v.cl = std::string(ord.cl.view());
      v.sym = std::string(eng.SymbolName(ord.sym));
      v.side = ord.side;
      v.status = ord.status;
      v.detail = {{ord.type, ord.tif, ord.px, ord.stop_px, ord.qty, ord.expire, ord.session,
                   ord.post_only, ord.display},
                  /*has_detail=*/true,
                  /*has_amend_terms=*/true};
      v.cum = ord.cum;
      v.leaves = ord.leaves();
      v.notional = ord.notional;
      live.push_back(std::move(v));
    });
    recorder->SeedOrders(live);
    std::lock_guard<std::mutex> lock(listing_mu);
    listed_syms.clear();
    listed_month_index = -1;
    for (size_t i = 0; i < eng.symbol_count(); ++i) {
      listed_syms.emplace(eng.SymbolName(static_cast<engine::SymbolId>(i)));
    }
  }

  // The time to start at: the wall clock's (or the manual start_time), never before the
  // recovered engine's. REQUIRES: the pipeline started, nothing offered yet.
  engine::Timestamp StartTime() const {
    const engine::Engine& eng = matcher->engine();
    engine::Timestamp now = options.clock == ClockMode::kWall       ? WallNow()
                            : options.start_time != engine::kNoTime ? options.start_time
                                                                    : WallNow();
    if (eng.now() != engine::kNoTime && eng.now() > now) now = eng.now();
    return now;
  }

  // Starts the clock thread: every wall_tick_ms a TimeCmd{now} and the listing it brings.
  void StartWallClock() {
    clock = concurrency::NamedThread("cfx-clock", [this] {
      while (!stop_clock.load(std::memory_order_acquire)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(options.wall_tick_ms));
        if (stop_clock.load(std::memory_order_acquire)) break;
        const engine::Timestamp t = WallNow();
        (void)Offer(engine::TimeCmd{t}, 0);  // full: the next tick carries time
        (void)ListMonths(t, nullptr);        // failed: the next tick tries again
      }
    });
  }

  engine::ProductCmd ProductFor(const std::string& sym, const common::ProductConfig* p) const {
    engine::ProductCmd c;
    c.sym = engine::Name::From(sym);
    if (p != nullptr && p->ref_ticks) {
      c.ref = engine::PriceField::Ticks(engine::PriceTicks(*p->ref_ticks));
    }
    c.max_order_qty = engine::Qty(p != nullptr ? p->max_order_qty : 1000);
    c.band_percent = config.band_pct;
    c.protection_ticks = engine::PriceTicks(config.market_protection_ticks);
    return c;
  }

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
  WallInputClock wall_clock;
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

ExchangeCore::ExchangeCore(const common::ExchangeConfig& config, const ExchangeOptions& options)
    : impl_(std::make_unique<Impl>(config, options)) {}

ExchangeCore::~ExchangeCore() { (void)Stop(); }

void ExchangeCore::AddListener(OutcomeListener* listener) { impl_->listeners.push_back(listener); }

absl::StatusOr<RecoveryInfo> ExchangeCore::Start() {
  Impl& m = *impl_;
  if (m.started) return absl::FailedPreconditionError("ExchangeCore::Start called twice");
  RecoveryInfo info;
  const MatcherOptions mo = m.MatcherOptionsFromConfig();
  if (absl::Status s = m.OpenJournal(); !s.ok()) return s;
  if (m.journal != nullptr) {
    info.from_commit_log = m.journal->RecoveredFromCommitLog();
    info.commit_log_torn_at = m.journal->CommitLogTornAt();
  }
  if (absl::Status s = m.OpenRecorder(mo, &info); !s.ok()) return s;
  if (absl::Status s = m.StartPipeline(mo, &info); !s.ok()) return s;
  m.SeedFromRecoveredEngine(&info);
  const engine::Timestamp now = m.StartTime();
  m.running.store(true, std::memory_order_release);
  m.started = true;
  if (m.options.replication != nullptr) return info;  // a standby: Promote lists and ticks

  // The risk settings are read before anything is offered, and sequenced after the time
  // and the listing (which take no risk decision) and before any client's input.
  std::vector<engine::RiskCmd> risk = m.matcher->RiskCmdsFor(mo);
  if (absl::Status s = m.OfferRetrying(engine::TimeCmd{now}); !s.ok()) return s;
  if (absl::Status s = m.ListMonths(now, &info.listed); !s.ok()) return s;
  if (absl::Status s = m.OfferAll(risk); !s.ok()) return s;
  // Callers expect the listing in ListedSymbols() once Start returns.
  if (absl::Status s = Flush(); !s.ok()) return s;
  if (m.options.clock == ClockMode::kWall) m.StartWallClock();
  return info;
}

absl::Status ExchangeCore::Promote(int64_t timeout_ms) {
  Impl& m = *impl_;
  if (!m.started) return absl::FailedPreconditionError("ExchangeCore::Promote before Start");
  if (m.pipeline->leading()) return absl::OkStatus();
  m.pipeline->Promote();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  // Leading, and every followed input published: the listing below starts from the
  // published master, which then holds everything the old primary listed.
  while (!m.pipeline->leading() ||
         m.published_seq.load(std::memory_order_acquire) + 1 < m.pipeline->lead_start_seq()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::DeadlineExceededError("ExchangeCore::Promote: not leading in time");
    }
    if (!m.running.load(std::memory_order_acquire)) return absl::UnavailableError("stopped");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  {
    std::lock_guard<std::mutex> lock(m.listing_mu);
    for (std::string& sym : AllSymbols()) m.listed_syms.insert(std::move(sym));
    m.listed_month_index = -1;
  }
  const engine::Timestamp now = m.StartTime();
  std::vector<engine::RiskCmd> risk = m.matcher->RiskCmdsFor(m.MatcherOptionsFromConfig());
  if (absl::Status s = m.OfferRetrying(engine::TimeCmd{now}); !s.ok()) return s;
  if (absl::Status s = m.ListMonths(now, nullptr); !s.ok()) return s;
  if (absl::Status s = m.OfferAll(risk); !s.ok()) return s;
  if (absl::Status s = Flush(); !s.ok()) return s;
  if (m.options.clock == ClockMode::kWall) m.StartWallClock();
  return absl::OkStatus();
}

bool ExchangeCore::leading() const { return impl_->started && impl_->pipeline->leading(); }

bool ExchangeCore::replicated() const { return impl_->options.replication != nullptr; }

absl::Status ExchangeCore::ReplayOutcomes(uint64_t after, uint64_t through,
                                          TailVisitor* visitor) const {
  if (impl_->journal == nullptr) {
    return absl::FailedPreconditionError("no journal: outcomes cannot be computed again");
  }
  auto start = ReplayJournalTail(*impl_->journal, impl_->MatcherOptionsFromConfig(), after,
                                 through, visitor);
  return start.status();
}

std::vector<FixSessionSeqs> ExchangeCore::FixSessions() const {
  return impl_->matcher ? impl_->matcher->FixSessions() : std::vector<FixSessionSeqs>{};
}

uint64_t ExchangeCore::ReportsSentThrough() const {
  return impl_->matcher ? impl_->matcher->ReportsSentThrough() : 0;
}

absl::Status ExchangeCore::Stop() {
  Impl& m = *impl_;
  if (!m.started) return absl::OkStatus();
  m.stop_clock.store(true, std::memory_order_release);
  if (m.clock.joinable()) m.clock.join();
  m.running.store(false, std::memory_order_release);
  absl::Status s = m.pipeline->Stop();
  m.CommitRecorder();  // the publisher is joined: this thread is the only writer now
  m.started = false;
  return s;
}

OfferResult ExchangeCore::Submit(const engine::Command& command, uint64_t tag) {
  return impl_->Offer(command, tag);
}

OfferResult ExchangeCore::AdvanceTime(engine::Timestamp ts, uint64_t tag) {
  OfferResult r = impl_->Offer(engine::TimeCmd{ts}, tag);
  if (r == OfferResult::kAccepted) (void)impl_->ListMonths(ts, nullptr);  // else: next time
  return r;
}

static absl::Status ForAllSymbols(ExchangeCore::Impl& m,
                                  const std::function<engine::Command(const std::string&)>& make) {
  for (const std::string& sym : m.publisher.Symbols()) {
    if (absl::Status s = m.OfferRetrying(make(sym)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ExchangeCore::PreOpenAll() {
  return ForAllSymbols(*impl_, [](const std::string& s) -> engine::Command {
    return engine::StateCmd{engine::Name::From(s), engine::TradingState::kPreOpen};
  });
}

absl::Status ExchangeCore::OpenAll() {
  return ForAllSymbols(*impl_, [](const std::string& s) -> engine::Command {
    return engine::StateCmd{engine::Name::From(s), engine::TradingState::kOpen};
  });
}

absl::Status ExchangeCore::CloseAll() {
  return ForAllSymbols(*impl_, [](const std::string& s) -> engine::Command {
    return engine::CloseCmd{engine::Name::From(s)};
  });
}

absl::Status ExchangeCore::RefreshMargins(
    const std::map<std::string, engine::MicroUsd>& margins,
    const std::map<std::string, engine::PriceTicks>& band_refs) {
  Impl& m = *impl_;
  // Every symbol with a margin or a band reference (a margin without a reference keeps the
  // band's; a reference without a margin keeps the margin: `cfx serve --no-risk` sends the
  // references alone, the band is SPEC §3's all the same).
  std::set<std::string> syms;
  for (const auto& [sym, im] : margins) syms.insert(sym);
  for (const auto& [sym, ref] : band_refs) {
    if (ref > engine::PriceTicks(0)) syms.insert(sym);
  }
  for (const std::string& sym : syms) {
    const common::ProductConfig* product = nullptr;
    for (const common::ProductConfig& p : m.config.products) {
      if (sym.rfind(p.grade.Key() + "-", 0) == 0) product = &p;
    }
    engine::ProductCmd c = m.ProductFor(sym, product);
    c.ref = engine::PriceField{};  // absent: keep the band reference in force
    if (auto it = band_refs.find(sym);
        it != band_refs.end() && it->second > engine::PriceTicks(0)) {
      c.ref = engine::PriceField::Ticks(it->second);
    }
    auto im = margins.find(sym);
    c.initial_margin = im != margins.end() ? im->second : engine::MicroUsd(-1);  // -1: keep
    if (absl::Status s = m.OfferRetrying(c); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ExchangeCore::Flush(int64_t timeout_ms) const {
  const Impl& m = *impl_;
  const uint64_t target = m.offered.load(std::memory_order_acquire);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (m.acks.load(std::memory_order_acquire) < target) {
    if (!m.started) return absl::UnavailableError("exchange not running");
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::DeadlineExceededError("ExchangeCore::Flush: outcomes still in flight");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  // The trade store commits on its own thread after the listeners: wait for it too, so
  // that a reader of <data_dir>/trades (settlement in `cfx demo`) sees what was published.
  // A failed store commit was logged and is re-derived at restart: not a Flush error.
  if (m.recorder) {
    const uint64_t published = m.published_seq.load(std::memory_order_acquire);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!m.recorder->WaitCommitted(published, std::max(left, std::chrono::milliseconds(0)))) {
      return absl::DeadlineExceededError("ExchangeCore::Flush: trade store commit in flight");
    }
  }
  return absl::OkStatus();
}

std::optional<BookView> ExchangeCore::BookSnapshot(std::string_view sym, int depth) const {
  return impl_->publisher.Read(sym, depth);
}

std::vector<PositionView> ExchangeCore::Positions(std::string_view account) const {
  if (!impl_->recorder) return {};
  return impl_->recorder->Positions(account);
}

// The listing views read the security master (the recorder's copy, updated on the
// publisher thread as each input is published).
std::vector<std::string> ExchangeCore::AllSymbols() const {
  std::vector<std::string> s;
  for (const security_master::Contract& c : Contracts()) s.push_back(c.sym);
  return s;
}

uint64_t ExchangeCore::ListingVersion() const {
  return impl_->recorder ? impl_->recorder->master_version() : 0;
}

std::vector<std::string> ExchangeCore::ListedSymbols() const {
  std::vector<std::string> s;
  for (const security_master::Contract& c : Contracts()) {
    if (c.listed()) s.push_back(c.sym);
  }
  return s;
}

std::vector<security_master::Contract> ExchangeCore::Contracts() const {
  if (!impl_->recorder) return {};
  return impl_->recorder->Contracts();
}

std::optional<security_master::ContractRecord> ExchangeCore::FindContract(
    std::string_view sym) const {
  if (!impl_->recorder) return std::nullopt;
  return impl_->recorder->FindContract(sym);
}

std::optional<OrderStateView> ExchangeCore::FindOrder(std::string_view account,
                                                      std::string_view cl) const {
  if (!impl_->recorder) return std::nullopt;
  return impl_->recorder->FindOrder(account, cl);
}

ExchangeStats ExchangeCore::Stats() const {
  const Impl& m = *impl_;
  ExchangeStats s;
  if (m.pipeline) {
    journal::PipelineStats p = m.pipeline->stats();
    s.inputs = p.inputs;
    s.batches = p.batches;
    s.max_batch = p.max_batch;
    s.batch_size_log2 = p.batch_size_log2;
    s.snapshots_written = p.snapshots_written;
    s.snapshots_dropped = p.snapshots_dropped;
    s.matched_on_sequencer = p.matched_on_sequencer;
    s.state_seq = p.state.seq;
    s.state_hash = p.state.hash;
    s.state_checks = p.state_checks;
    s.state_checked_seq = p.state_checked_seq;
    s.stages = p.stages;
  }
  s.outcomes = m.outcomes.load(std::memory_order_relaxed);
  s.trades = m.trades.load(std::memory_order_relaxed);
  s.acks = m.acks.load(std::memory_order_relaxed);
  s.next_seq = m.published_seq.load(std::memory_order_acquire) + 1;
  s.offers_full = m.offers_full.load(std::memory_order_relaxed);
  s.followed = m.followed.load(std::memory_order_relaxed);
  s.leading = m.pipeline == nullptr || m.pipeline->leading();
  s.recorder_batches = m.recorder ? m.recorder->commits() : 0;
  return s;
}

const common::ExchangeConfig& ExchangeCore::config() const { return impl_->config; }
const std::string& ExchangeCore::data_dir() const { return impl_->data_dir; }
engine::Timestamp ExchangeCore::now() const {
  return impl_->matcher ? impl_->matcher->published_time() : engine::kNoTime;
}

}  // namespace cfx::exchange
