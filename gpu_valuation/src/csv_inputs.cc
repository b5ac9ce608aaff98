#include "cfx/gpu_valuation/csv_inputs.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "cfx/common/decimal.h"
#include "csv_util.h"

namespace cfx::gpu_valuation {
namespace {

using internal::FieldError;

bool IsPlainName(absl::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (c <= ' ' || c == 0x7f) return false;
  }
  return true;
}

absl::Status CheckSymbol(absl::string_view sym, absl::string_view file, int line) {
  absl::StatusOr<ContractSymbol> parsed = ParseSymbol(sym);
  if (!parsed.ok()) {
    return FieldError(file, line, "sym", absl::StrCat("bad contract symbol \"", sym, "\""));
  }
  return absl::OkStatus();
}

template <typename T, typename F>
absl::StatusOr<T> ReadWith(const std::string& path, F parse) {
  absl::StatusOr<std::string> text = internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return parse(*text, path);
}

}  // namespace

absl::StatusOr<std::vector<PositionRow>> ParsePositionsCsv(absl::string_view text,
                                                           absl::string_view file) {
  auto lines = internal::SplitCsv(text, file, "account,sym,qty");
  if (!lines.ok()) return lines.status();
  std::vector<PositionRow> rows;
  for (const internal::CsvLine& line : *lines) {
    PositionRow row;
    row.line = line.number;
    row.account = line.fields[0];
    if (!IsPlainName(row.account)) {
      return FieldError(file, line.number, "account",
                        "must be 1-64 characters without spaces or control characters");
    }
    if (absl::Status s = CheckSymbol(line.fields[1], file, line.number); !s.ok()) return s;
    row.position.sym = line.fields[1];
    absl::StatusOr<int64_t> qty = internal::ParseInteger(line.fields[2]);
    if (!qty.ok()) return FieldError(file, line.number, "qty", qty.status().message());
    if (*qty > kMaxRowQty || *qty < -kMaxRowQty) {
      return FieldError(file, line.number, "qty", absl::StrCat("|qty| must be <= ", kMaxRowQty));
    }
    row.position.qty = *qty;
    rows.push_back(std::move(row));
  }
  return rows;
}

absl::StatusOr<std::vector<ContractPrice>> ParsePricesCsv(absl::string_view text,
                                                          absl::string_view file) {
  auto lines = internal::SplitCsv(text, file, "sym,settle");
  if (!lines.ok()) return lines.status();
  std::vector<ContractPrice> prices;
  std::set<std::string> seen;
  for (const internal::CsvLine& line : *lines) {
    if (absl::Status s = CheckSymbol(line.fields[0], file, line.number); !s.ok()) return s;
    if (!seen.insert(line.fields[0]).second) {
      return FieldError(file, line.number, "sym",
                        absl::StrCat("duplicate symbol \"", line.fields[0], "\""));
    }
    absl::StatusOr<int64_t> ticks = ParseScaled(line.fields[1], 3);
    if (!ticks.ok() || *ticks <= 0) {
      return FieldError(file, line.number, "settle",
                        absl::StrCat("not a positive price on the 0.001 tick: \"",
                                     line.fields[1], "\""));
    }
    prices.push_back({line.fields[0], *ticks});
  }
  return prices;
}

absl::StatusOr<std::vector<ThroughputRow>> ParseThroughputCsv(absl::string_view text,
                                                              absl::string_view file) {
  auto lines =
      internal::SplitCsv(text, file, "date,operator,tier,gpu,model,isl,osl,output_tps_per_gpu");
  if (!lines.ok()) return lines.status();
  std::vector<ThroughputRow> rows;
  std::map<std::string, Tier> operator_tier;
  for (const internal::CsvLine& line : *lines) {
    const int n = line.number;
    ThroughputRow row;
    absl::StatusOr<Date> date = ParseDate(line.fields[0]);
    if (!date.ok()) {
      return FieldError(file, n, "date", absl::StrCat("not a date: \"", line.fields[0], "\""));
    }
    row.date = *date;
    row.operator_name = line.fields[1];
    if (!IsPlainName(row.operator_name)) {
      return FieldError(file, n, "operator",
                        "must be 1-64 characters without spaces or control characters");
    }
    std::optional<Tier> tier = ParseTier(line.fields[2]);
    if (!tier.has_value()) {
      return FieldError(file, n, "tier", absl::StrCat("unknown tier \"", line.fields[2], "\""));
    }
    row.tier = *tier;
    auto [it, inserted] = operator_tier.try_emplace(row.operator_name, *tier);
    if (!inserted && it->second != *tier) {
      return FieldError(file, n, "tier",
                        absl::StrCat("operator \"", row.operator_name, "\" listed under ",
                                     TierName(it->second), " and ", TierName(*tier)));
    }
    if (!IsValidGpuName(line.fields[3])) {
      return FieldError(file, n, "gpu", absl::StrCat("bad gpu \"", line.fields[3], "\""));
    }
    row.gpu = line.fields[3];
    if (line.fields[4].empty()) return FieldError(file, n, "model", "must not be empty");
    for (int k : {5, 6}) {
      const char* name = k == 5 ? "isl" : "osl";
      absl::StatusOr<int64_t> v = internal::ParseInteger(line.fields[k]);
      if (!v.ok()) return FieldError(file, n, name, v.status().message());
      if (*v <= 0) return FieldError(file, n, name, "must be positive");
    }
    absl::StatusOr<double> tps = internal::ParseDecimal(line.fields[7]);
    if (!tps.ok()) return FieldError(file, n, "output_tps_per_gpu", tps.status().message());
    if (*tps <= 0) return FieldError(file, n, "output_tps_per_gpu", "must be positive");
    row.output_tps_per_gpu = *tps;
    rows.push_back(std::move(row));
  }
  return rows;
}

absl::StatusOr<std::vector<PositionRow>> ReadPositionsCsv(const std::string& path) {
  return ReadWith<std::vector<PositionRow>>(path, ParsePositionsCsv);
}
absl::StatusOr<std::vector<ContractPrice>> ReadPricesCsv(const std::string& path) {
  return ReadWith<std::vector<ContractPrice>>(path, ParsePricesCsv);
}
absl::StatusOr<std::vector<ThroughputRow>> ReadThroughputCsv(const std::string& path) {
  return ReadWith<std::vector<ThroughputRow>>(path, ParseThroughputCsv);
}

absl::StatusOr<std::vector<AccountPositions>> GroupByAccount(
    const std::vector<PositionRow>& rows, const std::vector<ContractPrice>& prices,
    absl::string_view positions_file) {
  std::set<std::string> priced;
  for (const ContractPrice& p : prices) priced.insert(p.sym);
  std::map<std::string, std::vector<Position>> by_account;
  for (const PositionRow& row : rows) {
    if (!priced.contains(row.position.sym)) {
      return FieldError(positions_file, row.line, "sym",
                        absl::StrCat("no settlement price for \"", row.position.sym, "\""));
    }
    by_account[row.account].push_back(row.position);
  }
  std::vector<AccountPositions> out;
  for (auto& [account, positions] : by_account) out.push_back({account, std::move(positions)});
  return out;
}

}  // namespace cfx::gpu_valuation
