#include "cfx/settlement/batch.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cfx/common/csv.h"
#include "cfx/common/units.h"
#include "cfx/security_master/derive.h"
#include "cfx/settlement/expiry.h"
#include "cfx/settlement/prices.h"
#include "cfx/settlement/statements.h"
#include "cfx/settlement/vm.h"
#include "cfx/storage/private_files.h"
#include "fix_cache.h"
#include "posting.h"

namespace cfx::settlement {
namespace {

using internal::Account;
using internal::Contract;
using internal::Line;

// One run of SettleDate for a date that is not settled yet.
class Batch {
 public:
  Batch(common::Date date, const SettleConfig& config, const SettleInputs& inputs,
        const SettleOptions& options, Ledger& ledger)
      : date_(date),
        config_(config),
        inputs_(inputs),
        options_(options),
        ledger_(ledger),
        fixes_(inputs.fixes) {}

  absl::StatusOr<DayRecord> Run(std::optional<common::Date> last_settled);

 private:
  void Progress(std::string_view stage, int64_t done, int64_t total) {
    if (options_.progress) options_.progress(stage, done, total);
  }
  absl::StatusOr<int32_t> ContractIndex(std::string_view sym);
  int32_t AccountIndex(std::string_view id);
  Line& LineFor(Account& account, int32_t contract);
  absl::Status LoadListing();
  absl::Status LoadPrior(common::Date last);
  absl::Status LoadTrades(std::optional<common::Date> last);
  absl::Status PriceContracts();

  const common::Date date_;
  const SettleConfig& config_;
  const SettleInputs& inputs_;
  const SettleOptions& options_;
  Ledger& ledger_;
  internal::FixCache fixes_;
  std::map<std::string, ContractState, std::less<>> states_;
  std::vector<Contract> contracts_;
  absl::flat_hash_map<std::string, int32_t> contract_index_;
  std::vector<Account> accounts_;
  absl::flat_hash_map<std::string, int32_t> account_index_;
  // Σ of the accounts' vm_cum before D: __int128, as one account's may come near int64's
  // end while the total is that of the clearing account.
  __int128 prior_vm_cum_sum_ = 0;
  common::MicroUsd prev_clearing_vm_cum_;  // the clearing account's balance before D
  bool master_listing_ = false;         // the security master has contracts
  std::vector<std::string> unsettled_;  // found while loading the listing
};

absl::StatusOr<int32_t> Batch::ContractIndex(std::string_view sym) {
  auto it = contract_index_.find(absl::string_view(sym.data(), sym.size()));
  if (it != contract_index_.end()) return it->second;
  auto parsed = common::ParseSymbol(absl::string_view(sym.data(), sym.size()));
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad contract symbol '", std::string(sym), "': ", parsed.status().message()));
  }
  Contract c;
  c.sym = std::string(sym);
  c.parsed = *parsed;
  c.last_trading_day = security_master::LastTradingDay(*parsed, config_.calendar);
  if (auto s = states_.find(sym); s != states_.end() && !s->second.expired) {
    c.prior = s->second.last_settle;
    c.required = true;
  }
  int32_t index = static_cast<int32_t>(contracts_.size());
  contracts_.push_back(std::move(c));
  contract_index_.emplace(std::string(sym), index);
  return index;
}

int32_t Batch::AccountIndex(std::string_view id) {
  auto it = account_index_.find(absl::string_view(id.data(), id.size()));
  if (it != account_index_.end()) return it->second;
  int32_t index = static_cast<int32_t>(accounts_.size());
  accounts_.push_back(Account{std::string(id), common::MicroUsd(0), {}});
  account_index_.emplace(std::string(id), index);
  return index;
}

Line& Batch::LineFor(Account& account, int32_t contract) {
  // Accounts hold few contracts: a linear search beats any map here.
  for (Line& l : account.lines) {
    if (l.contract == contract) return l;
  }
  account.lines.push_back(Line{contract, {}});
  return account.lines.back();
}

// Every contract of the security master listed on the date and not past its last trading
// day must settle, traded or not (SPEC §9 item 6); its last trading day is the master's.
absl::Status Batch::LoadListing() {
  auto master = inputs_.trades->Contracts();
  if (!master.ok()) return master.status();
  master_listing_ = !master->empty();
  for (const security_master::Contract& m : *master) {
    if (!m.SettlesOn(date_)) continue;
    if (!m.contract) {
      unsettled_.push_back(m.sym + " (not a <grade>-<YYYYMM> contract: no fix, no last trading day)");
      continue;
    }
    auto index = ContractIndex(m.sym);
    if (!index.ok()) return index.status();
    Contract& c = contracts_[*index];
    c.required = true;
    // The master's last trading day was the calendar's at listing (`cfx serve` refuses
    // holidays that would move a listed one). Another one here is a damaged row or other
    // holidays than the exchange's: refused, rather than expire the contract on a day
    // nobody traded to (until 2026-12-07 the row's day was taken as it was, a review).
    if (m.last_trading_day && m.last_trading_day != c.last_trading_day) {
      return absl::FailedPreconditionError(absl::StrCat(
          "security master: ", m.sym, " lasts until ", common::FormatDate(*m.last_trading_day),
          ", but with these holidays its last trading day is ",
          common::FormatDate(*c.last_trading_day),
          ": settle with the holidays it was listed under (the data dir's settlement terms), or "
          "the row is damaged"));
    }
  }
  return absl::OkStatus();
}

absl::Status Batch::LoadPrior(common::Date last) {
  auto day = ledger_.ReadDay(last);
  if (!day.ok()) return day.status();
  if (!day->has_value()) {
    return absl::DataLossError(
        absl::StrCat("ledger: last settled date ", common::FormatDate(last), " has no day record"));
  }
  const DayRecord& prev = **day;
  // Map the previous day's contract indexes to ours; expired contracts carry nothing.
  std::vector<int32_t> remap(prev.contracts.size(), -1);
  for (size_t i = 0; i < prev.contracts.size(); ++i) {
    if (prev.contracts[i].expired) continue;
    auto index = ContractIndex(prev.contracts[i].sym);
    if (!index.ok()) return index.status();
    remap[i] = *index;
  }
  accounts_.reserve(prev.accounts);
  account_index_.reserve(prev.accounts);
  absl::Status s = ledger_.ForEachAccount(last, [&](AccountDay&& a) -> absl::Status {
    prior_vm_cum_sum_ += a.vm_cum.value();
    int32_t index = AccountIndex(a.account);
    Account& account = accounts_[index];
    account.vm_cum = a.vm_cum;
    for (const AccountLine& l : a.lines) {
      if (l.contract < 0 || static_cast<size_t>(l.contract) >= remap.size()) {
        return absl::DataLossError(absl::StrCat("ledger ", common::FormatDate(last), "/", a.account,
                                                ": bad contract index"));
      }
      if (l.qty == common::Qty(0) || remap[l.contract] < 0) continue;
      account.lines.push_back(Line{remap[l.contract], DayActivity{l.qty, common::Qty(0), 0}});
    }
    if (accounts_.size() % 65536 == 0) Progress("load", accounts_.size(), prev.accounts);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  // Cheap every-run audit: the accounts' cash VM and the clearing account offset exactly.
  prev_clearing_vm_cum_ = prev.clearing_vm_cum;
  if (prior_vm_cum_sum_ + prev.clearing_vm_cum.value() != 0 ||
      static_cast<int64_t>(accounts_.size()) != prev.accounts) {
    return absl::InternalError(absl::StrCat("ledger of ", common::FormatDate(last),
                                            " does not balance; run a ledger audit"));
  }
  return absl::OkStatus();
}

absl::Status Batch::LoadTrades(std::optional<common::Date> last) {
  // The trading day is [previous business day 16:00Z, D 16:00Z); the first settlement
  // takes every earlier trade too, so that positions start complete.
  const common::TimestampUs from =
      last ? common::AtHour(*last, 16) : std::numeric_limits<common::TimestampUs>::min();
  const common::TimestampUs to = common::AtHour(date_, 16);
  const common::TimestampUs close_from = to - 30 * common::kUsPerMinute;
  int64_t count = 0;
  return inputs_.trades->ForEachTrade(from, to, [&](const Trade& t) -> absl::Status {
    auto index = ContractIndex(t.sym);
    if (!index.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("trade ", t.seq, ": ", index.status().message()));
    }
    for (const std::string* acct : {&t.buy_acct, &t.sell_acct}) {
      // Account ids name statement files: refused before anything is posted.
      if (!common::IsValidAccountId(*acct)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "trade ", t.seq, ": account id '", *acct, "' ", common::kAccountIdRule));
      }
    }
    Contract& c = contracts_[*index];
    c.required = true;
    const common::Qty qty = t.qty;
    // Trades at prices and sizes no market has (a contract without a band trades at any
    // price) may not fit the sums in 64 bits: the run is refused, never wrapped or aborted.
    auto beyond = [&](const char* what) {
      return absl::OutOfRangeError(absl::StrCat(
          "trade ", t.seq, " (", t.sym, ", ", t.qty.value(), " at ", t.px_ticks.value(),
          " ticks): ", what,
          " does not fit in 64 bits; prices or positions beyond any market: not settled"));
    };
    int64_t notional;  // contract·ticks
    if (__builtin_mul_overflow(t.qty.value(), t.px_ticks.value(), &notional)) {
      return beyond("its notional");
    }
    int64_t buy_qty, buy_px, sell_qty, sell_px, window_qty = 0;
    DayActivity& buy = LineFor(accounts_[AccountIndex(t.buy_acct)], *index).act;
    DayActivity& sell = LineFor(accounts_[AccountIndex(t.sell_acct)], *index).act;
    if (__builtin_add_overflow(buy.traded_qty.value(), qty.value(), &buy_qty) ||
        __builtin_add_overflow(buy.traded_qty_px, notional, &buy_px) ||
        __builtin_sub_overflow(sell.traded_qty.value(), qty.value(), &sell_qty) ||
        __builtin_sub_overflow(sell.traded_qty_px, notional, &sell_px) ||
        (t.ts >= close_from &&
         __builtin_add_overflow(c.vwap_den.value(), qty.value(), &window_qty))) {
      return beyond("a day's sum of trades");
    }
    if (t.ts >= close_from) {
      c.vwap_num += notional;
      c.vwap_den = common::Qty(window_qty);
      // A party on both sides of a trade (possible for a firm) counts it once.
      c.window_accounts[t.buy_acct] += t.qty.value();
      if (t.sell_acct != t.buy_acct) c.window_accounts[t.sell_acct] += t.qty.value();
      const std::string& buy_firm = t.buy_firm.empty() ? t.buy_acct : t.buy_firm;
      const std::string& sell_firm = t.sell_firm.empty() ? t.sell_acct : t.sell_firm;
      c.window_firms[buy_firm] += t.qty.value();
      if (sell_firm != buy_firm) c.window_firms[sell_firm] += t.qty.value();
    }
    // (One account on both sides: its buy and its sell both land on the same line.)
    buy.traded_qty = common::Qty(buy_qty);
    buy.traded_qty_px = buy_px;
    sell.traded_qty -= qty;
    sell.traded_qty_px -= notional;
    if (++count % 65536 == 0) Progress("trades", count, 0);
    return absl::OkStatus();
  });
}

absl::Status Batch::PriceContracts() {
  // Without a security master (a data dir written before it existed): the configured
  // grades' 12 months, settled where a price source exists.
  if (!master_listing_) {
    for (const common::Grade& g : config_.grades) {
      for (const common::ContractSymbol& listed : security_master::ListingWindow(g, date_)) {
        if (auto s = ContractIndex(listed.Key()); !s.ok()) return s.status();
      }
    }
  }
  const common::Date prev_business_day = config_.calendar.PreviousBusinessDay(date_);
  std::vector<std::string> unsettled = unsettled_;
  for (Contract& c : contracts_) {
    const common::Date ltd = *c.last_trading_day;
    if (ltd < date_) {
      if (c.required)
        unsettled.push_back(c.sym + " (past its last trading day " + common::FormatDate(ltd) + ")");
      continue;
    }
    PriceInputs in;
    in.vwap_num = c.vwap_num;
    in.vwap_den = c.vwap_den;
    in.prior_ticks = c.prior;
    if (c.vwap_den == common::Qty(0)) {
      auto close = inputs_.trades->Close(c.sym, date_);
      if (!close.ok()) return close.status();
      if (close->has_value()) {
        in.bid_ticks = (*close)->bid_ticks;
        in.ask_ticks = (*close)->ask_ticks;
      }
    }
    const std::string grade = c.parsed.grade.Key();
    auto fix = fixes_.Get(grade, date_);
    if (!fix.ok()) return fix.status();
    auto prev_fix = fixes_.Get(grade, prev_business_day);
    if (!prev_fix.ok()) return prev_fix.status();
    in.fix_e4 = *fix;
    in.prev_fix_e4 = *prev_fix;
    c.price = ComputeSettlementPrice(in);
    // Where the tier took a fix as missing (T3 keeping the prior, T4 or no price), the
    // missing fix must be a published "no fix", not a day not built yet.
    if (!c.price || c.price->tier == PriceTier::kT3 || c.price->tier == PriceTier::kT4) {
      if (!in.fix_e4) {
        if (absl::Status s = fixes_.CheckMissing(date_); !s.ok()) return s;
      }
      if (!in.prev_fix_e4 && c.price && c.price->tier == PriceTier::kT3) {
        if (absl::Status s = fixes_.CheckMissing(prev_business_day); !s.ok()) return s;
      }
    }
    if (!c.price) {
      if (c.required)
        unsettled.push_back(c.sym +
                            " (no closing trades, no usable close, no prior settlement, no fix)");
      continue;
    }
    if (ltd == date_) {
      c.expiring = true;
      std::vector<std::optional<int64_t>> month;
      for (common::Date d : config_.calendar.BusinessDays(
               common::DateFromYmd(c.parsed.year, c.parsed.month, 1), ltd)) {
        auto f = fixes_.Get(grade, d);
        if (!f.ok()) return f.status();
        if (!f->has_value()) {  // skipped by the FSP only if it is a published "no fix"
          if (absl::Status s = fixes_.CheckMissing(d); !s.ok()) return s;
        }
        month.push_back(*f);
      }
      c.fsp = FinalSettlementPrice(month);
      // SPEC §9 step 3: no fix in the month -> unsettled, open interest or not (the FSP is
      // the contract's final price of record even when nothing is paid at it).
      if (!c.fsp)
        unsettled.push_back(c.sym + " (expiry: no fix in the contract month for the FSP)");
    }
  }
  if (!unsettled.empty()) {
    std::sort(unsettled.begin(), unsettled.end());
    return absl::FailedPreconditionError(absl::StrCat("unsettled on ", common::FormatDate(date_),
                                                      ": ", absl::StrJoin(unsettled, "; ")));
  }
  return absl::OkStatus();
}

absl::StatusOr<DayRecord> Batch::Run(std::optional<common::Date> last_settled) {
  auto states = ledger_.Contracts();
  if (!states.ok()) return states.status();
  states_ = *std::move(states);
  // Every contract with a prior settlement keeps settling until it expires.
  for (const auto& [sym, state] : states_) {
    if (state.expired) continue;
    if (auto index = ContractIndex(sym); !index.ok()) return index.status();
  }
  if (absl::Status s = LoadListing(); !s.ok()) return s;
  if (last_settled) {
    if (absl::Status s = LoadPrior(*last_settled); !s.ok()) return s;
  }
  if (absl::Status s = LoadTrades(last_settled); !s.ok()) return s;
  if (absl::Status s = PriceContracts(); !s.ok()) return s;
  std::vector<AccountDay> entries;
  auto day = internal::PostDay(
      internal::PricedDay{date_, &contracts_, &accounts_, prev_clearing_vm_cum_}, config_, inputs_,
      [&](int64_t done, int64_t total) { Progress("accounts", done, total); }, &entries);
  if (!day.ok()) return day.status();
  if (options_.fail) {
    if (absl::Status s = options_.fail("computed"); !s.ok()) return s;
  }
  Progress("write", 0, 1);
  if (absl::Status s = ledger_.CommitDay(*day, entries, options_.fail); !s.ok()) return s;
  Progress("write", 1, 1);
  return day;
}

}  // namespace

absl::StatusOr<SettleReport> SettleDate(common::Date date, const SettleConfig& config,
                                        const SettleInputs& inputs, const SettleOptions& options) {
  if (inputs.trades == nullptr) return absl::InvalidArgumentError("no trade source");
  if (!config.calendar.IsBusinessDay(date)) {
    return absl::InvalidArgumentError(
        absl::StrCat(common::FormatDate(date), " is not a business day"));
  }
  // Created by the first date's commit: a run that fails leaves no ledger behind.
  auto ledger = Ledger::Open(options.data_dir, /*create=*/false);
  if (!ledger.ok()) return ledger.status();
  SettleReport report;
  auto settled = (*ledger)->ReadDay(date);
  if (!settled.ok()) return settled.status();
  // Statements are derived from the ledger (of a settled or a just-posted date).
  auto write_statements = [&]() -> absl::Status {
    auto progress = [&](int64_t done, int64_t total) {
      if (options.progress) options.progress("statements", done, total);
    };
    absl::Status s = WriteStatements(**ledger, date, options.out_dir, options.fail, progress);
    if (s.ok()) report.statements_written = true;
    return s;
  };
  if (settled->has_value()) {
    report.day = **settled;
    report.already_settled = true;
    // Statements are derived from the ledger: restore them if a crash lost them.
    if (!options.out_dir.empty() &&
        !std::filesystem::exists(std::filesystem::path(options.out_dir) /
                                 common::FormatDate(date))) {
      if (absl::Status s = write_statements(); !s.ok()) return s;
    }
    return report;
  }
  if (options.ready) {
    if (absl::Status s = options.ready(); !s.ok()) return s;
  }
  auto first = (*ledger)->FirstSettledDate();
  if (!first.ok()) return first.status();
  auto last = (*ledger)->LastSettledDate();
  if (!last.ok()) return last.status();
  if (last->has_value()) {
    if (date < **first) {
      return absl::FailedPreconditionError(
          absl::StrCat("refusing to settle ", common::FormatDate(date),
                       ": it is before the first settled date ", common::FormatDate(**first)));
    }
    const common::Date expected = config.calendar.NextBusinessDay(**last);
    if (date != expected) {
      return absl::FailedPreconditionError(absl::StrCat(
          "refusing to settle ", common::FormatDate(date), ": the previous business day ",
          common::FormatDate(config.calendar.PreviousBusinessDay(date)),
          " is not settled (last settled: ", common::FormatDate(**last), "); settle ",
          common::FormatDate(expected), " first"));
    }
  } else {
    // The first date settled fixes the ledger's start for good (each later run settles the
    // next business day): a date before any contract of the master is listed (a year typed
    // wrong) would leave a year of empty days to settle before the real first one.
    auto contracts = inputs.trades->Contracts();
    if (!contracts.ok()) return contracts.status();
    std::optional<common::Date> first_listed;
    bool any = false;
    for (const security_master::Contract& c : *contracts) {
      any = any || c.SettlesOn(date);
      if (c.listing_date && (!first_listed || *c.listing_date < *first_listed)) {
        first_listed = c.listing_date;
      }
    }
    // Where the master does not say when a contract was listed (a replay's `product` lines
    // before any `time`), the trades do: a first date before the day of the first trade, when
    // there are trades, is refused the same way.
    if (any && !first_listed) {
      std::optional<common::TimestampUs> first_trade;
      const absl::Status found =
          inputs.trades->ForEachTrade(INT64_MIN, INT64_MAX, [&](const Trade& t) {
            first_trade = t.ts;
            return absl::CancelledError("found");  // the first in sequence order: enough
          });
      if (!found.ok() && !absl::IsCancelled(found)) return found;
      if (first_trade && *first_trade >= common::AtHour(date, 16)) {
        any = false;
        // The trading day a trade belongs to (SPEC §9), a business day: a Friday evening's
        // trade is Monday's (until 2026-12-07 the message named the Saturday).
        first_listed = config.calendar.TradingDayOf(*first_trade);
      }
    }
    if (!contracts->empty() && !any) {
      return absl::FailedPreconditionError(absl::StrCat(
          "refusing to settle ", common::FormatDate(date),
          " as this ledger's first date: no contract of the security master trades then",
          first_listed
              ? absl::StrCat(" (the first is listed on ", common::FormatDate(*first_listed), ")")
              : std::string(),
          "; the first date settled fixes where the ledger starts"));
    }
  }
  // The statements' folder is checked before anything is posted: one that cannot be written
  // refuses the run with nothing written (the ledger commits first, the statements follow).
  // So is a `<out>/<D>` already there for a date this ledger has not settled: another
  // exchange's statements or the user's own files, which a run must not replace.
  //
  // The folders the check creates (the statements' folder and missing parents, deepest
  // first): a run that fails before its commit removes them again.
  std::vector<std::filesystem::path> made_dirs;
  if (!options.out_dir.empty()) {
    std::error_code ec;
    for (std::filesystem::path p(options.out_dir);
         !p.empty() && !std::filesystem::exists(p, ec) && made_dirs.size() < 64;
         p = p.parent_path()) {
      made_dirs.push_back(p);
    }
    const std::filesystem::path final_dir =
        std::filesystem::path(options.out_dir) / common::FormatDate(date);
    const std::filesystem::file_status there = std::filesystem::symlink_status(final_dir, ec);
    if (there.type() == std::filesystem::file_type::none) {  // could not be looked at
      return absl::UnavailableError(
          absl::StrCat("statements folder: ", final_dir.string(), ": ", ec.message()));
    }
    if (there.type() != std::filesystem::file_type::not_found) {
      return absl::FailedPreconditionError(absl::StrCat(
          "statements folder: ", final_dir.string(), " is already there, and ",
          common::FormatDate(date),
          " is not settled in this data dir's ledger: it is not this run's to replace; move it "
          "away or name another --out"));
    }
    const std::filesystem::path probe =
        std::filesystem::path(options.out_dir) / ("." + common::FormatDate(date) + ".tmp");
    if (absl::Status made = storage::MakePrivateDirs(probe.string()); !made.ok()) {
      return absl::Status(made.code(), absl::StrCat("statements folder: ", made.message()));
    }
    // This user's alone (WriteStatements checks it again): refused before anything is posted.
    if (absl::Status mine = storage::CheckPrivateDir(options.out_dir); !mine.ok()) {
      std::filesystem::remove_all(probe, ec);
      for (const std::filesystem::path& p : made_dirs) std::filesystem::remove(p, ec);
      return absl::Status(mine.code(), absl::StrCat("statements folder: ", mine.message()));
    }
    std::filesystem::remove_all(probe, ec);
  }
  Batch batch(date, config, inputs, options, **ledger);
  auto day = batch.Run(*last);
  if (!day.ok()) {  // nothing committed: nothing left behind either
    std::error_code ec;
    for (const std::filesystem::path& d : made_dirs) std::filesystem::remove(d, ec);  // if empty
    return day.status();
  }
  report.day = *std::move(day);
  if (options.fail) {
    if (absl::Status s = options.fail("committed"); !s.ok()) return s;
  }
  if (!options.out_dir.empty()) {
    if (absl::Status s = write_statements(); !s.ok()) return s;
  }
  return report;
}

}  // namespace cfx::settlement
