// ExchangeCore's start steps (exchange_core_impl.h): the data dir and journal, the trade
// recorder, the pipeline and what derives from the recovered engine, the monthly listing and
// the wall clock.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "cfx/concurrency/thread_name.h"
#include "cfx/storage/private_files.h"
#include "exchange_core_impl.h"
#include "journal_tail.h"

namespace cfx::exchange {

using internal::WallNow;

absl::Status ExchangeCore::Impl::ListMonths(engine::Timestamp now,
                                            std::vector<std::string>* added) {
  int year = 0, month = 0, day = 0;
  const int64_t now_us = now / 1000;
  common::YmdFromDate(common::Date{static_cast<int32_t>(now_us / common::kUsPerDay)}, &year, &month,
                      &day);
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

MatcherOptions ExchangeCore::Impl::MatcherOptionsFromConfig() const {
  MatcherOptions mo;
  mo.calendar = config.Calendar();
  mo.pre_trade_risk = options.pre_trade_risk;
  mo.max_open_orders_per_account = config.limits.max_open_orders_per_account;
  // The configured accounts, with room for as many again (an account added at a restart).
  mo.engine.account_capacity = std::max<size_t>(64, 2 * config.accounts.size());
  // No collateral: until 2026-12-07 the config's seeded every matcher, so an account whose
  // collateral was never sequenced (0 at the first start, or added at 0 later) replayed its
  // refused orders under a raised amount and took them.
  return mo;
}

MatcherOptions ExchangeCore::Impl::RiskSettingsFromConfig() const {
  MatcherOptions mo = MatcherOptionsFromConfig();
  for (const common::AccountConfig& a : config.accounts) mo.collateral[a.id] = a.collateral;
  return mo;
}

absl::Status ExchangeCore::Impl::OfferAll(const std::vector<engine::RiskCmd>& risk) {
  for (const engine::RiskCmd& c : risk) {
    if (absl::Status s = OfferRetrying(c); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ExchangeCore::Impl::OpenJournal() {
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
  jo.map_size_bytes = config.journal_map_bytes;
  jo.map_size_setting = "exchange.journal_map_gib in the config";
  jo.snapshot_map_size_bytes = config.snapshot_map_bytes;
  jo.snapshot_map_size_setting = "exchange.snapshot_map_gib in the config";
  auto j = journal::Journal::Open(jo);
  if (!j.ok()) return j.status();
  journal = std::move(*j);
  return absl::OkStatus();
}

absl::Status ExchangeCore::Impl::OpenRecorder(const MatcherOptions& mo, RecoveryInfo* info) {
  auto rec =
      TradeRecorder::Open(options.journal && options.record_trades ? data_dir : "",
                          options.ended_orders_kept, mo.calendar, config.trade_store_map_bytes);
  if (!rec.ok()) return rec.status();
  recorder = std::move(*rec);
  if (journal && options.record_trades && recorder->last_seq() > journal->LastSeq()) {
    // Only an operator's cut of the journal leaves the store ahead of it (a record is
    // journaled before it is recorded). Started on, the store would keep the rows of the
    // inputs cut and take the next inputs, which reuse their seqs, for recorded ones.
    return absl::FailedPreconditionError(absl::StrCat(
        data_dir, "/trades holds inputs up to ", recorder->last_seq(),
        ", past the journal's last (", journal->LastSeq(),
        "): the journal was cut after them. `cfx journal verify --truncate-corrupt-tail "
        "--data-dir ",
        data_dir, "` moves the store aside (or move ", data_dir,
        "/trades away yourself); the next start rebuilds it from the journal"));
  }
  if (journal && options.record_trades && recorder->last_seq() < journal->LastSeq()) {
    auto n = RecordJournalTail(*journal, mo, recorder.get());
    if (!n.ok()) return n.status();
    info->recorder_replayed = n->recorded;
    info->recorder_start_seq = n->start_seq;
  }
  return absl::OkStatus();
}

absl::Status ExchangeCore::Impl::StartPipeline(const MatcherOptions& mo, RecoveryInfo* info,
                                               engine::Timestamp* now) {
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
  // The recovered engine is read before the threads start: a standby's sequencer hands the
  // matcher what it follows at once (until 2026-12-06 this ran after, racing with it).
  auto r = pipeline->Start([&] {
    start_seq = pipeline->next_seq();
    published_seq.store(start_seq - 1);  // before a standby's publisher can move it on
    SeedFromRecoveredEngine(info);
    *now = StartTime();
  });
  if (!r.ok()) return r.status();
  info->fresh = r->next_seq == 1;
  info->next_seq = r->next_seq;
  info->snapshot_seq = r->snapshot_seq;
  info->replayed = r->replayed;
  info->snapshots_unreadable = r->snapshots_unreadable;
  info->skipped_snapshots = r->skipped_snapshots;
  info->unrestorable_snapshots = r->unrestorable_snapshots;
  info->snapshot_restore_error = r->snapshot_restore_error;
  return absl::OkStatus();
}

void ExchangeCore::Impl::SeedFromRecoveredEngine(RecoveryInfo* info) {
  // Before the pipeline's threads start (StartPipeline): nothing else reads or writes the
  // engine yet.
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

engine::Timestamp ExchangeCore::Impl::StartTime() const {
  const engine::Engine& eng = matcher->engine();
  engine::Timestamp now = options.clock == ClockMode::kWall       ? WallNow()
                          : options.start_time != engine::kNoTime ? options.start_time
                                                                  : WallNow();
  if (eng.now() != engine::kNoTime && eng.now() > now) now = eng.now();
  return now;
}

void ExchangeCore::Impl::StartWallClock() {
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

engine::ProductCmd ExchangeCore::Impl::ProductFor(const std::string& sym,
                                                  const common::ProductConfig* p) const {
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

}  // namespace cfx::exchange
