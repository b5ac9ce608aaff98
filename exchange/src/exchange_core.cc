// ExchangeCore: wires codec, journal, EngineMatcher, TradeRecorder and the book publisher
// into one journal::Pipeline, lists products, runs the wall clock, and answers queries from
// published state. Its state and start steps: exchange_core_impl.h, exchange_core_start.cc.
#include "cfx/exchange/exchange_core.h"

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "exchange_core_impl.h"
#include "journal_tail.h"

namespace cfx::exchange {

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
  engine::Timestamp now = engine::kNoTime;
  if (absl::Status s = m.StartPipeline(mo, &info, &now); !s.ok()) return s;
  m.running.store(true, std::memory_order_release);
  m.started = true;
  if (m.options.replication != nullptr) return info;  // a standby: Promote lists and ticks

  // The risk settings are read before anything is offered, and sequenced after the time
  // and the listing (which take no risk decision) and before any client's input.
  std::vector<engine::RiskCmd> risk = m.matcher->RiskCmdsFor(m.RiskSettingsFromConfig());
  if (absl::Status s = m.OfferRetrying(engine::TimeCmd{now}); !s.ok()) return s;
  if (absl::Status s = m.ListMonths(now, &info.listed); !s.ok()) return s;
  if (absl::Status s = m.OfferAll(risk); !s.ok()) return s;
  // Callers expect the listing in ListedSymbols() once Start returns.
  if (absl::Status s = Flush(); !s.ok()) return s;
  if (m.options.clock == ClockMode::kWall) m.StartWallClock();
  return info;
}

absl::Status ExchangeCore::Promote(int64_t timeout_ms, const std::atomic<bool>* abandon) {
  Impl& m = *impl_;
  if (!m.started) return absl::FailedPreconditionError("ExchangeCore::Promote before Start");
  if (m.pipeline->leading()) return absl::OkStatus();
  m.pipeline->Promote();
  const auto patience = std::chrono::milliseconds(timeout_ms);
  auto deadline = std::chrono::steady_clock::now() + patience;
  uint64_t seen = m.published_seq.load(std::memory_order_acquire);
  // Leading, and every followed input published: the listing below starts from the
  // published master, which then holds everything the old primary listed.
  while (!m.pipeline->leading() ||
         m.published_seq.load(std::memory_order_acquire) + 1 < m.pipeline->lead_start_seq()) {
    const auto now = std::chrono::steady_clock::now();
    // The patience is for a standby that stopped reading, not for one far behind.
    if (const uint64_t published = m.published_seq.load(std::memory_order_acquire);
        published != seen) {
      seen = published;
      deadline = now + patience;
    }
    if (now > deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("ExchangeCore::Promote: not leading, and no input of the log read for ",
                       timeout_ms, " ms"));
    }
    if (!m.running.load(std::memory_order_acquire)) return absl::UnavailableError("stopped");
    if (m.pipeline->failed()) {
      return absl::UnavailableError("ExchangeCore::Promote: the order path failed (the log)");
    }
    if (abandon != nullptr && abandon->load(std::memory_order_acquire)) {
      return absl::CancelledError("ExchangeCore::Promote: abandoned (the server stops)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  {
    std::lock_guard<std::mutex> lock(m.listing_mu);
    for (std::string& sym : AllSymbols()) m.listed_syms.insert(std::move(sym));
    m.listed_month_index = -1;
  }
  const engine::Timestamp now = m.StartTime();
  std::vector<engine::RiskCmd> risk = m.matcher->RiskCmdsFor(m.RiskSettingsFromConfig());
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
  auto start = ReplayJournalTail(*impl_->journal, impl_->MatcherOptionsFromConfig(), after, through,
                                 visitor);
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
