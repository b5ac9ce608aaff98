#include "cfx/gateway/core_http_providers.h"

#include <chrono>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/common/decimal.h"
#include "cfx/common/units.h"
#include "cfx/gateway/margin_answer.h"
#include "cfx/gpu_valuation/margin_engine.h"
#include "cfx/reference/explain.h"
#include "cfx/reference/fix_store.h"
#include "cfx/settlement/ledger.h"

namespace cfx::gateway {
namespace {

namespace gv = cfx::gpu_valuation;

// How far back the latest fix of a grade is looked for when a contract has never settled.
constexpr int kFixLookbackDays = 60;

std::string Price3(int64_t ticks) { return common::FormatScaled(ticks, 3); }

// The margin inputs at one point in time. Immutable once built; shared with readers.
struct Basis {
  std::optional<common::Date> settled;                        // latest settled date in the ledger
  uint64_t listing_version = 0;  // the core's security master when built (its contracts)
  common::Date as_of;                                         // throughput rows dated <= as_of
  std::map<std::string, int64_t> prices;                      // ticks, by symbol
  std::map<std::string, common::PriceTicks> settles;          // from the ledger only
  std::map<std::pair<std::string, std::string>, common::MicroUsd> vm;  // (account, sym) -> Σ VM
  std::vector<gv::ThroughputRow> throughput;
  std::shared_ptr<const gv::MarginEngine> span16;
  std::shared_ptr<const gv::MarginEngine> mc;  // built on first use
};

}  // namespace

class CoreHttpProviders::Impl {
 public:
  Impl(exchange::ExchangeCore* core, const common::ExchangeConfig& config, std::string data_dir)
      : core_(core),
        config_(config),
        calendar_(config.Calendar()),
        data_dir_(std::move(data_dir)) {}

  exchange::ExchangeCore* core_;
  common::ExchangeConfig config_;
  common::BusinessCalendar calendar_;
  std::string data_dir_;

  std::mutex mu_;  // guards the stores and basis_ (never held during a margin run)
  std::unique_ptr<reference::FixStore> fixes_;
  std::unique_ptr<settlement::Ledger> ledger_;
  std::shared_ptr<Basis> basis_;

  // The trading day now is in (SPEC §9: D is [the previous business day's 16:00Z, D's
  // 16:00Z)). Until 2026-12-07 the UTC calendar date: from a day's close to midnight the
  // basis still took the fix before that day's as the latest.
  common::Date Today() const {
    engine::Timestamp now = core_->now();
    int64_t us = now == engine::kNoTime ? std::chrono::duration_cast<std::chrono::microseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count()
                                        : now / 1000;
    return calendar_.TradingDayOf(us);
  }

  // REQUIRES: mu_ held.
  absl::StatusOr<std::shared_ptr<Basis>> BuildBasis(std::optional<common::Date> settled,
                                                    uint64_t listing_version, common::Date today) {
    auto b = std::make_shared<Basis>();
    b->settled = settled;
    b->listing_version = listing_version;
    b->as_of = today;
    auto contracts = ledger_->Contracts();
    if (!contracts.ok()) return contracts.status();
    for (const auto& [sym, state] : *contracts) {
      if (!state.expired) b->settles[sym] = state.last_settle;
    }
    if (settled) {
      auto first = ledger_->FirstSettledDate();
      if (!first.ok()) return first.status();
      for (common::Date d = first->value_or(*settled); d <= *settled; d.days++) {
        auto day = ledger_->ReadDay(d);
        if (!day.ok()) return day.status();
        if (!day->has_value()) continue;
        const settlement::DayRecord& rec = **day;
        absl::Status s = ledger_->ForEachAccount(d, [&](settlement::AccountDay&& a) {
          for (const settlement::AccountLine& l : a.lines) {
            b->vm[{a.account, rec.contracts[l.contract].sym}] += l.vm + l.final_vm;
          }
          return absl::OkStatus();
        });
        if (!s.ok()) return s;
      }
    }
    const common::Date from{b->as_of.days - kFixLookbackDays};
    std::map<std::string, std::optional<int64_t>> fix_by_grade;
    // Every contract of the security master: a position may be held in one that expired.
    for (const std::string& sym : core_->AllSymbols()) {
      if (auto it = b->settles.find(sym); it != b->settles.end()) {
        b->prices[sym] = it->second.value();
        continue;
      }
      absl::StatusOr<common::ContractSymbol> cs = common::ParseSymbol(sym);
      if (!cs.ok()) continue;
      const std::string grade = cs->grade.Key();
      if (!fix_by_grade.count(grade)) {
        std::optional<int64_t> fix;
        // The fix of `as_of` is published at its 16:00Z close: during that trading day
        // the latest fix is the previous business day's.
        auto range = fixes_->Range(grade, from, common::Date{b->as_of.days - 1});
        if (!range.ok()) return range.status();
        for (const reference::FixRecord& r : *range) {
          if (r.fix_e4) fix = common::DivRoundHalfEven(*r.fix_e4, 10);  // 4 decimals -> ticks
        }
        if (!fix) {
          for (const common::ProductConfig& p : config_.products) {
            if (p.grade == cs->grade && p.ref_ticks) fix = *p.ref_ticks;
          }
        }
        fix_by_grade[grade] = fix;
      }
      if (fix_by_grade[grade] && *fix_by_grade[grade] > 0) b->prices[sym] = *fix_by_grade[grade];
    }
    auto ops = fixes_->LatestThroughput(b->as_of);
    if (!ops.ok()) return ops.status();
    b->throughput = *std::move(ops);  // valuation's rows are the reference's
    auto engine = MakeEngine(*b, gv::ScenarioMethod::kSpan16);
    if (!engine.ok()) return engine.status();
    b->span16 = *std::move(engine);
    return b;
  }

  absl::StatusOr<std::shared_ptr<const gv::MarginEngine>> MakeEngine(const Basis& b,
                                                                     gv::ScenarioMethod m) {
    std::vector<gv::ContractPrice> prices;
    for (const auto& [sym, ticks] : b.prices) prices.push_back({sym, gv::ValuedTicks(ticks)});
    gv::MarginOptions options;
    options.method = m;
    options.psr = config_.psr;
    options.as_of = b.as_of;
    auto engine = gv::MarginEngine::Create(std::move(prices), b.throughput, options);
    if (!engine.ok()) return engine.status();
    return std::shared_ptr<const gv::MarginEngine>(std::move(*engine));
  }

  // The current basis, rebuilt when the ledger has a newer settlement, when the security
  // master changed (a month listed at the roll has no price, band reference or margin
  // until it is in the basis: it used to wait for the next settlement), and at each new
  // date (the latest fix and throughput are those before it).
  absl::StatusOr<std::shared_ptr<Basis>> Current() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ledger_) return absl::UnavailableError("providers not started");
    // Read before the contracts it stands for (ExchangeCore::ListingVersion).
    const uint64_t listing_version = core_->ListingVersion();
    const common::Date today = Today();
    auto settled = ledger_->LastSettledDate();
    if (!settled.ok()) return settled.status();
    if (basis_ == nullptr || basis_->settled != *settled ||
        basis_->listing_version != listing_version || basis_->as_of != today) {
      auto b = BuildBasis(*settled, listing_version, today);
      if (!b.ok()) return b.status();
      basis_ = *std::move(b);
    }
    return basis_;
  }

  absl::StatusOr<std::shared_ptr<const gv::MarginEngine>> EngineFor(MarginMethod method) {
    auto b = Current();
    if (!b.ok()) return b.status();
    if (method == MarginMethod::kSpan16) return (*b)->span16;
    std::lock_guard<std::mutex> lock(mu_);
    if ((*b)->mc == nullptr) {
      auto mc = MakeEngine(**b, gv::ScenarioMethod::kMonteCarlo);
      if (!mc.ok()) return mc.status();
      (*b)->mc = *std::move(mc);
    }
    return (*b)->mc;
  }
};

CoreHttpProviders::CoreHttpProviders(exchange::ExchangeCore* core,
                                     const common::ExchangeConfig& config, std::string data_dir)
    : impl_(std::make_unique<Impl>(core, config, std::move(data_dir))) {}

CoreHttpProviders::~CoreHttpProviders() = default;

absl::Status CoreHttpProviders::Start() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu_);
    auto fixes = reference::FixStore::Open(impl_->data_dir_);
    if (!fixes.ok()) return fixes.status();
    impl_->fixes_ = *std::move(fixes);
    auto ledger = settlement::Ledger::Open(impl_->data_dir_);
    if (!ledger.ok()) return ledger.status();
    impl_->ledger_ = *std::move(ledger);
  }
  return impl_->Current().status();
}

absl::StatusOr<std::map<std::string, int64_t>> CoreHttpProviders::BandReferences() {
  auto b = impl_->Current();
  if (!b.ok()) return b.status();
  return (*b)->prices;
}

HttpProviders CoreHttpProviders::Providers() {
  HttpProviders p{this, this, this, this, this};
  p.contracts = this;
  return p;
}

absl::StatusOr<std::vector<security_master::Contract>> CoreHttpProviders::Contracts() {
  return impl_->core_->Contracts();
}

absl::StatusOr<security_master::ContractRecord> CoreHttpProviders::FindContract(
    const std::string& sym) {
  std::optional<security_master::ContractRecord> record = impl_->core_->FindContract(sym);
  if (!record) return absl::NotFoundError("no such contract");
  return *std::move(record);
}

absl::StatusOr<std::map<std::string, int64_t>> CoreHttpProviders::PerContractMargins() {
  auto b = impl_->Current();
  if (!b.ok()) return b.status();
  std::map<std::string, int64_t> out;
  for (const auto& [sym, ticks] : (*b)->prices) {
    auto im = (*b)->span16->PerContractInitialMargin(sym);
    if (!im.ok()) return im.status();
    out[sym] = *im;
  }
  return out;
}

absl::StatusOr<MarginResult> CoreHttpProviders::AccountMargin(const std::string& account,
                                                              MarginMethod method) {
  auto engine = impl_->EngineFor(method);
  if (!engine.ok()) return engine.status();
  std::vector<gv::Position> book;
  for (const exchange::PositionView& p : impl_->core_->Positions(account)) {
    if (p.qty == engine::Qty(0)) continue;
    // An expired contract's position was closed at its final settlement: no risk left.
    std::optional<exchange::BookView> book_view = impl_->core_->BookSnapshot(p.sym, 0);
    if (book_view && book_view->state == engine::TradingState::kExpired) continue;
    if ((*engine)->ContractIndex(p.sym) < 0) {
      return absl::UnavailableError(absl::StrCat("no price for ", p.sym));
    }
    book.push_back({p.sym, p.qty.value()});
  }
  auto r = (*engine)->ComputeAccount(account, book);
  if (!r.ok()) return r.status();
  return ToHttpMargin(*r, static_cast<int>((*engine)->scenarios().scenarios.size()));
}

absl::StatusOr<MarginResult> CoreHttpProviders::WhatIf(const std::vector<WhatIfPosition>& positions,
                                                       MarginMethod method) {
  auto engine = impl_->EngineFor(method);
  if (!engine.ok()) return engine.status();
  std::vector<gv::Position> book;
  for (const WhatIfPosition& p : positions) {
    if ((*engine)->ContractIndex(p.sym) < 0) {
      return absl::InvalidArgumentError(absl::StrCat("unknown or unpriced symbol ", p.sym));
    }
    // An expired contract can be held by no one (positions close at final settlement), as
    // account margin leaves it out: asked about, it is a bad parameter, not a price.
    std::optional<exchange::BookView> book_view = impl_->core_->BookSnapshot(p.sym, 0);
    if (book_view && book_view->state == engine::TradingState::kExpired) {
      return absl::InvalidArgumentError(absl::StrCat(p.sym, " has expired"));
    }
    book.push_back({p.sym, p.qty});
  }
  // InvalidArgument (too large to evaluate exactly) is shown to the caller as a 400.
  auto r = (*engine)->ComputeAccount("whatif", book);
  if (!r.ok()) return r.status();
  return ToHttpMargin(*r, static_cast<int>((*engine)->scenarios().scenarios.size()));
}

absl::StatusOr<std::vector<PositionLine>> CoreHttpProviders::Positions(const std::string& account) {
  auto b = impl_->Current();
  if (!b.ok()) return b.status();
  std::vector<PositionLine> out;
  for (const exchange::PositionView& p : impl_->core_->Positions(account)) {
    PositionLine line;
    line.sym = p.sym;
    line.qty = p.qty.value();
    line.open_buy_qty = p.open_buy_qty.value();
    line.open_sell_qty = p.open_sell_qty.value();
    if (auto view = impl_->core_->BookSnapshot(p.sym, 0); view && view->has_last_trade) {
      line.last_price = Price3(view->last_px.value());
    }
    if (auto it = (*b)->settles.find(p.sym); it != (*b)->settles.end()) {
      line.settle = Price3(it->second.value());
    }
    if (auto it = (*b)->vm.find({account, p.sym}); it != (*b)->vm.end()) {
      line.vm_micro_usd = it->second.value();
    }
    out.push_back(std::move(line));
  }
  return out;
}

absl::StatusOr<BookSnapshot> CoreHttpProviders::Book(const std::string& sym, int depth) {
  std::optional<exchange::BookView> view =
      impl_->core_->BookSnapshot(sym, std::min(depth, exchange::kMaxPublishedDepth));
  if (!view) return absl::NotFoundError(absl::StrCat("unknown symbol ", sym));
  BookSnapshot out;
  out.sym = sym;
  out.state = std::string(engine::ToString(view->state));
  out.seq = view->seq;
  for (const exchange::BookLevelView& l : view->bids)
    out.bids.push_back({Price3(l.px.value()), l.qty.value(), l.count});
  for (const exchange::BookLevelView& l : view->asks)
    out.asks.push_back({Price3(l.px.value()), l.qty.value(), l.count});
  if (view->has_last_trade) {
    LastTrade t;
    t.price = Price3(view->last_px.value());
    t.qty = view->last_qty.value();
    if (view->last_ts != engine::kNoTime) t.ts = common::FormatTimestamp(view->last_ts / 1000);
    out.last_trade = t;
  }
  return out;
}

namespace {

FixRecord FixToHttp(const reference::FixRecord& r) {
  FixRecord f;
  f.grade = r.grade;
  f.date = common::FormatDate(r.date);
  if (r.fix_e4) f.fix = common::FormatScaled(*r.fix_e4, 4);
  f.level = r.level;
  if (r.p25_e4) f.p25 = common::FormatScaled(*r.p25_e4, 4);
  if (r.p75_e4) f.p75 = common::FormatScaled(*r.p75_e4, 4);
  f.n_obs = r.n_obs;
  f.n_dropped = r.n_dropped;
  f.n_providers = r.n_providers;
  f.volume = reference::FormatVolume(r.volume_e6);         // exact, as `cfx reference build`
  if (r.theta) f.theta = common::FormatMeasure(*r.theta);  // as `cfx reference build`
  if (r.price_per_mtok_e4) f.price_per_mtok = common::FormatScaled(*r.price_per_mtok_e4, 4);
  f.flags = r.flags;
  f.methodology = r.methodology;
  f.inputs_sha256 = r.inputs_sha256;
  return f;
}

}  // namespace

// A grade is known when a product of the config trades it or the reference store holds a
// fix for it: the benchmark is published for every grade its observations cover, listed or
// not (docs/http.md).
absl::Status CoreHttpProviders::CheckGrade(const common::Grade& grade) {
  if (!impl_->fixes_) return absl::UnavailableError("providers not started");
  for (const common::ProductConfig& p : impl_->config_.products) {
    if (p.grade == grade) return absl::OkStatus();
  }
  absl::StatusOr<bool> stored = impl_->fixes_->HasGrade(grade.Key());
  if (!stored.ok()) return stored.status();
  if (*stored) return absl::OkStatus();
  return absl::NotFoundError(absl::StrCat("unknown grade ", grade.Key()));
}

absl::StatusOr<std::vector<FixRecord>> CoreHttpProviders::Fixes(const common::Grade& grade,
                                                                common::Date from,
                                                                common::Date to) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  if (absl::Status s = CheckGrade(grade); !s.ok()) return s;
  auto records = impl_->fixes_->Range(grade.Key(), from, to);
  if (!records.ok()) return records.status();
  std::vector<FixRecord> out;
  for (const reference::FixRecord& r : *records) out.push_back(FixToHttp(r));
  return out;
}

absl::StatusOr<std::vector<FixRecord>> CoreHttpProviders::Revisions(const common::Grade& grade,
                                                                    common::Date from,
                                                                    common::Date to) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  if (absl::Status s = CheckGrade(grade); !s.ok()) return s;
  auto revisions = impl_->fixes_->RangeHistory(grade.Key(), from, to);
  if (!revisions.ok()) return revisions.status();
  std::vector<FixRecord> out;
  for (const reference::FixRevision& r : *revisions) {
    out.push_back(FixToHttp(r.record));
    out.back().revision = r.revision;
    out.back().reason = r.reason;
  }
  return out;
}

absl::StatusOr<std::string> CoreHttpProviders::Explain(const common::Grade& grade,
                                                       common::Date date) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  if (absl::Status s = CheckGrade(grade); !s.ok()) return s;
  auto json = impl_->fixes_->Explanation(grade.Key(), date, std::nullopt);
  if (!json.ok()) return json.status();
  if (!json->has_value()) {
    return absl::NotFoundError(absl::StrCat("no explanation stored for ", grade.Key(), " ",
                                            common::FormatDate(date)));
  }
  // Read before it is served: a damaged record (a page of the store overwritten) is a 500,
  // not a 200 whose body is no JSON.
  if (absl::Status s = reference::CheckExplanationJson(**json); !s.ok()) {
    return absl::DataLossError(absl::StrCat("the explanation stored for ", grade.Key(), " ",
                                            common::FormatDate(date),
                                            " is damaged: ", s.message()));
  }
  return **json;
}

std::vector<GaugeSample> CoreHttpProviders::Gauges() {
  exchange::ExchangeStats s = impl_->core_->Stats();
  auto g = [](const char* name, const char* help, double v) {
    return GaugeSample{name, help, {}, v};
  };
  // Counts since start only go up: Prometheus counters (rate() and increase() apply).
  auto c = [](const char* name, const char* help, double v) {
    return GaugeSample{name, help, {}, v, /*counter=*/true};
  };
  return {
      c("cfx_exchange_inputs", "Journaled inputs since start", static_cast<double>(s.inputs)),
      c("cfx_exchange_outcomes", "Outcomes delivered since start", static_cast<double>(s.outcomes)),
      c("cfx_exchange_trades", "Trades since start", static_cast<double>(s.trades)),
      g("cfx_exchange_next_seq", "Next input sequence number", static_cast<double>(s.next_seq)),
      c("cfx_journal_batches", "Group commits since start", static_cast<double>(s.batches)),
      g("cfx_journal_max_batch", "Largest group commit", static_cast<double>(s.max_batch)),
      c("cfx_exchange_offers_full", "Submits refused: input ring full",
        static_cast<double>(s.offers_full)),
      c("cfx_exchange_snapshots_written", "Engine snapshots written",
        static_cast<double>(s.snapshots_written)),
      // Replication (docs/replication.md): the state hash at the latest snapshot seq, as a
      // label (64 bits do not fit a sample's double), with that seq as its value.
      GaugeSample{"cfx_state_hash",
                  "Matcher state hash (label) after input seq (value)",
                  {{"hash", absl::StrFormat("%016x", s.state_hash)}},
                  static_cast<double>(s.state_seq)},
      g("cfx_replication_leading", "1: sequencing inputs (primary or alone); 0: standby",
        s.leading ? 1 : 0),
      c("cfx_replication_followed_inputs", "Inputs applied from the replicated log",
        static_cast<double>(s.followed)),
      c("cfx_replication_state_checks", "State hashes found equal to the primary's",
        static_cast<double>(s.state_checks)),
      g("cfx_replication_state_checked_seq", "Latest input seq whose state hash was checked",
        static_cast<double>(s.state_checked_seq)),
  };
}

}  // namespace cfx::gateway
