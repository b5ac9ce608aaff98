#include "cfx/perf/soak_bench.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/client/fix_client.h"
#include "cfx/common/config.h"
#include "cfx/common/date.h"
#include "cfx/engine/command.h"
#include "cfx/exchange/engine_codec.h"
#include "cfx/gateway/exchange_server.h"
#include "cfx/journal/journal.h"
#include "nlohmann/json.hpp"
#include "timing.h"
#include "work_dir.h"

namespace cfx::perf {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kSymbol[] = "B200-GOLD-US-202703";
constexpr int64_t kRefTicks = 5000;
const char* const kFirms[2] = {"SOAKA", "SOAKB"};
const char* const kAccounts[2] = {"SOAKA-1", "SOAKB-1"};

std::string SessionName(int i) { return "SOAK_" + std::to_string(i); }

// Two firms (so that crossing orders trade instead of meeting self-trade prevention), one
// account each with ample collateral, sessions alternating between them with
// cancel-on-disconnect, one grade listed from March 2027.
common::ExchangeConfig SoakConfig(const std::string& data_dir, const SoakOptions& o) {
  common::ExchangeConfig c;
  c.source = "soak";
  c.data_dir = data_dir;
  c.fix_port = 0;
  c.http_port = 0;
  c.snapshot_interval = static_cast<int>(o.snapshot_interval);
  c.limits.fix_max_connections_per_peer = 2 * o.sessions + 4;
  // Two accounts take every session's resting orders for minutes: the soak measures churn
  // and recovery, not the cap on an account's live orders.
  c.limits.max_open_orders_per_account = 0;
  for (int f = 0; f < 2; ++f) {
    c.firms.push_back({kFirms[f], kFirms[f]});
    c.accounts.push_back(
        {kAccounts[f], kFirms[f], common::MicroUsd(int64_t{1'000'000'000} * 1'000'000)});
  }
  for (int i = 0; i < o.sessions; ++i) {
    common::SessionConfig s;
    s.sender_comp_id = SessionName(i);
    s.firm = kFirms[i % 2];
    s.cancel_on_disconnect = true;
    s.throttle_msgs_per_sec = o.throttle_msgs_per_sec;
    s.reset_on_logon = true;
    c.sessions.push_back(s);
  }
  common::ProductConfig p;
  p.grade = common::Grade{"B200", common::Tier::kGold, "US"};
  p.ref_ticks = kRefTicks;
  p.max_order_qty = 1000;
  c.products.push_back(p);
  return c;
}

gateway::ExchangeServerOptions ServerOptions() {
  gateway::ExchangeServerOptions so;
  so.manual_clock = true;
  so.start_time = *common::ParseTimestamp("2027-03-01T14:00:00Z") * 1000;
  return so;
}

// A line of /proc/self/status ("RssAnon:  1234 kB"), MiB; 0 when absent.
double StatusMib(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size() + 1, key + ":") == 0) {
      return std::strtod(line.c_str() + key.size() + 1, nullptr) / 1024.0;
    }
  }
  return 0;
}

// Allocated size of a file (LMDB's are sparse: their length is the map, not the data).
double AllocatedMib(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0;
  return static_cast<double>(st.st_blocks) * 512 / (1 << 20);
}

// Counters and latencies of one interval, shared by every session's callback.
// Thread safety: mu_ guards everything.
class IntervalStats {
 public:
  void Count(int64_t SoakInterval::*field) {
    std::lock_guard<std::mutex> lock(mu_);
    current_.*field += 1;
  }
  void Latency(int64_t ns) {
    std::lock_guard<std::mutex> lock(mu_);
    latencies_.push_back(ns);
  }
  // Ends the interval: returns its counters and percentiles and starts the next.
  SoakInterval Take() {
    std::vector<int64_t> ns;
    SoakInterval out;
    {
      std::lock_guard<std::mutex> lock(mu_);
      out = current_;
      current_ = SoakInterval();
      ns.swap(latencies_);
    }
    std::sort(ns.begin(), ns.end());
    out.p50_us = internal::PercentileUs(ns, 0.50);
    out.p99_us = internal::PercentileUs(ns, 0.99);
    out.p999_us = internal::PercentileUs(ns, 0.999);
    return out;
  }

 private:
  std::mutex mu_;
  SoakInterval current_;
  std::vector<int64_t> latencies_;
};

// One session's load: its own thread sends, QuickFIX's session thread reports back.
// Order n of session i is "s<i>-<n>"; `acked` has bit n set once ExecType 0 came for it
// (a bit per order keeps the harness's own memory flat enough not to hide the exchange's).
class SessionLoad {
 public:
  SessionLoad(int index, const SoakOptions& options, const std::string& store_dir, int port,
              IntervalStats* stats)
      : index_(index),
        options_(options),
        store_dir_(store_dir),
        port_(port),
        stats_(stats),
        rng_(0x5eed + index) {}

  // Runs until `stop`; Unavailable when a Logon fails twice in a row.
  absl::Status Run(const std::atomic<bool>& stop) {
    std::exponential_distribution<double> reconnect(1.0 / options_.reconnect_every_s);
    std::exponential_distribution<double> burst(1.0 / options_.burst_every_s);
    int failures = 0;
    Clock::time_point next_burst = Clock::now() + Seconds(burst(rng_));
    while (!stop.load()) {
      client::FixClient session(Options());
      session.SetQueueing(false);
      session.SetCallback([this](const client::FixMessage& m) { OnMessage(m); });
      if (absl::Status s = session.Logon(std::chrono::seconds(10)); !s.ok()) {
        if (++failures >= 2) return s;
        continue;
      }
      failures = 0;
      stats_->Count(&SoakInterval::logons);
      live_.clear();  // cancel-on-disconnect ended the last connection's orders
      {
        std::lock_guard<std::mutex> lock(mu_);
        sent_at_.clear();  // orders whose answer the last connection did not see
      }
      const Clock::time_point until = Clock::now() + Seconds(reconnect(rng_));
      Clock::time_point next = Clock::now();
      while (!stop.load() && Clock::now() < until && session.logged_on()) {
        // A burst: twice the throttle at once, then a second's pause.
        const bool bursting = Clock::now() >= next_burst;
        const int count = bursting ? 2 * options_.throttle_msgs_per_sec : 1;
        for (int k = 0; k < count; ++k) SendOne(session);
        if (bursting) next_burst = Clock::now() + Seconds(burst(rng_));
        next += bursting ? std::chrono::seconds(1)
                         : std::chrono::microseconds(1'000'000 / options_.orders_per_sec);
        std::this_thread::sleep_until(next);
      }
      session.Logout(std::chrono::seconds(5));
    }
    return absl::OkStatus();
  }

  // Orders acknowledged (bit n: order n).
  std::vector<bool> acked() const {
    std::lock_guard<std::mutex> lock(mu_);
    return acked_;
  }

 private:
  static Clock::duration Seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }

  client::FixClientOptions Options() const {
    client::FixClientOptions o;
    o.sender_comp_id = SessionName(index_);
    o.port = port_;
    o.store_dir = store_dir_;
    o.reset_on_logon = true;
    return o;
  }

  // 55% resting limit orders near the reference, 15% crossing, 20% cancels, 10% replaces.
  void SendOne(client::FixClient& session) {
    const int pick = static_cast<int>(rng_() % 100);
    const client::Side side = rng_() % 2 ? client::Side::kBuy : client::Side::kSell;
    absl::Status sent;
    if (pick < 70 || live_.empty()) {
      client::FixOrder o;
      const int64_t n = next_order_++;
      o.cl_ord_id = absl::StrCat("s", index_, "-", n);
      o.account = kAccounts[index_ % 2];
      o.symbol = kSymbol;
      o.side = side;
      o.qty = 1 + static_cast<int64_t>(rng_() % 20);
      const int64_t offset = 1 + static_cast<int64_t>(rng_() % 40);
      const bool cross = pick >= 55 && pick < 70;
      const bool buy = side == client::Side::kBuy;
      o.price_ticks = kRefTicks + ((buy != cross) ? -offset : offset);
      {
        std::lock_guard<std::mutex> lock(mu_);
        sent_at_[o.cl_ord_id] = Clock::now();
      }
      sent = session.SendOrder(o);
      if (sent.ok()) live_.emplace_back(o.cl_ord_id, side);
    } else {
      const size_t at = rng_() % live_.size();
      const auto [orig, orig_side] = live_[at];
      live_[at] = live_.back();
      live_.pop_back();
      if (pick < 90) {
        sent = session.SendCancel(absl::StrCat(orig, "-c"), orig, kAccounts[index_ % 2], kSymbol,
                                  orig_side);
      } else {
        client::FixReplace r;
        r.cl_ord_id = absl::StrCat(orig, "-r");
        r.orig_cl_ord_id = orig;
        r.account = kAccounts[index_ % 2];
        r.symbol = kSymbol;
        r.side = orig_side;
        r.qty = 1 + static_cast<int64_t>(rng_() % 20);
        sent = session.SendReplace(r);
      }
    }
    if (sent.ok()) stats_->Count(&SoakInterval::sent);
  }

  // On QuickFIX's session thread.
  void OnMessage(const client::FixMessage& m) {
    if (m.msg_type == "9") {
      stats_->Count(&SoakInterval::rejects);
      return;
    }
    if (m.msg_type != "8") return;
    const char type = m.exec_type();
    if (type == 'F') stats_->Count(&SoakInterval::fills);
    if (type != '0' && type != '8') return;
    const std::string cl = m.Get(11);
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = sent_at_.find(cl); it != sent_at_.end()) {
      stats_->Latency(
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - it->second).count());
      sent_at_.erase(it);
    }
    if (type == '8') {
      stats_->Count(&SoakInterval::rejects);
      if (m.Get(58).find("throttl") != std::string::npos) stats_->Count(&SoakInterval::throttled);
      return;
    }
    stats_->Count(&SoakInterval::acks);
    const std::string prefix = absl::StrCat("s", index_, "-");
    if (cl.compare(0, prefix.size(), prefix) != 0) return;
    const size_t n = std::strtoull(cl.c_str() + prefix.size(), nullptr, 10);
    if (cl.find('-', prefix.size()) != std::string::npos) return;  // a cancel or replace id
    if (n >= acked_.size()) acked_.resize(n + 1 + n / 2, false);
    acked_[n] = true;
  }

  const int index_;
  const SoakOptions options_;
  const std::string store_dir_;
  const int port_;
  IntervalStats* const stats_;
  std::mt19937_64 rng_;     // the sending thread's
  int64_t next_order_ = 0;  // the sending thread's
  // The sending thread's: orders it may cancel or replace.
  std::vector<std::pair<std::string, client::Side>> live_;

  mutable std::mutex mu_;  // guards what the callback touches
  std::unordered_map<std::string, Clock::time_point> sent_at_;
  std::vector<bool> acked_;
};

// The end of a trading day: DAY orders expire at the close, the clock moves to `next_day`
// (the engine forgets the day's ended ClOrdIDs), then pre-open and open.
absl::Status EndDay(exchange::ExchangeCore& core, engine::Timestamp next_day) {
  if (absl::Status s = core.CloseAll(); !s.ok()) return s;
  if (core.AdvanceTime(next_day) != exchange::OfferResult::kAccepted) {
    return absl::UnavailableError("soak: the exchange refused the next day's time");
  }
  if (absl::Status s = core.PreOpenAll(); !s.ok()) return s;
  return core.OpenAll();
}

// Restarts the exchange on `data_dir` and returns what recovery found; stops it again.
absl::StatusOr<exchange::RecoveryInfo> Restart(const common::ExchangeConfig& config) {
  gateway::ExchangeServer server(config, ServerOptions());
  if (absl::Status s = server.Start(); !s.ok()) return s;
  exchange::RecoveryInfo info = server.recovery();
  if (absl::Status s = server.Stop(); !s.ok()) return s;
  return info;
}

// Every NewOrder in the journal, by session and order number.
absl::Status JournaledOrders(const std::string& data_dir, int sessions,
                             std::vector<std::vector<bool>>* out, uint64_t* records) {
  journal::JournalOptions jo;
  jo.data_dir = data_dir;
  jo.read_only = true;
  absl::StatusOr<std::unique_ptr<journal::Journal>> j = journal::Journal::Open(jo);
  if (!j.ok()) return j.status();
  out->assign(sessions, {});
  exchange::EngineCodec codec;
  absl::Status bad;
  absl::Status read = (*j)->ReadFrom(1, [&](uint64_t seq, absl::string_view payload) {
    ++*records;
    engine::Command command;
    int64_t time_us = 0;
    if (absl::Status s = journal::DecodeInput(payload, codec, &time_us, &command); !s.ok()) {
      bad = absl::DataLossError(absl::StrCat("journal record ", seq, ": ", s.message()));
      return false;
    }
    const auto* order = std::get_if<engine::NewOrderCmd>(&command);
    if (order == nullptr) return true;
    const std::string cl(order->cl.view());
    int session = -1;
    size_t n = 0;
    if (std::sscanf(cl.c_str(), "s%d-%zu", &session, &n) != 2 || session < 0 ||
        session >= sessions || cl.find('-', cl.find('-') + 1) != std::string::npos) {
      return true;
    }
    std::vector<bool>& bits = (*out)[session];
    if (n >= bits.size()) bits.resize(n + 1 + n / 2, false);
    bits[n] = true;
    return true;
  });
  return bad.ok() ? read : bad;
}

}  // namespace

absl::StatusOr<SoakResult> RunSoak(const SoakOptions& options) {
  if (options.sessions < 1 || options.orders_per_sec < 1 || options.minutes <= 0 ||
      options.interval_s < 1 || options.throttle_msgs_per_sec < options.orders_per_sec) {
    return absl::InvalidArgumentError(
        "soak: need sessions >= 1, orders_per_sec >= 1, minutes > 0, interval_s >= 1 and a "
        "throttle at least the order rate");
  }
  const bool temporary = options.dir.empty();
  const std::string dir =
      temporary ? internal::MakeTempDir("/tmp/cfx_bench_soak_XXXXXX") : options.dir;
  if (dir.empty() || !internal::MakeDirs(dir)) return absl::UnavailableError("soak: no work dir");
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      if (!dir.empty()) internal::RemoveDirQuietly(dir);
    }
  } cleanup{temporary ? dir : ""};

  const std::string data_dir = dir + "/data";
  const common::ExchangeConfig config = SoakConfig(data_dir, options);
  SoakResult result;
  result.options = options;

  auto server = std::make_unique<gateway::ExchangeServer>(config, ServerOptions());
  if (absl::Status s = server->Start(); !s.ok()) return s;

  IntervalStats stats;
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<SessionLoad>> loads;
  std::vector<absl::Status> statuses(options.sessions);
  std::vector<std::thread> threads;
  for (int i = 0; i < options.sessions; ++i) {
    loads.push_back(std::make_unique<SessionLoad>(i, options, dir + "/client/" + SessionName(i),
                                                  server->fix_port(), &stats));
  }
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < options.sessions; ++i) {
    threads.emplace_back([&, i] { statuses[i] = loads[i]->Run(stop); });
  }
  std::atomic<int64_t> days{0};
  absl::Status day_status;
  std::thread day_clock;
  if (options.day_every_s > 0) {
    day_clock = std::thread([&] {
      engine::Timestamp today = ServerOptions().start_time;
      Clock::time_point next = start;
      for (;;) {
        next += std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(options.day_every_s));
        while (!stop.load() && Clock::now() < next) {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        if (stop.load()) return;
        today += int64_t{86'400} * 1'000'000'000;
        if (absl::Status s = EndDay(server->core(), today); !s.ok()) {
          day_status = s;
          return;
        }
        days.fetch_add(1);
      }
    });
  }
  const Clock::time_point end = start + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>(options.minutes * 60));
  for (Clock::time_point next = start + std::chrono::seconds(options.interval_s);;
       next += std::chrono::seconds(options.interval_s)) {
    std::this_thread::sleep_until(std::min(next, end));
    SoakInterval iv = stats.Take();
    iv.end_s = std::chrono::duration<double>(Clock::now() - start).count();
    iv.rss_mib = StatusMib("VmRSS");
    iv.heap_mib = StatusMib("RssAnon");
    iv.mapped_mib = StatusMib("RssFile");
    iv.days = days.load();
    iv.journal_mib = AllocatedMib(data_dir + "/journal/data.mdb");
    const exchange::ExchangeStats core = server->core().Stats();
    iv.snapshots = core.snapshots_written;
    iv.inputs = core.inputs;
    if (options.log) {
      *options.log << absl::StrFormat(
          "soak %6.0f s: %d sent, %d acks, %d fills, %d rejects (%d throttled), %d logons, "
          "p50 %.0f us, p99 %.0f us, rss %.0f MiB (heap %.0f, mapped %.0f), journal %.1f MiB, "
          "%d snapshots, %d days\n",
          iv.end_s, iv.sent, iv.acks, iv.fills, iv.rejects, iv.throttled, iv.logons, iv.p50_us,
          iv.p99_us, iv.rss_mib, iv.heap_mib, iv.mapped_mib, iv.journal_mib, iv.snapshots, iv.days);
    }
    result.intervals.push_back(iv);
    if (Clock::now() >= end) break;
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  if (day_clock.joinable()) day_clock.join();
  if (!day_status.ok()) return day_status;
  for (const absl::Status& s : statuses) {
    if (!s.ok()) return s;
  }
  if (absl::Status s = server->core().Flush(); !s.ok()) return s;
  result.next_seq_at_stop = server->core().Stats().next_seq;
  if (absl::Status s = server->Stop(); !s.ok()) return s;
  server.reset();

  // Restart twice: recovery reaches everything the load ended with, and gives the same
  // state both times (a start journals its own inputs, the month's listing among them,
  // which leave the engine's state as it was).
  const Clock::time_point restart = Clock::now();
  absl::StatusOr<exchange::RecoveryInfo> first = Restart(config);
  if (!first.ok()) return first.status();
  result.restart_s = std::chrono::duration<double>(Clock::now() - restart).count();
  absl::StatusOr<exchange::RecoveryInfo> second = Restart(config);
  if (!second.ok()) return second.status();
  result.next_seq_recovered = first->next_seq;
  result.state_hash_first = first->state_hash;
  result.state_hash_second = second->state_hash;

  std::vector<std::vector<bool>> journaled;
  if (absl::Status s =
          JournaledOrders(data_dir, options.sessions, &journaled, &result.journal_records);
      !s.ok()) {
    return s;
  }
  for (int i = 0; i < options.sessions; ++i) {
    const std::vector<bool> acked = loads[i]->acked();
    for (size_t n = 0; n < acked.size(); ++n) {
      if (!acked[n]) continue;
      ++result.acked_orders;
      if (n >= journaled[i].size() || !journaled[i][n]) ++result.acked_missing;
    }
  }
  result.ok = result.acked_missing == 0 && result.acked_orders > 0 &&
              result.next_seq_recovered >= result.next_seq_at_stop &&
              result.state_hash_first == result.state_hash_second;
  return result;
}

void PrintSoak(const SoakResult& r, std::ostream& out) {
  nlohmann::json intervals = nlohmann::json::array();
  for (const SoakInterval& iv : r.intervals) {
    intervals.push_back({{"end_s", iv.end_s},
                         {"sent", iv.sent},
                         {"acks", iv.acks},
                         {"fills", iv.fills},
                         {"rejects", iv.rejects},
                         {"throttled", iv.throttled},
                         {"logons", iv.logons},
                         {"p50_us", iv.p50_us},
                         {"p99_us", iv.p99_us},
                         {"p999_us", iv.p999_us},
                         {"rss_mib", iv.rss_mib},
                         {"heap_mib", iv.heap_mib},
                         {"mapped_mib", iv.mapped_mib},
                         {"days", iv.days},
                         {"journal_mib", iv.journal_mib},
                         {"snapshots", iv.snapshots},
                         {"inputs", iv.inputs}});
  }
  // Yardstick: the first interval after warm-up (the second, when there is one).
  const SoakInterval* base = nullptr;
  const SoakInterval* last = nullptr;
  if (!r.intervals.empty()) {
    base = &r.intervals[r.intervals.size() > 2 ? 1 : 0];
    last = &r.intervals.back();
  }
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  if (base != nullptr) {
    out << absl::StrFormat(
        "soak: p99 %.0f us at %.0f s (yardstick) vs %.0f us at the end: ratio %.2f; heap %.0f MiB "
        "vs %.0f MiB: ratio %.2f; rss %.0f MiB vs %.0f MiB (LMDB maps %.0f vs %.0f)\n",
        base->p99_us, base->end_s, last->p99_us, ratio(last->p99_us, base->p99_us), base->heap_mib,
        last->heap_mib, ratio(last->heap_mib, base->heap_mib), base->rss_mib, last->rss_mib,
        base->mapped_mib, last->mapped_mib);
  }
  out << absl::StrFormat(
      "soak: %d orders acknowledged, %d missing from the journal (%d records); recovered to seq "
      "%d (load ended at %d) in %.2f s; state hash %016x and %016x on two restarts: %s\n",
      r.acked_orders, r.acked_missing, r.journal_records, r.next_seq_recovered, r.next_seq_at_stop,
      r.restart_s, r.state_hash_first, r.state_hash_second, r.ok ? "ok" : "FAILED");
  nlohmann::json j = {{"bench", "soak"},
                      {"minutes", r.options.minutes},
                      {"sessions", r.options.sessions},
                      {"orders_per_sec_per_session", r.options.orders_per_sec},
                      {"acked_orders", r.acked_orders},
                      {"acked_missing", r.acked_missing},
                      {"journal_records", r.journal_records},
                      {"restart_s", r.restart_s},
                      {"p99_ratio", base ? ratio(last->p99_us, base->p99_us) : 0.0},
                      {"rss_ratio", base ? ratio(last->rss_mib, base->rss_mib) : 0.0},
                      {"heap_ratio", base ? ratio(last->heap_mib, base->heap_mib) : 0.0},
                      {"ok", r.ok},
                      {"intervals", intervals}};
  out << j.dump() << std::endl;
}

}  // namespace cfx::perf
