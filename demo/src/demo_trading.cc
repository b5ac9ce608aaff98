// Demo step c: the trading floor. Every trading session of the config is a simulated firm
// (demo_firms.h): ALPHA and BETA make markets, GAMMA takes, DELTA bursts past its throttle
// and later drops its connection (its resting orders are canceled by the exchange and the
// cancels reach it when it logs on again); ALPHA's drop copy and BETA's market data
// subscription run alongside. A day: pre-open quotes, the opening auction at 08:00Z, slots
// of 5 minutes to 15:30Z and of 1 minute in the closing window [15:30Z, 16:00Z), the close.
//
// Determinism: the clock is manual and moves only between slots, after every session has
// passed a barrier (all answers and all reports caused by the slot have arrived); inside a
// slot requests go one at a time. So the engine sees the same sequence on every run, except
// for DELTA's throttled burst, which depends on the wall clock (its orders never trade).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "cfx/common/decimal.h"
#include "demo_credentials.h"
#include "demo_firms.h"
#include "demo_session.h"

namespace cfx::demo {
namespace {

constexpr auto kAnswerTimeout = std::chrono::seconds(20);
constexpr int kSlots = 120;       // 90 five-minute slots, then 30 one-minute slots
constexpr int kBurstSlot = 24;    // 10:00Z: DELTA's burst
constexpr int kDropSlot = 72;     // 14:00Z: DELTA's connection drops
constexpr int kBackSlot = 78;     // 14:30Z: DELTA logs on again
constexpr int kMistakeSlot = 40;  // 11:20Z: one of each mistake
constexpr int kBurstOrders = 2;   // × the throttle rate, sent without waiting

// What the demo's firms do, by CompID; any other trading session is a taker.
std::optional<MakerParams> MakerFor(const std::string& comp_id) {
  if (comp_id == "ALPHA_T1") return MakerParams{.half_spread = 3, .size = 8, .limit = 60};
  if (comp_id == "BETA_T1") return MakerParams{.half_spread = 5, .size = 12, .limit = 90};
  return std::nullopt;
}
bool IsFlaky(const std::string& comp_id) { return comp_id == "DELTA_T1"; }

// "B200-GOLD-US-202712" -> "B200-GOLD-US-202801".
std::string NextMonth(const std::string& sym) {
  if (sym.size() < 7) return sym;
  int y = std::atoi(sym.substr(sym.size() - 6, 4).c_str());
  int m = std::atoi(sym.substr(sym.size() - 2).c_str()) + 1;
  if (m > 12) {
    m = 1;
    ++y;
  }
  char tail[16];
  std::snprintf(tail, sizeof(tail), "%04d%02d", y, m);
  return sym.substr(0, sym.size() - 6) + tail;
}

class Floor : public TradingFloor {
 public:
  Floor(const common::ExchangeConfig& config, const DemoPaths& paths, uint64_t seed,
        int orders_per_day, std::ostream& log)
      : config_(config),
        paths_(paths),
        rng_(seed * 0x2545F4914F6CDD1DULL + 1),
        orders_per_day_(orders_per_day),
        log_(log) {}

  absl::Status Init() {
    for (const common::SessionConfig& sc : config_.sessions) {
      if (sc.role == common::SessionRole::kDropCopy) {
        if (!drop_copy_config_) {
          drop_copy_config_ = sc;
          result_.firms.push_back({.firm = sc.firm,
                                   .session = sc.sender_comp_id,
                                   .role = "drop copy",
                                   .params = "",
                                   .accounts = {}});
        }
        continue;
      }
      std::vector<std::string> accounts;
      for (const common::AccountConfig& a : config_.accounts) {
        if (a.firm == sc.firm) accounts.push_back(a.id);
      }
      if (accounts.empty()) continue;
      sessions_.push_back(std::make_unique<DemoSession>(sc, accounts, paths_.clients, &closing_));
      DemoSession* s = sessions_.back().get();
      if (IsFlaky(sc.sender_comp_id)) {
        flaky_ = s;
        flaky_rate_ = sc.throttle_msgs_per_sec;
        result_.firms.push_back(
            {.firm = sc.firm,
             .session = sc.sender_comp_id,
             .role = "throttled, disconnects",
             .params = absl::StrCat("throttle ", flaky_rate_, " msg/s; cancel on disconnect"),
             .accounts = accounts});
        continue;
      }
      if (std::optional<MakerParams> p = MakerFor(sc.sender_comp_id)) {
        firms_.push_back(NewMarketMaker(s, *p, &rng_, &requests_));
      } else {
        firms_.push_back(NewTaker(s, &rng_, &requests_));
      }
      result_.firms.push_back({.firm = sc.firm,
                               .session = sc.sender_comp_id,
                               .role = firms_.back()->role(),
                               .params = firms_.back()->Params(),
                               .accounts = accounts});
    }
    if (firms_.size() < 2) return absl::FailedPreconditionError("demo needs two trading firms");
    // Market data on the second firm's session.
    md_session_ = &firms_[1]->session();
    return absl::OkStatus();
  }

  const TradingResult& result() const override { return result_; }

  absl::Status TradeDay(Venue& venue, common::Date day, const std::vector<DayContract>& plan,
                        bool book_at_close) override {
    if (absl::Status s = Connect(venue); !s.ok()) return s;
    std::vector<LiveContract> contracts;
    for (const DayContract& c : plan) {
      contracts.push_back({.sym = c.sym,
                           .band_ref = c.band_ref,
                           .fair = c.fair,
                           .mid = c.band_ref + (c.fair - c.band_ref) / 2});
    }
    if (result_.md_symbol.empty() && !contracts.empty()) result_.md_symbol = contracts[0].sym;
    const int64_t orders_before = requests_.orders;
    const int64_t cancels_before = requests_.cancels;
    const int64_t quotes_before = requests_.quotes;
    const Totals before = Sum();

    const common::TimestampUs t0 = common::AtHour(day, 0);
    if (absl::Status s = venue.AdvanceTime(t0 + 7 * common::kUsPerHour); !s.ok()) return s;
    if (absl::Status s = venue.PreOpenAll(); !s.ok()) return s;
    if (absl::Status s = md_session_->client().SubscribeMarketData(
            absl::StrCat("demo-md-", common::FormatDate(day)), {result_.md_symbol}, 5);
        !s.ok()) {
      return s;
    }
    for (auto& f : firms_) {
      if (absl::Status s = f->PreOpen(contracts); !s.ok()) return s;
      if (absl::Status s = f->session().WaitIdle(kAnswerTimeout); !s.ok()) return s;
    }
    if (absl::Status s = Sync(); !s.ok()) return s;
    log_ << "  " << common::FormatDate(day)
         << " 07:00Z pre_open: " << requests_.orders - orders_before << " orders; ";
    if (absl::Status s = venue.AdvanceTime(t0 + 8 * common::kUsPerHour); !s.ok()) return s;
    if (absl::Status s = venue.OpenAll(); !s.ok()) return s;
    if (absl::Status s = Sync(); !s.ok()) return s;
    log_ << "08:00Z opening auction; trading " << std::flush;

    const int per_slot = std::max(1, orders_per_day_ / kSlots);
    for (int i = 0; i < kSlots; ++i) {
      const common::TimestampUs at =
          i < 90 ? t0 + 8 * common::kUsPerHour + i * 5 * common::kUsPerMinute
                 : t0 + 15 * common::kUsPerHour + (30 + i - 90) * common::kUsPerMinute;
      if (absl::Status s = venue.AdvanceTime(at); !s.ok()) return s;
      for (LiveContract& c : contracts) {
        // A random walk pulled towards the fair value, kept within ±5% of the band reference.
        const int64_t pull = (c.fair - c.mid) / 8;
        c.mid = std::clamp(c.mid + pull + rng_.Uniform(-3, 3), c.band_ref * 95 / 100,
                           c.band_ref * 105 / 100);
      }
      // Whatever the time input set off (a book that opened crossed matches at the next
      // input) reaches every firm before any of them looks at its orders.
      if (absl::Status s = Sync(); !s.ok()) return s;
      closing_.store(i >= 90, std::memory_order_release);  // every earlier fill has arrived
      for (auto& f : firms_) {
        if (absl::Status s = f->Amend(contracts); !s.ok()) return s;
        if (absl::Status s = f->session().WaitIdle(kAnswerTimeout); !s.ok()) return s;
      }
      if (absl::Status s = Sync(); !s.ok()) return s;
      if (i == kMistakeSlot) {
        if (absl::Status s = Mistakes(contracts); !s.ok()) return s;
      }
      for (auto& f : firms_) {
        if (absl::Status s = f->Send(contracts, f->role() == "taker" ? per_slot : 0); !s.ok())
          return s;
        if (absl::Status s = f->session().WaitIdle(kAnswerTimeout); !s.ok()) return s;
      }
      if (flaky_) {
        if (absl::Status s = FlakyFirm(i, contracts); !s.ok()) return s;
      }
      if (i % 12 == 11) log_ << "." << std::flush;  // a dot an hour
    }
    if (absl::Status s = Sync(); !s.ok()) return s;
    closing_.store(false, std::memory_order_release);
    if (book_at_close) {
      if (absl::Status s = FetchBook(venue, day); !s.ok()) return s;
    }
    // Past 16:00Z the day's closing books are recorded; then the session closes.
    if (absl::Status s = venue.AdvanceTime(t0 + 16 * common::kUsPerHour + common::kUsPerMinute);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = venue.CloseAll(); !s.ok()) return s;
    if (absl::Status s = Sync(); !s.ok()) return s;
    if (flaky_ && flaky_->connected()) {
      if (absl::Status s = flaky_->Barrier(kAnswerTimeout); !s.ok()) return s;
    }
    if (absl::Status s = Disconnect(); !s.ok()) return s;

    const Totals after = Sum();
    TradingDay d{.date = day,
                 .orders = requests_.orders - orders_before,
                 .quotes = requests_.quotes - quotes_before,
                 .cancels = requests_.cancels - cancels_before,
                 .trades = (after.fills - before.fills) / 2,
                 .volume = (after.qty - before.qty) / 2,
                 .throttled = after.throttled - before.throttled,
                 .disconnect_cancels = after.disconnect_cancels - before.disconnect_cancels};
    result_.by_day.push_back(d);
    Totalize();
    log_ << " 16:01Z closed\n  " << d.orders << " orders (" << d.quotes << " quotes), " << d.trades
         << " trades, " << d.volume << " contracts";
    if (d.throttled || d.disconnect_cancels) {
      log_ << "; " << flaky_->name() << ": " << d.throttled << " throttled, "
           << d.disconnect_cancels << " orders canceled on disconnect";
    }
    log_ << "\n";
    return absl::OkStatus();
  }

 private:
  struct Totals {
    int64_t fills = 0, qty = 0, throttled = 0, disconnect_cancels = 0;
  };

  Totals Sum() {
    Totals t;
    for (auto& s : sessions_) {
      const SessionCounts c = s->Counts();
      t.fills += c.fills;
      t.qty += c.fill_qty;
      auto th = c.rejects.find("throttled");
      if (th != c.rejects.end()) t.throttled += th->second;
      auto dc = c.cancels_by_reason.find("disconnect");
      if (dc != c.cancels_by_reason.end()) t.disconnect_cancels += dc->second;
    }
    return t;
  }

  absl::Status Connect(Venue& venue) {
    const bool first = result_.sessions.empty();
    venue_port_ = venue.fix_port();
    for (auto& s : sessions_) {
      // Sessions keep their sequence numbers, as a firm's engine does: reports the exchange
      // sent while a firm was away (DELTA's canceled orders) are resent at its Logon.
      if (absl::Status st = s->Connect(venue.fix_port(), true); !st.ok()) return st;
      if (first) result_.sessions.push_back(s->name());
    }
    if (drop_copy_config_) {
      FixClientOptions o;
      o.sender_comp_id = drop_copy_config_->sender_comp_id;
      o.port = venue.fix_port();
      o.password = DemoPassword(drop_copy_config_->sender_comp_id);
      o.store_dir = paths_.clients + "/" + drop_copy_config_->sender_comp_id;
      drop_copy_ = std::make_unique<FixClient>(o);
      drop_copy_->SetQueueing(false);
      if (absl::Status s = drop_copy_->Logon(std::chrono::seconds(10)); !s.ok()) return s;
      if (first) result_.sessions.push_back(drop_copy_config_->sender_comp_id + " (drop copy)");
      firm_reports_at_logon_ = FirmReports();
    }
    if (first) {
      log_ << "  logged on: ";
      for (size_t i = 0; i < result_.sessions.size(); ++i)
        log_ << (i ? ", " : "") << result_.sessions[i];
      log_ << "\n";
    }
    return absl::OkStatus();
  }

  // Every ExecutionReport the drop-copy firm's trading sessions received (status answers
  // included): the drop copy gets a copy of each.
  int64_t FirmReports() {
    int64_t n = 0;
    for (auto& s : sessions_) {
      if (drop_copy_config_ && s->firm() == drop_copy_config_->firm) {
        const SessionCounts c = s->Counts();
        auto it = c.received.find("8");
        if (it != c.received.end()) n += it->second;
      }
    }
    return n;
  }

  absl::Status Disconnect() {
    if (drop_copy_) {
      const int64_t expected = FirmReports() - firm_reports_at_logon_;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (drop_copy_->ReceivedCount("8") < expected &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      result_.alpha_exec_reports += expected;
      result_.drop_copies += drop_copy_->ReceivedCount("8");
      drop_copy_->Logout();
      drop_copy_.reset();
    }
    for (auto& s : sessions_) s->Logout();
    return absl::OkStatus();
  }

  // Every firm's barrier, sent together and then awaited (status requests change nothing,
  // so their order among sessions does not matter).
  absl::Status Sync() {
    for (auto& f : firms_) {
      if (absl::Status st = f->session().WaitIdle(kAnswerTimeout); !st.ok()) return st;
    }
    for (auto& f : firms_) {
      if (absl::Status st = f->session().StartBarrier(); !st.ok()) return st;
    }
    for (auto& f : firms_) {
      if (absl::Status st = f->session().WaitIdle(kAnswerTimeout); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  // DELTA: at 10:00Z a burst of bids in the back month, twice its throttle rate at once
  // (about half are refused `throttled`; the others rest, where no other firm trades); at
  // 14:00Z its connection drops and the exchange cancels what rests; at 14:30Z it logs on
  // again and learns of the cancels from the resent reports.
  absl::Status FlakyFirm(int slot, const std::vector<LiveContract>& contracts) {
    DemoSession& s = *flaky_;
    if (slot == kBurstSlot) {
      // DELTA quotes the month after the ones the others trade: its orders rest where no
      // other order goes, so how many the throttle lets through changes no trade.
      std::vector<std::pair<std::string, int64_t>> back;  // symbol, band reference
      for (size_t i = 1; i < contracts.size(); i += 2) {
        back.emplace_back(NextMonth(contracts[i].sym), contracts[i].band_ref);
      }
      const int n = std::max(4, kBurstOrders * flaky_rate_);
      for (int k = 0; k < n; ++k) {
        const auto& [sym, ref] = back[static_cast<size_t>(k) % back.size()];
        FixOrder o;
        o.cl_ord_id = s.NextId();
        o.account = s.accounts().front();
        o.symbol = sym;
        o.side = Side::kBuy;
        o.price_ticks = ref * 96 / 100 - k / static_cast<int>(back.size());
        o.qty = 1 + k % 3;
        ++requests_.orders;
        ++requests_.orders_by_type["limit day (burst)"];
        if (absl::Status st = s.Order(o); !st.ok()) return st;
      }
      if (absl::Status st = s.WaitIdle(kAnswerTimeout); !st.ok()) return st;
      // Let the bucket refill before DELTA's barrier.
      std::this_thread::sleep_for(std::chrono::milliseconds(1100));
      return s.Barrier(kAnswerTimeout);
    }
    if (slot == kDropSlot && s.connected()) {
      s.Logout();
      // The cancels are sequenced inputs of their own: let them pass before the next slot.
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      return absl::OkStatus();
    }
    if (slot == kBackSlot && venue_port_ > 0) {
      if (absl::Status st = s.Connect(venue_port_, true); !st.ok()) return st;
      return s.Barrier(kAnswerTimeout);
    }
    return absl::OkStatus();
  }

  // One of each mistake a real client makes; the exchange answers each with its reason.
  // The last is a cancel of an order the firm knows has filled: `unknown_order`.
  absl::Status Mistakes(const std::vector<LiveContract>& contracts) {
    DemoSession& s = firms_.front()->session();
    const LiveContract& c = contracts.front();
    auto send = [&](FixOrder o) -> absl::Status {
      o.cl_ord_id = s.NextId();
      ++requests_.orders;
      ++requests_.orders_by_type["deliberate reject"];
      if (absl::Status st = s.Order(o); !st.ok()) return st;
      return s.WaitIdle(kAnswerTimeout);
    };
    FixOrder o;
    o.account = s.accounts().front();
    o.symbol = c.sym;
    o.qty = 5;
    o.price_ticks = c.band_ref * 125 / 100;  // far outside the ±10% band
    if (absl::Status st = send(o); !st.ok()) return st;
    o.price_ticks = c.mid;
    o.account = OtherFirmAccount(s);  // another firm's account
    if (absl::Status st = send(o); !st.ok()) return st;
    o.account = s.accounts().front();
    o.qty = 5000;  // above the maximum order quantity
    if (absl::Status st = send(o); !st.ok()) return st;
    o.qty = 5;
    o.price_ticks = 0;
    o.price_text = FormatPriceTicks(c.mid) + "5";  // 0.0005: off tick
    if (absl::Status st = send(o); !st.ok()) return st;
    ++requests_.cancels;
    if (absl::Status st = s.Cancel(s.NextId(), "no-such-order", c.sym); !st.ok()) return st;
    if (absl::Status st = s.WaitIdle(kAnswerTimeout); !st.ok()) return st;
    // Too late: the order filled before this cancel was sent.
    DemoSession& taker = firms_.back()->session();
    const std::string filled = taker.LastFilled();
    if (!filled.empty()) {
      ++requests_.cancels;
      ++requests_.late_cancels;
      if (absl::Status st = taker.Cancel(taker.NextId(), filled, c.sym); !st.ok()) return st;
      if (absl::Status st = taker.WaitIdle(kAnswerTimeout); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  std::string OtherFirmAccount(DemoSession& mine) {
    for (auto& s : sessions_) {
      if (s.get() != &mine) return s->accounts().front();
    }
    return "NOBODY-1";
  }

  absl::Status FetchBook(Venue& venue, common::Date day) {
    absl::StatusOr<HttpClient> http = HttpClient::Connect("127.0.0.1", venue.http_port());
    if (!http.ok()) return http.status();
    const std::string token = DemoToken(common::TokenRole::kFirm, md_session_->firm());
    absl::StatusOr<HttpClientResponse> r =
        http->Get("/v1/book/" + result_.md_symbol + "?depth=10", token);
    if (!r.ok()) return r.status();
    if (r->status != 200) {
      return absl::InternalError("GET /v1/book/" + result_.md_symbol + ": HTTP " +
                                 std::to_string(r->status) + " " + r->body);
    }
    result_.book_at_close = r->body;
    result_.book_date = day;
    return absl::OkStatus();
  }

  // The report's totals: every session's counts (they run on across days).
  void Totalize() {
    TradingResult& r = result_;
    r.orders = requests_.orders;
    r.quotes = requests_.quotes;
    r.cancels = requests_.cancels;
    r.replaces = requests_.replaces;
    r.deliberate_late_cancels = requests_.late_cancels;
    r.orders_by_type = requests_.orders_by_type;
    r.exec_reports = r.fills = r.volume = r.closing_window_trades = 0;
    r.rejects.clear();
    r.cancel_rejects.clear();
    r.md_rejects.clear();
    r.cancels_by_reason.clear();
    r.trades_by_symbol.clear();
    r.volume_by_symbol.clear();
    for (auto& s : sessions_) {
      const SessionCounts c = s->Counts();
      r.exec_reports += c.exec_reports;
      r.fills += c.fills;
      r.volume += c.fill_qty;
      r.closing_window_trades += c.closing_fills;
      for (const auto& [k, v] : c.rejects) r.rejects[k] += v;
      for (const auto& [k, v] : c.cancel_rejects) r.cancel_rejects[k] += v;
      for (const auto& [k, v] : c.md_rejects) r.md_rejects[k] += v;
      for (const auto& [k, v] : c.cancels_by_reason) r.cancels_by_reason[k] += v;
      for (const auto& [k, v] : c.fills_by_symbol) r.trades_by_symbol[k] += v;
      for (const auto& [k, v] : c.qty_by_symbol) r.volume_by_symbol[k] += v;
    }
    // Every trade gives one fill report to each side.
    r.trades = r.fills / 2;
    r.volume /= 2;
    r.closing_window_trades /= 2;
    for (auto& [k, v] : r.trades_by_symbol) v /= 2;
    for (auto& [k, v] : r.volume_by_symbol) v /= 2;
    r.throttled = r.rejects.count("throttled") ? r.rejects.at("throttled") : 0;
    r.disconnect_cancels =
        r.cancels_by_reason.count("disconnect") ? r.cancels_by_reason.at("disconnect") : 0;
    const SessionCounts md = md_session_->Counts();
    r.md_snapshots = md.received.count("W") ? md.received.at("W") : 0;
    r.md_incrementals = md.received.count("X") ? md.received.at("X") : 0;
  }

  const common::ExchangeConfig& config_;
  const DemoPaths paths_;
  Rng rng_;
  const int orders_per_day_;
  std::ostream& log_;
  std::atomic<bool> closing_{false};
  std::vector<std::unique_ptr<DemoSession>> sessions_;
  std::vector<std::unique_ptr<Firm>> firms_;
  DemoSession* md_session_ = nullptr;
  DemoSession* flaky_ = nullptr;
  int flaky_rate_ = 0;
  int venue_port_ = 0;
  std::optional<common::SessionConfig> drop_copy_config_;
  std::unique_ptr<FixClient> drop_copy_;
  int64_t firm_reports_at_logon_ = 0;
  RequestCounts requests_;
  TradingResult result_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<TradingFloor>> NewTradingFloor(const common::ExchangeConfig& config,
                                                              const DemoPaths& paths, uint64_t seed,
                                                              int orders_per_day,
                                                              std::ostream& log) {
  auto floor = std::make_unique<Floor>(config, paths, seed, orders_per_day, log);
  if (absl::Status s = floor->Init(); !s.ok()) return s;
  return floor;
}

}  // namespace cfx::demo
