// `cfx bench settle --accounts N --positions P`: the whole settlement batch, ledger writes
// included, on synthetic in-memory trades, fixes and margin with a temp data dir.
//
// Day 1 (2027-03-01, "setup") opens the book: accounts are paired and each pair trades P
// contracts, so every account holds P positions. Day 2 (2027-03-02, the figure) is the
// steady-state run: all positions are loaded from the ledger and marked, a tenth of the
// pairs trade again, margin is computed and the day is committed. The last line is JSON.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "cfx/common/date.h"
#include "cfx/settlement/batch.h"
#include "cfx/settlement/expiry.h"
#include "registry.h"

namespace {

using namespace cfx::settlement;

struct BenchFlags {
  int64_t accounts = 1'000'000;
  int64_t positions = 10;
  bool statements = false;
  std::string dir;
};

std::string AccountName(int64_t i) { return absl::StrFormat("ACC%08d", i); }

// Generates trades on demand instead of storing millions of records.
class SyntheticTrades : public TradeSource {
 public:
  SyntheticTrades(int64_t accounts, int64_t positions, const std::vector<std::string>& syms)
      : accounts_(accounts), positions_(positions), syms_(syms) {}
  void SetDay(int day) { day_ = day; }

  absl::Status ForEachTrade(cfx::TimestampUs from, cfx::TimestampUs to,
                            const std::function<absl::Status(const Trade&)>& fn) override {
    Trade t;
    t.ts = to - 10 * cfx::kUsPerMinute;  // in the closing window: these contracts settle T1
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
        t.qty = 1 + (p + k) % 7;
        t.px_ticks = 5000 + (p * 31 + k * 17 + day_ * 5) % 200;
        absl::Status s = fn(t);
        if (!s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::optional<CloseQuote>> Close(const std::string&, cfx::Date) override {
    return std::optional<CloseQuote>();
  }

 private:
  int64_t accounts_, positions_;
  const std::vector<std::string>& syms_;
  int day_ = 1;
};

class SyntheticFixes : public FixSource {
 public:
  absl::StatusOr<std::optional<int64_t>> FixE4(const std::string& grade, cfx::Date d) override {
    return std::optional<int64_t>(50000 + static_cast<int64_t>(grade.size()) * 7 + d.days % 13);
  }
};

// 15% of notional per lot, long or short: a cheap stand-in for span16.
class SyntheticMargin : public MarginSource {
 public:
  absl::StatusOr<int64_t> InitialMarginMicroUsd(std::string_view, const std::vector<SymQty>& pos,
                                                const SettlePrices& prices) override {
    int64_t im = 0;
    for (const SymQty& p : pos) {
      auto it = prices.find(p.sym);
      if (it == prices.end()) return absl::NotFoundError("no price");
      im += (p.qty < 0 ? -p.qty : p.qty) * it->second * 150'000;
    }
    return im;
  }
};

int RunBench(const BenchFlags& flags) {
  if (flags.accounts < 2 || flags.positions < 1 || flags.positions > 48) {
    std::cerr << "cfx bench settle: need --accounts >= 2 and 1 <= --positions <= 48\n";
    return 2;
  }
  std::vector<std::string> syms;
  for (const char* g : {"B200-PLAT-US", "B200-GOLD-US", "B200-SILV-US", "B200-GOLD-EU"}) {
    for (const auto& c : ListedContracts(*cfx::ParseGrade(g), *cfx::ParseDate("2027-03-01"))) {
      syms.push_back(c.Key());
    }
  }
  std::string dir = flags.dir.empty()
                        ? (std::filesystem::temp_directory_path() /
                           absl::StrFormat("cfx-bench-settle-%d", getpid())).string()
                        : flags.dir;
  std::filesystem::remove_all(dir);
  SyntheticTrades trades(flags.accounts, flags.positions, syms);
  SyntheticFixes fixes;
  SyntheticMargin margin;
  SettleConfig config;
  SettleOptions options;
  options.data_dir = dir + "/data";
  if (flags.statements) options.out_dir = dir + "/statements";
  double seconds[2] = {0, 0};
  SettleReport report;
  for (int day = 1; day <= 2; ++day) {
    trades.SetDay(day);
    auto start = std::chrono::steady_clock::now();
    auto r = SettleDate(*cfx::ParseDate(day == 1 ? "2027-03-01" : "2027-03-02"), config,
                        {&trades, &fixes, &margin}, options);
    seconds[day - 1] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r.ok()) {
      std::cerr << "cfx bench settle: day " << day << ": " << r.status().message() << "\n";
      return 1;
    }
    report = *std::move(r);
    std::cerr << absl::StrFormat("day %d: %.2f s, %d accounts, %d contracts\n", day,
                                 seconds[day - 1], report.day.accounts, report.day.contracts.size());
  }
  uintmax_t ledger_bytes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(options.data_dir)) {
    if (e.is_regular_file()) ledger_bytes += e.file_size();
  }
  std::filesystem::remove_all(dir);
  std::cout << absl::StrFormat(
      "{\"bench\":\"settle\",\"accounts\":%d,\"positions\":%d,\"seconds\":%.3f,"
      "\"setup_seconds\":%.3f,\"contracts\":%d,\"calls\":%d,\"statements\":%s,"
      "\"ledger_bytes\":%d}\n",
      report.day.accounts, flags.accounts * flags.positions, seconds[1], seconds[0],
      report.day.contracts.size(), report.day.calls, flags.statements ? "true" : "false",
      ledger_bytes);
  return 0;
}

void SetupBenchSettle(CLI::App& parent, cfx::app::ExitCode* rc) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* cmd = parent.add_subcommand("settle", "Settlement batch on synthetic positions");
  cmd->add_option("--accounts", flags->accounts, "Accounts (paired)");
  cmd->add_option("--positions", flags->positions, "Positions per account (1..48)");
  cmd->add_flag("--statements", flags->statements, "Also write JSON/CSV statements");
  cmd->add_option("--dir", flags->dir, "Work folder (default: a temp folder, removed)");
  cmd->callback([flags, rc] { *rc = RunBench(*flags); });
}

CFX_REGISTER_COMMAND("bench", SetupBenchSettle);

}  // namespace
