#include "cfx/settlement/statements.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "cfx/common/csv.h"
#include "cfx/common/decimal.h"
#include "cfx/storage/private_files.h"

namespace cfx::settlement {
namespace {

using ojson = nlohmann::ordered_json;
namespace fs = std::filesystem;

ojson OptPrice(const std::optional<common::PriceTicks>& price) {
  return price ? ojson(PriceText(*price)) : ojson(nullptr);
}

// Statements are private (0600, whatever the umask): they hold each account's money. Not
// flushed one by one: the folder is flushed whole before it is renamed into place.
absl::Status WriteFile(const fs::path& path, const std::string& text) {
  return storage::WritePrivateFile(path.string(), text, storage::FileWrite::kReplace,
                                   storage::FileSync::kUnsynced);
}

// Every file written in the folder's file system reaches the disk (one syncfs(2) for the
// statements of every account, not one fsync each), and the folder's names with them.
absl::Status FlushFolder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot open ", dir.string(), " to flush it: ", std::strerror(errno)));
  }
  const int rc = ::syncfs(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot flush ", dir.string(), ": ", std::strerror(err)));
  }
  return storage::SyncFolder(dir.string());
}

// "0.6667": a share × 10^4, rounded half to even.
std::string ShareText(common::Qty part, common::Qty whole) {
  if (whole <= common::Qty(0)) return "0.0000";
  return common::FormatScaled(
      common::DivRoundHalfEven(static_cast<__int128>(part.value()) * 10'000, whole.value()), 4);
}

}  // namespace

std::string UsdCents(common::MicroUsd amount) {
  return common::FormatScaled(common::DivRoundHalfEven(amount.value(), 10'000), 2);
}

std::string PriceText(common::PriceTicks price) { return common::FormatScaled(price.value(), 3); }

std::string AccountStatementJson(const DayRecord& day, const AccountDay& a) {
  ojson positions = ojson::array();
  for (const AccountLine& l : a.lines) {
    const ContractDay& c = day.contracts[l.contract];
    ojson line = {{"sym", c.sym},
                  {"qty", l.qty.value()},
                  {"settle", PriceText(c.settle)},
                  {"prior_settle", OptPrice(c.prior_settle)},
                  {"vm", UsdCents(l.vm + l.final_vm)}};
    if (c.expired) {
      // Expiry lines say how the total VM splits; the position is closed after this date.
      line["fsp"] = OptPrice(c.fsp);
      line["final_vm"] = UsdCents(l.final_vm);
    }
    positions.push_back(std::move(line));
  }
  ojson j = {{"account", a.account},
             {"date", common::FormatDate(day.date)},
             {"positions", std::move(positions)},
             {"vm_total", UsdCents(a.VmTotal())},
             {"cash", UsdCents(a.cash)},
             {"margin", UsdCents(a.margin)},
             {"call", UsdCents(a.call)}};
  return j.dump() + "\n";
}

std::string AccountStatementCsv(const DayRecord& day, const AccountDay& a) {
  std::string out = "account,date,sym,qty,settle,prior_settle,vm,vm_total,cash,margin,call\n";
  std::string tail = absl::StrCat(",", UsdCents(a.VmTotal()), ",", UsdCents(a.cash), ",",
                                  UsdCents(a.margin), ",", UsdCents(a.call), "\n");
  std::string head = absl::StrCat(a.account, ",", common::FormatDate(day.date), ",");
  if (a.lines.empty()) out += head + ",,,," + tail;
  for (const AccountLine& l : a.lines) {
    const ContractDay& c = day.contracts[l.contract];
    absl::StrAppend(&out, head, c.sym, ",", l.qty.value(), ",", PriceText(c.settle), ",",
                    c.prior_settle ? PriceText(*c.prior_settle) : "", ",",
                    UsdCents(l.vm + l.final_vm), tail);
  }
  return out;
}

std::string SettlementPricesJson(const DayRecord& day) {
  ojson out = ojson::array();
  for (const ContractDay& c : day.contracts) {
    ojson p = {{"sym", c.sym}, {"settle", PriceText(c.settle)}, {"tier", PriceTierName(c.tier)}};
    if (c.expired) p["fsp"] = OptPrice(c.fsp);
    out.push_back(std::move(p));
  }
  return out.dump() + "\n";
}

std::string DaySummaryJson(const DayRecord& day) {
  ojson prices = ojson::array();
  for (const ContractDay& c : day.contracts) {
    prices.push_back({{"sym", c.sym},
                      {"settle", PriceText(c.settle)},
                      {"tier", PriceTierName(c.tier)},
                      {"prior_settle", OptPrice(c.prior_settle)},
                      {"expired", c.expired},
                      {"fsp", OptPrice(c.fsp)}});
  }
  ojson j = {{"date", common::FormatDate(day.date)},
             {"prices", std::move(prices)},
             {"accounts", day.accounts},
             {"vm_total", UsdCents(day.vm_paid)},
             {"calls", day.calls},
             {"call_total", UsdCents(day.call_total)},
             {"margin_available", day.margin_available},
             {"fixes_available", day.fixes_available}};
  return j.dump(2) + "\n";
}

std::string SurveillanceJson(const DayRecord& day) {
  ojson contracts = ojson::array();
  for (const CloseConcentration& c : day.surveillance) {
    auto party = [&](const std::string& id, common::Qty qty) {
      return ojson{{"id", id},
                   {"qty", qty.value()},
                   {"share", ShareText(qty, c.volume)},
                   {"alert", IsAlert(qty, c.volume, day.concentration_alert_e4)}};
    };
    contracts.push_back({{"sym", c.sym},
                         {"closing_volume", c.volume.value()},
                         {"largest_account", party(c.top_account, c.top_account_qty)},
                         {"largest_firm", party(c.top_firm, c.top_firm_qty)}});
  }
  ojson j = {{"date", common::FormatDate(day.date)},
             {"close_concentration_alert",
              common::FormatScaled(day.concentration_alert_e4, 4)},
             {"contracts", std::move(contracts)}};
  return j.dump(2) + "\n";
}

std::string SurveillanceAlertsText(const DayRecord& day) {
  std::string out;
  const std::string threshold = common::FormatScaled(day.concentration_alert_e4, 4);
  for (const CloseConcentration& c : day.surveillance) {
    auto line = [&](const char* kind, const std::string& id, common::Qty qty) {
      if (!IsAlert(qty, c.volume, day.concentration_alert_e4)) return;
      absl::StrAppend(&out, "surveillance alert: ", common::FormatDate(day.date), " ", c.sym, ": ",
                      kind, " ", id, " took part in ", ShareText(qty, c.volume),
                      " of the closing window's volume (", qty.value(), " of ", c.volume.value(),
                      "; alert above ", threshold, ")\n");
    };
    line("account", c.top_account, c.top_account_qty);
    line("firm", c.top_firm, c.top_firm_qty);
  }
  return out;
}

std::string DaySummaryText(const DayRecord& day) {
  std::string out = absl::StrCat("settlement ", common::FormatDate(day.date), ": ",
                                 day.contracts.size(), " contracts, ", day.accounts, " accounts\n");
  for (const ContractDay& c : day.contracts) {
    absl::StrAppend(&out, "  ", c.sym, "  ", PriceText(c.settle), "  ", PriceTierName(c.tier));
    if (c.expired) {
      absl::StrAppend(&out, "  expired, FSP ", c.fsp ? PriceText(*c.fsp) : "none");
    }
    out += "\n";
  }
  absl::StrAppend(&out, "  VM moved: ", UsdCents(day.vm_paid), " USD; margin calls: ", day.calls,
                  " totalling ", UsdCents(day.call_total), " USD\n");
  if (!day.margin_available) out += "  (no margin source: initial margin taken as 0)\n";
  if (!day.fixes_available) out += "  (no fix source: T3 kept prior prices, no T4, no FSP)\n";
  return out;
}

absl::Status WriteStatements(Ledger& ledger, common::Date date, const std::string& out_dir,
                             const FailPoint& fail,
                             const std::function<void(int64_t, int64_t)>& progress) {
  auto day = ledger.ReadDay(date);
  if (!day.ok()) return day.status();
  if (!day->has_value()) {
    return absl::FailedPreconditionError(absl::StrCat(common::FormatDate(date), " is not settled"));
  }
  const DayRecord& rec = **day;
  const std::string d = common::FormatDate(date);
  fs::path final_dir = fs::path(out_dir) / d;
  fs::path tmp_dir = fs::path(out_dir) / ("." + d + ".tmp");
  std::error_code ec;
  // The folder the statements are published in must be this user's alone: in one another
  // user may write, our folder could be swapped for a forged one after the rename, and a
  // rerun would take that for ours (until 2026-12-07 any folder was taken).
  if (absl::Status made = storage::MakePrivateDirs(out_dir); !made.ok()) return made;
  if (absl::Status mine = storage::CheckPrivateDir(out_dir); !mine.ok()) {
    return absl::Status(mine.code(), absl::StrCat("statements folder: ", mine.message()));
  }
  fs::remove_all(tmp_dir, ec);
  if (absl::Status made = storage::MakePrivateDirs(tmp_dir.string()); !made.ok()) return made;
  if (absl::Status s = WriteFile(tmp_dir / "settlement_prices.json", SettlementPricesJson(rec));
      !s.ok())
    return s;
  if (absl::Status s = WriteFile(tmp_dir / "_summary.json", DaySummaryJson(rec)); !s.ok()) return s;
  if (absl::Status s = WriteFile(tmp_dir / "_surveillance.json", SurveillanceJson(rec)); !s.ok())
    return s;
  int64_t done = 0;
  absl::Status s = ledger.ForEachAccount(date, [&](AccountDay&& a) -> absl::Status {
    for (const AccountLine& l : a.lines) {
      if (l.contract < 0 || static_cast<size_t>(l.contract) >= rec.contracts.size()) {
        return absl::DataLossError(absl::StrCat("ledger: ", a.account, " on ", d,
                                                ": a line names contract ", l.contract, " of ",
                                                rec.contracts.size()));
      }
    }
    if (!common::IsValidAccountId(a.account)) {
      return absl::InvalidArgumentError(absl::StrCat("account id unusable as a file name: '",
                                                     a.account, "' ", common::kAccountIdRule));
    }
    if (absl::Status w = WriteFile(tmp_dir / (a.account + ".json"), AccountStatementJson(rec, a));
        !w.ok())
      return w;
    if (absl::Status w = WriteFile(tmp_dir / (a.account + ".csv"), AccountStatementCsv(rec, a));
        !w.ok())
      return w;
    if (progress && (++done % 4096 == 0 || done == rec.accounts)) progress(done, rec.accounts);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  if (fail) {
    if (absl::Status f = fail("statements_written"); !f.ok()) return f;
  }
  // Whole on disk before the folder gets its name: a power loss after the rename never
  // leaves a statement folder of empty or partial files (which a rerun would refuse to
  // replace).
  if (absl::Status f = FlushFolder(tmp_dir); !f.ok()) return f;
  // Never over a folder that is there (the batch refuses one before posting; one made since
  // is someone else's): rename(2) would replace an empty one, renameat2's RENAME_NOREPLACE
  // does not (a file system without it: the check, then rename).
  int rc = ::renameat2(AT_FDCWD, tmp_dir.c_str(), AT_FDCWD, final_dir.c_str(), RENAME_NOREPLACE);
  if (rc != 0 && errno == EINVAL) {
    if (fs::symlink_status(final_dir, ec).type() == fs::file_type::not_found) {
      rc = ::rename(tmp_dir.c_str(), final_dir.c_str());
    } else {
      errno = EEXIST;
    }
  }
  if (rc == 0) {
    // Published: a failed flush of the folder's new name is no reason to report the
    // statements unwritten (a rerun finds them there and writes none). Best effort.
    (void)storage::SyncFolder(fs::path(out_dir).string());
    return absl::OkStatus();
  }
  const int err = errno;
  fs::remove_all(tmp_dir, ec);
  if (err == EEXIST || err == ENOTEMPTY) {
    return absl::FailedPreconditionError(absl::StrCat(
        final_dir.string(), " appeared while the statements were written; left as it is"));
  }
  return absl::UnavailableError(absl::StrCat("cannot rename ", tmp_dir.string(), " to ",
                                             final_dir.string(), ": ", std::strerror(err)));
}

}  // namespace cfx::settlement
