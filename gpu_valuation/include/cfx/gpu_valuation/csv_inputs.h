// Readers for the `cfx margin` input files (SPEC §12), under the strict CSV rules of
// cfx/common/csv.h. Every error names the file, the line (the header is line 1) and the
// column, e.g. `pos.csv:4: column qty: not an integer: "1.5"`.
//
//   absl::StatusOr<std::vector<PositionRow>> pos = ReadPositionsCsv("pos.csv");
#ifndef CFX_GPU_VALUATION_CSV_INPUTS_H_
#define CFX_GPU_VALUATION_CSV_INPUTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cfx/gpu_valuation/margin_engine.h"
#include "cfx/gpu_valuation/throughput.h"

namespace cfx::gpu_valuation {

struct PositionRow {
  std::string account;
  Position position;
  int64_t line = 0;
};

// Header `account,sym,qty`; qty a signed integer with |qty| <= kMaxRowQty.
inline constexpr int64_t kMaxRowQty = 1'000'000'000;
absl::StatusOr<std::vector<PositionRow>> ParsePositionsCsv(absl::string_view text,
                                                           absl::string_view file_name);
// Header `sym,settle`; settle a positive price on the 0.001 tick; no duplicate symbol.
absl::StatusOr<std::vector<ContractPrice>> ParsePricesCsv(absl::string_view text,
                                                          absl::string_view file_name);

absl::StatusOr<std::vector<PositionRow>> ReadPositionsCsv(const std::string& path);
absl::StatusOr<std::vector<ContractPrice>> ReadPricesCsv(const std::string& path);
// throughput.csv (SPEC §8), read by reference::ReadThroughputFile, the one reader of that
// file, so `cfx margin` and `cfx reference build` accept the same files.
absl::StatusOr<std::vector<ThroughputRow>> ReadThroughputCsv(const std::string& path);

// Groups rows by account (sorted by account), checking every symbol has a price: an unknown
// symbol is an error naming `positions_file`, its line and column `sym`.
absl::StatusOr<std::vector<AccountPositions>> GroupByAccount(
    const std::vector<PositionRow>& rows, const std::vector<ContractPrice>& prices,
    absl::string_view positions_file);

}  // namespace cfx::gpu_valuation

#endif  // CFX_GPU_VALUATION_CSV_INPUTS_H_
