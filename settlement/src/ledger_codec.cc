#include "ledger_codec.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace cfx::settlement::internal {
namespace {

using nlohmann::json;

json OptInt(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }

absl::Status Corrupt(std::string_view what, std::string_view text) {
  return absl::DataLossError(absl::StrCat("ledger: ", std::string(what), ": ", std::string(text)));
}

}  // namespace

std::string EncodeDayRecord(const DayRecord& day) {
  json contracts = json::array();
  for (const ContractDay& c : day.contracts) {
    contracts.push_back({{"sym", c.sym},
                         {"settle", c.settle},
                         {"tier", PriceTierName(c.tier)},
                         {"prior_settle", OptInt(c.prior_settle)},
                         {"expired", c.expired},
                         {"fsp", OptInt(c.fsp)},
                         {"clearing_vm", c.clearing_vm}});
  }
  json j = {{"format", 1},
            {"date", common::FormatDate(day.date)},
            {"contracts", std::move(contracts)},
            {"accounts", day.accounts},
            {"vm_paid", day.vm_paid},
            {"calls", day.calls},
            {"call_total", day.call_total},
            {"clearing_vm_cum", day.clearing_vm_cum},
            {"margin_available", day.margin_available},
            {"fixes_available", day.fixes_available}};
  return j.dump();
}

absl::StatusOr<DayRecord> DecodeDayRecord(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (!j.is_object()) return Corrupt("day record is not JSON", text);
  try {
    DayRecord day;
    auto date = common::ParseDate(j.at("date").get<std::string>());
    if (!date.ok()) return Corrupt("bad date", text);
    day.date = *date;
    for (const json& c : j.at("contracts")) {
      ContractDay cd;
      cd.sym = c.at("sym").get<std::string>();
      cd.settle = c.at("settle").get<int64_t>();
      auto tier = ParsePriceTier(c.at("tier").get<std::string>());
      if (!tier) return Corrupt("bad tier", text);
      cd.tier = *tier;
      if (!c.at("prior_settle").is_null()) cd.prior_settle = c.at("prior_settle").get<int64_t>();
      cd.expired = c.at("expired").get<bool>();
      if (!c.at("fsp").is_null()) cd.fsp = c.at("fsp").get<int64_t>();
      cd.clearing_vm = c.at("clearing_vm").get<int64_t>();
      day.contracts.push_back(std::move(cd));
    }
    day.accounts = j.at("accounts").get<int64_t>();
    day.vm_paid = j.at("vm_paid").get<int64_t>();
    day.calls = j.at("calls").get<int64_t>();
    day.call_total = j.at("call_total").get<int64_t>();
    day.clearing_vm_cum = j.at("clearing_vm_cum").get<int64_t>();
    day.margin_available = j.at("margin_available").get<bool>();
    day.fixes_available = j.at("fixes_available").get<bool>();
    return day;
  } catch (const json::exception& e) {
    return Corrupt(e.what(), text);
  }
}

std::string EncodeContractState(const ContractState& s) {
  json j = {{"last_settle", s.last_settle},
            {"last_date", common::FormatDate(s.last_date)},
            {"expired", s.expired},
            {"fsp", OptInt(s.fsp)}};
  return j.dump();
}

absl::StatusOr<ContractState> DecodeContractState(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (!j.is_object()) return Corrupt("contract state is not JSON", text);
  try {
    ContractState s;
    s.last_settle = j.at("last_settle").get<int64_t>();
    auto date = common::ParseDate(j.at("last_date").get<std::string>());
    if (!date.ok()) return Corrupt("bad date", text);
    s.last_date = *date;
    s.expired = j.at("expired").get<bool>();
    if (!j.at("fsp").is_null()) s.fsp = j.at("fsp").get<int64_t>();
    return s;
  } catch (const json::exception& e) {
    return Corrupt(e.what(), text);
  }
}

}  // namespace cfx::settlement::internal
