#include "ledger_codec.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "cfx/json/strict_json.h"

namespace cfx::settlement::internal {
namespace {

// More accounts than any day's run settles (the exchange's account tables hold millions).
constexpr int64_t kMaxAccountsInADay = 1'000'000'000;

using nlohmann::json;

// The records hold PriceTicks and MicroUsd; the JSON holds their bare integers.
json OptTicks(const std::optional<common::PriceTicks>& v) {
  return v ? json(v->value()) : json(nullptr);
}
template <typename Unit>
Unit Get(const json& j, const char* key) {
  return Unit(j.at(key).get<int64_t>());
}
std::optional<common::PriceTicks> GetOptTicks(const json& j, const char* key) {
  const json& v = j.at(key);
  if (v.is_null()) return std::nullopt;
  return common::PriceTicks(v.get<int64_t>());
}

// A stored value as a message shows it: escaped (no raw byte of a damaged record reaches a
// terminal or a log) and cut to its first 120 bytes.
std::string Shown(std::string_view text) {
  constexpr size_t kShown = 120;
  std::string out = absl::CHexEscape(absl::string_view(text.data(), std::min(text.size(), kShown)));
  if (text.size() > kShown) absl::StrAppend(&out, "... (", text.size(), " bytes)");
  return out;
}

absl::Status Corrupt(std::string_view what, std::string_view text) {
  return absl::DataLossError(absl::StrCat("ledger: ", std::string(what), ": ", Shown(text)));
}

}  // namespace

std::string EncodeDayRecord(const DayRecord& day) {
  json contracts = json::array();
  for (const ContractDay& c : day.contracts) {
    contracts.push_back({{"sym", c.sym},
                         {"settle", c.settle.value()},
                         {"tier", PriceTierName(c.tier)},
                         {"prior_settle", OptTicks(c.prior_settle)},
                         {"expired", c.expired},
                         {"fsp", OptTicks(c.fsp)},
                         {"clearing_vm", c.clearing_vm.value()}});
  }
  json surveillance = json::array();
  for (const CloseConcentration& c : day.surveillance) {
    surveillance.push_back({{"sym", c.sym},
                            {"volume", c.volume.value()},
                            {"top_account", c.top_account},
                            {"top_account_qty", c.top_account_qty.value()},
                            {"top_firm", c.top_firm},
                            {"top_firm_qty", c.top_firm_qty.value()}});
  }
  json j = {{"format", 1},
            {"date", common::FormatDate(day.date)},
            {"contracts", std::move(contracts)},
            {"surveillance", std::move(surveillance)},
            {"concentration_alert_e4", day.concentration_alert_e4},
            {"accounts", day.accounts},
            {"vm_paid", day.vm_paid.value()},
            {"calls", day.calls},
            {"call_total", day.call_total.value()},
            {"clearing_vm_cum", day.clearing_vm_cum.value()},
            {"margin_available", day.margin_available},
            {"fixes_available", day.fixes_available}};
  return j.dump();
}

absl::StatusOr<DayRecord> DecodeDayRecord(std::string_view text) {
  json j = cfx::json::ParseStored(text);  // a raw NUL is damage too
  if (!j.is_object()) return Corrupt("day record is not JSON", text);
  try {
    DayRecord day;
    auto date = common::ParseDate(j.at("date").get<std::string>());
    if (!date.ok()) return Corrupt("bad date", text);
    day.date = *date;
    for (const json& c : j.at("contracts")) {
      ContractDay cd;
      cd.sym = c.at("sym").get<std::string>();
      cd.settle = Get<common::PriceTicks>(c, "settle");
      auto tier = ParsePriceTier(c.at("tier").get<std::string>());
      if (!tier) return Corrupt("bad tier", text);
      cd.tier = *tier;
      cd.prior_settle = GetOptTicks(c, "prior_settle");
      cd.expired = c.at("expired").get<bool>();
      cd.fsp = GetOptTicks(c, "fsp");
      cd.clearing_vm = Get<common::MicroUsd>(c, "clearing_vm");
      day.contracts.push_back(std::move(cd));
    }
    // Records written before close surveillance have neither key.
    if (auto it = j.find("surveillance"); it != j.end()) {
      for (const json& c : *it) {
        day.surveillance.push_back(
            CloseConcentration{c.at("sym").get<std::string>(), Get<common::Qty>(c, "volume"),
                               c.at("top_account").get<std::string>(),
                               Get<common::Qty>(c, "top_account_qty"),
                               c.at("top_firm").get<std::string>(),
                               Get<common::Qty>(c, "top_firm_qty")});
      }
    }
    if (auto it = j.find("concentration_alert_e4"); it != j.end()) {
      day.concentration_alert_e4 = it->get<int64_t>();
    }
    day.accounts = j.at("accounts").get<int64_t>();
    // A count the next run reserves room for: a damaged one is refused here, not an abort
    // there (until 2026-12-07 -1 threw length_error out of the next day's run).
    if (day.accounts < 0 || day.accounts > kMaxAccountsInADay) {
      return Corrupt("accounts out of range", text);
    }
    day.vm_paid = Get<common::MicroUsd>(j, "vm_paid");
    day.calls = j.at("calls").get<int64_t>();
    day.call_total = Get<common::MicroUsd>(j, "call_total");
    day.clearing_vm_cum = Get<common::MicroUsd>(j, "clearing_vm_cum");
    day.margin_available = j.at("margin_available").get<bool>();
    day.fixes_available = j.at("fixes_available").get<bool>();
    return day;
  } catch (const json::exception& e) {
    return Corrupt(e.what(), text);
  }
}

std::string EncodeContractState(const ContractState& s) {
  json j = {{"last_settle", s.last_settle.value()},
            {"last_date", common::FormatDate(s.last_date)},
            {"expired", s.expired},
            {"fsp", OptTicks(s.fsp)}};
  return j.dump();
}

absl::StatusOr<ContractState> DecodeContractState(std::string_view text) {
  json j = cfx::json::ParseStored(text);
  if (!j.is_object()) return Corrupt("contract state is not JSON", text);
  try {
    ContractState s;
    s.last_settle = Get<common::PriceTicks>(j, "last_settle");
    auto date = common::ParseDate(j.at("last_date").get<std::string>());
    if (!date.ok()) return Corrupt("bad date", text);
    s.last_date = *date;
    s.expired = j.at("expired").get<bool>();
    s.fsp = GetOptTicks(j, "fsp");
    return s;
  } catch (const json::exception& e) {
    return Corrupt(e.what(), text);
  }
}

}  // namespace cfx::settlement::internal
