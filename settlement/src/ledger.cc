#include "cfx/settlement/ledger.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>

#include "absl/strings/str_cat.h"
#include "cfx/storage/kv_store.h"
#include "ledger_codec.h"

namespace cfx::settlement {
namespace {

constexpr char kMetaTable[] = "meta";
constexpr char kDaysTable[] = "days";
constexpr char kEntriesTable[] = "entries";
constexpr char kContractsTable[] = "contracts";
constexpr char kFirstDateKey[] = "first_date";
constexpr char kLastDateKey[] = "last_date";
constexpr char kFormatKey[] = "format";

std::string EntryKey(common::Date date, std::string_view account) {
  return absl::StrCat(common::FormatDate(date), "/", std::string(account));
}

// Parses one integer from the front of `*s` and drops it plus one following separator.
bool TakeInt(std::string_view* s, int64_t* out) {
  const char* end = s->data() + s->size();
  auto [ptr, ec] = std::from_chars(s->data(), end, *out);
  if (ec != std::errc() || ptr == s->data()) return false;
  size_t used = ptr - s->data();
  if (ptr != end) ++used;  // the separator
  s->remove_prefix(used);
  return true;
}

// The same for a price, quantity or amount (cfx/common/units.h).
template <typename Unit>
bool TakeUnit(std::string_view* s, Unit* out) {
  int64_t value = 0;
  if (!TakeInt(s, &value)) return false;
  *out = Unit(value);
  return true;
}

absl::StatusOr<std::optional<common::Date>> ReadDateKey(storage::KvStore& store, const char* key) {
  auto txn = store.BeginRead();
  if (!txn.ok()) return txn.status();
  auto value = (*txn)->Get(kMetaTable, key);
  if (!value.ok()) return value.status();
  if (!value->has_value()) return std::optional<common::Date>();
  auto date = common::ParseDate(**value);
  if (!date.ok()) return absl::DataLossError(absl::StrCat("ledger meta/", key, ": ", **value));
  return std::optional<common::Date>(*date);
}

}  // namespace

bool IsAlert(common::Qty part, common::Qty volume, int64_t threshold_e4) {
  return static_cast<__int128>(part.value()) * 10'000 >
         static_cast<__int128>(threshold_e4) * volume.value();
}

common::MicroUsd AccountDay::VmTotal() const {
  common::MicroUsd total;
  for (const AccountLine& l : lines) total += l.vm + l.final_vm;
  return total;
}

// "vm_cum cash margin call|idx:qty:vm[:final_vm];..." — compact because a large exchange
// writes one entry per account per day.
std::string EncodeAccountDay(const AccountDay& day) {
  std::string out = absl::StrCat(day.vm_cum.value(), " ", day.cash.value(), " ", day.margin.value(),
                                 " ", day.call.value(), "|");
  for (size_t i = 0; i < day.lines.size(); ++i) {
    const AccountLine& l = day.lines[i];
    if (i > 0) out += ';';
    absl::StrAppend(&out, l.contract, ":", l.qty.value(), ":", l.vm.value());
    if (l.final_vm != common::MicroUsd(0)) absl::StrAppend(&out, ":", l.final_vm.value());
  }
  return out;
}

absl::StatusOr<AccountDay> DecodeAccountDay(std::string_view account, std::string_view value) {
  auto bad = [&] {
    return absl::DataLossError(absl::StrCat("ledger entry of ", std::string(account),
                                            " is malformed: ", std::string(value)));
  };
  AccountDay day;
  day.account = std::string(account);
  size_t bar = value.find('|');
  if (bar == std::string_view::npos) return bad();
  std::string_view head = value.substr(0, bar);
  std::string_view rest = value.substr(bar + 1);
  if (!TakeUnit(&head, &day.vm_cum) || !TakeUnit(&head, &day.cash) ||
      !TakeUnit(&head, &day.margin) || !TakeUnit(&head, &day.call) || !head.empty()) {
    return bad();
  }
  while (!rest.empty()) {
    size_t semi = rest.find(';');
    std::string_view item = rest.substr(0, semi);
    rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
    AccountLine line;
    int64_t contract;
    if (!TakeInt(&item, &contract) || !TakeUnit(&item, &line.qty) || !TakeUnit(&item, &line.vm)) {
      return bad();
    }
    if (!item.empty() && !TakeUnit(&item, &line.final_vm)) return bad();
    if (!item.empty() || contract < 0 || contract > INT32_MAX) return bad();  // not wrapped
    line.contract = static_cast<int32_t>(contract);
    day.lines.push_back(line);
  }
  return day;
}

Ledger::Ledger(std::string data_dir, std::unique_ptr<storage::KvStore> store)
    : data_dir_(std::move(data_dir)), store_(std::move(store)) {}
Ledger::~Ledger() = default;

absl::StatusOr<std::unique_ptr<Ledger>> Ledger::Open(const std::string& data_dir, bool create) {
  auto store =
      storage::KvStore::Open(data_dir, storage::KvOptions{.file = kLedgerFile, .create = create});
  if (!create && absl::IsNotFound(store.status())) {
    return std::unique_ptr<Ledger>(new Ledger(data_dir, nullptr));
  }
  if (!store.ok()) return store.status();
  return std::unique_ptr<Ledger>(new Ledger(data_dir, *std::move(store)));
}

absl::StatusOr<std::optional<common::Date>> Ledger::FirstSettledDate() {
  if (store_ == nullptr) return std::optional<common::Date>();
  return ReadDateKey(*store_, kFirstDateKey);
}

absl::StatusOr<std::optional<common::Date>> Ledger::LastSettledDate() {
  if (store_ == nullptr) return std::optional<common::Date>();
  return ReadDateKey(*store_, kLastDateKey);
}

absl::StatusOr<std::optional<DayRecord>> Ledger::ReadDay(common::Date date) {
  if (store_ == nullptr) return std::optional<DayRecord>();
  auto txn = store_->BeginRead();
  if (!txn.ok()) return txn.status();
  auto value = (*txn)->Get(kDaysTable, common::FormatDate(date));
  if (!value.ok()) return value.status();
  if (!value->has_value()) return std::optional<DayRecord>();
  auto day = internal::DecodeDayRecord(**value);
  if (!day.ok()) return day.status();
  return std::optional<DayRecord>(*std::move(day));
}

absl::Status Ledger::ForEachAccount(common::Date date,
                                    const std::function<absl::Status(AccountDay&&)>& fn) {
  if (store_ == nullptr) return absl::OkStatus();
  auto txn = store_->BeginRead();
  if (!txn.ok()) return txn.status();
  std::string prefix = common::FormatDate(date) + "/";
  absl::Status inner;
  absl::Status scan =
      (*txn)->Scan(kEntriesTable, prefix, [&](absl::string_view key, absl::string_view value) {
        std::string_view account(key.data() + prefix.size(), key.size() - prefix.size());
        auto day = DecodeAccountDay(account, std::string_view(value.data(), value.size()));
        inner = day.ok() ? fn(*std::move(day)) : day.status();
        return inner.ok();
      });
  if (!scan.ok()) return scan;
  return inner;
}

absl::StatusOr<std::map<std::string, ContractState, std::less<>>> Ledger::Contracts() {
  std::map<std::string, ContractState, std::less<>> out;
  if (store_ == nullptr) return out;
  auto txn = store_->BeginRead();
  if (!txn.ok()) return txn.status();
  absl::Status inner;
  absl::Status scan =
      (*txn)->Scan(kContractsTable, "", [&](absl::string_view key, absl::string_view value) {
        auto state = internal::DecodeContractState(std::string_view(value.data(), value.size()));
        if (!state.ok()) {
          inner = state.status();
          return false;
        }
        out.emplace(std::string(key), *state);
        return true;
      });
  if (!scan.ok()) return scan;
  if (!inner.ok()) return inner;
  return out;
}

absl::Status Ledger::CommitDay(const DayRecord& record, const std::vector<AccountDay>& accounts,
                               const FailPoint& fail) {
  auto check = [&](std::string_view point) { return fail ? fail(point) : absl::OkStatus(); };
  if (store_ == nullptr) {  // the first settled date creates the ledger
    auto store = storage::KvStore::Open(data_dir_, storage::KvOptions{.file = kLedgerFile});
    if (!store.ok()) return store.status();
    store_ = *std::move(store);
  }
  auto txn_or = store_->BeginWrite();
  if (!txn_or.ok()) return txn_or.status();
  storage::KvTxn& txn = **txn_or;
  const std::string date = common::FormatDate(record.date);
  auto existing = txn.Get(kDaysTable, date);
  if (!existing.ok()) return existing.status();
  if (existing->has_value()) {
    return absl::FailedPreconditionError(absl::StrCat("ledger: ", date, " is already settled"));
  }
  if (absl::Status s = check("ledger_begin"); !s.ok()) return s;
  for (size_t i = 0; i < accounts.size(); ++i) {
    if (i == accounts.size() / 2) {
      if (absl::Status s = check("ledger_half"); !s.ok()) return s;
    }
    absl::Status s = txn.Put(kEntriesTable, EntryKey(record.date, accounts[i].account),
                             EncodeAccountDay(accounts[i]));
    if (!s.ok()) return s;
  }
  for (const ContractDay& c : record.contracts) {
    ContractState state{c.settle, record.date, c.expired, c.fsp};
    absl::Status s = txn.Put(kContractsTable, c.sym, internal::EncodeContractState(state));
    if (!s.ok()) return s;
  }
  if (absl::Status s = txn.Put(kDaysTable, date, internal::EncodeDayRecord(record)); !s.ok()) {
    return s;
  }
  auto first = txn.Get(kMetaTable, kFirstDateKey);
  if (!first.ok()) return first.status();
  if (!first->has_value()) {
    if (absl::Status s = txn.Put(kMetaTable, kFirstDateKey, date); !s.ok()) return s;
    if (absl::Status s = txn.Put(kMetaTable, kFormatKey, "1"); !s.ok()) return s;
  }
  if (absl::Status s = txn.Put(kMetaTable, kLastDateKey, date); !s.ok()) return s;
  if (absl::Status s = check("ledger_before_commit"); !s.ok()) return s;
  return txn.Commit();
}

absl::Status Ledger::Verify() {
  struct Running {
    common::MicroUsd vm_cum;
    common::MicroUsd collateral;
    common::Date last_seen;
  };
  std::map<std::string, Running, std::less<>> accounts;
  common::MicroUsd clearing_cum;
  std::vector<common::Date> dates;
  if (store_ == nullptr) return absl::OkStatus();  // nothing settled yet
  {
    auto txn = store_->BeginRead();
    if (!txn.ok()) return txn.status();
    absl::Status inner;
    absl::Status scan = (*txn)->Scan(kDaysTable, "", [&](absl::string_view key, absl::string_view) {
      auto d = common::ParseDate(key);
      if (!d.ok())
        inner = absl::DataLossError(absl::StrCat("ledger days/", std::string(key)));
      else
        dates.push_back(*d);
      return inner.ok();
    });
    if (!scan.ok()) return scan;
    if (!inner.ok()) return inner;
  }
  std::optional<common::Date> previous;
  for (common::Date date : dates) {
    auto day = ReadDay(date);
    if (!day.ok()) return day.status();
    const DayRecord& rec = **day;
    const std::string d = common::FormatDate(date);
    std::vector<__int128> per_contract(rec.contracts.size(), 0);
    __int128 account_sum = 0;
    int64_t count = 0;
    absl::Status s = ForEachAccount(date, [&](AccountDay&& a) -> absl::Status {
      ++count;
      for (const AccountLine& l : a.lines) {
        if (l.contract < 0 || static_cast<size_t>(l.contract) >= rec.contracts.size()) {
          return absl::InternalError(absl::StrCat("ledger ", d, "/", a.account, ": bad contract"));
        }
        per_contract[l.contract] += (l.vm + l.final_vm).value();
      }
      const common::MicroUsd posted = a.VmTotal();
      account_sum += posted.value();
      auto [it, inserted] = accounts.try_emplace(a.account);
      Running& r = it->second;
      if (!inserted && r.last_seen != *previous) {
        return absl::InternalError(
            absl::StrCat("ledger ", d, "/", a.account, ": account missing on an earlier date"));
      }
      if (a.vm_cum != r.vm_cum + posted) {
        return absl::InternalError(absl::StrCat("ledger ", d, "/", a.account, ": vm_cum ",
                                                a.vm_cum.value(), " != sum of postings ",
                                                (r.vm_cum + posted).value()));
      }
      // cash = the collateral configured for that day's run + all VM so far (SPEC §9 step 4):
      // the collateral may change between runs (a top-up), but is never negative.
      if (a.cash - a.vm_cum < common::MicroUsd(0)) {
        return absl::InternalError(absl::StrCat("ledger ", d, "/", a.account,
                                                ": cash is less than the VM posted (collateral "
                                                "below zero)"));
      }
      if (a.call != std::max(common::MicroUsd(0), a.margin - a.cash)) {
        return absl::InternalError(absl::StrCat("ledger ", d, "/", a.account, ": bad call"));
      }
      r.vm_cum = a.vm_cum;
      r.collateral = a.cash - a.vm_cum;
      r.last_seen = date;
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    for (const auto& [name, r] : accounts) {
      if (r.last_seen != date) {
        return absl::InternalError(absl::StrCat("ledger ", d, ": no entry for ", name));
      }
    }
    __int128 clearing_day = 0;
    for (size_t i = 0; i < rec.contracts.size(); ++i) {
      if (per_contract[i] + rec.contracts[i].clearing_vm.value() != 0) {
        return absl::InternalError(
            absl::StrCat("ledger ", d, " ", rec.contracts[i].sym, ": postings do not sum to zero"));
      }
      clearing_day += rec.contracts[i].clearing_vm.value();
    }
    if (account_sum + clearing_day != 0 || account_sum != 0) {
      return absl::InternalError(absl::StrCat("ledger ", d, ": VM does not sum to zero"));
    }
    clearing_cum += common::MicroUsd(static_cast<int64_t>(clearing_day));
    if (clearing_cum != rec.clearing_vm_cum || count != rec.accounts) {
      return absl::InternalError(absl::StrCat("ledger ", d, ": day totals do not match"));
    }
    previous = date;
  }
  return absl::OkStatus();
}

}  // namespace cfx::settlement
