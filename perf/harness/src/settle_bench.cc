#include "cfx/perf/settle_bench.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/common/date.h"
#include "cfx/settlement/batch.h"
#include "cfx/settlement/expiry.h"
#include "timing.h"

namespace cfx::perf {
namespace {

using namespace cfx::settlement;  // NOLINT(build/namespaces): the bench drives settlement

std::string AccountName(int64_t i) { return absl::StrFormat("ACC%08d", i); }

// Generates trades on demand instead of storing millions of records.
class SyntheticTrades : public TradeSource {
 public:
  SyntheticTrades(int64_t accounts, int64_t positions, const std::vector<std::string>& syms)
      : accounts_(accounts), positions_(positions), syms_(syms) {}
  void SetDay(int day) { day_ = day; }

  absl::Status ForEachTrade(common::TimestampUs from, common::TimestampUs to,
                            const std::function<absl::Status(const Trade&)>& fn) override {
    Trade t;
    t.ts = to - 10 * common::kUsPerMinute;  // in the closing window: these contracts settle T1
    if (t.ts < from) return absl::OkStatus();
    int64_t seq = day_ * 1'000'000'000LL;
    const int64_t pairs = accounts_ / 2;
    for (int64_t p = 0; p < pairs; ++p) {
      if (day_ > 1 && p % 10 != 0) continue;
      t.buy_acct = AccountName(2 * p);
      t.sell_acct = AccountName(2 * p + 1);
      const int64_t n = day_ == 1 ? positions_ : 1;
      for (int64_t k = 0; k < n; ++k) {
        t.seq = ++seq;
        t.sym = syms_[(p + k) % syms_.size()];
        t.qty = common::Qty(1 + (p + k) % 7);
        t.px_ticks = common::PriceTicks(5000 + (p * 31 + k * 17 + day_ * 5) % 200);
        absl::Status s = fn(t);
        if (!s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::optional<CloseQuote>> Close(const std::string&, common::Date) override {
    return std::optional<CloseQuote>();
  }

 private:
  int64_t accounts_, positions_;
  const std::vector<std::string>& syms_;
  int day_ = 1;
};

class SyntheticFixes : public FixSource {
 public:
  absl::StatusOr<std::optional<int64_t>> FixE4(const std::string& grade, common::Date d) override {
    return std::optional<int64_t>(50000 + static_cast<int64_t>(grade.size()) * 7 + d.days % 13);
  }
};

// 15% of notional per lot, long or short: a cheap stand-in for span16.
class SyntheticMargin : public MarginSource {
 public:
  absl::StatusOr<common::MicroUsd> InitialMargin(std::string_view, const std::vector<SymQty>& pos,
                                                 const SettlePrices& prices) override {
    common::MicroUsd im(0);
    for (const SymQty& p : pos) {
      auto it = prices.find(p.sym);
      if (it == prices.end()) return absl::NotFoundError("no price");
      const common::Qty lots = p.qty < common::Qty(0) ? -p.qty : p.qty;
      const std::optional<common::MicroUsd> m =
          common::MicroUsdOf(lots, it->second, common::MicroUsd(150'000));
      if (!m) return absl::OutOfRangeError("margin overflows");
      im += *m;
    }
    return im;
  }
};

// The 48 contracts traded: 12 months of four grades listed from 2027-03-01.
std::vector<std::string> BenchSymbols() {
  std::vector<std::string> syms;
  for (const char* g : {"B200-PLAT-US", "B200-GOLD-US", "B200-SILV-US", "B200-GOLD-EU"}) {
    for (const auto& c :
         ListedContracts(*common::ParseGrade(g), *common::ParseDate("2027-03-01"))) {
      syms.push_back(c.Key());
    }
  }
  return syms;
}

std::string WorkDir(const SettleBenchOptions& options) {
  if (!options.dir.empty()) return options.dir;
  return (std::filesystem::temp_directory_path() / absl::StrFormat("cfx-bench-settle-%d", getpid()))
      .string();
}

// Bytes of the regular files below `dir`.
uintmax_t FolderBytes(const std::string& dir) {
  uintmax_t bytes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) bytes += e.file_size();
  }
  return bytes;
}

}  // namespace

absl::StatusOr<SettleBenchResult> RunSettleBench(const SettleBenchOptions& options) {
  if (options.accounts < 2 || options.positions < 1 || options.positions > 48) {
    return absl::InvalidArgumentError("need accounts >= 2 and 1 <= positions <= 48");
  }
  const std::vector<std::string> syms = BenchSymbols();
  const std::string dir = WorkDir(options);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot empty ", dir, ": ", ec.message()));
  SyntheticTrades trades(options.accounts, options.positions, syms);
  SyntheticFixes fixes;
  SyntheticMargin margin;
  SettleConfig config;
  SettleOptions settle_options;
  settle_options.data_dir = dir + "/data";
  if (options.statements) settle_options.out_dir = dir + "/statements";

  double seconds[2] = {0, 0};
  SettleReport report;
  for (int day = 1; day <= 2; ++day) {
    trades.SetDay(day);
    const auto start = std::chrono::steady_clock::now();
    auto r = SettleDate(*common::ParseDate(day == 1 ? "2027-03-01" : "2027-03-02"), config,
                        {&trades, &fixes, &margin}, settle_options);
    seconds[day - 1] = internal::SecondsSince(start);
    if (!r.ok()) {
      return absl::Status(r.status().code(), absl::StrCat("day ", day, ": ", r.status().message()));
    }
    report = *std::move(r);
    if (options.log != nullptr) {
      *options.log << absl::StrFormat("day %d: %.2f s, %d accounts, %d contracts\n", day,
                                      seconds[day - 1], report.day.accounts,
                                      report.day.contracts.size());
    }
  }
  SettleBenchResult result;
  result.ledger_bytes = FolderBytes(settle_options.data_dir);
  std::filesystem::remove_all(dir, ec);
  result.accounts = report.day.accounts;
  result.positions = options.accounts * options.positions;
  result.contracts = static_cast<int64_t>(report.day.contracts.size());
  result.calls = report.day.calls;
  result.seconds = seconds[1];
  result.setup_seconds = seconds[0];
  result.statements = options.statements;
  return result;
}

void PrintSettleBench(const SettleBenchResult& r, std::ostream& out) {
  out << absl::StrFormat(
      "{\"bench\":\"settle\",\"accounts\":%d,\"positions\":%d,\"seconds\":%.3f,"
      "\"setup_seconds\":%.3f,\"contracts\":%d,\"calls\":%d,\"statements\":%s,"
      "\"ledger_bytes\":%d}\n",
      r.accounts, r.positions, r.seconds, r.setup_seconds, r.contracts, r.calls,
      r.statements ? "true" : "false", r.ledger_bytes);
}

}  // namespace cfx::perf
