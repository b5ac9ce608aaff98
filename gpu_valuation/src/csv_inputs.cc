#include "cfx/gpu_valuation/csv_inputs.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "cfx/common/csv.h"
#include "cfx/common/decimal.h"
#include "cfx/reference/inputs.h"
#include "cfx/reference/throughput.h"

namespace cfx::gpu_valuation {
namespace {

constexpr absl::string_view kPositionsHeader = "account,sym,qty";
constexpr absl::string_view kPricesHeader = "sym,settle";

absl::Status CheckSymbol(const common::CsvReader& csv, size_t column) {
  absl::StatusOr<common::ContractSymbol> parsed = common::ParseSymbol(csv.field(column));
  if (!parsed.ok()) {
    return csv.Error(column, absl::StrCat("bad contract symbol \"", csv.field(column), "\""));
  }
  return absl::OkStatus();
}

template <typename T, typename F>
absl::StatusOr<T> ReadWith(const std::string& path, F parse) {
  absl::StatusOr<std::string> text = common::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return parse(*text, path);
}

}  // namespace

absl::StatusOr<std::vector<PositionRow>> ParsePositionsCsv(absl::string_view text,
                                                           absl::string_view file) {
  common::CsvReader csv(text, file, kPositionsHeader);
  std::vector<PositionRow> rows;
  while (csv.Next()) {
    PositionRow row;
    row.line = csv.line();
    row.account = std::string(csv.field(0));
    // An account id (SPEC §9), as settlement takes it: until 2026-12-07 any plain name was
    // taken, `_desk.1` or `settlement_prices` too, which no exchange account can be.
    if (!common::IsValidAccountId(row.account)) {
      return csv.Error(0, common::kAccountIdRule);
    }
    if (absl::Status s = CheckSymbol(csv, 1); !s.ok()) return s;
    row.position.sym = std::string(csv.field(1));
    absl::StatusOr<int64_t> qty = common::ParseInteger(csv.field(2));
    if (!qty.ok()) return csv.Error(2, qty.status().message());
    if (*qty > kMaxRowQty || *qty < -kMaxRowQty) {
      return csv.Error(2, absl::StrCat("|qty| must be <= ", kMaxRowQty));
    }
    row.position.qty = *qty;
    rows.push_back(std::move(row));
  }
  if (!csv.status().ok()) return csv.status();
  return rows;
}

absl::StatusOr<std::vector<ContractPrice>> ParsePricesCsv(absl::string_view text,
                                                          absl::string_view file) {
  common::CsvReader csv(text, file, kPricesHeader);
  std::vector<ContractPrice> prices;
  std::set<std::string, std::less<>> seen;
  while (csv.Next()) {
    if (absl::Status s = CheckSymbol(csv, 0); !s.ok()) return s;
    const absl::string_view sym = csv.field(0);
    if (!seen.emplace(sym).second) {
      return csv.Error(0, absl::StrCat("duplicate symbol \"", sym, "\""));
    }
    absl::StatusOr<int64_t> ticks = common::ParseScaled(csv.field(1), 3);
    if (!ticks.ok() || *ticks <= 0) {
      return csv.Error(
          1, absl::StrCat("not a positive price on the 0.001 tick: \"", csv.field(1), "\""));
    }
    // The margin engine's bound (docs/valuation.md), named here with the file and line.
    if (*ticks > 1'000'000'000) {
      return csv.Error(
          1, absl::StrCat("settlement price above 1,000,000 USD: \"", csv.field(1), "\""));
    }
    prices.push_back({std::string(sym), *ticks});
  }
  if (!csv.status().ok()) return csv.status();
  return prices;
}

absl::StatusOr<std::vector<PositionRow>> ReadPositionsCsv(const std::string& path) {
  return ReadWith<std::vector<PositionRow>>(path, ParsePositionsCsv);
}
absl::StatusOr<std::vector<ContractPrice>> ReadPricesCsv(const std::string& path) {
  return ReadWith<std::vector<ContractPrice>>(path, ParsePricesCsv);
}
absl::StatusOr<std::vector<ThroughputRow>> ReadThroughputCsv(const std::string& path) {
  absl::StatusOr<std::vector<reference::ThroughputRow>> rows = reference::ReadThroughputFile(path);
  if (!rows.ok()) return rows.status();
  return reference::ToOperatorThroughput(*rows);
}

absl::StatusOr<std::vector<AccountPositions>> GroupByAccount(
    const std::vector<PositionRow>& rows, const std::vector<ContractPrice>& prices,
    absl::string_view positions_file) {
  std::set<std::string> priced;
  for (const ContractPrice& p : prices) priced.insert(p.sym);
  std::map<std::string, std::vector<Position>> by_account;
  for (const PositionRow& row : rows) {
    if (!priced.contains(row.position.sym)) {
      return common::CsvError(positions_file, row.line, "sym",
                              absl::StrCat("no settlement price for \"", row.position.sym, "\""));
    }
    by_account[row.account].push_back(row.position);
  }
  std::vector<AccountPositions> out;
  for (auto& [account, positions] : by_account) out.push_back({account, std::move(positions)});
  return out;
}

}  // namespace cfx::gpu_valuation
