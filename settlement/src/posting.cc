#include "posting.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "cfx/settlement/sources.h"

namespace cfx::settlement::internal {
namespace {

// The largest party of a closing window (the smallest id among equals).
std::pair<std::string, common::Qty> Largest(
    const std::map<std::string, int64_t, std::less<>>& parties) {
  std::pair<std::string, common::Qty> best;
  for (const auto& [id, qty] : parties) {
    if (common::Qty(qty) > best.second) best = {id, common::Qty(qty)};
  }
  return best;
}

}  // namespace

absl::StatusOr<DayRecord> PostDay(const PricedDay& priced, const SettleConfig& config,
                                  const SettleInputs& inputs,
                                  const std::function<void(int64_t, int64_t)>& progress,
                                  std::vector<AccountDay>* out) {
  const std::vector<Contract>& contracts = *priced.contracts;
  const std::vector<Account>& accounts = *priced.accounts;
  DayRecord day;
  day.date = priced.date;
  day.concentration_alert_e4 = config.close_concentration_alert_e4;
  day.margin_available = inputs.margin != nullptr;
  day.fixes_available = inputs.fixes != nullptr;
  // Settled contracts in symbol order; `order[old] = new index`.
  std::vector<int32_t> by_sym;
  for (size_t i = 0; i < contracts.size(); ++i) {
    if (contracts[i].price) by_sym.push_back(static_cast<int32_t>(i));
  }
  std::sort(by_sym.begin(), by_sym.end(),
            [&](int32_t a, int32_t b) { return contracts[a].sym < contracts[b].sym; });
  std::vector<int32_t> order(contracts.size(), -1);
  SettlePrices prices;
  for (size_t i = 0; i < by_sym.size(); ++i) {
    const Contract& c = contracts[by_sym[i]];
    order[by_sym[i]] = static_cast<int32_t>(i);
    day.contracts.push_back(ContractDay{c.sym, c.price->ticks, c.price->tier, c.prior, c.expiring,
                                        c.fsp, common::MicroUsd(0)});
    prices.emplace(c.sym, c.price->ticks);
    if (c.price->tier == PriceTier::kT1) {
      auto [account, account_qty] = Largest(c.window_accounts);
      auto [firm, firm_qty] = Largest(c.window_firms);
      day.surveillance.push_back(
          CloseConcentration{c.sym, c.vwap_den, account, account_qty, firm, firm_qty});
    }
  }
  std::vector<int32_t> account_order(accounts.size());
  for (size_t i = 0; i < accounts.size(); ++i) account_order[i] = static_cast<int32_t>(i);
  std::sort(account_order.begin(), account_order.end(),
            [&](int32_t a, int32_t b) { return accounts[a].id < accounts[b].id; });
  std::vector<__int128> per_contract(day.contracts.size(), 0);
  std::vector<SymQty> open;
  NoMargin no_margin;
  MarginSource* margin = inputs.margin ? inputs.margin : &no_margin;
  out->reserve(accounts.size());
  for (int32_t ai : account_order) {
    const Account& a = accounts[ai];
    AccountDay entry;
    entry.account = a.id;
    open.clear();
    for (const Line& l : a.lines) {
      const Contract& c = contracts[l.contract];
      // Every line's contract has a price: PriceContracts refused the date otherwise.
      auto beyond = [&](const char* what) {
        return absl::OutOfRangeError(absl::StrCat(
            what, " of ", a.id, " in ", c.sym,
            " does not fit in 64 bits; prices or positions beyond any market: not settled"));
      };
      int64_t end_qty;
      if (__builtin_add_overflow(l.act.prior_qty.value(), l.act.traded_qty.value(), &end_qty)) {
        return beyond("the position");
      }
      const common::Qty end(end_qty);
      AccountLine line{order[l.contract], end, common::MicroUsd(0), common::MicroUsd(0)};
      std::optional<common::MicroUsd> vm = TryVariationMarginMicroUsd(
          l.act, c.price->ticks, c.prior.value_or(common::PriceTicks(0)));
      if (!vm) return beyond("the variation margin");
      line.vm = *vm;
      if (c.expiring && c.fsp) {
        std::optional<common::MicroUsd> final_vm = TryFinalVmMicroUsd(end, *c.fsp, c.price->ticks);
        if (!final_vm) return beyond("the final variation margin");
        line.final_vm = *final_vm;
      }
      int64_t posted_value, paid;
      if (__builtin_add_overflow(line.vm.value(), line.final_vm.value(), &posted_value) ||
          (posted_value > 0 && __builtin_add_overflow(day.vm_paid.value(), posted_value, &paid))) {
        return beyond("the day's variation margin");
      }
      const common::MicroUsd posted(posted_value);
      per_contract[line.contract] += posted.value();
      if (posted > common::MicroUsd(0)) day.vm_paid = common::MicroUsd(paid);
      if (!c.expiring && line.qty != common::Qty(0)) open.push_back(SymQty{c.sym, end});
      entry.lines.push_back(line);
    }
    std::sort(entry.lines.begin(), entry.lines.end(),
              [](const AccountLine& x, const AccountLine& y) { return x.contract < y.contract; });
    std::sort(open.begin(), open.end(),
              [](const SymQty& x, const SymQty& y) { return x.sym < y.sym; });
    auto collateral = config.collateral.find(a.id);
    const common::MicroUsd held =
        collateral == config.collateral.end() ? common::MicroUsd(0) : collateral->second;
    int64_t vm_total = 0, vm_cum, cash;
    bool wrapped = false;
    for (const AccountLine& l : entry.lines) {
      wrapped = wrapped || __builtin_add_overflow(vm_total, l.vm.value(), &vm_total) ||
                __builtin_add_overflow(vm_total, l.final_vm.value(), &vm_total);
    }
    if (wrapped || __builtin_add_overflow(a.vm_cum.value(), vm_total, &vm_cum) ||
        __builtin_add_overflow(vm_cum, held.value(), &cash)) {
      return absl::OutOfRangeError(absl::StrCat(
          "the cash of ", a.id,
          " (collateral + variation margin) does not fit in 64 bits of micro-USD: not settled"));
    }
    entry.vm_cum = common::MicroUsd(vm_cum);
    entry.cash = common::MicroUsd(cash);
    if (!open.empty()) {
      auto im = margin->InitialMargin(a.id, open, prices);
      if (!im.ok()) {
        return absl::Status(im.status().code(),
                            absl::StrCat("margin of ", a.id, ": ", im.status().message()));
      }
      entry.margin = *im;
    }
    int64_t short_by, call_total = day.call_total.value();
    if (__builtin_sub_overflow(entry.margin.value(), entry.cash.value(), &short_by) ||
        (short_by > 0 && __builtin_add_overflow(call_total, short_by, &call_total))) {
      return absl::OutOfRangeError(absl::StrCat(
          "the margin call of ", a.id, " does not fit in 64 bits of micro-USD: not settled"));
    }
    entry.call = std::max(common::MicroUsd(0), common::MicroUsd(short_by));
    if (entry.call > common::MicroUsd(0)) {
      ++day.calls;
      day.call_total = common::MicroUsd(call_total);
    }
    out->push_back(std::move(entry));
    if (progress && out->size() % 65536 == 0) {
      progress(static_cast<int64_t>(out->size()), static_cast<int64_t>(accounts.size()));
    }
  }
  __int128 total = 0;
  for (size_t i = 0; i < per_contract.size(); ++i) {
    // VM moves cash between longs and shorts: each contract's postings net to zero and the
    // clearing account's counter-postings are therefore zero too.
    if (per_contract[i] != 0) {
      return absl::InternalError(absl::StrCat("VM of ", day.contracts[i].sym,
                                              " does not sum to zero; positions do not balance"));
    }
    day.contracts[i].clearing_vm = -common::MicroUsd(static_cast<int64_t>(per_contract[i]));
    total += per_contract[i];
  }
  if (total != 0) return absl::InternalError("VM does not sum to zero");
  day.accounts = static_cast<int64_t>(out->size());
  day.clearing_vm_cum =
      priced.prev_clearing_vm_cum;  // unchanged: today's clearing postings are zero
  return day;
}

}  // namespace cfx::settlement::internal
