// Demo step c: a trading day over FIX. Every trading session of the config logs on, plus
// the drop copy; BETA subscribes to market data. Pre-open order entry, the opening
// auction, then a seeded random session in time slots (5 minutes, 1 minute in the closing
// window [15:30Z, 16:00Z)), the clock past 16:00Z and the close.
//
// Determinism: the clock is manual and moves only between slots, after every session has
// passed a barrier (all answers and all reports caused by the slot have arrived), so each
// slot starts from the same live orders on every run and the random draws repeat.
#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "cfx/common/decimal.h"
#include "demo_credentials.h"
#include "demo_session.h"

namespace cfx::demo {
namespace {

constexpr auto kAnswerTimeout = std::chrono::seconds(20);

// splitmix64: the same numbers on every platform (std distributions are not portable).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t Uniform(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }

 private:
  uint64_t state_;
};

struct Contract {
  std::string sym;
  int64_t ref = 0;  // band centre the demo assumes (prior settlement, else prior fix)
  int64_t mid = 0;  // drifts during the day, kept within ±5% of ref
};

class DayDriver {
 public:
  DayDriver(Venue& venue, std::vector<std::unique_ptr<DemoSession>>& sessions,
            std::vector<Contract>& contracts, Rng& rng, std::atomic<bool>& closing,
            TradingResult& result, std::ostream& log)
      : venue_(venue),
        sessions_(sessions),
        contracts_(contracts),
        rng_(rng),
        closing_(closing),
        result_(result),
        log_(log) {}

  void SubscribeOnFirstDay(const std::string& sym) { md_symbol_ = sym; }

  absl::Status Run(common::Date day, int orders) {
    const common::TimestampUs t0 = common::AtHour(day, 0);
    if (absl::Status s = venue_.AdvanceTime(t0 + 7 * common::kUsPerHour); !s.ok()) return s;
    if (absl::Status s = venue_.PreOpenAll(); !s.ok()) return s;
    if (!md_symbol_.empty()) {  // the first day: the books exist now
      if (absl::Status s = sessions_[1]->client().SubscribeMarketData("demo-md", {md_symbol_}, 5);
          !s.ok()) {
        return s;
      }
      md_symbol_.clear();
    }
    // Pre-open: a two-sided book around each contract's reference, crossing a little so
    // the auction has something to match.
    for (auto& session : sessions_) {
      for (Contract& c : contracts_) {
        for (int i = 0; i < 3; ++i) {
          const Side side = i % 2 ? Side::kSell : Side::kBuy;
          const int64_t off = rng_.Uniform(-4, 12);
          SendLimit(*session, c, side, side == Side::kBuy ? c.mid - off : c.mid + off,
                    rng_.Uniform(1, 10), TimeInForce::kDay, 0);
        }
      }
    }
    if (absl::Status s = Sync(); !s.ok()) return s;
    log_ << "  " << common::FormatDate(day) << " 07:00Z pre_open: " << result_.orders
         << " orders entered\n";
    if (absl::Status s = venue_.AdvanceTime(t0 + 8 * common::kUsPerHour); !s.ok()) return s;
    if (absl::Status s = venue_.OpenAll(); !s.ok()) return s;
    if (absl::Status s = Sync(); !s.ok()) return s;
    log_ << "  08:00Z opening auction\n";

    // 90 five-minute slots to 15:30Z, then 30 one-minute slots in the closing window.
    std::vector<common::TimestampUs> slots;
    for (int m = 0; m < 450; m += 5)
      slots.push_back(t0 + 8 * common::kUsPerHour + m * common::kUsPerMinute);
    for (int m = 0; m < 30; ++m)
      slots.push_back(t0 + 15 * common::kUsPerHour + (30 + m) * common::kUsPerMinute);
    const int per_slot = std::max<int>(1, orders / static_cast<int>(slots.size()));
    for (size_t i = 0; i < slots.size(); ++i) {
      const bool closing = slots[i] >= t0 + 15 * common::kUsPerHour + 30 * common::kUsPerMinute;
      closing_.store(closing, std::memory_order_release);
      if (absl::Status s = venue_.AdvanceTime(slots[i]); !s.ok()) return s;
      for (Contract& c : contracts_) {
        c.mid = std::clamp(c.mid + rng_.Uniform(-3, 3), c.ref * 95 / 100, c.ref * 105 / 100);
      }
      for (int n = 0; n < per_slot; ++n) {
        DemoSession& s = *sessions_[rng_.Uniform(0, static_cast<int64_t>(sessions_.size()) - 1)];
        if (absl::Status st = RandomRequest(s); !st.ok()) return st;
        // One request at a time: requests of different sessions would otherwise race to
        // the sequencer, and the day would differ from run to run.
        if (absl::Status st = s.WaitIdle(kAnswerTimeout); !st.ok()) return st;
      }
      if (i == 40) SendDeliberateRejects();
      if (absl::Status s = Sync(); !s.ok()) return s;
      if (i % 30 == 29) {
        log_ << "  " << common::FormatTimestamp(slots[i]).substr(11, 5) << "Z " << result_.orders
             << " orders\n";
      }
    }
    closing_.store(false, std::memory_order_release);
    // Past 16:00Z the day's closing books are recorded; then the session closes.
    if (absl::Status s = venue_.AdvanceTime(t0 + 16 * common::kUsPerHour + common::kUsPerMinute);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = venue_.CloseAll(); !s.ok()) return s;
    if (absl::Status s = Sync(); !s.ok()) return s;
    log_ << "  16:01Z closed: day orders expired\n";
    return absl::OkStatus();
  }

 private:
  absl::Status Sync() {
    for (auto& s : sessions_) {
      if (absl::Status st = s->Barrier(kAnswerTimeout); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  const std::string& Account(DemoSession& s) {
    return s.accounts()[rng_.Uniform(0, static_cast<int64_t>(s.accounts().size()) - 1)];
  }

  absl::Status Send(DemoSession& s, FixOrder& o, const std::string& kind) {
    o.cl_ord_id = s.NextId();
    const bool may_rest = o.ord_type != OrdType::kMarket && o.tif != TimeInForce::kIoc &&
                          o.tif != TimeInForce::kFok && kind != "deliberate reject";
    if (may_rest) {
      resting_[&s].push_back({o.account, o.symbol, o.side, o.price_ticks, o.qty});
      resting_ids_[&s].push_back(o.cl_ord_id);
    }
    ++result_.orders;
    ++result_.orders_by_type[kind];
    return s.Order(o);
  }

  absl::Status SendLimit(DemoSession& s, const Contract& c, Side side, int64_t px, int64_t qty,
                         TimeInForce tif, int64_t display) {
    FixOrder o;
    o.account = Account(s);
    o.symbol = c.sym;
    o.side = side;
    o.price_ticks = px;
    o.qty = qty;
    o.tif = tif;
    o.display_qty = display;
    const char* kind = display > 0                ? "iceberg"
                       : tif == TimeInForce::kIoc ? "limit ioc"
                       : tif == TimeInForce::kFok ? "limit fok"
                       : tif == TimeInForce::kGtc ? "limit gtc"
                                                  : "limit day";
    return Send(s, o, kind);
  }

  absl::Status RandomRequest(DemoSession& s) {
    Contract& c = contracts_[rng_.Uniform(0, static_cast<int64_t>(contracts_.size()) - 1)];
    const Side side = rng_.Chance(50) ? Side::kBuy : Side::kSell;
    const int sign = side == Side::kBuy ? 1 : -1;
    const int64_t qty = rng_.Uniform(1, 10);
    // Cancels and replaces pick from the orders this driver sent that may still rest, not
    // from the session's reports: fills of resting orders arrive asynchronously, and the
    // choice must not depend on timing. A pick that has filled meanwhile is answered
    // `unknown_order`, as for any client.
    std::vector<LiveOrder>& mine = resting_[&s];
    std::vector<std::string>& ids = resting_ids_[&s];
    if (mine.size() > 40 || (!mine.empty() && rng_.Chance(12))) {
      const size_t k = static_cast<size_t>(rng_.Uniform(0, static_cast<int64_t>(mine.size()) - 1));
      const std::string id = ids[k];
      const std::string sym = mine[k].symbol;
      mine.erase(mine.begin() + static_cast<ptrdiff_t>(k));
      ids.erase(ids.begin() + static_cast<ptrdiff_t>(k));
      ++result_.cancels;
      return s.Cancel(s.NextId(), id, sym);
    }
    if (!mine.empty() && rng_.Chance(8)) {
      const size_t k = static_cast<size_t>(rng_.Uniform(0, static_cast<int64_t>(mine.size()) - 1));
      LiveOrder& order = mine[k];
      if (order.price_ticks > 0) {
        FixReplace r{.cl_ord_id = s.NextId(),
                     .orig_cl_ord_id = ids[k],
                     .account = order.account,
                     .symbol = order.symbol,
                     .side = order.side};
        if (rng_.Chance(50)) {
          r.price_ticks =
              order.price_ticks + (order.side == Side::kBuy ? 1 : -1) * rng_.Uniform(1, 3);
          order.price_ticks = r.price_ticks;
        } else {
          r.qty = std::max<int64_t>(1, order.leaves + rng_.Uniform(-3, 3));
          order.leaves = r.qty;
        }
        ids[k] = r.cl_ord_id;
        ++result_.replaces;
        return s.Replace(r);
      }
    }
    const int64_t roll = rng_.Uniform(1, 100);
    if (roll <= 50) {  // passive, near the touch
      return SendLimit(s, c, side, c.mid - sign * rng_.Uniform(0, 15), qty,
                       rng_.Chance(4) ? TimeInForce::kGtc : TimeInForce::kDay, 0);
    }
    if (roll <= 65) {  // aggressive limit through the mid
      return SendLimit(s, c, side, c.mid + sign * rng_.Uniform(1, 10), qty, TimeInForce::kDay, 0);
    }
    if (roll <= 73) {
      return SendLimit(s, c, side, c.mid + sign * rng_.Uniform(0, 6), qty, TimeInForce::kIoc, 0);
    }
    if (roll <= 76) {
      return SendLimit(s, c, side, c.mid + sign * rng_.Uniform(0, 6), qty, TimeInForce::kFok, 0);
    }
    if (roll <= 82) {
      return SendLimit(s, c, side, c.mid - sign * rng_.Uniform(0, 5), rng_.Uniform(20, 40),
                       TimeInForce::kDay, 5);
    }
    FixOrder o;
    o.account = Account(s);
    o.symbol = c.sym;
    o.side = side;
    o.qty = qty;
    if (roll <= 92) {
      o.ord_type = OrdType::kMarket;
      return Send(s, o, "market");
    }
    // Stops away from the market, so that they are accepted and some trigger on a move.
    o.stop_ticks = c.mid + sign * rng_.Uniform(8, 25);
    if (roll <= 96) {
      o.ord_type = OrdType::kStop;
      return Send(s, o, "stop");
    }
    o.ord_type = OrdType::kStopLimit;
    o.price_ticks = o.stop_ticks + sign * 3;
    return Send(s, o, "stop_limit");
  }

  // One of each mistake a real client makes; the exchange must answer each with a reason.
  void SendDeliberateRejects() {
    DemoSession& alpha = *sessions_.front();
    const Contract& c = contracts_.front();
    FixOrder o;
    o.account = alpha.accounts().front();
    o.symbol = c.sym;
    o.qty = 5;
    o.price_ticks = c.ref * 125 / 100;  // far outside the ±10% band
    Send(alpha, o, "deliberate reject").IgnoreError();
    o.price_ticks = c.mid;
    o.account = OtherFirmAccount(alpha);  // another firm's account
    Send(alpha, o, "deliberate reject").IgnoreError();
    o.account = alpha.accounts().front();
    o.qty = 5000;  // above the maximum order quantity
    Send(alpha, o, "deliberate reject").IgnoreError();
    o.qty = 5;
    o.price_ticks = 0;
    o.price_text = FormatPriceTicks(c.mid) + "5";  // 0.0005: off tick
    Send(alpha, o, "deliberate reject").IgnoreError();
    ++result_.cancels;
    alpha.Cancel(alpha.NextId(), "no-such-order", c.sym).IgnoreError();
  }

  std::string OtherFirmAccount(DemoSession& mine) {
    for (auto& s : sessions_) {
      if (s.get() != &mine) return s->accounts().front();
    }
    return "NOBODY-1";
  }

  Venue& venue_;
  std::vector<std::unique_ptr<DemoSession>>& sessions_;
  std::vector<Contract>& contracts_;
  Rng& rng_;
  std::atomic<bool>& closing_;
  TradingResult& result_;
  std::ostream& log_;
  std::string md_symbol_;
  std::map<DemoSession*, std::vector<LiveOrder>> resting_;
  std::map<DemoSession*, std::vector<std::string>> resting_ids_;
};

std::string NextMonthSymbol(const common::Grade& grade, common::Date day, int ahead) {
  int y, m, d;
  common::YmdFromDate(day, &y, &m, &d);
  m += ahead;
  while (m > 12) {
    m -= 12;
    ++y;
  }
  return common::ContractSymbol{grade, y, m}.Key();
}

}  // namespace

absl::StatusOr<TradingResult> RunTradingDays(const common::ExchangeConfig& config, Venue& venue,
                                             const DataResult& data,
                                             const std::vector<common::Date>& days, uint64_t seed,
                                             int orders_per_day, const DemoPaths& paths,
                                             std::ostream& log) {
  TradingResult result;
  std::atomic<bool> closing{false};
  std::vector<std::unique_ptr<DemoSession>> traders;
  std::unique_ptr<FixClient> drop_copy;
  std::string drop_copy_firm;
  for (const common::SessionConfig& sc : config.sessions) {
    if (sc.role == common::SessionRole::kDropCopy) {
      if (drop_copy) continue;  // one drop copy is enough to show it
      FixClientOptions o{.sender_comp_id = sc.sender_comp_id,
                         .port = venue.fix_port(),
                         .password = DemoPassword(sc.sender_comp_id),
                         .store_dir = paths.clients + "/" + sc.sender_comp_id};
      drop_copy = std::make_unique<FixClient>(o);
      drop_copy->SetQueueing(false);
      drop_copy_firm = sc.firm;
      if (absl::Status s = drop_copy->Logon(std::chrono::seconds(10)); !s.ok()) return s;
      result.sessions.push_back(sc.sender_comp_id + " (drop copy)");
      continue;
    }
    std::vector<std::string> accounts;
    for (const common::AccountConfig& a : config.accounts) {
      if (a.firm == sc.firm) accounts.push_back(a.id);
    }
    if (accounts.empty()) continue;
    traders.push_back(
        std::make_unique<DemoSession>(sc, accounts, venue.fix_port(), paths.clients, &closing));
    if (absl::Status s = traders.back()->Logon(); !s.ok()) return s;
    result.sessions.push_back(sc.sender_comp_id);
  }
  if (traders.size() < 2) return absl::FailedPreconditionError("demo needs two trading sessions");
  log << "  logged on: ";
  for (size_t i = 0; i < result.sessions.size(); ++i) log << (i ? ", " : "") << result.sessions[i];
  log << "\n";

  // Market data on the second firm's session for the most traded contract.
  DemoSession& md_session = *traders[1];
  result.md_symbol = NextMonthSymbol(config.products.front().grade, days.front(), 0);

  Rng rng(seed * 0x2545F4914F6CDD1DULL + 1);
  for (const common::Date day : days) {
    std::vector<Contract> contracts;
    for (const common::ProductConfig& p : config.products) {
      // Prices around the band reference the exchange uses (SPEC §3): before any
      // settlement, the previous business day's fix, else the configured initial reference.
      auto it = data.prior_fix_e4.find(absl::StrCat(p.grade.Key(), "/", common::FormatDate(day)));
      const int64_t ref = it != data.prior_fix_e4.end() ? common::DivRoundHalfEven(it->second, 10)
                          : p.ref_ticks                 ? *p.ref_ticks
                                                        : 5000;
      for (int ahead = 0; ahead < 2; ++ahead) {
        const int64_t r = ref + ref * ahead / 100;  // the later month a little dearer
        contracts.push_back({NextMonthSymbol(p.grade, day, ahead), r, r});
      }
    }
    DayDriver driver(venue, traders, contracts, rng, closing, result, log);
    if (day == days.front()) driver.SubscribeOnFirstDay(result.md_symbol);
    if (absl::Status s = driver.Run(day, orders_per_day); !s.ok()) {
      return absl::Status(s.code(),
                          "trading " + common::FormatDate(day) + ": " + std::string(s.message()));
    }
  }

  // Totals. Every trade gives one fill report to each side.
  for (auto& t : traders) {
    const SessionCounts c = t->Counts();
    result.exec_reports += c.exec_reports;
    result.fills += c.fills;
    result.volume += c.fill_qty;
    result.closing_window_trades += c.closing_fills;
    for (const auto& [k, v] : c.rejects) result.rejects[k] += v;
    for (const auto& [k, v] : c.cancel_rejects) result.cancel_rejects[k] += v;
    for (const auto& [k, v] : c.md_rejects) result.md_rejects[k] += v;
    for (const auto& [k, v] : c.cancels_by_reason) result.cancels_by_reason[k] += v;
    for (const auto& [k, v] : c.fills_by_symbol) result.trades_by_symbol[k] += v;
    for (const auto& [k, v] : c.qty_by_symbol) result.volume_by_symbol[k] += v;
  }
  result.trades = result.fills / 2;
  result.volume /= 2;
  result.closing_window_trades /= 2;
  for (auto& [k, v] : result.trades_by_symbol) v /= 2;
  for (auto& [k, v] : result.volume_by_symbol) v /= 2;
  // Every ExecutionReport the firm's sessions received, status answers (our barriers)
  // included: the drop copy gets a copy of each.
  for (auto& t : traders) {
    if (t->firm() == drop_copy_firm) result.alpha_exec_reports += t->client().ReceivedCount("8");
  }
  if (drop_copy) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (drop_copy->ReceivedCount("8") < result.alpha_exec_reports &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    result.drop_copies = drop_copy->ReceivedCount("8");
  }
  result.md_snapshots = md_session.client().ReceivedCount("W");
  result.md_incrementals = md_session.client().ReceivedCount("X");
  for (auto& t : traders) t->Logout();
  if (drop_copy) drop_copy->Logout();
  log << "  " << result.orders << " orders, " << result.trades << " trades, " << result.volume
      << " contracts; drop copy " << result.drop_copies << "/" << result.alpha_exec_reports
      << " of " << drop_copy_firm << "'s reports; market data " << result.md_snapshots
      << " snapshot(s), " << result.md_incrementals << " incrementals\n";
  return result;
}

}  // namespace cfx::demo
